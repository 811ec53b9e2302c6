#include "sim/io/interference_files.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "sim/io/csv_lines.h"

namespace knobsim {
namespace {

TEST_CASE("csv lines: cells are trimmed, comments and blank lines skipped, CRLF accepted") {
  CHECK(SplitCommas(" a ,b,\tc\r") == std::vector<std::string_view>{"a", "b", "c"});
  CHECK(SplitCommas("") == std::vector<std::string_view>{""});
  CHECK(SplitCommas("a,,b") == std::vector<std::string_view>{"a", "", "b"});
  std::vector<int> lines;
  ForEachCsvLine("h\r\n\n# note\n  \nx\n", [&](int n, std::string_view) {
    lines.push_back(n);
    return true;
  });
  CHECK(lines == std::vector<int>{1, 5});
  CHECK(ParseCellNumber("12.5") == 12.5);
  CHECK_FALSE(ParseCellNumber("12.5x"));
  CHECK_FALSE(ParseCellNumber(""));
  CHECK_FALSE(ParseCellNumber("+1"));
}

TEST_CASE("solo table: columns by name in any order, values checked") {
  const auto ok = ParseSoloCsv(
      "memory_mib,job,mem_bw_util_pct,gpu_util_pct,batch\n2048,a,30,80,32\n0,b,0,0,1\n", "s.csv");
  REQUIRE(ok.ok());
  REQUIRE(ok->profiles.size() == 2);
  CHECK(ok->profiles[0].job == "a");
  CHECK(ok->profiles[0].gpu_util_pct == 80);
  CHECK(ok->profiles[0].mem_bw_util_pct == 30);
  CHECK(ok->profiles[0].memory_mib == 2048);
  CHECK(ok->ignored_columns == std::vector<std::string>{"batch"});

  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"", "s.csv: the file is empty; the first line names the columns"},
      {"job,gpu_util_pct,mem_bw_util_pct\n",
       "s.csv:1: the header has no memory_mib column"},
      {"job,gpu_util_pct,mem_bw_util_pct,memory_mib\n", "s.csv: holds no job"},
      {"job,job,gpu_util_pct,mem_bw_util_pct,memory_mib\n", "s.csv:1: job: the column is given twice"},
      {"job,gpu_util_pct,mem_bw_util_pct,memory_mib\na,50,20,1\na,60,20,1\n",
       "s.csv:3: job: \"a\" is measured twice"},
      {"job,gpu_util_pct,mem_bw_util_pct,memory_mib\na,nan,20,1\n",
       "s.csv:2: gpu_util_pct: \"nan\" is not a number"},
      {"job,gpu_util_pct,mem_bw_util_pct,memory_mib\na,50,-1,1\n",
       "s.csv:2: mem_bw_util_pct: \"-1\" is not a percentage from 0 to 100"},
      {"job,gpu_util_pct,mem_bw_util_pct,memory_mib\n,50,1,1\n", "s.csv:2: job: is empty"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const auto bad = ParseSoloCsv(c.text, "s.csv");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().ToString().rfind(c.error, 0) == 0);
  }
}

TEST_CASE("pairs table: speeds optional for prediction, both or neither, resolved by name") {
  const std::vector<JobProfile> profiles = {{"a", 50, 20, 1}, {"b", 90, 60, 2}};
  const auto no_speeds = ParsePairsCsv("job_a,job_b\na,b\nb,b\n", "p.csv", false);
  REQUIRE(no_speeds.ok());
  CHECK_FALSE(no_speeds->has_speeds);
  const auto samples = ResolvePairs(*no_speeds, profiles, "p.csv");
  REQUIRE(samples.ok());
  CHECK((*samples)[1].a == 1);
  CHECK((*samples)[1].b == 1);
  CHECK((*samples)[0].speed_a == 1);

  CHECK(ParsePairsCsv("job_a,job_b\na,b\n", "p.csv", true).error().ToString() ==
        "p.csv:1: the header has no speed_a, speed_b column; the first line names the columns: "
        "job_a,job_b,speed_a,speed_b");
  CHECK(ParsePairsCsv("job_a,job_b,speed_a\na,b,1\n", "p.csv", false).error().ToString().rfind(
            "p.csv:1: speed_b: the header has one speed column without the other", 0) == 0);
  CHECK(ParsePairsCsv("job_a,job_b,speed_a,speed_b\na,b,3.5,1\n", "p.csv", true)
            .error()
            .ToString()
            .rfind("p.csv:2: speed_a: \"3.5\" is not a speed from 0 to 3", 0) == 0);
  const auto unknown = ResolvePairs(*ParsePairsCsv("job_a,job_b\na,c\n", "p.csv", false),
                                    profiles, "p.csv");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().ToString().rfind("p.csv:2: job_b: \"c\" has no solo profile", 0) == 0);
}

TEST_CASE("model file: written and read back bit for bit") {
  std::vector<JobProfile> profiles;
  std::vector<PairSample> pairs;
  for (int j = 0; j < 8; ++j) {
    profiles.push_back({"job" + std::to_string(j), 10.0 + 11 * j, 5.0 + 7 * j, 1000.0 * j});
  }
  for (int a = 0; a < 8; ++a) {
    for (int b = a; b < 8; ++b) {
      pairs.push_back({a, b, 1 - 0.003 * (a + 2 * b) - 0.001 * a * b, 1 - 0.004 * (a + b)});
    }
  }
  InterferenceModelFile file;
  file.model = FitInterference(profiles, pairs);
  file.profiles = profiles;
  file.cross_validation = CrossValidateInterference(profiles, pairs);
  const std::string path = "/tmp/knobsim-interference-model-test.json";
  std::ofstream(path) << InterferenceModelJson(file).dump(2);
  const auto back = ReadInterferenceModel(path);
  std::remove(path.c_str());
  REQUIRE_MESSAGE(back.ok(), back.error().ToString());
  CHECK(back->model.weights == file.model.weights);
  CHECK(back->model.lambda == file.model.lambda);
  CHECK(back->model.min_speed == file.model.min_speed);
  CHECK(back->model.jobs.size() == file.model.jobs.size());
  CHECK(back->profiles.size() == 8);
  REQUIRE(back->cross_validation);
  CHECK(back->cross_validation->model_mae == file.cross_validation->model_mae);
  for (int a = 0; a < 8; ++a) {
    CHECK(back->model.Speed(profiles[a], profiles[7 - a]) ==
          file.model.Speed(profiles[a], profiles[7 - a]));
  }
}

}  // namespace
}  // namespace knobsim
