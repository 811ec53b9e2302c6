#include "sim/io/arrival_file.h"

#include <doctest/doctest.h>

#include <string>

namespace knobsim {
namespace {

constexpr SimTime kSecond = kNanosPerSecond;

TEST_CASE("RFC 3339 instants read as Unix seconds, offsets and fractions included") {
  struct Case {
    const char* text;
    double seconds;
  };
  for (const Case c : {Case{"1970-01-01T00:00:00Z", 0}, Case{"2000-03-01T00:00:00Z", 951868800},
                       Case{"2026-03-02T10:00:00.250Z", 1772445600.25},
                       Case{"2026-03-02T18:00:00+08:00", 1772445600},
                       Case{"2026-03-02T05:30:00-04:30", 1772445600}}) {
    CAPTURE(c.text);
    REQUIRE(ParseRfc3339(c.text).has_value());
    CHECK(*ParseRfc3339(c.text) == doctest::Approx(c.seconds));
  }
  for (const char* bad :
       {"2026-03-02T10:00:00", "2026-13-02T10:00:00Z", "12.5", "", "2026-03-02"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseRfc3339(bad).has_value());
  }
}

TEST_CASE("arrival times are offsets from the start, sorted with equal times kept in file order") {
  const auto rec =
      ParseArrivalsCsv("# recorded\ntime,work\n2.5,0.3\n0.5,0.1\n2.5,0.4\n\n", "a.csv", {});
  REQUIRE(rec.ok());
  CHECK(rec->at == std::vector<SimTime>{kSecond / 2, 5 * kSecond / 2, 5 * kSecond / 2});
  CHECK(rec->work_s == std::vector<double>{0.1, 0.3, 0.4});
}

TEST_CASE("the start moves t = 0: `first`, an instant, or Unix seconds") {
  const std::string csv = "timestamp\n2026-03-02T10:00:01Z\n2026-03-02T10:00:03.5Z\n";
  const auto first = ParseArrivalsCsv(csv, "a.csv", *ParseRecordingStart("first"));
  REQUIRE(first.ok());
  CHECK(first->at == std::vector<SimTime>{0, 5 * kSecond / 2});
  const auto at = ParseArrivalsCsv(csv, "a.csv", *ParseRecordingStart("2026-03-02T10:00:00Z"));
  REQUIRE(at.ok());
  CHECK(at->at == std::vector<SimTime>{kSecond, 7 * kSecond / 2});
  const auto epoch =
      ParseArrivalsCsv("time\n1772445601\n", "a.csv", *ParseRecordingStart("1772445600"));
  REQUIRE(epoch.ok());
  CHECK(epoch->at == std::vector<SimTime>{kSecond});
}

TEST_CASE("times that cannot be offsets are refused with the hint, never guessed") {
  struct Case {
    const char* csv;
    int line;
    const char* message;
  };
  for (const Case c :
       {Case{"time\n0\n1772445600\n", 3, "looks like an instant"},
        Case{"time\n1772445600123\n", 2, "milliseconds"},
        Case{"time,size\n1,2\n", 1, "unknown column"}, Case{"work\n1\n", 1, "no `time` column"},
        Case{"time,work\n1\n", 2, "cells"}, Case{"time,work\n1,0\n", 2, "positive number"},
        Case{"time\nsoon\n", 2, "is not a time"}, Case{"time\nnan\n", 2, "is not a time"},
        Case{"time\n-1\n", 2, "before the recording's start"}, Case{"", 0, "empty"}}) {
    CAPTURE(c.csv);
    const auto rec = ParseArrivalsCsv(c.csv, "a.csv", {});
    REQUIRE_FALSE(rec.ok());
    CHECK(rec.error().file == "a.csv");
    CHECK(rec.error().line == c.line);
    CHECK(rec.error().message.find(c.message) != std::string::npos);
  }
  CHECK_FALSE(ParseRecordingStart("yesterday").ok());
  const Expected<RecordingStart> millis = ParseRecordingStart("1772445600000");
  REQUIRE_FALSE(millis.ok());
  CHECK(millis.error().message.find("milliseconds") != std::string::npos);
}

TEST_CASE("a counts file holds one count a line, with an optional header") {
  const auto counts = ParseCountsFile("count\n3\n# gap\n0\n12\n", "c.txt");
  REQUIRE(counts.ok());
  CHECK(*counts == std::vector<int64_t>{3, 0, 12});
  for (const char* bad : {"3\n-1\n", "3\n2.5\n", "", "count\n"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseCountsFile(bad, "c.txt").ok());
  }
}

TEST_CASE("a per-pod counts file: interval, then one column per pod, every interval in order") {
  const auto pods =
      ParsePerPodCountsCsv("interval,web-0,web-1\n0,3,0\n# gap\n1, 0 ,7\n2,1,1\n", "p.csv");
  REQUIRE(pods.ok());
  REQUIRE(pods->size() == 2);
  CHECK((*pods)[0].pod == "web-0");
  CHECK((*pods)[0].values == std::vector<int64_t>{3, 0, 1});
  CHECK((*pods)[1].pod == "web-1");
  CHECK((*pods)[1].values == std::vector<int64_t>{0, 7, 1});
  struct Bad {
    const char* text;
    const char* error;
  };
  const Bad cases[] = {
      {"", "p.csv: the file is empty; the first line names the columns"},
      {"interval,a\n", "p.csv: the file holds no interval"},
      {"time,a\n0,1\n",
       "p.csv:1: time: the header is not `interval,<pod>,<pod>...`; the first column is the "
       "interval's index, then one column per pod"},
      {"interval\n0\n",
       "p.csv:1: interval: the header is not `interval,<pod>,<pod>...`; the first column is the "
       "interval's index, then one column per pod"},
      {"interval,a,a\n", "p.csv:1: a: the pod is given twice"},
      {"interval,a,\n", "p.csv:1: column 3 has no pod name"},
      {"interval,a\n0,1\n2,1\n",
       "p.csv:3: interval: \"2\" is not the next interval, 1; one row per interval, from 0, in "
       "order, none left out"},
      {"interval,a,b\n0,1\n", "p.csv:2: has 2 cells where the header names 3"},
      {"interval,a\n0,-1\n",
       "p.csv:2: a: \"-1\" is not a count of arrivals; an integer from 0 "
       "to 1e9"},
  };
  for (const Bad& c : cases) {
    CAPTURE(c.text);
    const auto r = ParsePerPodCountsCsv(c.text, "p.csv");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString() == c.error);
  }
}

}  // namespace
}  // namespace knobsim
