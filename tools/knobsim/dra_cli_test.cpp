// End-to-end tests of Dynamic Resource Allocation on exports as `kubectl get -o json` writes them
// (tools/knobsim/testdata/dra, made by its generate.py with the slices the NVIDIA DRA driver and
// HAMi's DRA driver publish): `schedule` allocates pods' claims as kube-scheduler's
// DynamicResources plugin does (whole GPUs, MIG partitions sharing a card's counters, a
// PCIe-root constraint, a GPU shared through consumable capacity), and `import` turns the
// devices and claims a scenario can say into `dra:` pools and workloads that `run` simulates,
// leaving the others out, loudly (docs/semantics.md §6, docs/schedule.md, docs/import.md).
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

const std::string kDir = "tools/knobsim/testdata/dra/";

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const nlohmann::json& PodNamed(const nlohmann::json& doc, const std::string& name) {
  for (const auto& p : doc.at("pods"))
    if (p.at("name") == name) return p;
  FAIL("no pod " << name);
  return doc;
}

TEST_CASE(
    "schedule allocates DRA claims: whole GPUs, MIG partitions that share a card's "
    "counters, and a pair of GPUs on one PCIe root") {
  const std::string file = QuotedSourcePath(kDir + "h100-dra.json");
  const Outcome text = Run("schedule --cluster " + file + " --pods " + file);
  const Outcome json = Run("schedule --cluster " + file + " --pods " + file + " --json -");
  CAPTURE(text.out);
  CAPTURE(text.err);
  CHECK(text.exit_code == 1);  // two pods stay Pending
  // 8 GPUs: h100-a has 6 free (two run there), h100-b all 8 (its MIG cards are not cut yet).
  CHECK(
      Has(text.out,
          "ml/big-0 -> h100-b [devices gpu.nvidia.com/h100-b/gpu-0,gpu.nvidia.com/h100-b/gpu-1,"));
  CHECK(Has(text.out,
            "ml/big-1: 0/2 nodes are available: 2 cannot allocate all claims. still not "
            "schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
            "scheduling."));
  // h100-b's whole GPUs took every counter its MIG partitions need; h100-a has no MIG.
  CHECK(Has(text.out, "ml/infer-0: 0/2 nodes are available: 2 cannot allocate all claims."));
  // Two GPUs with one pcieRoot: gpu-2 and gpu-3 of h100-a (gpu-0 and gpu-1 are taken).
  CHECK(
      Has(text.out,
          "ml/pair-0 -> h100-a [devices gpu.nvidia.com/h100-a/gpu-2,gpu.nvidia.com/h100-a/gpu-3]"));
  REQUIRE(json.exit_code == 1);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const nlohmann::json& big = PodNamed(doc, "big-0");
  REQUIRE(big.at("devices").size() == 8);
  CHECK(big.at("devices").at(0).at("claim") == "big-0-gpu");
  CHECK(big.at("devices").at(7).at("device") == "gpu-7");
  CHECK(big.at("devices").at(0).at("share_id").is_null());
  CHECK(PodNamed(doc, "big-1").at("devices").empty());
}

TEST_CASE(
    "schedule shares a GPU through consumable capacity: each claim takes its memory, and "
    "the one that no longer fits stays Pending") {
  const std::string file = QuotedSourcePath(kDir + "shared-dra.json");
  const Outcome json = Run("schedule --cluster " + file + " --pods " + file + " --json -");
  CAPTURE(json.err);
  REQUIRE(json.exit_code == 1);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  for (const char* name : {"chat-1", "embed-0"}) {
    CAPTURE(name);
    const nlohmann::json& pod = PodNamed(doc, name);
    CHECK(pod.at("node") == "l40s-a");
    REQUIRE(pod.at("devices").size() == 1);
    CHECK(pod.at("devices").at(0).at("device") == "gpu-0");
    CHECK(pod.at("devices").at(0).at("share_id").is_string());
  }
  CHECK(PodNamed(doc, "chat-1").at("devices").at(0).at("share_id") !=
        PodNamed(doc, "embed-0").at("devices").at(0).at("share_id"));
  const nlohmann::json& full = PodNamed(doc, "chat-2");
  CHECK(full.at("node").is_null());
  CHECK(Has(full.at("message").get<std::string>(), "1 cannot allocate all claims"));
}

