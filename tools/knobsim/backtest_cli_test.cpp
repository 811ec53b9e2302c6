// End to end: `knobsim backtest` (docs/backtest.md) through the real binaries on the
// request-level truth of tools/gen-export's backtest profile (bursty arrivals, gamma service
// times, an idle floor, whole-GPU LLM pods, a CPU-only router): it must meet the goals
// there — utilization R² ≥ 0.9 per 10-minute window, latency MdAPE ≤ 8 %, work within 5 % of the
// truth — and say so in its verdicts; bad options are input errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

// The profile, written once for all cases of this file.
struct Profile {
  std::string dir = TempPath("backtest-profile");
  json truth;
  Profile() {
    std::filesystem::remove_all(dir);
    const std::string cmd = Quoted(KNOBSIM_GEN_EXPORT_BINARY) +
                            " --profile backtest --nodes 8 --pods 24 --days 1 -o " + Quoted(dir) +
                            " >/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    truth = json::parse(ReadFile(dir + "/truth.json"));
  }
  std::string Args() const {
    std::string args = "backtest --kube " + Quoted(dir + "/export.json");
    for (const auto& f : std::filesystem::directory_iterator(dir + "/prom"))
      args += " --prom " + Quoted(f.path().string());
    return args +
           " --rate-metric http_requests_per_second"
           " --latency-metric knobsim_request_duration_seconds --quiet";
  }
};

const Profile& Shared() {
  static const Profile profile;
  return profile;
}

TEST_CASE("backtest on the known truth meets the goals and trusts utilization and latency") {
  const Profile& p = Shared();
  const std::string windows =
      " --train " + p.truth.at("backtest").at("train").at("arg").get<std::string>() + " --test " +
      p.truth.at("backtest").at("test").at("arg").get<std::string>();
  const Outcome o = Run(p.Args() + windows + " --json -");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  const json doc = json::parse(o.out);  // `--json -`: the document alone
  CHECK(doc.at("schema") == "knobsim.backtest/v1");
  CHECK(doc.at("windows") == 36);
  const json& s = doc.at("summary");
  CAPTURE(s.dump());
  CHECK(s.at("utilization").at("cards_with_r2").get<int>() >= 4);
  CHECK(s.at("utilization").at("r2_median").get<double>() >= 0.9);
  CHECK(s.at("utilization").at("mae_pp_median").get<double>() <= 1.2);
  CHECK(s.at("latency").at("workloads").get<int>() >= 3);
  CHECK(s.at("latency").at("mdape_mean").get<double>() <= 0.08);
  // Better than the naive predictors on the same windows.
  CHECK(s.at("utilization").at("mae_pp_median").get<double>() <
        s.at("utilization").at("baseline_train_mean").at("mae_pp_median").get<double>());
  CHECK(s.at("latency").at("mdape_mean").get<double>() <
        s.at("latency").at("baseline_train_median").at("mdape_mean").get<double>());
  // The p99 goes through the latency histogram's buckets on both sides (histogram_quantile's
  // interpolation inside wide buckets is what Prometheus measured): within 10 %, and better than
  // the train-window median of the measured p99.
  CHECK(s.at("latency").at("mdape_p99").get<double>() <= 0.1);
  CHECK(s.at("latency").at("mdape_p99").get<double>() <
        s.at("latency").at("baseline_train_median").at("mdape_p99").get<double>());
  for (const json& w : doc.at("workloads")) {
    CHECK(w.at("p99_through_buckets") == true);
    CHECK(w.at("windows").at(0).at("predicted").contains("p99_requests_ms"));
  }
  for (const json& v : doc.at("verdicts")) {
    CAPTURE(v.dump());
    if (v.at("what") != "memory") CHECK(v.at("trust") == true);
  }
  // The work the train window fitted, against the truth.
  for (const json& w : doc.at("workloads")) {
    const std::string name =
        w.at("id").get<std::string>().substr(w.at("id").get<std::string>().find('/') + 1);
    for (const json& t : p.truth.at("workloads")) {
      if (t.at("name") != name) continue;
      CAPTURE(name);
      CHECK(std::abs(w.at("work_s").get<double>() - t.at("work_s").get<double>()) <=
            0.05 * t.at("work_s").get<double>());
    }
  }
  // Every card and workload carries its windows, measured and predicted side by side.
  const json& card = doc.at("cards").at(0);
  CHECK(card.at("windows").size() == 36);
  CHECK(card.at("windows").at(0).contains("measured"));
  CHECK(card.at("windows").at(0).contains("baseline_train_mean"));
  const Outcome text = Run(p.Args() + windows + " --replications 2");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("Verdict\n  trust utilization") != std::string::npos);
}

