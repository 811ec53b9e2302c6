#include "sim/cron_schedule.h"

#include <array>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace knobsim {
namespace {

// ---------------------------------------------------------------------------------------------
// Small text helpers.

// Concatenation by append (GCC 12 warns falsely, -Wrestrict, on chains of std::string +).
std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

std::string Quoted(std::string_view s) {
  return Cat({"\"", s, "\""});
}

InputError Error(std::string message, std::string hint = {}) {
  return InputError{"", 0, "", std::move(message), std::move(hint)};
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// The byte length of the white-space rune starting at s[i] (Go's unicode.IsSpace, which
// strings.Fields uses), 0 when s[i] does not start one.
size_t SpaceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) -> unsigned {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u;
  };
  switch (b(0)) {
    case ' ':
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
      return 1;
    case 0xC2:  // U+0085, U+00A0
      return b(1) == 0x85 || b(1) == 0xA0 ? 2 : 0;
    case 0xE1:  // U+1680
      return b(1) == 0x9A && b(2) == 0x80 ? 3 : 0;
    case 0xE2:  // U+2000-U+200A, U+2028, U+2029, U+202F, U+205F
      if (b(1) == 0x80 &&
          ((b(2) >= 0x80 && b(2) <= 0x8A) || b(2) == 0xA8 || b(2) == 0xA9 || b(2) == 0xAF)) {
        return 3;
      }
      return b(1) == 0x81 && b(2) == 0x9F ? 3 : 0;
    case 0xE3:  // U+3000
      return b(1) == 0x80 && b(2) == 0x80 ? 3 : 0;
    default:
      return 0;
  }
}

// strings.Fields: the runs of non-space text.
std::vector<std::string_view> GoFields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    if (size_t n = SpaceLength(s, i); n > 0) {
      i += n;
      continue;
    }
    const size_t start = i;
    while (i < s.size() && SpaceLength(s, i) == 0) ++i;
    out.push_back(s.substr(start, i - start));
  }
  return out;
}

