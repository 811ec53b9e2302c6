#include "sim/replay/result_csv.h"

#include <doctest/doctest.h>

#include "sim/replay/medians.h"

namespace knobsim::replay {
namespace {

ResultRow Row(const char* policy, int64_t seed, double at100, double at130) {
  ResultRow r;
  r.workload = "openb_pod_list_default";
  r.sc_policy = policy;
  r.tune = "1.3";
  r.seed = seed;
  r.total_gpus = 6212;
  for (int x = 0; x < kColumns; ++x) r.values[x] = x;
  r.values[100] = at100;
  r.values[130] = at130;
  return r;
}

TEST_CASE("result files have the reference's header; only the allocation file has total_gpus") {
  std::vector<ResultRow> rows = {Row("06-FGD", 42, 95.14, 95.29)};
  rows[0].values[3].reset();
  const std::string allo = FormatResultCsv(ResultFile::kAllo, rows);
  CHECK(allo.rfind("workload,sc_policy,tune,seed,total_gpus,0,1,2,", 0) == 0);
  CHECK(allo.find(",129,130\nopenb_pod_list_default,06-FGD,1.3,42,6212,0.0,1.0,2.0,,4.0,") !=
        std::string::npos);
  CHECK(allo.find(",95.14,") != std::string::npos);
  const std::string frag = FormatResultCsv(ResultFile::kFrag, rows);
  CHECK(frag.rfind("workload,sc_policy,tune,seed,0,1,", 0) == 0);
  CHECK(frag.find("06-FGD,1.3,42,0.0,") != std::string::npos);
}

TEST_CASE("a written result file reads back to the same rows") {
  std::vector<ResultRow> rows = {Row("06-FGD", 43, 95.2, 95.3), Row("06-FGD", 42, 95.1, 95.25)};
  SortRows(rows);
  CHECK(rows[0].seed == 42);
  for (ResultFile f : kResultFiles) {
    auto back = ParseResultCsv(FormatResultCsv(f, rows), "x.csv");
    REQUIRE(back.ok());
    REQUIRE(back->size() == 2);
    CHECK((*back)[1].seed == 43);
    CHECK((*back)[1].values[130] == 95.3);
    CHECK((*back)[0].total_gpus == (f == ResultFile::kAllo ? 6212 : 0));
  }
}

TEST_CASE("a malformed result file is an input error with line and column") {
  std::string text =
      FormatResultCsv(ResultFile::kFrag, std::vector<ResultRow>{Row("06-FGD", 42, 1, 2)});
  text.replace(text.find(",1.3,42,0.0,1.0,"), 16, ",1.3,42,0.0,x.y,");
  auto r = ParseResultCsv(text, "frag.csv");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().ToString() == "frag.csv:2: 1: \"x.y\" is not a number");
  auto bad = ParseResultCsv("workload,policy\n", "h.csv");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().line == 1);
}

TEST_CASE("medians per trace and policy sit beside the reference's over the same seeds") {
  const std::vector<ResultRow> ours = {Row("06-FGD", 42, 95.0, 95.2),
                                       Row("06-FGD", 43, 95.4, 95.6)};
  const std::vector<ResultRow> paper = {
      Row("06-FGD", 42, 95.1, 95.3), Row("06-FGD", 43, 95.3, 95.5), Row("06-FGD", 44, 99.0, 99.0)};
  const std::vector<MedianRow> m = AllocationMedians(ours, paper);
  REQUIRE(m.size() == 1);
  CHECK(m[0].seeds == 2);
  CHECK(*m[0].at100 == doctest::Approx(95.2));
  CHECK(*m[0].expected100 == doctest::Approx(95.2));  // seed 44 is not ours: left out
  const std::string table = FormatMediansTable(m);
  CHECK(table.find("paper") != std::string::npos);
  CHECK(table.find("openb_pod_list_default  06-FGD") != std::string::npos);
  CHECK(table.find("+0.000") != std::string::npos);
  CHECK(FormatMediansTable(AllocationMedians(ours, {})).find("paper") == std::string::npos);
}

}  // namespace
}  // namespace knobsim::replay
