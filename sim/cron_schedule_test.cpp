// CronHPA schedules against the tests of the cron library the controller vendors,
// github.com/ringtail/go-cron at cfb21c105f5075946c1d70f7b0eb4ed7613c636d (the version in
// kubernetes-cronhpa-controller's vendor/modules.txt; a fork of robfig/cron v1):
//  * parser_test.go: TestRange, TestField, TestAll, TestBits, TestParse, TestParseDateSchedule.
//  * spec_test.go: TestActivation, TestNext, TestNextWithTz, TestErrors.
//  * constantdelay_test.go: TestConstantDelayNext.
// All of them run `cron.Parse`, the parser the controller uses (5 or 6 fields, seconds first,
// descriptors), so all apply. Upstream's times without a zone are UTC (time.Parse); here they
// are Unix seconds at offset 0.
//
// Translated with a difference:
//  * TestRange and TestField call getRange / getField with made-up bounds (0-7, 1-3, 3-5, 1-7).
//    Here the items run through ParseCronField on a real field whose range gives the same bits
//    (the hour field for 0-7 and 1-7; the month field for "*" over 1-3), and the bound errors
//    become the same errors on real fields ("1" below 3 → day-of-month 0; "6" above 5 → hour 24).
//  * TestNext's daylight-saving cases run in America/New_York. There is no DST here: the rows
//    whose answer is the same instant at the starting time's fixed offset are run as they are;
//    the others are pinned, with the fixed-offset answer, in "without DST" below.
//  * TestConstantDelayNext's sub-second cases ("14:45:00.005", "15m50ns" added to a time with
//    nanoseconds) have no counterpart in whole seconds; the delays' rounding is kept ("@every
//    15m50ns" is 15 min, "@every 15ms" is 1 s).
//  * TestParseDateSchedule only logs its third case ("2020-10-27 19:50:00"); it parses.
//  * TestParse's "@every 5m" expects ConstantDelaySchedule{5 min}: here every_s = 300.
// Not translated: TestStandardSpecSchedule (ParseStandard, the 5-field minute-first parser the
// controller never uses); cron_test.go (the goroutine engine).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cron_schedule.h"

