// End-to-end tests of `knobsim import` on the real binary and the export20 fixture
// (tools/gen-export/README.md): both export forms give the same bytes, the scenario runs, the
// run reproduces the exported placement and the measured card utilization, no planted secret
// leaks, bad input exits 2 with file:line, an export without metrics says what is default, and
// the quickstart story (docs/design.md §1) told from the export: the over-quota pods the generator
// planted make the import read the L20 pool's cGPU as not enforcing memory, `whatif --knob
// isolation=hard` breaks exactly them, and quotas at peak+10% first keep them serving. A
// hand-made export (testdata/impossible-evidence) holds each kind of evidence that cannot be
// true: each is named on stderr and beside what it affected, and the scenario still runs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
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
  for (const char* f : {"DCGM_CUSTOM_PROCESS_MEM_USED", "DCGM_FI_DEV_FB_USED",
                        "DCGM_FI_DEV_GPU_UTIL", "http_requests_per_second"})
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
  const Outcome o =
      Run("import --kube " + QuotedSourcePath(kDir + "export.json") + Prom() + " -o '" + out + "'");
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

  // Busy: each card within 5 percentage points of the measured mean. One exception, a gap
  // between the generator's truth and the simulator, not the import: a card held only by a pod
  // that spans cards (llm-chat, 2 L20s) next to a card it shares. The generator counts each
  // request's work on every card with no contention; the simulator keeps the request on all its
  // cards while the shared one is time-sliced, so such a card reads busier (0.27 against 0.217
  // on the 10.0.1.17 pair, now that face-detect-3 serves under soft isolation). It may only
  // read busier: checked from -5 to +8 points.
  std::map<std::pair<std::string, int>, double> measured;
  std::map<std::pair<std::string, int>, std::vector<std::string>> pods_on;
  std::map<std::string, int> cards_of_pod;
  for (const auto& c : truth.at("cards")) {
    measured[{c.at("node"), c.at("gpu")}] = c.at("mean_busy");
    for (const auto& p : c.at("pods")) {
      pods_on[{c.at("node"), c.at("gpu")}].push_back(p);
      ++cards_of_pod[p];
    }
  }
  auto waits_on_a_shared_card = [&](const std::pair<std::string, int>& card) {
    const auto& pods = pods_on[card];
    if (pods.empty()) return false;
    for (const std::string& p : pods)
      if (cards_of_pod[p] < 2) return false;
    for (const auto& [other, on] : pods_on)
      if (other != card && on.size() > 1 && std::find(on.begin(), on.end(), pods[0]) != on.end())
        return true;
    return false;
  };
  int cards = 0, waiting = 0;
  for (const auto& c : base.at("cards")) {
    const std::pair<std::string, int> key{c.at("node"), c.at("index")};
    const auto it = measured.find(key);
    REQUIRE(it != measured.end());
    CAPTURE(c.at("node"));
    CAPTURE(c.at("index"));
    const double diff = c.at("busy").get<double>() - it->second;
    if (waits_on_a_shared_card(key)) {
      CHECK(diff >= -0.05);
      CHECK(diff <= 0.08);
      ++waiting;
    } else {
      CHECK(std::abs(diff) <= 0.05);
    }
    ++cards;
  }
  CHECK(waiting <= 4);  // the exception stays an exception
  CHECK(cards == static_cast<int>(truth.at("cards").size()));
}

// The over-quota pods on pools with a cGPU module (truth.json): the ones hard isolation breaks.
// gpu-a10-share runs ACK `share` (no module), which `isolation=hard` passes by, so its
// over-quota pods keep running in every variant.
struct OverQuota {
  std::vector<std::string> pods;    // ns/pod
  std::set<std::string> workloads;  // ns/name
};
OverQuota OverQuotaUnderCgpu() {
  const json truth = json::parse(ReadFile(SourcePath(kDir + "truth.json")));
  std::set<std::string> over;
  for (const auto& w : truth.at("workloads"))
    if (w.contains("memory") && w.at("memory").at("over_quota").get<bool>() &&
        w.at("pool") != "gpu-a10-share")
      over.insert(w.at("namespace").get<std::string>() + "/" + w.at("name").get<std::string>());
  OverQuota out;
  out.workloads = over;
  for (const auto& p : truth.at("pods"))
    if (!p.at("node").is_null() && over.count(p.at("namespace").get<std::string>() + "/" +
                                              p.at("workload").get<std::string>()))
      out.pods.push_back(p.at("namespace").get<std::string>() + "/" +
                         p.at("name").get<std::string>());
  return out;
}

