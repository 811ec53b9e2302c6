// End-to-end: `knobsim upgrade` on the cGPU upgrade story (scenarios/cgpu-upgrade.yaml), the
// checks of issue 8 read from its results document, and bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim {
namespace {

using nlohmann::json;

const char* const kStory =
    "upgrade scenarios/cgpu-upgrade.yaml --registry-tags scenarios/cgpu-upgrade.registry-tags "
    "--compare";

std::string StoryArgs(const std::string& extra) {
  return "upgrade " + e2e::QuotedSourcePath("scenarios/cgpu-upgrade.yaml") + " --registry-tags " +
         e2e::QuotedSourcePath("scenarios/cgpu-upgrade.registry-tags") + " --compare " + extra;
}

// The story's document, run once for every test case that reads it.
const e2e::Outcome& Story() {
  static const e2e::Outcome outcome = e2e::Run(StoryArgs("--json -"));
  return outcome;
}

const json& StoryDoc() {
  static const json doc = json::parse(Story().out);
  return doc;
}

int64_t ErrorsOf(const json& variant, const char* cause) {
  int64_t n = 0;
  for (const json& w : variant.at("timeline").at("workloads"))
    for (const json& p : w.at("points")) n += p.at("errors").at(cause).get<int64_t>();
  return n;
}

// The start of the first timeline step with an OOM or fake-Ready error; NaN when none.
double FirstBreakage(const json& variant) {
  double first = std::numeric_limits<double>::quiet_NaN();
  for (const json& w : variant.at("timeline").at("workloads")) {
    for (const json& p : w.at("points")) {
      const json& e = p.at("errors");
      if (e.at("oom").get<int64_t>() + e.at("fake_ready").get<int64_t>() == 0) continue;
      const double t = p.at("t_s").get<double>();
      if (!(first <= t)) first = t;
    }
  }
  return first;
}

double FirstCordon(const json& variant) {
  double first = std::numeric_limits<double>::infinity();
  for (const json& n : variant.at("upgrade").at("nodes"))
    if (!n.at("cordoned_s").is_null()) first = std::min(first, n.at("cordoned_s").get<double>());
  return first;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST_CASE(
    "knobsim upgrade --compare: exit 1, a results document with timeline and upgrade per variant") {
  INFO(kStory);
  const e2e::Outcome& o = Story();
  INFO(o.err);
  CHECK(o.exit_code == 1);  // upgrade-first breaks
  const json& doc = StoryDoc();
  CHECK(doc.at("schema") == "knobsim.results/v1");
  CHECK(StartsWith(doc.at("command").get<std::string>(), "knobsim upgrade "));
  REQUIRE(doc.at("variants").size() == 3);
  // base: the same scenario and seed without the upgrade, as long as the rehearsals.
  const json& base = doc.at("variants")[0];
  CHECK(base.at("name") == "base");
  CHECK_FALSE(base.contains("upgrade"));
  CHECK(base.at("timeline").at("step_s") == 60.0);
  const double base_end = base.at("timeline").at("end_s").get<double>();
  CHECK(base_end == std::max(doc.at("variants")[1].at("timeline").at("end_s").get<double>(),
                             doc.at("variants")[2].at("timeline").at("end_s").get<double>()));
  CHECK(ErrorsOf(base, "fake_ready") + ErrorsOf(base, "oom") == 0);
  CHECK(doc.at("variants")[1].at("name") == "upgrade-first");
  CHECK(doc.at("variants")[2].at("name") == "fix-quotas-first");
  for (size_t i = 1; i < 3; ++i) {
    const json& v = doc.at("variants")[i];
    CHECK(v.at("timeline").at("step_s") == 60.0);
    CHECK(v.at("upgrade").at("options").at("after") == json{{"isolation", "hard"}});
  }
  // With --json - the report goes to stderr, ending with the verdict.
  CHECK(o.err.find("Verdict: upgrade-first:") != std::string::npos);
  CHECK(o.err.find("the rehearsal shows breakage") != std::string::npos);
}

TEST_CASE(
    "upgrade-first fails requests with OOM or fake Ready from the first cordon on; "
    "fix-quotas-first never") {
  const json& first = e2e::Variant(StoryDoc(), "upgrade-first");
  const json& fixed = e2e::Variant(StoryDoc(), "fix-quotas-first");
  const int64_t broken = ErrorsOf(first, "oom") + ErrorsOf(first, "fake_ready");
  MESSAGE("upgrade-first: " << ErrorsOf(first, "oom") << " OOM, " << ErrorsOf(first, "fake_ready")
                            << " fake-Ready errors, first in the step at " << FirstBreakage(first)
                            << " s; first cordon at " << FirstCordon(first) << " s");
  CHECK(broken > 0);
  // The first failing step is the one holding the first cordon or a later one.
  CHECK(FirstBreakage(first) + first.at("timeline").at("step_s").get<double>() >
        FirstCordon(first));
  CHECK(ErrorsOf(fixed, "oom") == 0);
  CHECK(ErrorsOf(fixed, "fake_ready") == 0);
  CHECK(fixed.at("upgrade").at("quota_fixes").size() >= 1);
}

TEST_CASE(
    "a Ready etcd member's node waits on 429 while a member is unready; the unready member's node "
    "drains at once") {
  for (const char* name : {"upgrade-first", "fix-quotas-first"}) {
    CAPTURE(name);
    const json& v = e2e::Variant(StoryDoc(), name);
    double refused_at = std::numeric_limits<double>::quiet_NaN();
    double unready_drained_at = std::numeric_limits<double>::quiet_NaN();
    for (const json& n : v.at("upgrade").at("nodes")) {
      double cordoned = -1;
      bool unready_member = false;
      for (const json& s : n.at("steps")) {
        const std::string what = s.at("what"), pod = s.at("pod");
        const std::string detail = s.at("detail");
        if (what == "cordoned") cordoned = s.at("t_s").get<double>();
        if (what == "eviction-refused" && StartsWith(pod, "infra/etcd-")) {
          CHECK(detail.find("needs 2 healthy pods and has 2 currently") != std::string::npos);
          if (!(refused_at <= s.at("t_s").get<double>())) refused_at = s.at("t_s").get<double>();
        }
        if (what == "deleted" && StartsWith(pod, "infra/etcd-") &&
            detail.find("not Ready") != std::string::npos) {
          unready_member = true;
        }
        if (what == "drained" && unready_member) {
          CAPTURE(n.at("node").get<std::string>());
          CHECK(n.at("refusals") == 0);
          CHECK(s.at("t_s").get<double>() - cordoned < 5.0);  // under one 429 retry interval
          unready_drained_at = s.at("t_s").get<double>();
        }
      }
    }
    REQUIRE(std::isfinite(refused_at));
    REQUIRE(std::isfinite(unready_drained_at));
    CHECK(refused_at < unready_drained_at);  // the 429 came while the member was still unready
    REQUIRE_FALSE(v.at("upgrade").at("blocked").empty());
    CHECK(StartsWith(v.at("upgrade").at("blocked")[0].at("pod").get<std::string>(), "infra/etcd-"));
    CHECK(v.at("upgrade").at("blocked")[0].at("budget") == "infra/etcd");
  }
}

TEST_CASE(
    "every node ends upgraded; asr ends ImagePullBackOff; a fake-Ready pod is never available") {
  for (const json& v : StoryDoc().at("variants")) {
    CAPTURE(v.at("name").get<std::string>());
    if (v.at("name") == "base") continue;
    CHECK_FALSE(v.at("upgrade").at("finished_s").is_null());
    CHECK(v.at("upgrade").at("nodes").size() == 4);  // the GPU nodes
    for (const json& n : v.at("upgrade").at("nodes")) CHECK(n.at("outcome") == "upgraded");
    int asr_backoff = 0;
    for (const json& p : v.at("pods"))
      asr_backoff += p.at("workload") == "asr" && p.at("state") == "ImagePullBackOff";
    CHECK(asr_backoff == 1);
  }
  const json& first = e2e::Variant(StoryDoc(), "upgrade-first");
  int fake_ready_pods = 0;
  for (const json& p : first.at("pods"))
    fake_ready_pods += p.at("workload") == "ocr" && p.at("state") == "FakeReady";
  CHECK(fake_ready_pods == 2);
  for (const json& w : first.at("timeline").at("workloads")) {
    if (w.at("name") != "ocr") continue;
    const json& last = w.at("points").back();
    CHECK(last.at("ready_mean").get<double>() == doctest::Approx(2.0));  // Ready for Kubernetes
    CHECK(last.at("available_mean").get<double>() == 0.0);               // but serving nothing
    CHECK(w.at("available_fraction").get<double>() < 0.2);
    for (const json& p : w.at("points")) {
      CHECK(p.at("available_mean").get<double>() <= p.at("ready_mean").get<double>() + 1e-9);
    }
  }
}

TEST_CASE("knobsim upgrade is deterministic and writes the report page") {
  const std::string json_path = e2e::TempPath("upgrade.json");
  const std::string html_path = e2e::TempPath("upgrade.html");
  const e2e::Outcome o =
      e2e::Run(StoryArgs("-q --json '" + json_path + "' --report '" + html_path + "'"));
  CHECK(o.exit_code == 1);
  CHECK(o.out.empty());  // --quiet
  CHECK(e2e::ReadFile(json_path) == Story().out);
  const std::string html = e2e::ReadFile(html_path);
  CHECK(html.find("<title>knobsim upgrade&#58; cgpu-upgrade</title>") != std::string::npos);
  CHECK(html.find("<section id=\"upgrade-1\">") != std::string::npos);
  std::remove(json_path.c_str());
  std::remove(html_path.c_str());
}

TEST_CASE("knobsim upgrade: bad input exits 2 with the option named, and writes nothing") {
  const std::string json_path = e2e::TempPath("bad.json");
  const std::string scenario = e2e::QuotedSourcePath("scenarios/cgpu-upgrade.yaml");
  struct Case {
    std::string args, expect;
  };
  for (const Case& c :
       {Case{"--nodes nope", "--nodes: unknown node \"nope\""},
        Case{"--after isolaton=hard", "--after: unknown key \"isolaton\"; did you mean"},
        Case{"--after isolation=firm", "--after: isolation: \"firm\""},
        Case{"--after policy=7", "--after: policy: \"7\""},
        Case{"--order node-list", "--order node-list needs --nodes"},
        Case{"--order diagonal", "--order: \"diagonal\" is not an order"},
        Case{"--reset-time 15", "--reset-time: \"15\""}, Case{"--step 1minute", "--step:"},
        Case{"--pull-bandwidth 0", "--pull-bandwidth"},
        Case{"--max-unavailable 0", "--max-unavailable"},
        Case{"--registry-tags /nonexistent/tags", "/nonexistent/tags"},
        Case{"--compare --fix-quotas-first", "--compare already runs"}}) {
    CAPTURE(c.args);
    const e2e::Outcome o =
        e2e::Run("upgrade " + scenario + " " + c.args + " --json '" + json_path + "'");
    CHECK(o.exit_code == 2);
    CHECK(StartsWith(o.err, "knobsim: "));
    CHECK(o.err.find(c.expect) != std::string::npos);
    CHECK(e2e::ReadFile(json_path).empty());
  }
  std::remove(json_path.c_str());
}

}  // namespace
}  // namespace knobsim
