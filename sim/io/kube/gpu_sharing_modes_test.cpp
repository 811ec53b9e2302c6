#include "sim/io/kube/gpu_sharing_modes.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim::kube {
namespace {

// What GPU feature discovery writes on a node of whole cards, sharing off (NVDP
// internal/lm/resource.go baseLabeler: replicas 1, sharing-strategy none), with MIG capable but
// disabled (mig.strategy single, MIG manager's all-disabled).
Labels PlainGfdLabels() {
  return {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"},
          {"nvidia.com/gpu.memory", "81920"},
          {"nvidia.com/gpu.count", "8"},
          {"nvidia.com/gpu.replicas", "1"},
          {"nvidia.com/gpu.sharing-strategy", "none"},
          {"nvidia.com/gpu.family", "ampere"},
          {"nvidia.com/mig.capable", "true"},
          {"nvidia.com/mig.strategy", "single"},
          {"nvidia.com/mig.config", "all-disabled"},
          {"nvidia.com/mps.capable", "false"}};
}

// `rule` "" expects no refusal; else the rule, the system and the key that showed it.
void CheckFound(const std::optional<UnmodelledSharing>& found, const char* rule, const char* system,
                const char* key) {
  if (!*rule) {
    CHECK_FALSE(found.has_value());
    return;
  }
  REQUIRE(found.has_value());
  CHECK(found->rule == rule);
  CHECK(found->system == system);
  CHECK(found->key == key);
  CHECK(!found->consequence.empty());
}

TEST_CASE("node rules: each mode knobsim does not model is named by the rule that saw it") {
  struct Case {
    const char* rule;  // expected rule, "" = modelled (no refusal)
    Labels set;        // labels set over PlainGfdLabels ("" as a value erases the label)
    std::vector<std::string> annotations;
    ResourceList capacity;  // set over 8 nvidia.com/gpu
    const char* system;
    const char* key;
    SharingEvidence evidence;
  };
  const Case cases[] = {
      {"", {}, {}, {}, "", "", SharingEvidence::kLabel},
      // GFD's replica count with sharing off (the MIG-enabled path of mig-strategy.go).
      {"", {{"nvidia.com/gpu.replicas", "0"}}, {}, {}, "", "", SharingEvidence::kLabel},
      // The strategy alone: no MIG device on the node.
      {"",
       {{"nvidia.com/mig.strategy", "mixed"}, {"nvidia.com/mig.config", ""}},
       {},
       {},
       "",
       "",
       SharingEvidence::kLabel},
      // A stale MIG resource left at 0; fewer cards offered than seen (one unhealthy).
      {"",
       {},
       {},
       {{"nvidia.com/mig-1g.10gb", 0}, {"nvidia.com/gpu", 4}},
       "",
       "",
       SharingEvidence::kLabel},
      {"ack-schedule-mps",
       {{"ack.node.gpu.schedule", "mps"}},
       {},
       {},
       "ACK MPS sharing",
       "ack.node.gpu.schedule",
       SharingEvidence::kLabel},
      {"ack-schedule-topology",
       {{"ack.node.gpu.schedule", "topology"}},
       {},
       {},
       "ACK topology-aware GPU scheduling",
       "ack.node.gpu.schedule",
       SharingEvidence::kLabel},
      {"ack-schedule-mig",
       {{"ack.node.gpu.schedule", "mig"}},
       {},
       {},
       "ACK dynamic MIG",
       "ack.node.gpu.schedule",
       SharingEvidence::kLabel},
      {"ack-topology-resource",
       {},
       {},
       {{"aliyun.com/gpu", 8}},
       "ACK topology-aware GPU scheduling",
       "aliyun.com/gpu",
       SharingEvidence::kCapacity},
      // A registered HAMi node is read (the node reader's ReadHamiSide); its handshake, node
      // lock and topology scores change nothing knobsim models.
      {"",
       {},
       {"node.alpha.kubernetes.io/ttl", "hami.io/node-handshake", "hami.io/node-nvidia-register",
        "hami.io/mutex.lock", "hami.io/node-nvidia-score"},
       {},
       "",
       "",
       SharingEvidence::kLabel},
      {"hami-node-annotation",
       {},
       {"node.alpha.kubernetes.io/ttl", "hami.io/node-handshake"},
       {},
       "HAMi",
       "hami.io/node-handshake",
       SharingEvidence::kAnnotation},
      {"hami-node-annotation",
       {},
       {"hami.io/node-nvidia-register", "hami.io/device-cordon"},
       {},
       "HAMi",
       "hami.io/device-cordon",
       SharingEvidence::kAnnotation},
      {"mig-resource",
       {},
       {},
       {{"nvidia.com/mig-1g.10gb", 7}},
       "MIG",
       "nvidia.com/mig-1g.10gb",
       SharingEvidence::kCapacity},
      // MIG the labels and the capacity describe (DevicePluginMig) is modelled: single here.
      {"",
       {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"}},
       {},
       {},
       "",
       "",
       SharingEvidence::kLabel},
      // A single-strategy product on a node labelled mixed offers no MIG resource: refused.
      {"mig-product",
       {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"},
        {"nvidia.com/mig.strategy", "mixed"}},
       {},
       {},
       "MIG",
       "nvidia.com/gpu.product",
       SharingEvidence::kLabel},
      {"mig-product",
       {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB-MIG-INVALID"}},
       {},
       {},
       "MIG",
       "nvidia.com/gpu.product",
       SharingEvidence::kLabel},
      {"mig-config",
       {{"nvidia.com/mig.config", "all-1g.10gb"}},
       {},
       {},
       "MIG",
       "nvidia.com/mig.config",
       SharingEvidence::kLabel},
      // Time-slicing and MPS replicas GFD labels consistently are modelled (DevicePluginReplicas).
      {"",
       {{"nvidia.com/gpu.sharing-strategy", "time-slicing"}, {"nvidia.com/gpu.replicas", "4"}},
       {},
       {{"nvidia.com/gpu", 32}},
       "",
       "",
       SharingEvidence::kLabel},
      {"",
       {{"nvidia.com/gpu.sharing-strategy", "mps"},
        {"nvidia.com/gpu.replicas", "2"},
        {"nvidia.com/mps.capable", "true"},
        {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB-SHARED"}},
       {},
       {{"nvidia.com/gpu", 16}},
       "",
       "",
       SharingEvidence::kLabel},
      // More replicas offered than count x replicas: the labels do not tell the sharing.
      {"gfd-sharing-strategy",
       {{"nvidia.com/gpu.sharing-strategy", "time-slicing"}, {"nvidia.com/gpu.replicas", "4"}},
       {},
       {{"nvidia.com/gpu", 64}},
       "NVIDIA time-slicing",
       "nvidia.com/gpu.sharing-strategy",
       SharingEvidence::kLabel},
      {"gfd-sharing-strategy",
       {{"nvidia.com/gpu.sharing-strategy", "mps"}},
       {},
       {},
       "NVIDIA MPS",
       "nvidia.com/gpu.sharing-strategy",
       SharingEvidence::kLabel},
      // A GFD release before the strategy label.
      {"gfd-replicas",
       {{"nvidia.com/gpu.sharing-strategy", ""}, {"nvidia.com/gpu.replicas", "4"}},
       {},
       {},
       "NVIDIA time-slicing or MPS",
       "nvidia.com/gpu.replicas",
       SharingEvidence::kLabel},
      {"gfd-replicas",
       {{"nvidia.com/gpu.replicas", "four"}},
       {},
       {},
       "NVIDIA time-slicing or MPS",
       "nvidia.com/gpu.replicas",
       SharingEvidence::kLabel},
      {"gfd-shared-product",
       {{"nvidia.com/gpu.replicas", ""}, {"nvidia.com/gpu.product", "NVIDIA-L4-SHARED"}},
       {},
       {},
       "NVIDIA time-slicing or MPS",
       "nvidia.com/gpu.product",
       SharingEvidence::kLabel},
      {"shared-resource",
       {},
       {},
       {{"nvidia.com/gpu.shared", 32}},  // renameByDefault
       "NVIDIA time-slicing or MPS",
       "nvidia.com/gpu.shared",
       SharingEvidence::kCapacity},
      {"mps-capable",
       {{"nvidia.com/mps.capable", "true"}},
       {},
       {},
       "NVIDIA MPS",
       "nvidia.com/mps.capable",
       SharingEvidence::kLabel},
      // HAMi's deviceSplitCount 10, or replicas from a plugin without GFD's sharing labels.
      {"capacity-above-count",
       {},
       {},
       {{"nvidia.com/gpu", 80}},
       "NVIDIA GPU replicas or vGPUs",
       "nvidia.com/gpu",
       SharingEvidence::kCapacity},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    CAPTURE(c.system);
    Labels labels = PlainGfdLabels();
    for (const auto& [key, value] : c.set) {
      if (value.empty()) {
        labels.erase(key);
      } else {
        labels[key] = value;
      }
    }
    std::vector<std::string> annotations = {"node.alpha.kubernetes.io/ttl"};
    if (!c.annotations.empty()) annotations = c.annotations;
    ResourceList capacity = {{"cpu", 96000}, {"nvidia.com/gpu", 8}, {"pods", 110}};
    for (const auto& [name, value] : c.capacity) capacity[name] = value;
    const auto found = UnmodelledNodeSharing(labels, annotations, capacity);
    CheckFound(found, c.rule, c.system, c.key);
    if (found) CHECK(found->evidence == c.evidence);
  }
}

TEST_CASE("pod rules: HAMi's, shared replicas' and ACK topology's requests are named") {
  struct Case {
    const char* rule;
    std::vector<std::string> annotations, resources;
    const char* system;
    const char* key;
  };
  const Case cases[] = {
      {"", {"kubectl.kubernetes.io/restartedAt"}, {"cpu", "memory", "nvidia.com/gpu"}, "", ""},
      {"", {}, {"aliyun.com/gpu-mem", "aliyun.com/gpu-core.percentage"}, "", ""},
      // HAMi's allocation, binding, policies, card types and resources are read (the pod
      // reader's ReadHamiRequest).
      {"",
       {"hami.io/vgpu-devices-allocated", "hami.io/vgpu-devices-to-allocate", "hami.io/vgpu-node",
        "hami.io/vgpu-time", "hami.io/bind-phase", "hami.io/bind-time",
        "hami.io/node-scheduler-policy", "hami.io/gpu-scheduler-policy", "nvidia.com/use-gputype",
        "nvidia.com/nouse-gputype"},
       {"cpu", "nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpumem-percentage",
        "nvidia.com/gpucores"},
       "",
       ""},
      {"hami-pod-annotation",
       {"hami.io/vgpu-node", "hami.io/device-scoring-weights"},
       {"nvidia.com/gpu"},
       "HAMi",
       "hami.io/device-scoring-weights"},
      {"hami-pod-annotation", {"nvidia.com/nouse-gpuuuid"}, {}, "HAMi", "nvidia.com/nouse-gpuuuid"},
      {"hami-pod-annotation", {"nvidia.com/use-gpuuuid"}, {}, "HAMi", "nvidia.com/use-gpuuuid"},
      {"hami-pod-annotation", {"nvidia.com/numa-bind"}, {}, "HAMi", "nvidia.com/numa-bind"},
      {"hami-pod-annotation", {"nvidia.com/vgpu-mode"}, {}, "HAMi", "nvidia.com/vgpu-mode"},
      {"hami-resource",
       {},
       {"cpu", "nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/priority"},
       "HAMi",
       "nvidia.com/priority"},
      {"", {}, {"nvidia.com/mig-3g.40gb"}, "", ""},  // modelled (the kube reader's pods)
      {"", {}, {"nvidia.com/gpu.shared"}, "", ""},   // renamed replicas: modelled
      {"shared-resource",
       {},
       {"nvidia.com/mig-1g.10gb.shared"},
       "NVIDIA GPU sharing",
       "nvidia.com/mig-1g.10gb.shared"},
      {"ack-topology-resource",
       {},
       {"aliyun.com/gpu"},
       "ACK topology-aware GPU scheduling",
       "aliyun.com/gpu"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    CAPTURE(c.key);
    const auto found = UnmodelledPodSharing(c.annotations, c.resources);
    CheckFound(found, c.rule, c.system, c.key);
    if (found)
      CHECK((found->evidence == SharingEvidence::kAnnotation ||
             found->evidence == SharingEvidence::kPodResource));
  }
}

TEST_CASE(
    "DevicePluginMig: the strategy, the card's product and the devices offered, as GFD labels "
    "them (mig-strategy.go)") {
  // Mixed: capacity nvidia.com/mig-<profile>, product the card, gpu.count the cards.
  Labels mixed = PlainGfdLabels();
  mixed["nvidia.com/mig.strategy"] = "mixed";
  mixed["nvidia.com/mig.config"] = "all-balanced";
  mixed["nvidia.com/gpu.replicas"] = "0";  // MIG-enabled cards are labelled without sharing
  mixed["nvidia.com/mig-1g.10gb.replicas"] = "1";
  const ResourceList balanced = {{"nvidia.com/gpu", 0},
                                 {"nvidia.com/mig-1g.10gb", 16},
                                 {"nvidia.com/mig-2g.20gb", 8},
                                 {"nvidia.com/mig-3g.40gb", 8}};
  const auto m = DevicePluginMig(mixed, balanced);
  REQUIRE(m.has_value());
  CHECK(m->strategy == MigStrategy::kMixed);
  CHECK(m->card_product == "NVIDIA-A100-SXM4-80GB");
  CHECK(m->cards == 8);
  CHECK(m->devices == std::vector<std::pair<std::string, int64_t>>{
                          {"1g.10gb", 16}, {"2g.20gb", 8}, {"3g.40gb", 8}});
  // Single: the product names the profile, nvidia.com/gpu counts the devices.
  Labels single = PlainGfdLabels();
  single["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3-MIG-3g.40gb";
  single["nvidia.com/gpu.count"] = "16";
  const auto s = DevicePluginMig(single, {{"nvidia.com/gpu", 16}});
  REQUIRE(s.has_value());
  CHECK(s->strategy == MigStrategy::kSingle);
  CHECK(s->card_product == "NVIDIA-H100-80GB-HBM3");
  CHECK(s->devices == std::vector<std::pair<std::string, int64_t>>{{"3g.40gb", 16}});
  CHECK(s->cards == 0);
  // Not modelled, so nothing: MIG devices shared again, whole cards beside MIG devices, an
  // invalid single layout, no MIG device at all.
  Labels shared = mixed;
  shared["nvidia.com/mig-1g.10gb.replicas"] = "2";
  CHECK_FALSE(DevicePluginMig(shared, balanced).has_value());
  ResourceList beside = balanced;
  beside["nvidia.com/gpu"] = 2;
  CHECK_FALSE(DevicePluginMig(mixed, beside).has_value());
  Labels invalid = single;
  invalid["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3-MIG-INVALID";
  CHECK_FALSE(DevicePluginMig(invalid, {{"nvidia.com/gpu", 16}}).has_value());
  CHECK_FALSE(DevicePluginMig(PlainGfdLabels(), {{"nvidia.com/gpu", 8}}).has_value());
  CHECK_FALSE(DevicePluginMig(mixed, {{"nvidia.com/gpu", 0}}).has_value());
}

TEST_CASE("the refusal names the object, the system, what was found and that it is not modelled") {
  Labels labels = PlainGfdLabels();
  labels["nvidia.com/gpu.replicas"] = "4";
  labels["nvidia.com/gpu.sharing-strategy"] = "time-slicing";
  const auto found = UnmodelledNodeSharing(labels, {}, {{"nvidia.com/gpu", 40}});
  REQUIRE(found.has_value());
  const std::string message = UnmodelledSharingMessage(*found, "node gpu-l4-0");
  CHECK(message.rfind("node gpu-l4-0: NVIDIA time-slicing (nvidia.com/gpu.sharing-strategy="
                      "time-slicing) is not modelled: ",
                      0) == 0);
  CHECK(std::string(kUnmodelledSharingHint).find("docs/import.md") != std::string::npos);
}

TEST_CASE("DevicePluginReplicas reads time-slicing and MPS from GPU feature discovery's labels") {
  struct Case {
    const char* name;
    Labels set;
    int64_t offered;  // capacity nvidia.com/gpu
    bool modelled;
    DeviceSharingStrategy strategy = DeviceSharingStrategy::kNone;
    int replicas = 0;
    bool fail_gt_one = false;
  };
  const DeviceSharingStrategy ts = DeviceSharingStrategy::kTimeSlicing;
  const DeviceSharingStrategy mps = DeviceSharingStrategy::kMps;
  const Case cases[] = {
      {"time-slicing x4 on 8 cards",
       {{"nvidia.com/gpu.sharing-strategy", "time-slicing"}, {"nvidia.com/gpu.replicas", "4"}},
       32,
       true,
       ts,
       4,
       false},
      {"MPS x3: failRequestsGreaterThanOne by default",
       {{"nvidia.com/gpu.sharing-strategy", "mps"}, {"nvidia.com/gpu.replicas", "3"}},
       24,
       true,
       mps,
       3,
       true},
      {"unhealthy replicas offer fewer",
       {{"nvidia.com/gpu.sharing-strategy", "time-slicing"}, {"nvidia.com/gpu.replicas", "4"}},
       28,
       true,
       ts,
       4,
       false},
      {"no sharing", {}, 8, false},
      {"strategy without replicas",
       {{"nvidia.com/gpu.sharing-strategy", "time-slicing"}},
       8,
       false},
      {"more offered than count x replicas",
       {{"nvidia.com/gpu.sharing-strategy", "time-slicing"}, {"nvidia.com/gpu.replicas", "2"}},
       17,
       false},
      {"no count label",
       {{"nvidia.com/gpu.sharing-strategy", "time-slicing"},
        {"nvidia.com/gpu.replicas", "4"},
        {"nvidia.com/gpu.count", ""}},
       32,
       false},
      {"MPS beyond 48 clients",
       {{"nvidia.com/gpu.sharing-strategy", "mps"}, {"nvidia.com/gpu.replicas", "64"}},
       512,
       false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Labels labels = PlainGfdLabels();
    for (const auto& [key, value] : c.set) {
      if (value.empty()) {
        labels.erase(key);
      } else {
        labels[key] = value;
      }
    }
    const auto r = DevicePluginReplicas(labels, {{"nvidia.com/gpu", c.offered}});
    CHECK(r.has_value() == c.modelled);
    if (!r) continue;
    CHECK(r->sharing.strategy == c.strategy);
    CHECK(r->sharing.replicas == c.replicas);
    CHECK(r->sharing.fail_requests_greater_than_one == c.fail_gt_one);
    CHECK(r->cards == 8);
    CHECK(r->offered == c.offered);
  }
  // Renamed replicas (renameByDefault): nvidia.com/gpu.shared in place of nvidia.com/gpu; not
  // beside it, and not a MIG profile's.
  Labels labels = PlainGfdLabels();
  labels["nvidia.com/gpu.sharing-strategy"] = "time-slicing";
  labels["nvidia.com/gpu.replicas"] = "4";
  const auto renamed =
      DevicePluginReplicas(labels, {{"nvidia.com/gpu.shared", 32}, {"nvidia.com/gpu", 0}});
  REQUIRE(renamed);
  CHECK(renamed->sharing.renamed);
  CHECK(renamed->offered == 32);
  CHECK(std::string(renamed->sharing.resource()) == "nvidia.com/gpu.shared");
  CHECK_FALSE(
      DevicePluginReplicas(labels, {{"nvidia.com/gpu.shared", 16}, {"nvidia.com/gpu", 16}}));
  CHECK_FALSE(
      DevicePluginReplicas(labels, {{"nvidia.com/gpu", 32}, {"nvidia.com/mig-1g.10gb.shared", 7}}));
}

}  // namespace
}  // namespace knobsim::kube
