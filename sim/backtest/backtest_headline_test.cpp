// The backtest headline store (backtest_headline.h): what a backtest keeps is found again by its
// evidence fingerprint, and records or documents that do not read are errors naming the field.
#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/backtest/backtest_headline.h"
#include "sim/backtest/backtest_json.h"

namespace knobsim::backtest {
namespace {

constexpr const char* kEvidence = "kf1-0123456789abcdef";

BacktestReport Report() {
  BacktestReport r;
  r.evidence = kEvidence;
  r.train = {1717200000, 1717264800};
  r.test = {1717264800, 1717286400};
  r.window_s = 600;
  r.windows = 36;
  r.replications = 5;
  r.verdicts = {{"utilization", true, "median R² 0.97"}, {"latency", false, "MdAPE 12 %"}};
  return r;
}

struct Store {
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("knobsim-headline-test-" + std::to_string(::getpid())))
                        .string();
  Store() { std::filesystem::remove_all(dir); }
  ~Store() { std::filesystem::remove_all(dir); }
};

TEST_CASE("headline store: a stored headline is found again by its evidence, and only by it") {
  const Store store;
  REQUIRE(StoreHeadline(store.dir, HeadlineOf(Report(), "test")).ok());
  auto found = FindHeadline(store.dir, kEvidence);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  const BacktestHeadline& h = **found;
  CHECK(h.train_from == "2024-06-01T00:00:00Z");
  CHECK(h.test_to == "2024-06-02T00:00:00Z");
  CHECK(h.windows == 36);
  REQUIRE(h.verdicts.size() == 2);
  CHECK(h.verdicts[1].what == "latency");
  CHECK_FALSE(h.verdicts[1].trust);
  const std::string text = HeadlineText(h);
  CHECK(text.find("36 windows of 10m, 5 replications") != std::string::npos);
  CHECK(text.find("  trust utilization: median R² 0.97\n") != std::string::npos);
  CHECK(text.find("  do not trust latency: MdAPE 12 %\n") != std::string::npos);

  auto other = FindHeadline(store.dir, "kf1-fedcba9876543210");
  REQUIRE(other.ok());
  CHECK_FALSE(other->has_value());
  // Not a fingerprint: never turned into a file name.
  auto bad = FindHeadline(store.dir, "../../etc/passwd");
  REQUIRE(bad.ok());
  CHECK_FALSE(bad->has_value());
  // No store at all: nothing found, no error.
  auto none = FindHeadline("", kEvidence);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
}

TEST_CASE("headline store: a record that does not read is an error naming its file and field") {
  const Store store;
  std::filesystem::create_directories(store.dir + "/backtests");
  const std::string path = store.dir + "/backtests/" + kEvidence + ".json";
  std::ofstream(path) << R"({"schema": "knobsim.backtest-headline/v1", "evidence": ")" << kEvidence
                      << R"(", "knobsim_version": "x", "train": {"from": "a", "to": "b"},
 "test": {"from": "c", "to": "d"}, "window_s": 600, "windows": "36", "replications": 1,
 "verdicts": []})";
  auto found = FindHeadline(store.dir, kEvidence);
  REQUIRE_FALSE(found.ok());
  CHECK(found.error().file == path);
  CHECK(found.error().path == "windows");
  CHECK(found.error().line == 2);  // the line of "windows"
}

TEST_CASE("headline from a backtest document: its own fields, each checked") {
  nlohmann::ordered_json doc = BacktestToJson(Report(), "test");
  auto h = HeadlineFromJson(*ParseJsonDocument(doc.dump(1), "bt.json"));
  REQUIRE(h.ok());
  CHECK(h->evidence == kEvidence);
  CHECK(h->verdicts.size() == 2);
  struct Case {
    const char* change;
    void (*apply)(nlohmann::ordered_json&);
    const char* field;
  };
  const Case cases[] = {
      {"another schema", [](nlohmann::ordered_json& d) { d["schema"] = "knobsim.results/v1"; },
       "schema"},
      {"no evidence", [](nlohmann::ordered_json& d) { d.erase("evidence"); }, "evidence"},
      {"evidence not a fingerprint", [](nlohmann::ordered_json& d) { d["evidence"] = "abc"; },
       "evidence"},
      {"trust as a string", [](nlohmann::ordered_json& d) { d["verdicts"][0]["trust"] = "yes"; },
       "verdicts[0].trust"},
      {"verdicts not a list", [](nlohmann::ordered_json& d) { d["verdicts"] = "all"; }, "verdicts"},
      {"test window without its end", [](nlohmann::ordered_json& d) { d["test"].erase("to"); },
       "test.to"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.change);
    nlohmann::ordered_json d = doc;
    c.apply(d);
    auto bad = HeadlineFromJson(*ParseJsonDocument(d.dump(1), "bt.json"));
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().path == c.field);
    CHECK(bad.error().file == "bt.json");
  }
}

}  // namespace
}  // namespace knobsim::backtest