// The lines of `text` from "VERDICT <variant>:" up to the next verdict or the end.
// One variant's verdict: from its VERDICT line to the next one, or to the blank line before the
// table that follows the verdicts.
std::string VerdictOf(const std::string& text, const std::string& variant) {
  const auto at = text.find("VERDICT " + variant + ":");
  if (at == std::string::npos) return "";
  const size_t end = std::min(text.find("\nVERDICT ", at + 1), text.find("\n\n", at));
  return text.substr(at, end - at);
}

TEST_CASE("pods running above their quota make the import read that pool's isolation as soft") {
  const std::vector<std::string> pods = OverQuotaUnderCgpu().pods;
  REQUIRE(pods.size() >= 2);
  const std::string& text = Imported().out;
  // Named in the pool's comment with its numbers: "#   vision/face-detect-3-... on NODE gpuN:
  // peak ...". Pods on `card_total` nodes (FB_USED repeats the card's total) have no per-pod
  // figure and so are no evidence; one pod per pool is enough.
  int named = 0;
  for (const std::string& pod : pods)
    named += text.find("#   " + pod + " on ") != std::string::npos;
  CHECK(named >= 1);
  CHECK(text.find("memory isolation soft: rule 3") != std::string::npos);
  CHECK(text.find("memory isolation hard: rule 4") != std::string::npos);  // the spread pool
  CHECK(Imported().err.find("rule 3") != std::string::npos);
}

TEST_CASE(
    "the quickstart story from an export: hard isolation breaks the over-quota pods, "
    "quotas at peak+10% first keep them serving") {
  const OverQuota over = OverQuotaUnderCgpu();
  const std::vector<std::string>& pods = over.pods;
  REQUIRE(!pods.empty());
  const std::string scenario = WriteTemp("story.yaml", Imported().out);
  const Outcome hard = Run("whatif '" + scenario + "' --knob isolation=hard --duration 30m");
  const Outcome fixed = Run("whatif '" + scenario +
                            "' --knob 'quota:*=peak+10%' --knob isolation=hard --duration 30m");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(hard.exit_code == 0, hard.err);
  REQUIRE_MESSAGE(fixed.exit_code == 0, fixed.err);

  const std::string base = VerdictOf(hard.out, "base");
  const std::string broken = VerdictOf(hard.out, "isolation=hard");
  const std::string kept = VerdictOf(fixed.out, "quota:*=peak+10%,isolation=hard");
  REQUIRE(!base.empty());
  REQUIRE(!broken.empty());
  REQUIRE(!kept.empty());
  for (const std::string& pod : pods) {
    CAPTURE(pod);
    CHECK(base.find(pod) == std::string::npos);  // soft today: serving
    CHECK(kept.find(pod) == std::string::npos);
    // Unready (a model-aware probe) or FakeReady (port-only), new against the base.
    const auto line = broken.find(pod + ": ");
    REQUIRE(line != std::string::npos);
    const std::string text = broken.substr(broken.rfind('\n', line) + 1,
                                           broken.find('\n', line) - broken.rfind('\n', line) - 1);
    CAPTURE(text);
    CHECK((text.starts_with("  FakeReady  ") || text.starts_with("  NotServing ")));
    CHECK(text.find("CUDA out of memory loading the model") != std::string::npos);
    CHECK(text.ends_with("(new)"));
  }
  for (const std::string& w : over.workloads) {
    CAPTURE(w);
    CHECK(broken.find("OOM        " + w + ": ") != std::string::npos);
    CHECK(kept.find("OOM        " + w + ": ") == std::string::npos);
  }
  CHECK(broken.find("newly") != std::string::npos);
  CHECK(kept.find("OOM ") == std::string::npos);
  CHECK(kept.find("FakeReady") == std::string::npos);
  CHECK(kept.find("NotServing") == std::string::npos);
}