namespace knobsim {
namespace {

constexpr uint64_t kStar = kCronStarBit;
constexpr int32_t kUtc = 0;
constexpr int32_t kShanghai = 8 * 3600;  // Asia/Shanghai, the deploy.yaml TZ

int64_t Utc(int64_t y, int mo, int d, int h, int mi, int s = 0) {
  return UnixAtWallClock(y, mo, d, h, mi, s, kUtc);
}

// "2012-03-11T00:00:00-0500": the wall clock at an offset of hhmm.
int64_t At(int64_t y, int mo, int d, int h, int mi, int s, int hhmm) {
  const int sign = hhmm < 0 ? -1 : 1;
  const int a = hhmm * sign;
  return UnixAtWallClock(y, mo, d, h, mi, s, sign * ((a / 100) * 3600 + (a % 100) * 60));
}

CronSchedule MustParse(std::string_view text) {
  Expected<CronSchedule> s = ParseCronSchedule(text);
  INFO("schedule: ", std::string(text));
  INFO("error: ", s.ok() ? std::string() : s.error().message);
  REQUIRE(s.ok());
  return *s;
}

uint64_t Bits(std::initializer_list<int> values) {
  uint64_t b = 0;
  for (int v : values) b |= uint64_t{1} << v;
  return b;
}

uint64_t Span(int lo, int hi) {
  uint64_t b = 0;
  for (int v = lo; v <= hi; ++v) b |= uint64_t{1} << v;
  return b;
}

std::string Cat6(std::string_view a, std::string_view b, std::string_view c, std::string_view d,
                 std::string_view e, std::string_view f) {
  std::string out;
  for (std::string_view p : {a, b, c, d, e, f}) {
    if (!out.empty()) out.push_back(' ');
    out.append(p);
  }
  return out;
}

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// ---------------------------------------------------------------------------------------------
// parser_test.go

TEST_CASE("CronSchedule: TestRange (go-cron parser_test.go)") {
  struct Case {
    std::string_view expr;
    CronField field;
    uint64_t expected;
    std::string_view error;  // a part of our message; empty: no error
  };
  constexpr CronField kHour = CronField::kHour;
  const std::vector<Case> cases = {
      {"5", kHour, Bits({5}), ""},
      {"0", kHour, Bits({0}), ""},
      {"7", kHour, Bits({7}), ""},
      {"5-5", kHour, Bits({5}), ""},
      {"5-6", kHour, Bits({5, 6}), ""},
      {"5-7", kHour, Bits({5, 6, 7}), ""},
      {"5-6/2", kHour, Bits({5}), ""},
      {"5-7/2", kHour, Bits({5, 7}), ""},
      {"5-7/1", kHour, Bits({5, 6, 7}), ""},
      {"*", CronField::kMonth, Span(1, 12) | kStar, ""},
      {"*/2", CronField::kMonth, Bits({1, 3, 5, 7, 9, 11}) | kStar, ""},
      {"5--5", kHour, 0, "too many hyphens"},
      {"jan-x", CronField::kMonth, 0, "\"x\" is not a number or a month name"},
      {"2-x", kHour, 0, "\"x\" is not a number"},
      {"*/-12", kHour, 0, "negative number -12"},
      {"*//2", kHour, 0, "too many slashes"},
      {"0", CronField::kDayOfMonth, 0, "the day-of-month field 0 is out of range 1-31"},
      {"24", kHour, 0, "the hour field 24 is out of range 0-23"},
      {"5-3", kHour, 0, "starts after it ends (5 > 3)"},
      {"*/0", kHour, 0, "has a step of 0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.expr);
    Expected<uint64_t> got = ParseCronField(c.expr, c.field);
    if (c.error.empty()) {
      REQUIRE(got.ok());
      CHECK(*got == c.expected);
    } else {
      REQUIRE_FALSE(got.ok());
      CAPTURE(got.error().message);
      CHECK(Contains(got.error().message, c.error));
    }
  }
}

TEST_CASE("CronSchedule: TestField (go-cron parser_test.go)") {
  struct Case {
    std::string_view expr;
    uint64_t expected;
  };
  const std::vector<Case> cases = {
      {"5", Bits({5})},
      {"5,6", Bits({5, 6})},
      {"5,6,7", Bits({5, 6, 7})},
      {"1,5-7/2,3", Bits({1, 5, 7, 3})},
  };
  for (const Case& c : cases) {
    CAPTURE(c.expr);
    Expected<uint64_t> got = ParseCronField(c.expr, CronField::kHour);
    REQUIRE(got.ok());
    CHECK(*got == c.expected);
  }
}

TEST_CASE("CronSchedule: TestAll, a star sets the whole range and the star bit (go-cron)") {
  struct Case {
    CronField field;
    uint64_t expected;
  };
  const std::vector<Case> cases = {
      {CronField::kSecond, 0xfffffffffffffff},  // 0-59
      {CronField::kMinute, 0xfffffffffffffff},  // 0-59
      {CronField::kHour, 0xffffff},             // 0-23
      {CronField::kDayOfMonth, 0xfffffffe},     // 1-31
      {CronField::kMonth, 0x1ffe},              // 1-12
      {CronField::kDayOfWeek, 0x7f},            // 0-6
  };
  for (const Case& c : cases) {
    CAPTURE(CronFieldName(c.field));
    CHECK(*ParseCronField("*", c.field) == (c.expected | kStar));
    CHECK(*ParseCronField("?", c.field) == (c.expected | kStar));
  }
}

TEST_CASE("CronSchedule: TestBits (go-cron parser_test.go)") {
  CHECK(*ParseCronField("0", CronField::kHour) == 0x1);
  CHECK(*ParseCronField("1", CronField::kHour) == 0x2);
  CHECK(*ParseCronField("1-5/2", CronField::kHour) == 0x2a);  // 101010
  CHECK(*ParseCronField("1-4/2", CronField::kHour) == 0xa);   // 1010
}

TEST_CASE("CronSchedule: TestParse (go-cron parser_test.go)") {
  SUBCASE("* 5 * * * *") {
    const CronSchedule s = MustParse("* 5 * * * *");
    CHECK(s.second == (Span(0, 59) | kStar));
    CHECK(s.minute == Bits({5}));
    CHECK(s.hour == (Span(0, 23) | kStar));
    CHECK(s.day_of_month == (Span(1, 31) | kStar));
    CHECK(s.month == (Span(1, 12) | kStar));
    CHECK(s.day_of_week == (Span(0, 6) | kStar));
    CHECK(s.every_s == 0);
  }
  SUBCASE("@every 5m") {
    const CronSchedule s = MustParse("@every 5m");
    CHECK(s.every_s == 300);
    CHECK(s.second == 0);
  }
  SUBCASE("@yearly and @annually") {
    for (std::string_view text : {"@yearly", "@annually"}) {
      CAPTURE(text);
      const CronSchedule s = MustParse(text);
      CHECK(s.second == Bits({0}));
      CHECK(s.minute == Bits({0}));
      CHECK(s.hour == Bits({0}));
      CHECK(s.day_of_month == Bits({1}));
      CHECK(s.month == Bits({1}));
      CHECK(s.day_of_week == (Span(0, 6) | kStar));
    }
  }
  SUBCASE("errors") {
    struct Case {
      std::string_view expr;
      std::string_view error;
    };
    const std::vector<Case> cases = {
        {"* 5 j * * *", "the hour field \"j\" is not a number"},
        {"@every Xm", "\"Xm\" is not a duration"},
        {"@unrecognized", "\"@unrecognized\" is not a schedule descriptor"},
        {"* * * *", "has 4 fields; it needs 6"},
        {"", "the schedule is empty"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.expr);
      Expected<CronSchedule> got = ParseCronSchedule(c.expr);
      REQUIRE_FALSE(got.ok());
      CAPTURE(got.error().message);
      CHECK(Contains(got.error().message, c.error));
      CHECK(got.error().file.empty());
      CHECK(got.error().line == 0);
      CHECK(got.error().path.empty());
      CHECK_FALSE(got.error().hint.empty());
    }
  }
}

TEST_CASE("CronSchedule: TestParseDateSchedule, @date keeps the wall-clock fields (go-cron)") {
  const CronSchedule s = MustParse("@date 2020-10-27 19:05:00");
  CHECK(s.second == Bits({0}));
  CHECK(s.minute == Bits({5}));
  CHECK(s.hour == Bits({19}));
  CHECK(s.day_of_month == Bits({27}));
  CHECK(s.month == Bits({10}));
  CHECK(s.day_of_week == (Span(0, 6) | kStar));
  CHECK(s.from_date);
  Expected<CronSchedule> z = ParseCronSchedule("@date 2020-11-02 15:04:05Z");
  REQUIRE_FALSE(z.ok());
  CHECK(Contains(z.error().message, "extra text \"Z\""));
  CHECK(ParseCronSchedule("@date 2020-10-27 19:50:00").ok());
}

// ---------------------------------------------------------------------------------------------
// spec_test.go

TEST_CASE("CronSchedule: TestActivation, a schedule fires at exactly its times (go-cron)") {
  struct Case {
    int64_t time;
    std::string_view spec;
    bool expected;
  };
  const std::vector<Case> cases = {
      // Every fifteen minutes.
      {Utc(2012, 7, 9, 15, 0), "0 0/15 * * *", true},
      {Utc(2012, 7, 9, 15, 45), "0 0/15 * * *", true},
      {Utc(2012, 7, 9, 15, 40), "0 0/15 * * *", false},
      // Every fifteen minutes, starting at 5 minutes.
      {Utc(2012, 7, 9, 15, 5), "0 5/15 * * *", true},
      {Utc(2012, 7, 9, 15, 20), "0 5/15 * * *", true},
      {Utc(2012, 7, 9, 15, 50), "0 5/15 * * *", true},
      // Named months.
      {Utc(2012, 7, 15, 15, 0), "0 0/15 * * Jul", true},
      {Utc(2012, 7, 15, 15, 0), "0 0/15 * * Jun", false},
      // Everything set.
      {Utc(2012, 7, 15, 8, 30), "0 30 08 ? Jul Sun", true},
      {Utc(2012, 7, 15, 8, 30), "0 30 08 15 Jul ?", true},
      {Utc(2012, 7, 16, 8, 30), "0 30 08 ? Jul Sun", false},
      {Utc(2012, 7, 16, 8, 30), "0 30 08 15 Jul ?", false},
      // Predefined schedules.
      {Utc(2012, 7, 9, 15, 0), "@hourly", true},
      {Utc(2012, 7, 9, 15, 4), "@hourly", false},
      {Utc(2012, 7, 9, 15, 0), "@daily", false},
      {Utc(2012, 7, 9, 0, 0), "@daily", true},
      {Utc(2012, 7, 9, 0, 0), "@weekly", false},
      {Utc(2012, 7, 8, 0, 0), "@weekly", true},
      {Utc(2012, 7, 8, 1, 0), "@weekly", false},
      {Utc(2012, 7, 8, 0, 0), "@monthly", false},
      {Utc(2012, 7, 1, 0, 0), "@monthly", true},
      // Day of week and day of month: when both are restricted, either may match.
      {Utc(2012, 7, 15, 0, 0), "0 * * 1,15 * Sun", true},
      {Utc(2012, 6, 15, 0, 0), "0 * * 1,15 * Sun", true},
      {Utc(2012, 8, 1, 0, 0), "0 * * 1,15 * Sun", true},
      // However, if one has a star, both must match.
      {Utc(2012, 7, 15, 0, 0), "0 * * * * Mon", false},
      {Utc(2012, 7, 15, 0, 0), "0 * * */10 * Sun", false},
      {Utc(2012, 7, 9, 0, 0), "0 * * 1,15 * *", false},
      {Utc(2012, 7, 15, 0, 0), "0 * * 1,15 * *", true},
      {Utc(2012, 7, 15, 0, 0), "0 * * */2 * Sun", true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.spec);
    CAPTURE(c.time);
    const int64_t next = NextCronFire(MustParse(c.spec), c.time - 1, kUtc);
    CHECK((next == c.time) == c.expected);
  }
}

struct NextCase {
  int64_t from;
  std::string_view spec;
  int64_t expected;
  int32_t offset;
};

void CheckNext(const std::vector<NextCase>& cases) {
  for (const NextCase& c : cases) {
    CAPTURE(c.spec);
    CAPTURE(c.from);
    CHECK(NextCronFire(MustParse(c.spec), c.from, c.offset) == c.expected);
  }
}

TEST_CASE("CronSchedule: TestNext (go-cron spec_test.go)") {
  constexpr int32_t kMinus5 = -5 * 3600;
  constexpr int32_t kMinus4 = -4 * 3600;
  CheckNext({
      // Simple cases.
      {Utc(2012, 7, 9, 14, 45), "0 0/15 * * *", Utc(2012, 7, 9, 15, 0), kUtc},
      {Utc(2012, 7, 9, 14, 59), "0 0/15 * * *", Utc(2012, 7, 9, 15, 0), kUtc},
      {Utc(2012, 7, 9, 14, 59, 59), "0 0/15 * * *", Utc(2012, 7, 9, 15, 0), kUtc},
      // Wrap around hours.
      {Utc(2012, 7, 9, 15, 45), "0 20-35/15 * * *", Utc(2012, 7, 9, 16, 20), kUtc},
      // Wrap around days.
      {Utc(2012, 7, 9, 23, 46), "0 */15 * * *", Utc(2012, 7, 10, 0, 0), kUtc},
      {Utc(2012, 7, 9, 23, 45), "0 20-35/15 * * *", Utc(2012, 7, 10, 0, 20), kUtc},
      {Utc(2012, 7, 9, 23, 35, 51), "15/35 20-35/15 * * *", Utc(2012, 7, 10, 0, 20, 15), kUtc},
      {Utc(2012, 7, 9, 23, 35, 51), "15/35 20-35/15 1/2 * *", Utc(2012, 7, 10, 1, 20, 15), kUtc},
      {Utc(2012, 7, 9, 23, 35, 51), "15/35 20-35/15 10-12 * *", Utc(2012, 7, 10, 10, 20, 15), kUtc},
      {Utc(2012, 7, 9, 23, 35, 51), "15/35 20-35/15 1/2 */2 * *", Utc(2012, 7, 11, 1, 20, 15),
       kUtc},
      {Utc(2012, 7, 9, 23, 35, 51), "15/35 20-35/15 * 9-20 * *", Utc(2012, 7, 10, 0, 20, 15), kUtc},
      {Utc(2012, 7, 9, 23, 35, 51), "15/35 20-35/15 * 9-20 Jul *", Utc(2012, 7, 10, 0, 20, 15),
       kUtc},
      // Wrap around months.
      {Utc(2012, 7, 9, 23, 35), "0 0 0 9 Apr-Oct ?", Utc(2012, 8, 9, 0, 0), kUtc},
      {Utc(2012, 7, 9, 23, 35), "0 0 0 */5 Apr,Aug,Oct Mon", Utc(2012, 8, 6, 0, 0), kUtc},
      {Utc(2012, 7, 9, 23, 35), "0 0 0 */5 Oct Mon", Utc(2012, 10, 1, 0, 0), kUtc},
      // Wrap around years.
      {Utc(2012, 7, 9, 23, 35), "0 0 0 * Feb Mon", Utc(2013, 2, 4, 0, 0), kUtc},
      {Utc(2012, 7, 9, 23, 35), "0 0 0 * Feb Mon/2", Utc(2013, 2, 1, 0, 0), kUtc},
      // Wrap around minute, hour, day, month, and year.
      {Utc(2012, 12, 31, 23, 59, 45), "0 * * * * *", Utc(2013, 1, 1, 0, 0, 0), kUtc},
      // Leap year.
      {Utc(2012, 7, 9, 23, 35), "0 0 0 29 Feb ?", Utc(2016, 2, 29, 0, 0), kUtc},
      // The daylight-saving rows whose answer is the same instant at a fixed offset.
      // hourly job
      {At(2012, 3, 11, 0, 0, 0, -500), "0 0 * * * ?", At(2012, 3, 11, 1, 0, 0, -500), kMinus5},
      {At(2012, 3, 11, 1, 0, 0, -500), "0 0 * * * ?", At(2012, 3, 11, 3, 0, 0, -400), kMinus5},
      {At(2012, 3, 11, 3, 0, 0, -400), "0 0 * * * ?", At(2012, 3, 11, 4, 0, 0, -400), kMinus4},
      {At(2012, 3, 11, 4, 0, 0, -400), "0 0 * * * ?", At(2012, 3, 11, 5, 0, 0, -400), kMinus4},
      // 1am nightly job
      {At(2012, 3, 11, 0, 0, 0, -500), "0 0 1 * * ?", At(2012, 3, 11, 1, 0, 0, -500), kMinus5},
      // hourly job (fall back)
      {At(2012, 11, 4, 0, 0, 0, -400), "0 0 * * * ?", At(2012, 11, 4, 1, 0, 0, -400), kMinus4},
      {At(2012, 11, 4, 1, 0, 0, -400), "0 0 * * * ?", At(2012, 11, 4, 1, 0, 0, -500), kMinus4},
      {At(2012, 11, 4, 1, 0, 0, -500), "0 0 * * * ?", At(2012, 11, 4, 2, 0, 0, -500), kMinus5},
      // 1am nightly job (runs twice upstream): its first and last runs
      {At(2012, 11, 4, 0, 0, 0, -400), "0 0 1 * * ?", At(2012, 11, 4, 1, 0, 0, -400), kMinus4},
      {At(2012, 11, 4, 1, 0, 0, -500), "0 0 1 * * ?", At(2012, 11, 5, 1, 0, 0, -500), kMinus5},
      // 2am and 3am nightly jobs, after the change
      {At(2012, 11, 4, 2, 0, 0, -500), "0 0 2 * * ?", At(2012, 11, 5, 2, 0, 0, -500), kMinus5},
      {At(2012, 11, 4, 3, 0, 0, -500), "0 0 3 * * ?", At(2012, 11, 5, 3, 0, 0, -500), kMinus5},
      // Unsatisfiable.
      {Utc(2012, 7, 9, 23, 35), "0 0 0 30 Feb ?", kNoCronFire, kUtc},
      {Utc(2012, 7, 9, 23, 35), "0 0 0 31 Apr ?", kNoCronFire, kUtc},
  });
}

TEST_CASE("CronSchedule: TestNext's daylight-saving rows, without DST at a fixed offset") {
  // Upstream (America/New_York) on the left of each comment; the fixed offset of the starting
  // time here.
  constexpr int32_t kMinus5 = -5 * 3600;
  constexpr int32_t kMinus4 = -4 * 3600;
  CheckNext({
      // upstream 2013-03-11T02:30-0400 (02:30 does not exist on 2012-03-11)
      {At(2012, 3, 11, 0, 0, 0, -500), "0 30 2 11 Mar ?", At(2012, 3, 11, 2, 30, 0, -500), kMinus5},
      // upstream 2012-03-12T01:00-0400
      {At(2012, 3, 11, 1, 0, 0, -500), "0 0 1 * * ?", At(2012, 3, 12, 1, 0, 0, -500), kMinus5},
      // upstream 2012-03-12T02:00-0400 (the 2am run is skipped)
      {At(2012, 3, 11, 0, 0, 0, -500), "0 0 2 * * ?", At(2012, 3, 11, 2, 0, 0, -500), kMinus5},
      // upstream 2012-11-04T02:30-0500
      {At(2012, 11, 4, 0, 0, 0, -400), "0 30 2 04 Nov ?", At(2012, 11, 4, 2, 30, 0, -400), kMinus4},
      // upstream 2012-11-04T01:30-0500 (the repeated hour)
      {At(2012, 11, 4, 1, 45, 0, -400), "0 30 1 04 Nov ?", At(2013, 11, 4, 1, 30, 0, -400),
       kMinus4},
      // upstream 2012-11-04T01:00-0500 (the second 1am)
      {At(2012, 11, 4, 1, 0, 0, -400), "0 0 1 * * ?", At(2012, 11, 5, 1, 0, 0, -400), kMinus4},
      // upstream 2012-11-04T02:00-0500 and 03:00-0500
      {At(2012, 11, 4, 0, 0, 0, -400), "0 0 2 * * ?", At(2012, 11, 4, 2, 0, 0, -400), kMinus4},
      {At(2012, 11, 4, 0, 0, 0, -400), "0 0 3 * * ?", At(2012, 11, 4, 3, 0, 0, -400), kMinus4},
  });
}

TEST_CASE("CronSchedule: TestNextWithTz, a +05:30 wall clock (go-cron spec_test.go)") {
  constexpr int32_t kPlus0530 = 5 * 3600 + 30 * 60;
  CheckNext({
      {At(2016, 1, 3, 13, 9, 3, 530), "0 14 14 * * *", At(2016, 1, 3, 14, 14, 0, 530), kPlus0530},
      {At(2016, 1, 3, 4, 9, 3, 530), "0 14 14 * * ?", At(2016, 1, 3, 14, 14, 0, 530), kPlus0530},
      {At(2016, 1, 3, 14, 9, 3, 530), "0 14 14 * * *", At(2016, 1, 3, 14, 14, 0, 530), kPlus0530},
      {At(2016, 1, 3, 14, 0, 0, 530), "0 14 14 * * ?", At(2016, 1, 3, 14, 14, 0, 530), kPlus0530},
  });
}

TEST_CASE("CronSchedule: TestErrors (go-cron spec_test.go)") {
  for (std::string_view spec : {"xyz", "60 0 * * *", "0 60 * * *", "0 0 * * XYZ"}) {
    CAPTURE(spec);
    CHECK_FALSE(ParseCronSchedule(spec).ok());
  }
}

// ---------------------------------------------------------------------------------------------
// constantdelay_test.go

TEST_CASE("CronSchedule: TestConstantDelayNext, @every counts from the last run (go-cron)") {
  struct Case {
    int64_t from;
    std::string_view spec;
    int64_t expected;
  };
  const std::vector<Case> cases = {
      // Simple cases.
      {Utc(2012, 7, 9, 14, 45), "@every 15m50ns", Utc(2012, 7, 9, 15, 0)},
      {Utc(2012, 7, 9, 14, 59), "@every 15m", Utc(2012, 7, 9, 15, 14)},
      {Utc(2012, 7, 9, 14, 59, 59), "@every 15m", Utc(2012, 7, 9, 15, 14, 59)},
      // Wrap around hours.
      {Utc(2012, 7, 9, 15, 45), "@every 35m", Utc(2012, 7, 9, 16, 20)},
      // Wrap around days.
      {Utc(2012, 7, 9, 23, 46), "@every 14m", Utc(2012, 7, 10, 0, 0)},
      {Utc(2012, 7, 9, 23, 45), "@every 35m", Utc(2012, 7, 10, 0, 20)},
      {Utc(2012, 7, 9, 23, 35, 51), "@every 44m24s", Utc(2012, 7, 10, 0, 20, 15)},
      {Utc(2012, 7, 9, 23, 35, 51), "@every 25h44m24s", Utc(2012, 7, 11, 1, 20, 15)},
      // Wrap around months.
      {Utc(2012, 7, 9, 23, 35), "@every 2184h25m", Utc(2012, 10, 9, 0, 0)},
      // Wrap around minute, hour, day, month, and year.
      {Utc(2012, 12, 31, 23, 59, 45), "@every 15s", Utc(2013, 1, 1, 0, 0, 0)},
      // Round up to 1 second if the duration is less.
      {Utc(2012, 7, 9, 14, 45, 0), "@every 15ms", Utc(2012, 7, 9, 14, 45, 1)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.spec);
    CHECK(NextCronFire(MustParse(c.spec), c.from, kUtc) == c.expected);
  }
}

// ---------------------------------------------------------------------------------------------
// The parser's rules beyond upstream's tables.

TEST_CASE("CronSchedule: error messages name the field and the value") {
  struct Case {
    std::string_view spec;
    std::string_view message;
    std::string_view hint;  // a part of the hint; empty: not checked
  };
  const std::vector<Case> cases = {
      {"0 0 25 * * *", "the hour field 25 is out of range 0-23", ""},
      {"61 * * * * *", "the second field 61 is out of range 0-59", ""},
      {"0 60 * * * *", "the minute field 60 is out of range 0-59", ""},
      {"0 0 8 0 * *", "the day-of-month field 0 is out of range 1-31", ""},
      {"0 0 8 * 13 *", "the month field 13 is out of range 1-12", ""},
      {"0 0 8 * * 7", "the day-of-week field 7 is out of range 0-6", "Sunday is 0"},
      {"0 0 20-25 * * *", "the hour field \"20-25\": 25 is out of range 0-23", ""},
      {"0 0 1,25 * * *", "the hour field \"1,25\": 25 is out of range 0-23", ""},
      {"0 0 8 * * MON-FOO",
       "the day-of-week field \"MON-FOO\": \"FOO\" is not a number or a day name", "SUN-SAT"},
      {"0 0 8 * Janu *", "the month field \"Janu\" is not a number or a month name", "JAN-DEC"},
      {"0 0 22-2 * * *", "the hour field \"22-2\" starts after it ends (22 > 2)", "do not wrap"},
      {"0 */0 * * * *", "the minute field \"*/0\" has a step of 0", ""},
      {"0 */x * * * *", "the minute field \"*/x\": the step \"x\" is not a number", ""},
      {"0 0 8 * * * 2024", "has 7 fields; it needs 6", ""},
      {"@foo", "\"@foo\" is not a schedule descriptor", "@every"},
      {"@daily ", "\"@daily \" is not a schedule descriptor", ""},
      {" @daily", "has 1 field;", "@every"},
      {"@every 5x", "\"@every 5x\": \"5x\" is not a duration", "1h30m"},
      {"@every 1h 30m", "\"1h 30m\" is not a duration", ""},
      {"@date 2021-02-29 00:00:00", "day 29 is out of range for 2021-02", ""},
      {"@date 2020-13-01 00:00:00", "the month is out of range 1-12", ""},
      {"@date 2020-11-15 24:00:00", "the hour is out of range 0-23", ""},
      {"@date 2020-11-15 10:60:00", "the minute is out of range 0-59", ""},
      {"@date 2020-11-15", "not of the form YYYY-MM-DD hh:mm:ss", ""},
      {"@date 20-11-15 10:00:00", "not of the form YYYY-MM-DD hh:mm:ss", ""},
      {"@date 2020-1-15 10:00:00", "not of the form YYYY-MM-DD hh:mm:ss", ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.spec);
    Expected<CronSchedule> got = ParseCronSchedule(c.spec);
    REQUIRE_FALSE(got.ok());
    CAPTURE(got.error().message);
    CAPTURE(got.error().hint);
    CHECK(Contains(got.error().message, c.message));
    if (!c.hint.empty()) CHECK(Contains(got.error().hint, c.hint));
  }
}

TEST_CASE("CronSchedule: the first bad field in order is the one reported") {
  Expected<CronSchedule> got = ParseCronSchedule("0 0 25 32 * *");
  REQUIRE_FALSE(got.ok());
  CHECK(Contains(got.error().message, "the hour field 25"));
}

TEST_CASE("CronSchedule: what the parser accepts as upstream does") {
  struct Case {
    std::string_view spec;
    std::string_view same_as;
  };
  const std::vector<Case> cases = {
      // 5 fields: the day of week is "*".
      {"0 30 8 * *", "0 30 8 * * *"},
      // "?" is "*" in any field.
      {"? 30 8 * * *", "* 30 8 * * *"},
      // After "*" the rest of a range is ignored.
      {"0 *-5 8 * * *", "0 * 8 * * *"},
      // "N/step" runs to the end of the range.
      {"0 5/20 8 * * *", "0 5,25,45 8 * * *"},
      // Empty list items are dropped.
      {"0 0 1,,2, * * *", "0 0 1,2 * * *"},
      // Atoi takes a leading "+" and leading zeros.
      {"0 0 +8 * * *", "0 0 08 * * *"},
      // Names in any case.
      {"0 0 8 * jan-MAR Mon-fri", "0 0 8 * 1-3 1-5"},
      // Any run of white space separates fields.
      {"0\t0  8 *\n* *", "0 0 8 * * *"},
      // Descriptors.
      {"@weekly", "0 0 0 * * 0"},
      {"@daily", "0 0 0 * * *"},
      {"@midnight", "0 0 0 * * *"},
      {"@hourly", "0 0 * * * *"},
      {"@monthly", "0 0 0 1 * *"},
      {"@yearly", "0 0 0 1 1 *"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.spec);
    CHECK(MustParse(c.spec) == MustParse(c.same_as));
  }
  // A list of nothing matches nothing; the schedule never fires.
  const CronSchedule never = MustParse("0 0 , * * *");
  CHECK(never.hour == 0);
  CHECK(NextCronFire(never, Utc(2024, 1, 1, 0, 0), kUtc) == kNoCronFire);
}

TEST_CASE("CronSchedule: @every rounds down to whole seconds and is at least 1 s") {
  struct Case {
    std::string_view spec;
    int64_t every_s;
  };
  const std::vector<Case> cases = {
      {"@every 1h30m", 5400}, {"@every 1.5h", 5400},    {"@every 90s", 90}, {"@every 1500ms", 1},
      {"@every 500ms", 1},    {"@every 0", 1},          {"@every -1h", 1},  {"@every +2m", 120},
      {"@every 2m0.9s", 120}, {"@every 1\xC2\xB5s", 1},
  };
  for (const Case& c : cases) {
    CAPTURE(c.spec);
    CHECK(MustParse(c.spec).every_s == c.every_s);
  }
  CHECK_FALSE(ParseCronSchedule("@every ").ok());
  CHECK_FALSE(ParseCronSchedule("@every 5").ok());   // missing unit
  CHECK_FALSE(ParseCronSchedule("@every .s").ok());  // no digits
  CHECK_FALSE(ParseCronSchedule("@every 3d").ok());  // unknown unit
  CHECK_FALSE(ParseCronSchedule("@every  5m").ok());
}

TEST_CASE("CronSchedule: @date accepts what Go's time.Parse accepts and drops the year") {
  // One-digit hour, repeated spaces, a fraction of a second.
  CHECK(MustParse("@date 2020-11-15 1:02:03") == MustParse("@date 2020-11-15 01:02:03"));
  CHECK(MustParse("@date 2020-11-15    10:00:00.123") == MustParse("@date 2020-11-15 10:00:00"));
  // Leap day only in a leap year.
  CHECK(ParseCronSchedule("@date 2020-02-29 00:00:00").ok());
  // The year is gone: a past date fires at its next occurrence, every year.
  const CronSchedule promo = MustParse("@date 2020-11-15 00:00:00");
  CHECK(promo == MustParse("@date 2031-11-15 00:00:00"));
  CHECK(NextCronFire(promo, Utc(2023, 6, 1, 0, 0), kShanghai) ==
        UnixAtWallClock(2023, 11, 15, 0, 0, 0, kShanghai));
  CHECK(NextCronFire(promo, UnixAtWallClock(2023, 11, 15, 0, 0, 0, kShanghai), kShanghai) ==
        UnixAtWallClock(2024, 11, 15, 0, 0, 0, kShanghai));
}

// ---------------------------------------------------------------------------------------------
// Next fire: the horizon and hand-computed timelines.

TEST_CASE("CronSchedule: next fire gives up after the fifth year after the start") {
  const CronSchedule leap_day = MustParse("0 0 0 29 2 *");
  // From March 2099 the next 29 February is in 2104 = 2099 + 5: found.
  CHECK(NextCronFire(leap_day, Utc(2099, 3, 1, 0, 0), kUtc) == Utc(2104, 2, 29, 0, 0));
  // From March 2097 it is still 2104 (2100 is no leap year), past 2097 + 5: none.
  CHECK(NextCronFire(leap_day, Utc(2097, 3, 1, 0, 0), kUtc) == kNoCronFire);
  // The year is the wall clock's: 2098-12-31T20:00Z is already 2099 at UTC+8.
  CHECK(NextCronFire(leap_day, Utc(2098, 12, 31, 20, 0), kShanghai) ==
        UnixAtWallClock(2104, 2, 29, 0, 0, 0, kShanghai));
  CHECK(NextCronFire(leap_day, Utc(2098, 12, 31, 20, 0), kUtc) == kNoCronFire);
}

TEST_CASE("CronSchedule: next fire is strictly after the given time") {
  const CronSchedule every_minute = MustParse("0 * * * * *");
  CHECK(NextCronFire(every_minute, Utc(2024, 1, 1, 10, 0, 0), kUtc) == Utc(2024, 1, 1, 10, 1, 0));
  CHECK(NextCronFire(every_minute, Utc(2024, 1, 1, 10, 0, 0) - 1, kUtc) ==
        Utc(2024, 1, 1, 10, 0, 0));
}

TEST_CASE("CronSchedule: day of month OR day of week when both are restricted") {
  // The 1st of the month or a Monday, at midnight; from Friday 2024-03-01 00:00:00 UTC.
  const CronSchedule s = MustParse("0 0 0 1 * MON");
  int64_t t = Utc(2024, 3, 1, 0, 0);
  std::vector<int64_t> fires;
  for (int i = 0; i < 6; ++i) fires.push_back(t = NextCronFire(s, t, kUtc));
  CHECK(fires == std::vector<int64_t>{Utc(2024, 3, 4, 0, 0), Utc(2024, 3, 11, 0, 0),
                                      Utc(2024, 3, 18, 0, 0), Utc(2024, 3, 25, 0, 0),
                                      Utc(2024, 4, 1, 0, 0), Utc(2024, 4, 8, 0, 0)});
  // With "*/1" in the day of month (a star), both must match: Mondays only.
  const CronSchedule and_ = MustParse("0 0 0 */1 * MON");
  CHECK(NextCronFire(and_, Utc(2024, 3, 25, 0, 0), kUtc) == Utc(2024, 4, 1, 0, 0));
  CHECK(NextCronFire(and_, Utc(2024, 4, 1, 0, 0), kUtc) == Utc(2024, 4, 8, 0, 0));
}

TEST_CASE("CronSchedule: timeline of 0 0 23 * * * at UTC+8") {
  // 1709251200 is 2024-03-01T00:00:00Z, 08:00 on Friday 1 March in Shanghai.
  const CronSchedule s = MustParse("0 0 23 * * *");
  int64_t t = 1709251200;
  std::vector<int64_t> fires;
  for (int i = 0; i < 5; ++i) fires.push_back(t = NextCronFire(s, t, kShanghai));
  // 23:00 local on 1-5 March is 15:00Z.
  CHECK(fires == std::vector<int64_t>{1709305200, 1709391600, 1709478000, 1709564400, 1709650800});
  CHECK(WallClockAt(fires[0], kShanghai).hour == 23);
  CHECK(WallClockAt(fires[0], kUtc).hour == 15);
}

TEST_CASE("CronSchedule: timeline of 0 0 8 * * MON-FRI at UTC+8") {
  // From Friday 2024-03-01 08:00:00 local exactly: that one is not after, so Monday is next.
  const CronSchedule s = MustParse("0 0 8 * * MON-FRI");
  int64_t t = 1709251200;
  std::vector<int64_t> fires;
  for (int i = 0; i < 5; ++i) fires.push_back(t = NextCronFire(s, t, kShanghai));
  // Monday 4 to Friday 8 March, 08:00 local = 00:00Z.
  CHECK(fires == std::vector<int64_t>{1709510400, 1709596800, 1709683200, 1709769600, 1709856000});
  CHECK(WallClockAt(fires[0], kShanghai).weekday == 1);
  CHECK(WallClockAt(fires[4], kShanghai).weekday == 5);
}

// At a fixed offset robfig's stepping finds the earliest matching second; a search minute by
// minute over 40 days must agree with it, for schedules drawn from a fixed pseudo-random stream.
TEST_CASE("CronSchedule: next fire agrees with a brute-force search") {
  uint64_t state = 0x9E3779B97F4A7C15u;
  const auto next_random = [&](uint64_t n) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (state >> 33) % n;
  };
  const std::vector<std::string_view> seconds = {"0", "*/20", "5,35", "59", "*"};
  const std::vector<std::string_view> minutes = {"0", "*/15", "30", "5-10", "*", "59"};
  const std::vector<std::string_view> hours = {"*", "8", "23", "9-17/4", "0,12", "?"};
  const std::vector<std::string_view> doms = {"*", "?", "1", "15", "29-31", "*/10", "31"};
  const std::vector<std::string_view> months = {"*", "*", "1-3", "2", "JUN,DEC", "*/2"};
  const std::vector<std::string_view> dows = {"*", "?", "MON-FRI", "0", "6", "1,3,5"};
  const std::vector<int32_t> offsets = {0, 8 * 3600, -5 * 3600, 5 * 3600 + 1800, 14 * 3600};
  const auto matches = [](const CronSchedule& s, const WallClock& w) {
    const auto has = [](uint64_t bits, int v) { return (bits >> v & 1) != 0; };
    const bool dom = has(s.day_of_month, w.day);
    const bool dow = has(s.day_of_week, w.weekday);
    const bool star = ((s.day_of_month | s.day_of_week) & kCronStarBit) != 0;
    return has(s.month, w.month) && (star ? dom && dow : dom || dow) && has(s.hour, w.hour) &&
           has(s.minute, w.minute);
  };
  for (int i = 0; i < 120; ++i) {
    const std::string text =
        Cat6(seconds[next_random(seconds.size())], minutes[next_random(minutes.size())],
             hours[next_random(hours.size())], doms[next_random(doms.size())],
             months[next_random(months.size())], dows[next_random(dows.size())]);
    const int32_t off = offsets[next_random(offsets.size())];
    const int64_t after = Utc(2024, 1, 1, 0, 0) + static_cast<int64_t>(next_random(400 * 86400));
    const CronSchedule s = MustParse(text);
    CAPTURE(text);
    CAPTURE(off);
    CAPTURE(after);
    // Brute force: the first second > after whose wall-clock fields all match.
    int64_t brute = kNoCronFire;
    const int64_t first_minute = after + 1 - ((after + 1 + off) % 60 + 60) % 60;
    for (int64_t m = first_minute; m < after + 40 * 86400 && brute == kNoCronFire; m += 60) {
      const WallClock w = WallClockAt(m, off);
      if (!matches(s, w)) continue;
      for (int sec = 0; sec < 60; ++sec) {
        if ((s.second >> sec & 1) != 0 && m + sec > after) {
          brute = m + sec;
          break;
        }
      }
    }
    const int64_t next = NextCronFire(s, after, off);
    if (brute != kNoCronFire) {
      CHECK(next == brute);
    } else {
      CHECK((next == kNoCronFire || next >= after + 40 * 86400));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// excludeDates (cronjob.go IsTodayOff).

TEST_CASE("CronSchedule: an excluded date is the same month and hour as the entry's next match") {
  const CronSchedule nov15 = MustParse("* * * 15 11 *");
  const CronSchedule fridays = MustParse("* * * * * 5");
  const CronSchedule never = MustParse("* * * 30 2 *");
  const auto local = [](int64_t y, int mo, int d, int h, int mi, int s) {
    return UnixAtWallClock(y, mo, d, h, mi, s, kShanghai);
  };
  struct Case {
    std::string_view what;
    const CronSchedule* entry;
    int64_t now;
    bool excluded;
  };
  const std::vector<Case> cases = {
      {"on the day", &nov15, local(2024, 11, 15, 10, 0, 0), true},
      {"on the day, at midnight", &nov15, local(2024, 11, 15, 0, 0, 0), true},
      {"on the day, last second of an hour: the next match is the next hour", &nov15,
       local(2024, 11, 15, 10, 59, 59), false},
      {"on the day, 23:59:59: the next match is next year's 00:00", &nov15,
       local(2024, 11, 15, 23, 59, 59), false},
      {"the day before, 10:00", &nov15, local(2024, 11, 14, 10, 0, 0), false},
      {"the day before, 00:30: the next match is 15 Nov 00:00", &nov15,
       local(2024, 11, 14, 0, 30, 0), true},
      {"1 November, 00:59:59", &nov15, local(2024, 11, 1, 0, 59, 59), true},
      {"the day after, 00:30: next year's 15 Nov 00:00", &nov15, local(2024, 11, 16, 0, 30, 0),
       true},
      {"another month", &nov15, local(2024, 12, 15, 10, 0, 0), false},
      {"a Friday", &fridays, local(2024, 3, 1, 10, 0, 0), true},
      {"a Friday, 10:59:59", &fridays, local(2024, 3, 1, 10, 59, 59), false},
      {"a Thursday, 10:00", &fridays, local(2024, 3, 7, 10, 0, 0), false},
      {"a Thursday, 00:30, Friday in the same month", &fridays, local(2024, 3, 7, 0, 30, 0), true},
      {"Thursday 29 Feb, 00:30, Friday in March", &fridays, local(2024, 2, 29, 0, 30, 0), false},
      {"no next match, January 00:30: the zero time is January hour 00", &never,
       local(2024, 1, 10, 0, 30, 0), true},
      {"no next match, January 01:00", &never, local(2024, 1, 10, 1, 0, 0), false},
      {"no next match, February 00:30", &never, local(2024, 2, 10, 0, 30, 0), false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK(ExcludedBy(*c.entry, c.now, kShanghai) == c.excluded);
  }
}

TEST_CASE("CronSchedule: an excluded date skips the day's fire in a timeline") {
  // Daily 23:00 at UTC+8 from 1 March 2024 08:00 local, 5 March excluded: the fires of 1, 2,
  // 3, 4 and 6 March run, the one of 5 March is skipped (its entry's next match is 23:00:01).
  const CronSchedule daily = MustParse("0 0 23 * * *");
  const CronSchedule march5 = MustParse("* * * 5 3 *");
  int64_t t = 1709251200;
  std::vector<int> ran;
  std::vector<int> skipped;
  for (int i = 0; i < 6; ++i) {
    t = NextCronFire(daily, t, kShanghai);
    (ExcludedBy(march5, t, kShanghai) ? skipped : ran).push_back(WallClockAt(t, kShanghai).day);
  }
  CHECK(ran == std::vector<int>{1, 2, 3, 4, 6});
  CHECK(skipped == std::vector<int>{5});
}

TEST_CASE("CronSchedule: an @every exclude entry compares now plus its interval") {
  const CronSchedule day = MustParse("@every 24h");
  const CronSchedule hour = MustParse("@every 1h");
  CHECK(ExcludedBy(day, UnixAtWallClock(2024, 3, 10, 8, 0, 0, kShanghai), kShanghai));
  CHECK_FALSE(ExcludedBy(day, UnixAtWallClock(2024, 3, 31, 8, 0, 0, kShanghai), kShanghai));
  CHECK_FALSE(ExcludedBy(hour, UnixAtWallClock(2024, 3, 10, 8, 0, 0, kShanghai), kShanghai));
}

// ---------------------------------------------------------------------------------------------
// Wall-clock helpers.

TEST_CASE("CronSchedule: wall clock at a fixed offset, and Go-style carries") {
  const WallClock w = WallClockAt(1709251200, kShanghai);
  CHECK(w.year == 2024);
  CHECK(w.month == 3);
  CHECK(w.day == 1);
  CHECK(w.hour == 8);
  CHECK(w.minute == 0);
  CHECK(w.second == 0);
  CHECK(w.weekday == 5);
  CHECK(UnixAtWallClock(2024, 3, 1, 8, 0, 0, kShanghai) == 1709251200);
  CHECK(UnixAtWallClock(1970, 1, 1, 0, 0, 0, kUtc) == 0);
  CHECK(WallClockAt(-1, kUtc).year == 1969);
  CHECK(WallClockAt(-1, kUtc).second == 59);
  CHECK(WallClockAt(-1, kUtc).weekday == 3);
  CHECK(UnixAtWallClock(2023, 13, 1, 0, 0, 0, kUtc) == Utc(2024, 1, 1, 0, 0));
  CHECK(UnixAtWallClock(2024, 1, 32, 0, 0, 0, kUtc) == Utc(2024, 2, 1, 0, 0));
  CHECK(UnixAtWallClock(2024, 3, 0, 0, 0, 0, kUtc) == Utc(2024, 2, 29, 0, 0));
  CHECK(UnixAtWallClock(2100, 3, 1, 0, 0, 0, kUtc) - UnixAtWallClock(2100, 2, 28, 0, 0, 0, kUtc) ==
        86400);
}

}  // namespace
}  // namespace knobsim
