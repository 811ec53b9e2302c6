// The schedules of ACK's CronHPA (AliyunContainerService/kubernetes-cronhpa-controller): the
// cron expressions of `spec.jobs[].schedule` and `spec.excludeDates[]`, when they fire next, and
// whether an excludeDates entry switches a firing job off.
//
// Sources. The controller (read at commit 31c63bed635f92f7d3fc0cdbcf0274c186e37382, Nov 2023)
// parses both lists with github.com/ringtail/go-cron at cfb21c105f50 (vendored under
// vendor/github.com/ringtail/go-cron), a fork of robfig/cron v1 that adds `@date`. Its
// `cron.Parse` is the parser with Second | Minute | Hour | Dom | Month | DowOptional |
// Descriptor (parser.go, defaultParser); `SpecSchedule.Next` and `dayMatches` are in spec.go,
// `Every` / `ConstantDelaySchedule` in constantdelay.go. It is not robfig/cron v3.
//
// The syntax accepted (parser.go Parse, getField, getRange, parseIntOrName, parseDescriptor):
//  * 6 fields `second minute hour day-of-month month day-of-week`, or 5 (day-of-week left out,
//    read as `*`), split on white space (Go's strings.Fields). Anything else is an error.
//  * A field is a comma list (empty items are dropped: "1,,2" is "1,2"; "," alone matches
//    nothing); an item is `*` or `?` (the whole range; both allowed in every field), `N`,
//    `N-M`, each optionally `/step`. `N/step` means `N-max/step`. After `*` or `?` anything up
//    to the slash is ignored (`*-5` is `*`). Numbers are Go strconv.Atoi (a leading `+` is
//    taken); names JAN-DEC and SUN-SAT in any case, month and day-of-week only. Ranges: second
//    and minute 0-59, hour 0-23, day-of-month 1-31, month 1-12, day-of-week 0-6 (Sunday 0; 7 is
//    out of range). A range does not wrap (`22-2` is an error); a step must be >= 1.
//  * Descriptors, matched exactly (no surrounding spaces): @yearly / @annually (0 0 0 1 1 *),
//    @monthly (0 0 0 1 * *), @weekly (0 0 0 * * 0), @daily / @midnight (0 0 0 * * *), @hourly
//    (0 0 * * * *), `@every <Go duration>` (a fixed interval, rounded down to whole seconds,
//    at least 1 s), `@date YYYY-MM-DD hh:mm:ss` (Go time.Parse with "2006-01-02 15:04:05": the
//    hour may have one digit, spaces may repeat, a fraction of a second is accepted and dropped,
//    the day is checked against the month of that year). `@date` keeps second, minute, hour,
//    day and month only: the year is dropped, so it fires every year on that day until the
//    controller removes the job after its first run (cron_hpa.h).
//
// Day of month against day of week (spec.go dayMatches): when either field was written with
// `*` or `?` (including `*/2`), both must match; when neither was, either may match (OR).
//
// Next fire (spec.go SpecSchedule.Next): start at the next whole second after `after`; find
// the month, then the day, hour, minute and second, each by stepping one unit at a time and
// resetting the finer units the first time anything is stepped; when a unit wraps, start over
// from the month. It gives up (Go's zero time; here kNoCronFire) when the year it reaches
// passes the starting year + 5: fires up to 31 December of that fifth year are found.
//
// Time zone. The controller builds its cron engine with the process's local zone
// (cronexecutor.go NewCronHPAExecutor(nil, …) → time.Now().Location()) and reads excludeDates
// in the same zone (cronjob.go IsTodayOff uses time.Now()); the zone is the container's TZ
// variable, "Asia/Shanghai" (UTC+8, no DST) in config/deploy/deploy.yaml and the chart's
// values.yaml (controller.timezone), applied by docker-entrypoint.sh. There is no per-job or
// per-object zone. Here the wall clock is a fixed UTC offset in seconds: no DST tables, so a
// zone with DST is modelled wrongly around its transitions (robfig's DST cases in spec_test.go
// are not reproduced; see cron_schedule_test.cpp).
//
// Times are Unix seconds (int64). Sub-second times do not exist here: upstream's "strip the
// nanoseconds, add a second" is "add a second".
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/input_error.h"