// strings.Split: every piece, empty ones included.
std::vector<std::string_view> SplitAll(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

// strconv.Atoi in base 10: an optional sign and at least one digit, within int64.
std::optional<int64_t> GoAtoi(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (limit - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  if (negative) {
    return v == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                    : -static_cast<int64_t>(v);
  }
  return static_cast<int64_t>(v);
}

// ---------------------------------------------------------------------------------------------
// Fields (spec.go bounds).

struct Bounds {
  int64_t min;
  int64_t max;
};

Bounds BoundsOf(CronField f) {
  switch (f) {
    case CronField::kSecond:
    case CronField::kMinute:
      return {0, 59};
    case CronField::kHour:
      return {0, 23};
    case CronField::kDayOfMonth:
      return {1, 31};
    case CronField::kMonth:
      return {1, 12};
    case CronField::kDayOfWeek:
      return {0, 6};
  }
  return {0, 0};
}

constexpr std::array<std::string_view, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                          "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 7> kDayNames = {"sun", "mon", "tue", "wed",
                                                       "thu", "fri", "sat"};

// The names map of a field, looked up with strings.ToLower (ASCII suffices: no non-ASCII
// letter lowers to a letter of these names).
std::optional<int64_t> NameValue(std::string_view s, CronField f) {
  if (s.size() != 3 || (f != CronField::kMonth && f != CronField::kDayOfWeek)) return std::nullopt;
  std::string lower(s);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (f == CronField::kMonth) {
    for (size_t i = 0; i < kMonthNames.size(); ++i) {
      if (lower == kMonthNames[i]) return static_cast<int64_t>(i + 1);
    }
  } else {
    for (size_t i = 0; i < kDayNames.size(); ++i) {
      if (lower == kDayNames[i]) return static_cast<int64_t>(i);
    }
  }
  return std::nullopt;
}

std::string FieldLabel(CronField f, std::string_view field_text) {
  return Cat({"the ", CronFieldName(f), " field ", Quoted(field_text)});
}

std::string AllowedHint(CronField f) {
  switch (f) {
    case CronField::kMonth:
      return "months are 1-12 or JAN-DEC (any case)";
    case CronField::kDayOfWeek:
      return "days of the week are 0-6 or SUN-SAT (any case), Sunday being 0";
    default: {
      const Bounds b = BoundsOf(f);
      return Cat({"the ", CronFieldName(f), " field takes numbers ", std::to_string(b.min), "-",
                  std::to_string(b.max), ", *, ranges a-b, lists a,b and steps */n"});
    }
  }
}

InputError NotANumber(CronField f, std::string_view field_text, std::string_view part,
                      bool is_step) {
  const bool named = f == CronField::kMonth || f == CronField::kDayOfWeek;
  const std::string what =
      is_step
          ? std::string("is not a number")
          : Cat({"is not a number",
                 named ? (f == CronField::kMonth ? " or a month name" : " or a day name") : ""});
  if (!is_step && part == field_text) {
    return Error(Cat({FieldLabel(f, field_text), " ", what}), AllowedHint(f));
  }
  return Error(
      Cat({FieldLabel(f, field_text), ": ", is_step ? "the step " : "", Quoted(part), " ", what}),
      is_step ? std::string("a step is a whole number of 1 or more, as in */15") : AllowedHint(f));
}

InputError OutOfRange(CronField f, std::string_view field_text, int64_t value) {
  const Bounds b = BoundsOf(f);
  const std::string v = std::to_string(value);
  const std::string range =
      Cat({"out of range ", std::to_string(b.min), "-", std::to_string(b.max)});
  std::string hint;
  if (f == CronField::kDayOfWeek && value == 7) hint = "Sunday is 0 (or SUN); 7 is not accepted";
  if (field_text == v) {
    return Error(Cat({"the ", CronFieldName(f), " field ", v, " is ", range}), std::move(hint));
  }
  return Error(Cat({FieldLabel(f, field_text), ": ", v, " is ", range}), std::move(hint));
}

// getRange: one comma-separated item of a field.
Expected<uint64_t> ParseItem(std::string_view expr, CronField f, std::string_view field_text) {
  const Bounds b = BoundsOf(f);
  const std::vector<std::string_view> range_and_step = SplitAll(expr, '/');
  const std::vector<std::string_view> low_and_high = SplitAll(range_and_step[0], '-');
  const bool single = low_and_high.size() == 1;

  // parseIntOrName, then mustParseInt's sign check.
  const auto int_or_name = [&](std::string_view s, bool is_step) -> Expected<int64_t> {
    std::optional<int64_t> v = is_step ? std::nullopt : NameValue(s, f);
    if (!v) v = GoAtoi(s);
    if (!v) return NotANumber(f, field_text, s, is_step);
    if (*v < 0) {
      return Error(Cat({FieldLabel(f, field_text), " has a negative number ", std::to_string(*v)}),
                   AllowedHint(f));
    }
    return *v;
  };

  int64_t start = 0;
  int64_t end = 0;
  uint64_t extra = 0;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    // Anything after a hyphen is ignored here, as upstream.
    start = b.min;
    end = b.max;
    extra = kCronStarBit;
  } else {
    Expected<int64_t> low = int_or_name(low_and_high[0], false);
    if (!low) return low.error();
    start = *low;
    if (low_and_high.size() == 1) {
      end = start;
    } else if (low_and_high.size() == 2) {
      Expected<int64_t> high = int_or_name(low_and_high[1], false);
      if (!high) return high.error();
      end = *high;
    } else {
      return Error(Cat({FieldLabel(f, field_text), " has too many hyphens"}),
                   "a range is low-high, as in 9-17");
    }
  }

  int64_t step = 1;
  if (range_and_step.size() == 2) {
    Expected<int64_t> s = int_or_name(range_and_step[1], true);
    if (!s) return s.error();
    step = *s;
    if (single) end = b.max;  // "N/step" is "N-max/step"
  } else if (range_and_step.size() > 2) {
    return Error(Cat({FieldLabel(f, field_text), " has too many slashes"}),
                 "a step is range/step, as in */15 or 0-30/10");
  }

  if (start < b.min) return OutOfRange(f, field_text, start);
  if (end > b.max) return OutOfRange(f, field_text, end);
  if (start > end) {
    return Error(Cat({FieldLabel(f, field_text), " starts after it ends (", std::to_string(start),
                      " > ", std::to_string(end), ")"}),
                 "ranges do not wrap around; write two, as in 22-23,0-2");
  }
  if (step == 0) {
    return Error(Cat({FieldLabel(f, field_text), " has a step of 0"}), "a step must be 1 or more");
  }
  uint64_t bits = 0;
  for (auto i = static_cast<uint64_t>(start); i <= static_cast<uint64_t>(end);
       i += static_cast<uint64_t>(step)) {
    bits |= uint64_t{1} << i;
  }
  return bits | extra;
}

