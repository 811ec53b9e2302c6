#include "sim/diff/results_diff.h"

#include <doctest/doctest.h>

#include <random>

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

// A results document with one workload and one card; `p99` per replication (R = size).
Json Doc(const std::vector<double>& p99, double errors = 0, bool slo_met = true, int pending = 0,
         double busy = 0.5, const std::string& scenario = "s") {
  Json w;
  w["name"] = "ocr";
  w["namespace"] = "ai";
  w["id"] = "ai/ocr";
  double mean = 0;
  for (double v : p99) mean += v;
  mean /= static_cast<double>(p99.size());
  w["errors"] = Json{{"oom", errors}, {"fake_ready", 0}, {"timeout", 0}, {"no_replica", 0}};
  w["latency_ms"] = Json{{"mean", 10.0}, {"p99", mean}};
  w["slo_met"] = slo_met;
  w["error_ratio"] = errors / 1000;
  if (p99.size() > 1) {
    w["per_replication"] = Json{{"p99_ms", p99}};
    w["ci95"] = Json{{"latency_ms", Json{{"p99", 0.0}}}};
  }
  Json card{{"node", "gpu-0"}, {"index", 0}, {"busy", busy}};
  Json pod{{"namespace", "ai"}, {"name", "ocr-0"}, {"workload", "ocr"},
           {"node", "gpu-0"},   {"cards", {0}},    {"state", pending ? "Pending" : "Running"},
           {"message", ""}};
  if (pending) pod["node"] = nullptr;
  Json v{{"name", "base"},
         {"workloads", {w}},
         {"cards", {card}},
         {"pods", {pod}},
         {"cluster", Json{{"pending_pods", pending}, {"fake_ready_pods", 0}}}};
  return Json{{"schema", "knobsim.results/v1"},
              {"scenario", scenario},
              {"seed", 1},
              {"replications", p99.size()},
              {"variants", {v}}};
}

DiffOptions Rules(std::string_view text) {
  auto rules = ParseDiffRules(text);
  REQUIRE_MESSAGE(rules, (rules ? std::string() : rules.error().message));
  return DiffOptions{*rules, false, {}};
}

TEST_CASE("rules read as metric:signed threshold with %, pp, a count, or any for slo_met") {
  const DiffOptions o = Rules("p99:+10%, mean:+5%,errors:+0,busy:-5pp,pending:+0,slo_met:any");
  REQUIRE(o.rules.size() == 6);
  CHECK(o.rules[0].scale == DiffRule::Scale::kPercent);
  CHECK(o.rules[0].threshold == 10);
  CHECK(o.rules[3].bad_direction == -1);
  CHECK(o.rules[3].scale == DiffRule::Scale::kPoints);
  CHECK(o.rules[5].scale == DiffRule::Scale::kAny);
  auto refused = [](std::string_view text) {
    const auto rules = ParseDiffRules(text);
    return rules ? std::string() : rules.error().message;
  };
  CHECK(refused("p98:+10%").find("unknown metric") != std::string::npos);
  CHECK(refused("p99:10%").find("needs a sign") != std::string::npos);
  CHECK(refused("busy:-5%").find("percentage points") != std::string::npos);
  CHECK_FALSE(refused("slo_met:+1").empty());
  CHECK_FALSE(refused("p99:any").empty());
  CHECK_FALSE(refused("p99:+x%").empty());
  CHECK_FALSE(refused("").empty());
  CHECK(ParseDiffRules(kDefaultDiffRules));
}

TEST_CASE("identical documents give no difference at all") {
  const Json a = Doc({100, 104, 98, 101, 97});
  const DiffReport r = DiffResults(a, a, Rules(kDefaultDiffRules));
  CHECK(r.identical);
  CHECK(r.regressions == 0);
  CHECK(DiffText(r) == "knobsim diff: no difference at all\n");
}

