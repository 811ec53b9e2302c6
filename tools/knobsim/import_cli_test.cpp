// End-to-end tests of `knobsim import` on the real binary and the export20 fixture
// (tools/gen-export/README.md): both export forms give the same bytes, the scenario runs, the
// run reproduces the exported placement and the measured card utilization, no planted secret
// leaks, bad input exits 2 with file:line, and an export without metrics says what is default.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

const std::string kDir = "tools/knobsim/testdata/export20/";

std::string Prom() {
  std::string args;
  for (const char* f : {"DCGM_CUSTOM_PROCESS_MEM_USED", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_UTIL",
                        "http_requests_per_second"})
    args += " --prom " + QuotedSourcePath(kDir + "prom/" + f + ".json");
  return args + " --rate-metric http_requests_per_second";
}

// One import of the fixture with metrics, shared by the tests below.
const Outcome& Imported() {
  static const Outcome o = Run("import --kube " + QuotedSourcePath(kDir + "export.json") + Prom());
  return o;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST_CASE("export.json and export.yaml import to byte-identical scenarios") {
  const Outcome& a = Imported();
  const Outcome b = Run("import --kube " + QuotedSourcePath(kDir + "export.yaml") + Prom());
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(a.out.size() > 1000);
  CHECK(a.out == b.out);
}

TEST_CASE("-o writes the file atomically and prints the fit quality on stderr") {
  const std::string out = TempPath("imported.yaml");
  const Outcome o = Run("import --kube " + QuotedSourcePath(kDir + "export.json") + Prom() +
                        " -o '" + out + "'");
  REQUIRE(o.exit_code == 0);
  CHECK(o.out.empty());
  CHECK(ReadFile(out) == Imported().out);
  CHECK(o.err.find("R²") != std::string::npos);
  CHECK(o.err.find("RMSE") != std::string::npos);
  std::remove(out.c_str());
}

TEST_CASE("no planted secret reaches the scenario or stderr") {
  const json truth = json::parse(ReadFile(SourcePath(kDir + "truth.json")));
  const Outcome& o = Imported();
  REQUIRE(truth.at("planted_secrets").size() >= 4);
  for (const auto& s : truth.at("planted_secrets")) {
    const std::string secret = s.get<std::string>();
    CAPTURE(secret);
    CHECK(o.out.find(secret) == std::string::npos);
    CHECK(o.err.find(secret) == std::string::npos);
  }
  CHECK(o.out.find("DB_PASSWORD") == std::string::npos);
  CHECK(o.out.find("last-applied") == std::string::npos);
}

// Low-rate workloads (asr, face-detect-3: under 3 requests/s on cards shared with others) carry
// the most Poisson noise in their rate series, so the bound is 10 %; the round trip below holds
// the busy fractions, the quantity the fit is for, to 5 points.
TEST_CASE("the fitted work per request is the generator's within 10 %") {
  const json truth = json::parse(ReadFile(SourcePath(kDir + "truth.json")));
  const std::string& text = Imported().out;
  int checked = 0;
  for (const auto& w : truth.at("workloads")) {
    if (!w.contains("work_s") || w.at("running") == 0) continue;
    const std::string name = w.at("name");
    const auto at = text.find("\n  - name: " + name + "\n");
    REQUIRE(at != std::string::npos);
    const auto work = text.find("work: {dist: exponential, mean: ", at);
    REQUIRE(work != std::string::npos);
    const std::string value = text.substr(work + 32, text.find('}', work) - work - 32);
    const double s = value.ends_with("ms") ? std::stod(value) / 1000 : std::stod(value);
    CAPTURE(name);
    CAPTURE(value);
    CHECK(std::abs(s - w.at("work_s").get<double>()) <= 0.10 * w.at("work_s").get<double>());
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("a run of the imported scenario reproduces the placement and the measured busy") {
  const json truth = json::parse(ReadFile(SourcePath(kDir + "truth.json")));
  const std::string scenario = WriteTemp("roundtrip.yaml", Imported().out);
  // The curves repeat daily, so one simulated day has the window's mean.
  const Outcome o = Run("run '" + scenario + "' --duration 24h --quiet --json -");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  const json doc = json::parse(o.out);
  const json& base = doc.at("variants").at(0);

  // Placement: per workload, the multiset of (node, cards) of its running pods.
  using Places = std::multiset<std::pair<std::string, std::vector<int>>>;
  std::map<std::string, Places> want, got;
  for (const auto& p : truth.at("pods")) {
    if (p.at("node").is_null()) continue;
    std::vector<int> cards;
    for (const auto& c : p.at("cards")) cards.push_back(c.at("gpu"));
    std::sort(cards.begin(), cards.end());
    want[p.at("namespace").get<std::string>() + "/" + p.at("workload").get<std::string>()].insert(
        {p.at("node"), cards});
  }
  for (const auto& p : base.at("pods")) {
    if (p.at("node").is_null() || p.at("node") == "") continue;
    std::vector<int> cards = p.at("cards").get<std::vector<int>>();
    std::sort(cards.begin(), cards.end());
    got[p.at("namespace").get<std::string>() + "/" + p.at("workload").get<std::string>()].insert(
        {p.at("node"), cards});
  }
  for (const auto& [w, places] : want) {
    CAPTURE(w);
    CHECK(got[w] == places);
  }

  // Busy: each card within 5 percentage points of the measured mean.
  std::map<std::pair<std::string, int>, double> measured;
  for (const auto& c : truth.at("cards")) measured[{c.at("node"), c.at("gpu")}] = c.at("mean_busy");
  int cards = 0;
  for (const auto& c : base.at("cards")) {
    const auto it = measured.find({c.at("node"), c.at("index")});
    REQUIRE(it != measured.end());
    CAPTURE(c.at("node"));
    CAPTURE(c.at("index"));
    CHECK(std::abs(c.at("busy").get<double>() - it->second) <= 0.05);
    ++cards;
  }
  CHECK(cards == static_cast<int>(truth.at("cards").size()));
}

TEST_CASE("an export without metrics imports, runs, and says which numbers are defaults") {
  const Outcome o = Run("import --kube " + QuotedSourcePath(kDir + "export.json"));
  REQUIRE(o.exit_code == 0);
  CHECK(o.err.find("defaults") != std::string::npos);
  CHECK(o.err.find("no metrics") != std::string::npos);
  CHECK(o.out.find("# traffic: default: no metrics") != std::string::npos);
  CHECK(o.out.find("# gpu_memory: default: no metrics") != std::string::npos);
  CHECK(o.out.find("\n    traffic:") == std::string::npos);  // only commented
  CHECK(o.out.find("\n    work:") == std::string::npos);
  const std::string scenario = WriteTemp("nometrics.yaml", o.out);
  const Outcome run = Run("run '" + scenario + "' --duration 1m --quiet");
  std::remove(scenario.c_str());
  CHECK_MESSAGE(run.exit_code == 0, run.err);
}

TEST_CASE("bad input exits 2 with file and line") {
  SUBCASE("truncated export") {
    const std::string text = ReadFile(SourcePath(kDir + "export.json"));
    const std::string path = WriteTemp("truncated.json", text.substr(0, text.size() / 2));
    const Outcome o = Run("import --kube '" + path + "'");
    std::remove(path.c_str());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("truncated.json:") != std::string::npos);
    CHECK(o.out.empty());
  }
  SUBCASE("a quantity Kubernetes would reject") {
    const std::string path = WriteTemp(
        "badcpu.yaml",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n    cpu: 2 cores\n");
    const Outcome o = Run("import --kube '" + path + "'");
    std::remove(path.c_str());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("badcpu.yaml:7:") != std::string::npos);
  }
  SUBCASE("a bad --probe-rule") {
    const Outcome o = Run("import --kube " + QuotedSourcePath(kDir + "export.json") +
                          " --probe-rule ocr=maybe");
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("--probe-rule") != std::string::npos);
  }
}

TEST_CASE("pods on nodes absent from the export are a counted warning, not an error") {
  const std::string path = WriteTemp(
      "orphan.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: default\nspec:\n"
      "  nodeName: gone\n  containers:\n  - name: c\n    image: x\nstatus:\n  phase: Running\n");
  const Outcome o = Run("import --kube '" + path + "'");
  std::remove(path.c_str());
  CHECK(o.exit_code == 0);
  CHECK(o.err.find("absent from the export") != std::string::npos);
  CHECK(o.err.find("1 warning") != std::string::npos);
}

}  // namespace
}  // namespace knobsim::e2e
