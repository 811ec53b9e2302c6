// End-to-end tests of `knobsim whatif` on the real binary: the quickstart story told by knobs
// (docs/design.md §1: hard isolation exposes the over-quota pods; quotas at peak+10% first fix it),
// determinism, the results document, --knobs files and bad knobs.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

// 10 simulated minutes: past the 3-minute warm-up that covers every pod's start-up.
const std::string kQuick = QuotedSourcePath("scenarios/quickstart.yaml") + " --duration 10m";

Outcome Whatif(const std::string& args) {
  return Run("whatif " + kQuick + " " + args);
}

TEST_CASE("isolation=hard on quickstart: the over-quota pods show as fake Ready and OOM") {
  const Outcome o = Whatif("--knob isolation=hard");
  REQUIRE(o.exit_code == 0);
  CHECK(o.out.find("isolation=hard") != std::string::npos);  // the table's column
  const size_t verdict = o.out.find("VERDICT isolation=hard:");
  REQUIRE(verdict != std::string::npos);
  const std::string v = o.out.substr(verdict);
  // The tcp-probed over-users stay Ready with an unloaded model.
  for (const char* pod :
       {"default/caption-vlm-0", "default/translate-0", "default/asr-0", "default/asr-1"}) {
    CAPTURE(pod);
    CHECK(v.find(std::string("FakeReady  ") + pod + ": CUDA out of memory loading the model") !=
          std::string::npos);
  }
  // ocr (model-aware probe) is Unready instead; embed fails requests with CUDA OOM.
  CHECK(v.find("NotServing default/ocr-0: Unready") != std::string::npos);
  CHECK(v.find("OOM        default/caption-vlm: 1 pod failed to load the model (new)") !=
        std::string::npos);
  CHECK(v.find("OOM        default/embed:") != std::string::npos);
  CHECK(v.find("requests failed with CUDA OOM") != std::string::npos);
  CHECK(v.find("default/caption-vlm: ") != std::string::npos);
  CHECK(v.find("(newly missing; base meets it)") != std::string::npos);
  // The base meets every SLO.
  CHECK(o.out.find("VERDICT base: every SLO met (8 workloads)") != std::string::npos);
}

TEST_CASE("quotas at peak+10% before hard isolation: no fake Ready, no OOM, no SLO missed") {
  const Outcome o = Whatif("--knob 'quota:*=peak+10%' --knob isolation=hard --fail-on-slo");
  CHECK(o.exit_code == 0);
  CHECK(o.out.find(
            "VERDICT quota:*=peak+10%,isolation=hard: every SLO met (8 workloads); no Pending, "
            "fake-Ready or OOM pods") != std::string::npos);
  CHECK(o.out.find("FakeReady  ") == std::string::npos);
}

TEST_CASE("--fail-on-slo exits 1 when a variant misses an SLO the base meets") {
  const Outcome o = Whatif("--knob isolation=hard --fail-on-slo --quiet");
  CHECK(o.exit_code == 1);
  CHECK(o.out.empty());
  CHECK(o.err.find("SLO newly missed") != std::string::npos);
  CHECK(o.err.find("isolation=hard default/caption-vlm") != std::string::npos);
}

TEST_CASE("whatif output is the same twice and with 1 or 2 threads") {
  const std::string args = "--knob policy=3 --knob placement:gpu-l20=spread ";
  const Outcome one = Whatif(args + "--threads 1");
  const Outcome again = Whatif(args + "--threads 1");
  const Outcome two = Whatif(args + "--threads 2");
  REQUIRE(one.exit_code == 0);
  CHECK(one.out == again.out);
  CHECK(one.out == two.out);
  const Outcome j1 = Whatif(args + "--threads 1 --json -");
  const Outcome j2 = Whatif(args + "--threads 2 --json -");
  CHECK(j1.out == j2.out);
}