TEST_CASE("--isolation overrides the import's reading, and a bad rule exits 2") {
  const Outcome o = Run("import --kube " + QuotedSourcePath(kDir + "export.json") + Prom() +
                        " --isolation '*=hard'");
  REQUIRE(o.exit_code == 0);
  CHECK(o.out.find("memory isolation overridden by --isolation *=hard") != std::string::npos);
  const auto l20 = o.out.find("ack.node.gpu.schedule: cgpu");
  REQUIRE(l20 != std::string::npos);
  CHECK(o.out.substr(l20, o.out.find("nodes:", l20) - l20).find("memory_isolation: hard") !=
        std::string::npos);
  const Outcome bad =
      Run("import --kube " + QuotedSourcePath(kDir + "export.json") + " --isolation gpu-l2=soft");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--isolation") != std::string::npos);
  CHECK(bad.err.find("names no imported pool") != std::string::npos);
}

TEST_CASE(
    "llm-70b is Pending for the export's reason: too few cards where its nodeSelector points") {
  const std::string scenario = WriteTemp("pending.yaml", Imported().out);
  const Outcome o = Run("run '" + scenario + "' --duration 1m --quiet --json -");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  // The export's own message: "0/20 nodes are available: 2 Insufficient nvidia.com/gpu, 18
  // node(s) didn't match Pod's node affinity/selector." The nodepool-id label must survive.
  std::string message;
  const json doc = json::parse(o.out);
  for (const auto& p : doc.at("variants").at(0).at("pods"))
    if (p.at("name") == "llm-70b-0") message = p.at("message").get<std::string>();
  CAPTURE(message);
  CHECK(message.find("2 Insufficient nvidia.com/gpu") != std::string::npos);
  CHECK(message.find("18 node(s) didn't match Pod's node affinity/selector") != std::string::npos);
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

// A hand-made export whose metrics hold each kind of evidence that cannot be true
// (testdata/impossible-evidence/export.yaml says which).
const std::string kImpossible = "tools/knobsim/testdata/impossible-evidence/";

std::string ImpossibleProm() {
  std::string args;
  for (const char* f : {"DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_UTIL", "requests_per_second"})
    args += " --prom " + QuotedSourcePath(kImpossible + "prom/" + f + ".json");
  return args;
}

TEST_CASE("impossible evidence is named on stderr and beside what it affected; the scenario runs") {
  const Outcome o = Run("import --kube " + QuotedSourcePath(kImpossible + "export.yaml") +
                        ImpossibleProm() + " --rate-metric requests_per_second");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  struct Flagged {
    const char* says;   // on stderr, and in the scenario as `# warning: ...`
    const char* above;  // the scenario line the comment stands above
  };
  const Flagged flagged[] = {
      {"card a10-node/gpu 0 (GPU-a10-0): DCGM_FI_DEV_GPU_UTIL above 100 % at 3 samples (largest "
       "180 %), which cannot be: 1 within 5 % of it clamped to 100 % (noise at full load), 2 "
       "further above dropped as missing",
       "  - name: gpu-a10\n"},
      {"pod art/sd-0: 3 negative request-rate samples (lowest -4/s), which cannot be",
       "    traffic: {rate: "},
      {"pod llm/llm-0 runs on node a100-node in the export, but its series of the request rate "
       "name node a10-node, where the export does not place it: those series are not used",
       "    pods:"},
      {"pod art/sd-0 on card a10-node/gpu 0 (GPU-a10-0), GPU type A10 with 23028 MiB: measured "
       "GPU memory peak 40960 MiB (mean 22461 MiB,",
       "    gpu_memory: {weights: 22060Mi, activation: 568Mi}"},
  };
  for (const Flagged& f : flagged) {
    CAPTURE(f.says);
    CHECK(o.err.find(std::string("knobsim: warning: ") + f.says) != std::string::npos);
    const size_t comment = o.out.find(std::string("# warning: ") + f.says);
    REQUIRE(comment != std::string::npos);
    const size_t next = o.out.find('\n', comment) + 1;
    CHECK(o.out.compare(next, std::string(f.above).size(), f.above) == 0);
  }
  CHECK(o.err.find("knobsim: 4 warnings") != std::string::npos);
  // llm-0's traffic is its own node's series only (5.5/s), not the A10 node's 50/s.
  CHECK(o.out.find("traffic: {rate: 5.5/s}") != std::string::npos);

  // The scenario runs, and sd-0's requests fit its card: no OOM from the capped peak.
  const std::string scenario = WriteTemp("impossible.yaml", o.out);
  const Outcome run = Run("run '" + scenario + "' --duration 10m --quiet --json -");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const json results = json::parse(run.out);  // kept: a range over a temporary's part dangles
  for (const auto& w : results.at("variants").at(0).at("workloads")) {
    CAPTURE(w.at("name"));
    CHECK(w.at("completed").get<int64_t>() > 0);
    CHECK(w.at("errors").at("oom") == 0);
  }

  // `knobsim check --prom` reads the metrics through the same import and says the same.
  const Outcome check = Run("check --kube " + QuotedSourcePath(kImpossible + "export.yaml") +
                            ImpossibleProm() + " --no-simulate");
  CHECK(check.exit_code != 2);
  CHECK(check.err.find(flagged[0].says) != std::string::npos);
  CHECK(check.err.find(flagged[3].says) != std::string::npos);
}

TEST_CASE("--duration: the first hour of the window by default, `window` for all of it") {
  struct Case {
    const char* flag;
    const char* run;
    const char* note;
  };
  const Case cases[] = {
      {"", "run: {duration: 1h,", "run: the first 1h of the 10079m metrics window"},
      {" --duration 90m", "run: {duration: 90m,", "run: the first 90m of the 10079m"},
      {" --duration window", "run: {duration: 10079m,", "run: the whole 10079m metrics window"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.flag);
    const Outcome o =
        Run("import --kube " + QuotedSourcePath(kDir + "export.json") + Prom() + c.flag);
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.find(std::string("\n") + c.run) != std::string::npos);
    CHECK(o.out.find(std::string("\n# ") + c.note) != std::string::npos);  // the header
    CHECK(o.err.find(std::string("knobsim: note: ") + c.note) != std::string::npos);
    // Traffic starts where the window does, whatever the run's length.
    CHECK(o.out.find("        - {at: 0, rate: ") != std::string::npos);
  }
  const Outcome no_window =
      Run("import --kube " + QuotedSourcePath(kDir + "export.json") + " --duration window");
  CHECK(no_window.exit_code == 2);
  CHECK(no_window.err.find("--duration window needs metrics (--prom)") != std::string::npos);
  const Outcome bad =
      Run("import --kube " + QuotedSourcePath(kDir + "export.json") + " --duration 5x");
  CHECK(bad.exit_code == 2);
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
    const std::string path = WriteTemp("badcpu.yaml",
                                       "apiVersion: v1\nkind: Node\nmetadata:\n  name: "
                                       "n1\nstatus:\n  allocatable:\n    cpu: 2 cores\n");
    const Outcome o = Run("import --kube '" + path + "'");
    std::remove(path.c_str());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("badcpu.yaml:7:") != std::string::npos);
  }
  SUBCASE("a bad --probe-rule") {
    const Outcome o =
        Run("import --kube " + QuotedSourcePath(kDir + "export.json") + " --probe-rule ocr=maybe");
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

// An exported HPA on llm-chat (GPU utilization through the adapter, CPU, and memory, which is
// left out): the imported scenario carries its `hpa:`, stderr names the metric left out, and a
// run of the scenario has the HPA act on the simulated pods (upstream's SuccessfulRescale
// events).
TEST_CASE("an exported HPA imports as the workload's hpa: and runs") {
  const std::string hpa = WriteTemp("llm-chat-hpa.yaml", R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: llm-chat, namespace: llm}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: llm-chat}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Pods
    pods:
      metric: {name: DCGM_FI_DEV_GPU_UTIL}
      target: {type: AverageValue, averageValue: "90"}
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 10Gi}}
)");
  const std::string out = TempPath("imported-hpa.yaml");
  const Outcome o = Run("import --kube " + QuotedSourcePath(kDir + "export.json") + " --kube '" +
                        hpa + "'" + Prom() + " -o '" + out + "'");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  CHECK(o.err.find("llm-chat-hpa.yaml:15: HorizontalPodAutoscaler llm/llm-chat: Resource metric "
                   "\"memory\": knobsim simulates no usage of memory") != std::string::npos);
  const std::string yaml = ReadFile(out);
  const size_t at = yaml.find("- name: llm-chat\n");
  REQUIRE(at != std::string::npos);
  const std::string workload = yaml.substr(at, yaml.find("\n  - name:", at + 1) - at);
  CHECK(workload.find("    hpa:  # HorizontalPodAutoscaler llm/llm-chat; not simulated: "
                      "Resource memory") != std::string::npos);
  CHECK(workload.find("- {metric: gpu_utilization, average: 90}") != std::string::npos);
  CHECK(workload.find("- {metric: cpu, utilization: 80}") != std::string::npos);
  const Outcome run = Run("run " + Quoted(out) + " --duration 20m --quiet --json -");
  REQUIRE_MESSAGE((run.exit_code == 0 || run.exit_code == 1), run.err);
  int rescales = 0;
  const json doc = json::parse(run.out);
  for (const json& e : Variant(doc, "base").at("cluster").at("events"))
    if (e.at("kind") == "SuccessfulRescale" && e.at("pod") == "llm/llm-chat") ++rescales;
  CHECK(rescales > 0);
  std::remove(out.c_str());
  std::remove(hpa.c_str());
}