uint64_t AllBits(CronField f) {
  const Bounds b = BoundsOf(f);
  uint64_t bits = 0;
  for (int64_t i = b.min; i <= b.max; ++i) bits |= uint64_t{1} << i;
  return bits | kCronStarBit;
}

// ---------------------------------------------------------------------------------------------
// Descriptors.

// time.ParseDuration, in nanoseconds.
std::optional<int64_t> ParseGoDuration(std::string_view s) {
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return std::nullopt;
  uint64_t d = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return std::nullopt;
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && IsDigit(s[i]); ++i) {  // leadingInt
      if (v > kLimit / 10) return std::nullopt;
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      if (v > kLimit) return std::nullopt;
    }
    const bool pre = i > 0;
    s.remove_prefix(i);
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {  // leadingFraction
      s.remove_prefix(1);
      size_t j = 0;
      bool overflow = false;
      for (; j < s.size() && IsDigit(s[j]); ++j) {
        if (overflow) continue;
        if (f > (kLimit - 1) / 10) {
          overflow = true;
          continue;
        }
        const uint64_t y = f * 10 + static_cast<uint64_t>(s[j] - '0');
        if (y > kLimit) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s.remove_prefix(j);
    }
    if (!pre && !post) return std::nullopt;
    size_t k = 0;
    while (k < s.size() && !(s[k] == '.' || IsDigit(s[k]))) ++k;
    if (k == 0) return std::nullopt;
    const std::string_view u = s.substr(0, k);
    s.remove_prefix(k);
    uint64_t unit = 0;
    if (u == "ns") {
      unit = 1;
    } else if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") {
      unit = 1'000;
    } else if (u == "ms") {
      unit = 1'000'000;
    } else if (u == "s") {
      unit = 1'000'000'000;
    } else if (u == "m") {
      unit = 60'000'000'000;
    } else if (u == "h") {
      unit = 3'600'000'000'000;
    } else {
      return std::nullopt;
    }
    if (v > kLimit / unit) return std::nullopt;
    v *= unit;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) * (static_cast<double>(unit) / scale));
      if (v > kLimit) return std::nullopt;
    }
    d += v;
    if (d > kLimit) return std::nullopt;
  }
  if (negative) {
    return d == kLimit ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(d);
  }
  if (d > kLimit - 1) return std::nullopt;
  return static_cast<int64_t>(d);
}

bool IsLeap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int DaysIn(int month, int64_t year) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[static_cast<size_t>(month - 1)];
}