namespace knobsim {

// Set in a field's bit set when the field was written with `*` or `?` (robfig's starBit); only
// the day-of-month and day-of-week flags change anything (dayMatches).
inline constexpr uint64_t kCronStarBit = uint64_t{1} << 63;

// NextCronFire's "no time found": Go's zero time, returned by Next after 5 years of search.
inline constexpr int64_t kNoCronFire = -1;

// A parsed schedule. Bit v of a field is set when value v matches (second 0-59, minute 0-59,
// hour 0-23, day_of_month 1-31, month 1-12, day_of_week 0-6 with Sunday 0), plus kCronStarBit.
// every_s > 0 makes it an `@every` schedule (ConstantDelaySchedule): the bit sets are then zero
// and unused. from_date is set for `@date` (the controller then runs the job only once).
struct CronSchedule {
  uint64_t second = 0;
  uint64_t minute = 0;
  uint64_t hour = 0;
  uint64_t day_of_month = 0;
  uint64_t month = 0;
  uint64_t day_of_week = 0;
  int64_t every_s = 0;
  bool from_date = false;

  bool operator==(const CronSchedule&) const = default;
};

enum class CronField { kSecond, kMinute, kHour, kDayOfMonth, kMonth, kDayOfWeek };

// "second", "minute", "hour", "day-of-month", "month", "day-of-week".
std::string_view CronFieldName(CronField field);

// One field (getField): its bit set with kCronStarBit, or an InputError naming the field.
Expected<uint64_t> ParseCronField(std::string_view text, CronField field);

// A whole schedule (cron.Parse). Errors are InputError{"", 0, "", message, hint}; the caller
// fills in the file, line and path. Messages name the field: "the hour field 25 is out of range
// 0-23". The first error in field order wins, as upstream.
Expected<CronSchedule> ParseCronSchedule(std::string_view text);

// The first time strictly after `after_unix_s` that the schedule matches, its fields read on
// the wall clock at `utc_offset_s` (e.g. 28800 for Asia/Shanghai); kNoCronFire when robfig
// finds none (more than 5 years ahead, or never, e.g. "0 0 0 30 2 *"). `@every D` gives
// after + D: upstream counts from when the job was added, then from each run.
int64_t NextCronFire(const CronSchedule& schedule, int64_t after_unix_s, int32_t utc_offset_s);

// Whether one excludeDates entry switches off a job running at `now_unix_s` (the fire time),
// with the controller's exact test (cronjob.go IsTodayOff): let next = the entry's next fire
// strictly after now (NextCronFire); the job is skipped when next.Format("11-15-1990") equals
// now.Format("11-15-1990"). That layout was meant as a date, but in Go's layout language "1" is
// the month and "15" the 24-hour hour (the "9"s and "0" are literal), so it prints month, month,
// hour, month: the test is "next is in the same month and the same hour of the day as now",
// any day and any year. Consequences, all reproduced: "* * * 15 11 *" skips 15 November except
// at hh:59:59 (the next match is in the next hour); it also skips 00:00:00-00:59:59 of every
// other November day (the next match is a 15 November 00:00:00, this year's or next year's:
// same month, hour 00). Likewise "* * * * * 5" (Fridays) skips Fridays except at hh:59:59, and
// 00:xx of any day whose next Friday is in the same month. An entry with no next fire compares
// Go's zero time, which prints as January, hour 00 (UTC): it skips 00:xx of every January day.
// A `@every D` entry compares now + D.
bool ExcludedBy(const CronSchedule& exclude_date, int64_t now_unix_s, int32_t utc_offset_s);

// Wall-clock helpers at a fixed UTC offset (proleptic Gregorian). weekday: Sunday 0.
struct WallClock {
  int64_t year = 1970;
  int month = 1;  // 1-12
  int day = 1;    // 1-31
  int hour = 0;
  int minute = 0;
  int second = 0;
  int weekday = 4;
};
WallClock WallClockAt(int64_t unix_s, int32_t utc_offset_s);
// The Unix time of a wall-clock time; out-of-range parts carry over as in Go's time.Date
// (month 13 is January of the next year, day 32 of January is 1 February, …).
int64_t UnixAtWallClock(int64_t year, int month, int day, int hour, int minute, int second,
                        int32_t utc_offset_s);

}  // namespace knobsim