TEST_CASE("each rule fires on its own metric in its bad direction only") {
  const DiffOptions o = Rules("errors:+0,busy:-5pp,pending:+0,slo_met:any");
  CHECK(DiffResults(Doc({100}), Doc({100}, 3), o).regressions == 1);                 // errors up
  CHECK(DiffResults(Doc({100}, 3), Doc({100}), o).regressions == 0);                 // errors down
  CHECK(DiffResults(Doc({100}), Doc({100}, 0, true, 0, 0.44), o).regressions == 1);  // busy -6pp
  CHECK(DiffResults(Doc({100}), Doc({100}, 0, true, 0, 0.46), o).regressions == 0);  // busy -4pp
  CHECK(DiffResults(Doc({100}), Doc({100}, 0, true, 0, 0.60), o).regressions == 0);  // busy up
  CHECK(DiffResults(Doc({100}), Doc({100}, 0, false), o).regressions == 1);          // SLO lost
  CHECK(DiffResults(Doc({100}, 0, false), Doc({100}), o).regressions == 0);          // SLO won
  const DiffReport pending = DiffResults(Doc({100}), Doc({100}, 0, true, 1), o);
  CHECK(pending.regressions == 1);
  bool state_row = false;
  for (const DiffRow& row : pending.rows)
    state_row |= row.metric == "state" && row.note == "Running -> Pending";
  CHECK(state_row);
}

TEST_CASE("a change inside the noise never fails; a 25 % p99 regression always fails p99:+10%") {
  const DiffOptions o = Rules("p99:+10%");
  std::mt19937_64 rng(42);
  int noise_failures = 0, regressions_caught = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Replication r's p99 varies a lot between replications (seed effects) but the same seed
    // gives nearly the same p99 in both files: common random numbers.
    std::normal_distribution<double> seed_effect(100, 25), jitter(0, 2);
    std::vector<double> base, same, worse;
    for (int r = 0; r < 5; ++r) {
      const double v = seed_effect(rng);
      base.push_back(v);
      same.push_back(v * 1.05 + jitter(rng));   // +5 %: under the threshold
      worse.push_back(v * 1.25 + jitter(rng));  // +25 %
    }
    noise_failures += DiffResults(Doc(base), Doc(same), o).regressions;
    const DiffReport r = DiffResults(Doc(base), Doc(worse), o);
    regressions_caught += r.regressions;
    if (trial == 0) {
      REQUIRE(!r.rows.empty());
      CHECK(r.rows[0].paired);
    }
  }
  CHECK(noise_failures == 0);
  CHECK(regressions_caught == 200);
}

TEST_CASE("without pairs, the change must exceed the sum of both half-widths") {
  Json a = Doc({100, 100}), b = Doc({100, 100});
  for (Json* d : {&a, &b}) (*d)["variants"][0]["workloads"][0].erase("per_replication");
  a["variants"][0]["workloads"][0]["ci95"]["latency_ms"]["p99"] = 15.0;
  b["variants"][0]["workloads"][0]["ci95"]["latency_ms"]["p99"] = 15.0;
  b["variants"][0]["workloads"][0]["latency_ms"]["p99"] = 125.0;  // +25 %, but under 30 of noise
  const DiffReport noisy = DiffResults(a, b, Rules("p99:+10%"));
  CHECK(noisy.regressions == 0);
  REQUIRE_FALSE(noisy.rows.empty());
  CHECK(noisy.rows[0].noise == doctest::Approx(30));
  CHECK_FALSE(noisy.rows[0].paired);
  b["variants"][0]["workloads"][0]["latency_ms"]["p99"] = 140.0;
  CHECK(DiffResults(a, b, Rules("p99:+10%")).regressions == 1);
}

TEST_CASE("documents that cannot be compared are refused with the reason") {
  const DiffOptions o = Rules(kDefaultDiffRules);
  Json other = Doc({100}, 0, true, 0, 0.5, "other");
  CHECK(CheckComparable(Doc({100}), other, o).ToString().find("different scenarios") !=
        std::string::npos);
  DiffOptions allow = o;
  allow.allow_scenario_change = true;
  CHECK(CheckComparable(Doc({100}), other, allow).ok());
  Json v2 = Doc({100});
  v2["schema"] = "knobsim.results/v2";
  CHECK(CheckComparable(Doc({100}), v2, o).ToString().find("schema major") != std::string::npos);
  CHECK(CheckComparable(Json{{"schema", "knobsim.plan/v1"}}, Doc({100}), o)
            .ToString()
            .starts_with("BASE is not"));
  DiffOptions named = o;
  named.variants = {"upgrade-first"};
  CHECK(CheckComparable(Doc({100}), Doc({100}), named).ToString().find("not in BASE") !=
        std::string::npos);
}