TEST_CASE(
    "import turns a GPU shared through consumable capacity into a shared_memory dra pool and its "
    "claims into memory shares; the run places them as schedule does") {
  const std::string out = TempPath("shared-dra-import.yaml");
  const Outcome o =
      Run("import --kube " + QuotedSourcePath(kDir + "shared-dra.json") + " -o '" + out + "'");
  CAPTURE(o.err);
  REQUIRE(o.exit_code == 0);
  const std::string yaml = ReadFile(out);
  CAPTURE(yaml);
  CHECK(Has(yaml, "dra: {shared_memory: {default: 10Gi, min: 1Gi, step: 1Gi}}"));
  CHECK(Has(yaml, "dra: {gpus: 1, driver: nvidia, memory: 30Gi}"));
  CHECK(Has(yaml, "dra: {gpus: 1, driver: nvidia, memory: 20Gi}"));
  CHECK(Has(o.err, "81920 MiB from the memory capacity of its DRA devices"));
  const Outcome run = Run("run '" + out + "' --duration 2m --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  std::vector<std::string> placed;
  for (const auto& p : doc.at("variants").at(0).at("pods"))
    placed.push_back(p.at("name").get<std::string>() + (p.at("node").is_null() ? " pending" : ""));
  // 30 + 30 + 20 of 80 GiB: the third 30 GiB claim does not fit, as in `schedule`.
  CHECK(placed == std::vector<std::string>{"chat-0", "chat-1-0", "chat-2-0 pending", "embed-0-0"});
}

TEST_CASE(
    "import turns the NVIDIA DRA driver's whole GPUs into a dra pool and pods claiming them into "
    "dra workloads; MIG partitions and constrained claims stay out; the scenario runs") {
  const std::string file = QuotedSourcePath(kDir + "h100-dra.json");
  const std::string out = TempPath("h100-dra-import.yaml");
  const Outcome o = Run("import --kube " + file + " -o '" + out + "'");
  CAPTURE(o.err);
  REQUIRE(o.exit_code == 0);
  const std::string yaml = ReadFile(out);
  CAPTURE(yaml);
  CHECK(Has(yaml, "dra: true"));
  CHECK(Has(yaml, "dra: {gpus: 1}"));
  CHECK(Has(yaml, "dra: {gpus: 8}"));
  // h100-b's cards 0 and 1 are cut by DynamicMIG, the others not: not a dra pool.
  CHECK(Has(o.err, "h100-b: GPUs with and without DynamicMIG partitions"));
  CHECK(Has(o.err, "ml/infer-0, ml/pair-0"));
  const Outcome run = Run("run '" + out + "' --duration 2m --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  int on_cards = 0, pending = 0;
  for (const auto& p : doc.at("variants").at(0).at("pods")) {
    if (p.at("node").is_string()) {
      on_cards += static_cast<int>(p.at("cards").size());
    } else {
      ++pending;
    }
  }
  // The two training pods hold a GPU each; an 8-GPU job finds 6 free: both Pending.
  CHECK(on_cards == 2);
  CHECK(pending == 2);
}

TEST_CASE(
    "DRA in a run: claims place the pods (one GPU each, or one shared by a claim's pods), the "
    "claims' sharing runs them, and a what-if moves the pool to time-slicing or to DRA") {
  const std::string scenario = SourcePath("scenarios/l4-dra.yaml");
  const Outcome run = Run("run '" + scenario + "' --all --duration 3m --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  const nlohmann::json& base = doc.at("variants").at(0);
  // Each claim has its GPU: two chat cards, the embedders' shared card, the OCR pods' card.
  std::map<std::string, std::set<int>> cards_of;
  for (const auto& p : base.at("pods")) {
    CAPTURE(p.dump());
    const std::vector<int> cards = p.at("cards").get<std::vector<int>>();
    REQUIRE(cards.size() == 1);
    cards_of[p.at("workload").get<std::string>()].insert(cards[0]);
  }
  CHECK(cards_of.at("chat").size() == 2);
  CHECK(cards_of.at("embed").size() == 1);
  CHECK(cards_of.at("ocr").size() == 1);
  std::set<int> all;
  for (const auto& [w, cards] : cards_of) all.insert(cards.begin(), cards.end());
  CHECK(all.size() == 4);
  // MPS's pinned-memory limit is each OCR pod's quota: 3 × 7 GiB on its card.
  const int ocr_card = *cards_of.at("ocr").begin();
  for (const auto& card : base.at("cards")) {
    if (card.at("index") == ocr_card) CHECK(card.at("memory_quota_mib") == 3 * 7 * 1024);
  }
  for (const auto& w : base.at("workloads")) {
    CAPTURE(w.at("name"));
    CHECK(w.at("requests").get<int64_t>() > 0);
    CHECK(w.at("latency_ms").at("p99").get<double>() > 0);
  }
  // On the device plugin's time-slicing the pods spread over the cards.
  const nlohmann::json& sliced = doc.at("variants").at(1);
  std::set<int> embed_cards;
  for (const auto& p : sliced.at("pods"))
    if (p.at("workload") == "embed") embed_cards.insert(p.at("cards").at(0).get<int>());
  CHECK(embed_cards.size() > 1);

  // The other way: a cGPU pool moved to DRA, each pod a claim of one whole GPU.
  const Outcome whatif = Run("whatif " + QuotedSourcePath("scenarios/quickstart.yaml") +
                             " --knob sharing:*=dra --json -");
  REQUIRE_MESSAGE(whatif.exit_code == 0, whatif.err);
  const nlohmann::json moved = nlohmann::json::parse(whatif.out);
  int placed = 0;
  for (const auto& p : moved.at("variants").at(1).at("pods"))
    if (p.at("node").is_string()) ++placed;
  CHECK(placed > 0);
}

TEST_CASE(
    "import turns MIG instances created ahead and HAMi's shared GPUs into dra pools, claims into "
    "dra workloads (the MIG profile the selectors match), and the scenario runs: instances are "
    "cards of their own, HAMi shares hold their memory and cores") {
  const std::string file = QuotedSourcePath(kDir + "mig-hami-dra.json");
  const std::string out = TempPath("mig-hami-dra-import.yaml");
  const Outcome o = Run("import --kube " + file + " -o '" + out + "'");
  CAPTURE(o.err);
  REQUIRE(o.exit_code == 0);
  const std::string yaml = ReadFile(out);
  CAPTURE(yaml);
  CHECK(Has(yaml, "dra: {mig: \"1g.10gb*2+2g.20gb+3g.40gb\"}"));
  CHECK(Has(yaml, "dra: {driver: hami}"));
  CHECK(Has(yaml, "dra: {gpus: 1, mig_profile: \"1g.10gb\"}"));
  CHECK(Has(yaml, "dra: {gpus: 1, mig_profile: \"3g.40gb\"}"));  // startsWith('3g')
  CHECK(Has(yaml, "dra: {gpus: 1, driver: hami, memory: 6Gi, cores: 30}"));
  // A HAMi claim several pods share: one HAMi-core limit for all of them, not modelled.
  CHECK(Has(o.err, "infer/ocr-0"));
  CHECK(Has(o.err, "shared by several pods"));
  const Outcome run = Run("run '" + out + "' --duration 2m --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  std::map<std::string, std::vector<std::string>> cards_of;
  for (const auto& p : doc.at("variants").at(0).at("pods")) {
    REQUIRE_MESSAGE(p.at("node").is_string(), p.dump());
    for (const auto& c : p.at("cards"))
      cards_of[p.at("name").get<std::string>()].push_back(c.dump());
  }
  CAPTURE(nlohmann::json(cards_of).dump());
  // Three 1g.10gb pods, one 3g.40gb pod, each on an instance of its own; three HAMi shares.
  CHECK(cards_of.size() == 7);
  std::set<std::string> mig_cards;
  for (const auto& [pod, cards] : cards_of) {
    CHECK(cards.size() == 1);
    if (pod.starts_with("small") || pod.starts_with("mid")) mig_cards.insert(cards.at(0));
  }
  CHECK(mig_cards.size() == 4);
}

TEST_CASE(
    "scenarios/h100-dra-shares.yaml: HAMi's DRA shares, MIG instances and whole GPUs; whole GPUs "
    "leave four pods Pending") {
  const Outcome run =
      Run("run " + QuotedSourcePath("scenarios/h100-dra-shares.yaml") + " --all --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  std::map<std::string, int> pending;
  for (const auto& v : doc.at("variants")) {
    int n = 0;
    for (const auto& p : v.at("pods")) n += p.at("node").is_null() ? 1 : 0;
    pending[v.at("name").get<std::string>()] = n;
  }
  CHECK(pending == std::map<std::string, int>{{"base", 0}, {"mig", 0}, {"whole-gpus", 4}});
}

TEST_CASE(
    "import turns a node of eight H100s under DynamicMIG into a dra: {dynamic_mig: true} pool; "
    "the run creates the partitions claims ask, never two on the same memory slices") {
  const std::string file = QuotedSourcePath(kDir + "dynamic-mig-dra.json");
  const std::string out = TempPath("dynamic-mig-import.yaml");
  const Outcome o = Run("import --kube " + file + " -o '" + out + "'");
  CAPTURE(o.err);
  REQUIRE(o.exit_code == 0);
  const std::string yaml = ReadFile(out);
  CAPTURE(yaml);
  CHECK(Has(yaml, "dra: {dynamic_mig: true}"));
  CHECK(Has(yaml, "gpus_per_node: 8"));
  CHECK(Has(yaml, "dra: {gpus: 1, mig_profile: \"3g.40gb\"}"));
  const Outcome run = Run("run '" + out + "' --duration 2m --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  std::set<int> slots;
  int placed = 0;
  for (const auto& p : doc.at("variants").at(0).at("pods")) {
    REQUIRE_MESSAGE(p.at("node").is_string(), p.dump());
    REQUIRE(p.at("cards").size() == 1);
    slots.insert(p.at("cards").at(0).get<int>());
    ++placed;
  }
  CHECK(placed == 8);
  // Card 0 (slots 0-18): whole 0, 1g.10gb at 1-7, 3g.40gb at 15 and 16. The four 1g pods take
  // slots 1-4 (slices 0-3), so the first 3g pod gets slot 16 (slices 4-7), the second card 1's
  // first 3g (19 + 15), the training pods cards 2 and 3 whole.
  CHECK(slots == std::set<int>{1, 2, 3, 4, 16, 34, 38, 57});
}

TEST_CASE(
    "DRAExtendedResource at 1.36: pods asking nvidia.com/gpu, which the DRA driver's class "
    "backs, get a claim each from schedule and from import's run") {
  const std::string file = QuotedSourcePath(kDir + "extended-resource-dra.json");
  const std::string out = TempPath("extended-resource-import.yaml");
  const Outcome o = Run("import --kube " + file + " -o '" + out + "'");
  CAPTURE(o.err);
  REQUIRE(o.exit_code == 0);
  const std::string yaml = ReadFile(out);
  CAPTURE(yaml);
  CHECK(Has(yaml, "dra: {gpus: 2}  # asks nvidia.com/gpu, which a DeviceClass backs"));
  CHECK(Has(yaml, "dra: {gpus: 4}"));
  CHECK(!Has(yaml, "whole_gpus"));
  const Outcome run = Run("run '" + out + "' --duration 2m --json -");
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  std::vector<std::string> placed;
  for (const auto& p : doc.at("variants").at(0).at("pods")) {
    placed.push_back(p.at("name").get<std::string>() + " " + std::to_string(p.at("cards").size()));
  }
  // Eight GPUs: 2 for the running pod, 4 for the first job, the second waits.
  CHECK(placed == std::vector<std::string>{"serve-0 2", "train-0-0 4", "train-1-0 0"});
  // schedule at the default 1.35 reads them as device-plugin requests, and says the kubelets
  // run 1.36; at 1.36 the scheduler makes each a claim of its own.
  const Outcome old_version = Run("schedule --cluster " + file + " --pods " + file);
  CHECK(Has(old_version.err,
            "2 pending pod(s) (ml/train-0, ml/train-1) ask an extended resource "
            "a DeviceClass backs (nvidia.com/gpu, which DeviceClass "
            "gpu.nvidia.com backs), and the kubelets run 1.36 or later"));
  CHECK(Has(old_version.out, "1 Insufficient nvidia.com/gpu"));
  const Outcome at136 =
      Run("schedule --cluster " + file + " --pods " + file + " --kube-version 1.36 --json -");
  const nlohmann::json doc136 = nlohmann::json::parse(at136.out);
  const nlohmann::json& train0 = PodNamed(doc136, "train-0");
  CHECK(train0.at("node") == "h100-x");
  REQUIRE(train0.at("devices").size() == 4);
  CHECK(train0.at("devices").at(0).at("claim") == "train-0-extended-resources");
  CHECK(train0.at("devices").at(0).at("request") == "container-0-request-2");
  CHECK(train0.at("devices").at(0).at("device") == "gpu-2");  // gpu-0, gpu-1: serve-0's claim
  CHECK(Has(PodNamed(doc136, "train-1").at("message").get<std::string>(),
            "1 cannot allocate all claims. still not schedulable"));
}

}  // namespace
}  // namespace knobsim::e2e