// An exported CronHPA on llm-chat's HPA: the scenario carries cron_hpa: {target: hpa}, and a run
// that starts at 07:59 (+08:00) sees the 08:00 job fire with the controller's message.
TEST_CASE("an exported CronHPA imports as cron_hpa: and fires on the run's wall clock") {
  const std::string objects = WriteTemp("llm-chat-cron.yaml", R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: llm-chat, namespace: llm}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: llm-chat}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Pods
    pods:
      metric: {name: DCGM_FI_DEV_GPU_UTIL}
      target: {type: AverageValue, averageValue: "90"}
---
apiVersion: autoscaling.alibabacloud.com/v1beta1
kind: CronHorizontalPodAutoscaler
metadata: {name: llm-chat-morning, namespace: llm}
spec:
  scaleTargetRef: {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, name: llm-chat}
  jobs:
  - {name: morning, schedule: "0 0 8 * * *", targetSize: 3}
)");
  const std::string out = TempPath("imported-cron.yaml");
  const Outcome o = Run("import --kube " + QuotedSourcePath(kDir + "export.json") + " --kube '" +
                        objects + "'" + Prom() + " -o '" + out + "'");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  // With metrics the run's wall clock is known: t = 0 is the metrics window's start.
  CHECK(o.err.find("CronHPA jobs fire on the wall clock") == std::string::npos);
  std::string yaml = ReadFile(out);
  CHECK(yaml.find("    cron_hpa:  # CronHorizontalPodAutoscaler llm-chat-morning\n"
                  "      name: llm-chat-morning\n      target: hpa\n") != std::string::npos);
  CHECK(yaml.find("# start: the metrics window's start, the wall clock the CronHPA jobs fire on.\n"
                  "run: {") != std::string::npos);
  const size_t start_at = yaml.find(", start: \"", yaml.find("\nrun: {"));
  REQUIRE(start_at != std::string::npos);
  const size_t value_at = start_at + 10;
  const size_t value_end = yaml.find('"', value_at);
  CHECK(yaml.substr(value_end - 1, 3) == "Z\"}");  // UTC, whole seconds
  // Moved to 07:59 (+08:00), the 08:00 job fires a minute into the run.
  yaml.replace(value_at, value_end - value_at, "2026-03-02T07:59:00+08:00");
  {
    std::ofstream rewrite(out);
    rewrite << yaml;
  }
  const Outcome run = Run("run " + Quoted(out) + " --duration 5m --quiet --json -");
  REQUIRE_MESSAGE((run.exit_code == 0 || run.exit_code == 1), run.err);
  bool fired = false;
  const json doc = json::parse(run.out);
  for (const json& e : Variant(doc, "base").at("cluster").at("events")) {
    if (e.at("kind") != "Succeed") continue;
    fired = true;
    CHECK(e.at("time_s").get<double>() == 60.0);
    CHECK(e.at("pod") == "llm/llm-chat-morning");
  }
  CHECK(fired);
  std::remove(out.c_str());
  std::remove(objects.c_str());
}

}  // namespace
}  // namespace knobsim::e2e