TEST_CASE("documents of any shape are compared without reading what is not there") {
  // The library is safe on its own (the command checks documents first, results_document.h):
  // absent keys and wrong types read as absent, never as an exception or a dangling reference.
  const DiffOptions o = Rules(kDefaultDiffRules);
  const Json shapes[] = {Json::object(),
                         Json{{"variants", Json::object()}},
                         Json{{"variants", "base"}},
                         Json{{"variants", {{{"name", 5}, {"workloads", "x"}, {"pods", {1}}}}}},
                         Json{{"variants", {{{"name", "base"}, {"cards", {{{"index", "0"}}}}}}}},
                         Json::array()};
  for (const Json& shape : shapes) {
    CAPTURE(shape.dump());
    CHECK_NOTHROW(CheckComparable(shape, Doc({100}), o));
    CHECK_NOTHROW(DiffResults(shape, Doc({100}), o));
    CHECK_NOTHROW(DiffResults(Doc({100}), shape, o));
  }
  CHECK(CheckComparable(Json{{"schema", "knobsim.results/v1"}}, Doc({100}), o)
            .ToString()
            .starts_with("BASE holds no variants"));
}

TEST_CASE("a variant of BASE that NEW lacks is a regression; workloads only in one are listed") {
  Json two = Doc({100});
  Json other = two["variants"][0];
  other["name"] = "spread";
  two["variants"].push_back(other);
  const DiffReport gone = DiffResults(two, Doc({100}), Rules(kDefaultDiffRules));
  CHECK(gone.regressions == 1);
  REQUIRE(gone.rows.size() == 1);
  CHECK(gone.rows[0].rule == kMissingVariantRule);
  CHECK(DiffText(gone).starts_with("knobsim diff: 1 regression (variant missing from NEW)"));
  Json renamed = Doc({100});
  renamed["variants"][0]["workloads"][0]["id"] = "ai/ocr-v2";
  const DiffReport moved = DiffResults(Doc({100}), renamed, Rules(kDefaultDiffRules));
  CHECK(moved.regressions == 0);
  CHECK_FALSE(moved.identical);
  bool only_new = false, only_base = false;
  for (const DiffRow& row : moved.rows) {
    only_new |= row.subject == "ai/ocr-v2" && row.note.starts_with("in NEW only");
    only_base |= row.subject == "ai/ocr" && row.note.starts_with("in BASE only");
  }
  CHECK(only_new);
  CHECK(only_base);
}

TEST_CASE("the text and markdown reports give every number its unit") {
  // p99 in ms with the relative change, busy as a percentage with the change in points.
  const DiffReport r =
      DiffResults(Doc({100}, 0, true, 0, 0.5), Doc({130}, 0, true, 0, 0.62), Rules("p99:+10%"));
  const std::string md = DiffMarkdown(r), text = DiffText(r);
  CHECK(md.find("p99 100 ms → 130 ms (+30 ms (+30 %)") != std::string::npos);
  CHECK(md.find("| busy | 50 % | 62 % | +12 pp |") != std::string::npos);
  CHECK(text.find("+30 ms (+30 %)") != std::string::npos);
  CHECK(text.find("+12 pp") != std::string::npos);
}

TEST_CASE("the markdown report puts the verdict and the broken rules first") {
  const DiffReport r = DiffResults(Doc({100}), Doc({100}, 4), Rules(kDefaultDiffRules));
  const std::string md = DiffMarkdown(r);
  CHECK(md.starts_with("### knobsim: 1 regression (errors:+0)\n"));
  // Every number carries its unit.
  CHECK(md.find("- **ai/ocr** (base): errors 0 requests → 4 requests (+4 requests, no noise) "
                "breaks `errors:+0`") != std::string::npos);
  CHECK(md.find("| variant | subject |") != std::string::npos);
  const Json j = DiffJson(r);
  CHECK(j["schema"] == "knobsim.diff/v1");
  CHECK(j["regressions"] == 1);
}

}  // namespace
}  // namespace knobsim