// The replay runs as independent parts where the cluster allows it (docs/backtest.md "Speed");
// the profile's cluster does (node-disjoint groups, a Pending pod, idle nodes), and the document
// must not change by one byte when it runs whole.
TEST_CASE("backtest: the replay split into independent parts gives the whole's numbers") {
  std::string args = Shared().Args();
  args.erase(args.rfind(" --quiet"), std::string(" --quiet").size());
  args += " --split 0.25 --replications 2 --no-store --json -";
  const Outcome split = Run(args + " --threads 2 --progress");
  const Outcome whole = Run(args + " --threads 1 --no-split --progress");
  REQUIRE_MESSAGE(split.exit_code == 0, split.err);
  REQUIRE_MESSAGE(whole.exit_code == 0, whole.err);
  // The progress counts runs: 2 replications whole, more when each runs in parts.
  CHECK(whole.err.find("2/2 runs") != std::string::npos);
  CHECK(split.err.find("2/2 runs") == std::string::npos);
  json a = json::parse(split.out), b = json::parse(whole.out);
  CHECK(a.at("workloads").size() >= 3);
  CHECK(a == b);
}

TEST_CASE("backtest with --split takes the last fraction of the metrics as the test window") {
  const Outcome o = Run(Shared().Args() + " --split 0.25 --replications 2 --json -");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  const json doc = json::parse(o.out);
  CHECK(doc.at("test").at("to_unix").get<double>() - doc.at("test").at("from_unix").get<double>() ==
        doctest::Approx(0.25 * (doc.at("test").at("to_unix").get<double>() -
                                doc.at("train").at("from_unix").get<double>())));
  CHECK(doc.at("replications") == 2);
}

TEST_CASE(
    "a backtest's headline is found again by whatif and plan on the scenario imported from "
    "the same export, and --backtest FILE must judge the scenario's own evidence") {
  const Profile& p = Shared();
  const std::string store = TempPath("headline-store");
  std::filesystem::remove_all(store);
  ::setenv("KNOBSIM_CACHE_DIR", store.c_str(), 1);
  std::string import = p.Args().substr(std::string("backtest").size());
  import = "import" + import.substr(0, import.find(" --latency-metric"));
  const std::string scenario = TempPath("headline-imported.yaml");
  REQUIRE(Run(import + " -o " + Quoted(scenario)).exit_code == 0);
  CHECK(ReadFile(scenario).find("\nevidence: kf1-") != std::string::npos);
  const std::string whatif = "whatif " + Quoted(scenario) + " --knob traffic=1.1 --duration 5m";

  const Outcome before = Run(whatif);
  REQUIRE_MESSAGE(before.exit_code == 0, before.err);
  CHECK(before.out.find("Backtest of this export") == std::string::npos);
  CHECK(before.err.find("no backtest of the export this scenario was imported from") !=
        std::string::npos);

  const std::string doc = TempPath("headline-backtest.json");
  const Outcome backtest = Run(p.Args() + " --split 0.25 --replications 1 --json " + Quoted(doc));
  REQUIRE_MESSAGE(backtest.exit_code == 0, backtest.err);
  CHECK(backtest.err.find("headline kept as kf1-") != std::string::npos);

  const Outcome after = Run(whatif);
  REQUIRE_MESSAGE(after.exit_code == 0, after.err);
  CHECK(after.out.find("Backtest of this export") != std::string::npos);
  CHECK(after.out.find("trust utilization: ") != std::string::npos);
  CHECK(after.err.find("no backtest of the export") == std::string::npos);

  const Outcome plan =
      Run("plan " + Quoted(scenario) + " --traffic 1 --duration 2m --replications 2 --max-nodes 8");
  REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
  CHECK(plan.out.find("Backtest of this export") != std::string::npos);

  // The document given by hand, with the store emptied: the same headline.
  std::filesystem::remove_all(store);
  const Outcome given = Run(whatif + " --backtest " + Quoted(doc));
  REQUIRE_MESSAGE(given.exit_code == 0, given.err);
  CHECK(given.out.find("trust utilization: ") != std::string::npos);
  // A backtest is of one export: a scenario of other evidence, or of none, refuses it.
  const Outcome other = Run("whatif " + QuotedSourcePath("scenarios/quickstart.yaml") +
                            " --knob policy=3 --duration 10m --backtest " + Quoted(doc));
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("--backtest: ") != std::string::npos);
  CHECK(other.err.find("names no evidence") != std::string::npos);
  const Outcome not_a_backtest = Run(whatif + " --backtest " + Quoted(scenario));
  CHECK(not_a_backtest.exit_code == 2);
  ::unsetenv("KNOBSIM_CACHE_DIR");
  std::filesystem::remove_all(store);
  std::filesystem::remove(scenario);
  std::filesystem::remove(doc);
}

TEST_CASE("backtest refuses windows and options that cannot work, naming the option") {
  const std::string args = Shared().Args();
  struct Case {
    std::string flags, message;
  };
  const Case cases[] = {
      {" --train 1717200000/1717264800", "--train and --test go together"},
      {" --train 1717264800/1717200000 --test 1717264800/1717286400",
       "--train: the window is empty"},
      {" --train 1717200000/1717264800 --test 1717260000/1717286400",
       "--test: the test window must start after the train window ends"},
      {" --train yesterday/1717264800 --test 1717264800/1717286400",
       "is neither an RFC 3339 instant nor Unix seconds"},
      {" --split 1.5", "--split: the test fraction must lie between 0 and 1"},
      {" --window 2d", "is longer than the test window"},
      {" --isolation '*=soft'", "--isolation: not taken by backtest"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.flags);
    const Outcome o = Run(args + c.flags);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(c.message) != std::string::npos);
  }
}

}  // namespace
}  // namespace knobsim::e2e