// time.Parse("2006-01-02 15:04:05", value): the wall-clock fields, or why not.
struct DateFields {
  int64_t year = 0;
  int month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

Expected<DateFields> ParseGoDate(std::string_view full, std::string_view v) {
  const auto bad = [&](std::string_view why) -> InputError {
    return Error(Cat({Quoted(full), " is not a date: ", why}),
                 "write @date YYYY-MM-DD hh:mm:ss, as in @date 2020-10-27 21:54:00 (local time)");
  };
  const std::string_view form = "it is not of the form YYYY-MM-DD hh:mm:ss";
  // getnum: one or two digits, exactly two when fixed.
  const auto num = [&](bool fixed) -> std::optional<int> {
    if (v.empty() || !IsDigit(v[0])) return std::nullopt;
    if (v.size() < 2 || !IsDigit(v[1])) {
      if (fixed) return std::nullopt;
      const int n = v[0] - '0';
      v.remove_prefix(1);
      return n;
    }
    const int n = (v[0] - '0') * 10 + (v[1] - '0');
    v.remove_prefix(2);
    return n;
  };
  const auto literal = [&](char c) {
    if (v.empty() || v[0] != c) return false;
    v.remove_prefix(1);
    return true;
  };
  DateFields d;
  if (v.size() < 4 || !IsDigit(v[0]) || !IsDigit(v[1]) || !IsDigit(v[2]) || !IsDigit(v[3])) {
    return bad(form);
  }
  d.year = (v[0] - '0') * 1000 + (v[1] - '0') * 100 + (v[2] - '0') * 10 + (v[3] - '0');
  v.remove_prefix(4);
  if (!literal('-')) return bad(form);
  const std::optional<int> month = num(true);
  if (!month) return bad(form);
  if (*month < 1 || *month > 12) return bad("the month is out of range 1-12");
  d.month = *month;
  if (!literal('-')) return bad(form);
  const std::optional<int> day = num(true);
  if (!day) return bad(form);
  d.day = *day;
  // A space of the layout matches one or more spaces (skip / cutspace).
  if (v.empty() || v[0] != ' ') return bad(form);
  while (!v.empty() && v[0] == ' ') v.remove_prefix(1);
  const std::optional<int> hour = num(false);
  if (!hour) return bad(form);
  if (*hour > 23) return bad("the hour is out of range 0-23");
  d.hour = *hour;
  if (!literal(':')) return bad(form);
  const std::optional<int> minute = num(true);
  if (!minute) return bad(form);
  if (*minute > 59) return bad("the minute is out of range 0-59");
  d.minute = *minute;
  if (!literal(':')) return bad(form);
  const std::optional<int> second = num(true);
  if (!second) return bad(form);
  if (*second > 59) return bad("the second is out of range 0-59");
  d.second = *second;
  // A fraction of a second is accepted although the layout has none.
  if (v.size() >= 2 && (v[0] == '.' || v[0] == ',') && IsDigit(v[1])) {
    v.remove_prefix(1);
    while (!v.empty() && IsDigit(v[0])) v.remove_prefix(1);
  }
  if (!v.empty()) return bad(Cat({"extra text ", Quoted(v), " after the time"}));
  if (d.day < 1 || d.day > DaysIn(d.month, d.year)) {
    return bad(Cat({"day ", std::to_string(d.day), " is out of range for ", std::to_string(d.year),
                    "-", d.month < 10 ? "0" : "", std::to_string(d.month)}));
  }
  return d;
}

const std::string_view kDescriptorHint =
    "use @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration> "
    "or @date YYYY-MM-DD hh:mm:ss";

// parseDescriptor.
Expected<CronSchedule> ParseDescriptor(std::string_view text) {
  CronSchedule s;
  const auto at_midnight = [&] {
    s.second = 1;
    s.minute = 1;
    s.hour = 1;
    s.day_of_month = AllBits(CronField::kDayOfMonth);
    s.month = AllBits(CronField::kMonth);
    s.day_of_week = AllBits(CronField::kDayOfWeek);
  };
  if (text == "@yearly" || text == "@annually") {
    at_midnight();
    s.day_of_month = uint64_t{1} << 1;
    s.month = uint64_t{1} << 1;
    return s;
  }
  if (text == "@monthly") {
    at_midnight();
    s.day_of_month = uint64_t{1} << 1;
    return s;
  }
  if (text == "@weekly") {
    at_midnight();
    s.day_of_week = uint64_t{1} << 0;
    return s;
  }
  if (text == "@daily" || text == "@midnight") {
    at_midnight();
    return s;
  }
  if (text == "@hourly") {
    at_midnight();
    s.hour = AllBits(CronField::kHour);
    return s;
  }
  constexpr std::string_view kEvery = "@every ";
  if (text.substr(0, kEvery.size()) == kEvery) {
    const std::string_view d = text.substr(kEvery.size());
    const std::optional<int64_t> ns = ParseGoDuration(d);
    if (!ns) {
      return Error(Cat({Quoted(text), ": ", Quoted(d), " is not a duration"}),
                   "write a Go duration, as in 90s, 15m or 1h30m");
    }
    // Every: below a second is a second; else whole seconds, the rest dropped.
    constexpr int64_t kNanosPerSecond = 1'000'000'000;
    s.every_s = *ns < kNanosPerSecond ? 1 : *ns / kNanosPerSecond;
    return s;
  }
  constexpr std::string_view kDate = "@date ";
  if (text.substr(0, kDate.size()) == kDate) {
    Expected<DateFields> d = ParseGoDate(text, text.substr(kDate.size()));
    if (!d) return d.error();
    s.second = uint64_t{1} << d->second;
    s.minute = uint64_t{1} << d->minute;
    s.hour = uint64_t{1} << d->hour;
    s.day_of_month = uint64_t{1} << d->day;
    s.month = uint64_t{1} << d->month;
    s.day_of_week = AllBits(CronField::kDayOfWeek);
    s.from_date = true;
    return s;
  }
  return Error(Cat({Quoted(text), " is not a schedule descriptor"}), std::string(kDescriptorHint));
}

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic (days since 1970-01-01, proleptic Gregorian; H. Hinnant's algorithms).

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t FloorMod(int64_t a, int64_t b) {
  return a - FloorDiv(a, b) * b;
}

int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t mp = (m + 9) % 12;  // March is 0
  const int64_t doy = (153 * mp + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

WallClock CivilFromWallSeconds(int64_t wall) {
  WallClock w;
  const int64_t days = FloorDiv(wall, 86400);
  const int64_t sod = wall - days * 86400;
  w.hour = static_cast<int>(sod / 3600);
  w.minute = static_cast<int>(sod / 60 % 60);
  w.second = static_cast<int>(sod % 60);
  w.weekday = static_cast<int>(FloorMod(days + 4, 7));  // 1970-01-01 was a Thursday
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  w.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  w.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  w.year = yoe + era * 400 + (w.month <= 2 ? 1 : 0);
  return w;
}

// time.Date on the wall clock (offset 0), normalizing like Go.
int64_t WallSeconds(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                    int64_t second) {
  const int64_t m0 = month - 1;
  year += FloorDiv(m0, 12);
  const int m = static_cast<int>(FloorMod(m0, 12)) + 1;
  const int64_t days = DaysFromCivil(year, m, 1) + (day - 1);
  return days * 86400 + hour * 3600 + minute * 60 + second;
}

bool Has(uint64_t bits, int value) {
  return (bits >> value & 1) != 0;
}

// dayMatches.
bool DayMatches(const CronSchedule& s, const WallClock& c) {
  const bool dom = Has(s.day_of_month, c.day);
  const bool dow = Has(s.day_of_week, c.weekday);
  if ((s.day_of_month & kCronStarBit) != 0 || (s.day_of_week & kCronStarBit) != 0) {
    return dom && dow;
  }
  return dom || dow;
}

// Beyond this (about 3 million years) the arithmetic is not attempted.
constexpr int64_t kMaxAbsUnix = int64_t{100'000'000'000'000};

}  // namespace

std::string_view CronFieldName(CronField field) {
  switch (field) {
    case CronField::kSecond:
      return "second";
    case CronField::kMinute:
      return "minute";
    case CronField::kHour:
      return "hour";
    case CronField::kDayOfMonth:
      return "day-of-month";
    case CronField::kMonth:
      return "month";
    case CronField::kDayOfWeek:
      return "day-of-week";
  }
  return "?";
}

// getField: the union of the comma-separated items; empty items are dropped (FieldsFunc).
Expected<uint64_t> ParseCronField(std::string_view text, CronField field) {
  uint64_t bits = 0;
  for (std::string_view item : SplitAll(text, ',')) {
    if (item.empty()) continue;
    Expected<uint64_t> b = ParseItem(item, field, text);
    if (!b) return b.error();
    bits |= *b;
  }
  return bits;
}

// Parser.Parse with Second | Minute | Hour | Dom | Month | DowOptional | Descriptor.
Expected<CronSchedule> ParseCronSchedule(std::string_view text) {
  if (text.empty()) {
    return Error("the schedule is empty",
                 "write six fields, second minute hour day-of-month month day-of-week, as in "
                 "\"0 0 8 * * MON-FRI\"");
  }
  if (text[0] == '@') return ParseDescriptor(text);
  const std::vector<std::string_view> fields = GoFields(text);
  if (fields.size() < 5 || fields.size() > 6) {
    return Error(Cat({"the schedule ", Quoted(text), " has ", std::to_string(fields.size()),
                      fields.size() == 1 ? " field" : " fields",
                      "; it needs 6 (second minute hour day-of-month month day-of-week) or 5 "
                      "(without the day of week)"}),
                 fields.size() == 1 && text.find('@') != std::string_view::npos
                     ? std::string(kDescriptorHint)
                     : std::string("the first field is the second: \"0 30 8 * * *\" is 08:30:00 "
                                   "every day"));
  }
  constexpr std::array<CronField, 6> kOrder = {CronField::kSecond, CronField::kMinute,
                                               CronField::kHour,   CronField::kDayOfMonth,
                                               CronField::kMonth,  CronField::kDayOfWeek};
  std::array<uint64_t, 6> bits{};
  for (size_t i = 0; i < kOrder.size(); ++i) {
    const std::string_view f = i < fields.size() ? fields[i] : std::string_view("*");
    Expected<uint64_t> b = ParseCronField(f, kOrder[i]);
    if (!b) return b.error();
    bits[i] = *b;
  }
  CronSchedule s;
  s.second = bits[0];
  s.minute = bits[1];
  s.hour = bits[2];
  s.day_of_month = bits[3];
  s.month = bits[4];
  s.day_of_week = bits[5];
  return s;
}

// SpecSchedule.Next / ConstantDelaySchedule.Next, on the wall clock at a fixed offset. `w` is
// the wall-clock time in seconds (Unix time + offset).
int64_t NextCronFire(const CronSchedule& s, int64_t after_unix_s, int32_t utc_offset_s) {
  if (after_unix_s > kMaxAbsUnix || after_unix_s < -kMaxAbsUnix) return kNoCronFire;
  if (s.every_s > 0) {
    if (s.every_s > kMaxAbsUnix) return kNoCronFire;
    return after_unix_s + s.every_s;
  }
  // A time field with no value never matches: upstream steps through its 5 years (one second
  // at a time for an empty second field) and returns the zero time; the answer is the same.
  constexpr uint64_t kValues = ~kCronStarBit;
  if ((s.second & kValues) == 0 || (s.minute & kValues) == 0 || (s.hour & kValues) == 0 ||
      (s.month & kValues) == 0) {
    return kNoCronFire;
  }
  const int64_t off = utc_offset_s;
  int64_t w = after_unix_s + off + 1;  // the next whole second
  bool added = false;
  const int64_t year_limit = CivilFromWallSeconds(w).year + 5;

  while (true) {  // WRAP
    WallClock c = CivilFromWallSeconds(w);
    if (c.year > year_limit) return kNoCronFire;
    bool wrapped = false;

    while (!Has(s.month, c.month)) {
      if (!added) {
        added = true;
        w = WallSeconds(c.year, c.month, 1, 0, 0, 0);
        c = CivilFromWallSeconds(w);
      }
      w = WallSeconds(c.year, c.month + 1, c.day, c.hour, c.minute, c.second);  // AddDate(0, 1, 0)
      c = CivilFromWallSeconds(w);
      if (c.month == 1) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;

    while (!DayMatches(s, c)) {
      if (!added) {
        added = true;
        w = WallSeconds(c.year, c.month, c.day, 0, 0, 0);
        c = CivilFromWallSeconds(w);
      }
      w = WallSeconds(c.year, c.month, c.day + 1, c.hour, c.minute, c.second);  // AddDate(0, 0, 1)
      c = CivilFromWallSeconds(w);
      if (c.day == 1) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;

    while (!Has(s.hour, c.hour)) {
      if (!added) {
        added = true;
        w = WallSeconds(c.year, c.month, c.day, c.hour, 0, 0);
      }
      w += 3600;
      c = CivilFromWallSeconds(w);
      if (c.hour == 0) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;

    while (!Has(s.minute, c.minute)) {
      if (!added) {
        added = true;
        w -= FloorMod(w - off, 60);  // Truncate(time.Minute) works on absolute time
      }
      w += 60;
      c = CivilFromWallSeconds(w);
      if (c.minute == 0) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;

    while (!Has(s.second, c.second)) {
      added = true;  // Truncate(time.Second) changes nothing on whole seconds
      w += 1;
      c = CivilFromWallSeconds(w);
      if (c.second == 0) {
        wrapped = true;
        break;
      }
    }
    if (wrapped) continue;

    return w - off;
  }
}

// IsTodayOff's test for one entry: next.Format("11-15-1990") == now.Format("11-15-1990"), i.e.
// the same month and the same hour of the day.
bool ExcludedBy(const CronSchedule& exclude_date, int64_t now_unix_s, int32_t utc_offset_s) {
  const WallClock now = WallClockAt(now_unix_s, utc_offset_s);
  const int64_t next = NextCronFire(exclude_date, now_unix_s, utc_offset_s);
  int month = 1;  // Go's zero time.Time{} (UTC) prints as January, hour 00
  int hour = 0;
  if (next != kNoCronFire) {
    const WallClock n = WallClockAt(next, utc_offset_s);
    month = n.month;
    hour = n.hour;
  }
  return month == now.month && hour == now.hour;
}

WallClock WallClockAt(int64_t unix_s, int32_t utc_offset_s) {
  return CivilFromWallSeconds(unix_s + utc_offset_s);
}

int64_t UnixAtWallClock(int64_t year, int month, int day, int hour, int minute, int second,
                        int32_t utc_offset_s) {
  return WallSeconds(year, month, day, hour, minute, second) - utc_offset_s;
}

}  // namespace knobsim