TEST_CASE("--json writes the results document with the variant named after its knobs") {
  const std::string path = TempPath("whatif.json");
  const Outcome o =
      Whatif("--knob isolation=hard --knob 'quota:caption-vlm=peak' --quiet --json '" + path + "'");
  REQUIRE(o.exit_code == 0);
  const json doc = json::parse(ReadFile(path));
  std::remove(path.c_str());
  CHECK(doc.at("schema") == "knobsim.results/v1");
  REQUIRE(doc.at("variants").size() == 2);
  CHECK(doc.at("variants").at(0).at("name") == "base");
  const json& v = Variant(doc, "isolation=hard,quota:caption-vlm=peak");
  CHECK(v.at("pods").size() == 12);
  // caption-vlm at its peak: 23 units, so it loads and serves.
  for (const json& p : v.at("pods")) {
    if (p.at("workload") == "caption-vlm") CHECK(p.at("state") == "Running");
  }
  CHECK(Workload(v, "caption-vlm").at("errors").at("fake_ready") == 0);
}

TEST_CASE("--json - leaves stdout to the document and prints the verdict on stderr") {
  const Outcome o = Whatif("--knob policy=0 --knob max_inst=4 --json -");
  REQUIRE(o.exit_code == 0);
  CHECK(json::parse(o.out).at("variants").at(1).at("name") == "policy=0,max_inst=4");
  CHECK(o.err.find("VERDICT policy=0,max_inst=4:") != std::string::npos);
}

TEST_CASE("--timeline gives the base and the variant their timelines") {
  const Outcome o = Whatif("--knob isolation=hard --timeline 5m --json - --quiet");
  REQUIRE(o.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  REQUIRE(doc.at("variants").size() == 2);
  for (const auto& v : doc.at("variants")) CHECK(v.at("timeline").at("step_s") == 300.0);
}

TEST_CASE("--knobs FILE runs several named variants") {
  const std::string path = TempPath("knobs.yaml");
  std::ofstream(path) << "variants:\n"
                         "  upgrade-first: [isolation=hard]\n"
                         "  fix-then-upgrade:\n"
                         "    description: quotas at peak + 10 %, then hard isolation\n"
                         "    knobs: [\"quota:*=peak+10%\", isolation=hard]\n";
  const Outcome o = Whatif("--knobs '" + path + "' --quiet --json -");
  std::remove(path.c_str());
  REQUIRE(o.exit_code == 0);
  const json doc = json::parse(o.out);
  REQUIRE(doc.at("variants").size() == 3);
  CHECK(doc.at("variants").at(1).at("name") == "upgrade-first");
  CHECK(doc.at("variants").at(2).at("name") == "fix-then-upgrade");
  CHECK(Workload(doc.at("variants").at(1), "caption-vlm").at("errors").at("fake_ready") > 0);
  CHECK(Workload(doc.at("variants").at(2), "caption-vlm").at("errors").at("fake_ready") == 0);
}

TEST_CASE("bad knobs and bad knobs files exit 2 with the knob and a hint") {
  struct Case {
    std::string args;
    std::string message;
  };
  const Case cases[] = {
      {"--knob polcy=3", "--knob: polcy=3: unknown knob \"polcy\"; did you mean `policy`?"},
      {"--knob placement:gpu-l2=spread", "unknown node pool \"gpu-l2\"; did you mean `gpu-l20`?"},
      {"--knob quota:captionvlm=4", "unknown workload \"captionvlm\"; did you mean `caption-vlm`?"},
      {"--knob quota:prod/caption-vlm=4", "did you mean `default/caption-vlm`?"},
      {"--knob isolation=firm", "\"firm\" is not an isolation"},
      {"--knob policy=9", "\"9\" is out of range 0..5"},
      {"", "say what to change"},
      {"--knob policy=1 --knobs x.yaml", "use --knob or --knobs FILE, not both"},
      {"--knobs /nonexistent/k.yaml", "/nonexistent/k.yaml: cannot read the knobs file"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const Outcome o = Whatif(c.args + " --quiet");
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(c.message) != std::string::npos);
    CHECK(o.out.empty());
  }
  const std::string path = TempPath("bad-knobs.yaml");
  std::ofstream(path) << "variants:\n  - name: a\n    knobs: [isolation=hard, \"quota:*=peek\"]\n";
  const Outcome o = Whatif("--knobs '" + path + "' --quiet");
  std::remove(path.c_str());
  CHECK(o.exit_code == 2);
  CHECK(o.err.find(
            "bad-knobs.yaml:3: variants[0].knobs[1] \"quota:*=peek\": \"peek\" is not a quota") !=
        std::string::npos);
}

}  // namespace
}  // namespace knobsim::e2e
