// End-to-end tests of Dynamic Resource Allocation on exports as `kubectl get -o json` writes them
// (tools/knobsim/testdata/dra, made by its generate.py with the slices the NVIDIA DRA driver
// publishes): `schedule` allocates pods' claims as kube-scheduler's DynamicResources plugin does
// (whole GPUs, MIG partitions sharing a card's counters, a PCIe-root constraint, a GPU shared
// through consumable capacity), and `import` leaves pods with claims out, loudly
// (docs/semantics.md §6, docs/schedule.md).
#include <doctest/doctest.h>

#include <string>

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

TEST_CASE("import leaves pods with DRA claims out with a warning naming them") {
  const Outcome o = Run("import --kube " + QuotedSourcePath(kDir + "shared-dra.json"));
  CAPTURE(o.out);
  CAPTURE(o.err);
  CHECK(Has(o.err + o.out,
            "4 pod(s) ask devices through DRA resource claims (serve/chat-0, "
            "serve/chat-1, serve/embed-0, serve/chat-2)"));
  CHECK(Has(o.err + o.out,
            "1 ResourceSlice(s) publish DRA devices, which a run does not "
            "simulate yet"));
}

}  // namespace
}  // namespace knobsim::e2e
