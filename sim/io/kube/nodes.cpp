#include "sim/io/kube/kinds.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/gpu_catalog.h"
#include "models/mig_profiles.h"
#include "sim/io/kube/gpu_sharing_modes.h"
#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/resources.h"
#include "sim/mig_layout.h"
#include "sim/scheduler/card_placement.h"

namespace knobsim::kube {
namespace {

// A MIG node (gpu_sharing_modes.h DevicePluginMig): its cards and their instances. The device
// plugin offers MIG devices, not cards, so the cards' layout comes from the MIG geometry of the
// card (models/mig_profiles.h): under mixed, nvidia.com/gpu.count cards each holding an equal
// share of every profile's devices; under single, whole cards of the profile's most instances
// (the single strategy's layouts, mig-parted's all-<profile>: an assumption, docs/import.md).
// What does not split so, or a card knobsim has no geometry for, is refused at the field.
void ReadMigSide(ObjectReader& r, const ModelledMig& mig,
                 const std::vector<ResourceEntry>& capacity, const std::optional<Field>& labels,
                 NodeSpec& node) {
  const Field at = labels ? r.Get(*labels, kGfdMigStrategyLabel).value_or(*labels) : Field{};
  const std::string card = GpuCatalogKey(mig.card_product);
  const std::string what = Cat({"MIG on ", mig.card_product});
  if (MigProfilesOf(card).empty())
    r.Fail(at, Cat({what, ": knobsim has no MIG geometry for this card"}),
           "MIG is modelled on A100 40 GB and 80 GB, H100 80 GB (SXM) and H200 (SXM); export "
           "the cluster without these nodes and their pods");
  MigLayout layout;
  layout.strategy = mig.strategy;
  int cards = mig.cards;
  auto device_field = [&](const std::string& profile) {
    const std::string name = mig.strategy == MigStrategy::kSingle
                                 ? std::string(kNvidiaGpuResource)
                                 : std::string(kMigResourcePrefix) + profile;
    for (const ResourceEntry& e : capacity)
      if (e.name == name) return e.field;
    return at;
  };
  if (mig.strategy == MigStrategy::kSingle) {
    const auto& [profile, offered] = mig.devices.front();
    const MigProfile* p = FindMigProfile(card, profile);
    if (p == nullptr) r.Fail(at, Cat({what, ": ", card, " has no MIG profile ", Quote(profile)}));
    const int per_card = MigMostInstances(*p);
    if (offered % per_card != 0)
      r.Fail(device_field(profile),
             Cat({what, ": ", std::to_string(offered), " MIG devices of ", profile,
                  " do not fill whole cards of ", std::to_string(per_card),
                  ", so the cards' layout is unknown"}),
             "knobsim models single-strategy nodes whose cards are cut whole (mig-parted's "
             "all-<profile>)");
    cards = static_cast<int>(offered / per_card);
    layout.instances.assign(per_card, profile);
  } else {
    // Each card's instances, largest first (compute slices, then memory), as listed per card.
    std::vector<std::pair<const MigProfile*, int64_t>> per_profile;
    for (const auto& [profile, offered] : mig.devices) {
      const MigProfile* p = FindMigProfile(card, profile);
      if (p == nullptr)
        r.Fail(device_field(profile),
               Cat({what, ": ", card, " has no MIG profile ", Quote(profile)}));
      if (offered % cards != 0)
        r.Fail(device_field(profile),
               Cat({what, ": ", std::to_string(offered), " devices of ", profile, " over ",
                    std::to_string(cards), " cards (", kGfdCountLabel,
                    ") is not the same layout on every card"}),
               "knobsim models nodes whose cards are all cut alike");
      per_profile.emplace_back(p, offered / cards);
    }
    std::stable_sort(per_profile.begin(), per_profile.end(), [](const auto& a, const auto& b) {
      return std::tie(b.first->compute_slices, b.first->memory_slices) <
             std::tie(a.first->compute_slices, a.first->memory_slices);
    });
    for (const auto& [p, n] : per_profile)
      for (int64_t k = 0; k < n; ++k) layout.instances.push_back(p->name);
  }
  if (cards > kMaxCardsPerNode)
    r.Fail(at, Cat({std::to_string(cards), " GPUs on one node is more than knobsim models (",
                    std::to_string(kMaxCardsPerNode), ")"}));
  if (auto problem = CheckMigLayout(card, layout))
    r.Fail(at, Cat({what, ": ", problem->error}), problem->hint);
  node.mig = std::move(layout);
  node.gpu_cards = cards * static_cast<int>(node.mig.instances.size());
  node.gpu_model = mig.card_product;
  node.gpu_schedule = "default";
}

// One card as HAMi's device plugin registers it.
struct HamiRegistered {
  std::string id;  // the card's UUID
  int64_t index = 0, count = 0, devmem = 0, devcore = 0;
  std::string type, mode;
  bool health = false;
};

// hami.io/node-nvidia-register in either form HAMi writes: a JSON list (v2.8 and later,
// pkg/device/devices.go MarshalNodeDevices; omitempty, so an absent index, numa or devcore is 0
// and an absent health false), or the older "id,count,devmem,devcore,type,numa,health[,index,
// mode]:" per card (DecodeNodeDevices). nullopt (with `error`) when it is neither.
std::optional<std::vector<HamiRegistered>> ParseHamiRegistration(const std::string& text,
                                                                 std::string& error) {
  const auto fail = [&](std::string why) {
    error = std::move(why);
    return std::nullopt;
  };
  std::vector<HamiRegistered> cards;
  if (!text.empty() && text.front() == '[') {
    const nlohmann::json list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (list.is_discarded() || !list.is_array()) return fail("not a JSON list");
    for (const nlohmann::json& d : list) {
      if (!d.is_object()) return fail("a device is not an object");
      HamiRegistered c;
      for (auto [key, out] : {std::pair{"index", &c.index}, std::pair{"count", &c.count},
                              std::pair{"devmem", &c.devmem}, std::pair{"devcore", &c.devcore}}) {
        if (!d.contains(key)) continue;
        if (!d.at(key).is_number_integer()) return fail(Cat({key, " is not an integer"}));
        *out = d.at(key).get<int64_t>();
      }
      for (auto [key, out] :
           {std::pair{"id", &c.id}, std::pair{"type", &c.type}, std::pair{"mode", &c.mode}}) {
        if (!d.contains(key)) continue;
        if (!d.at(key).is_string()) return fail(Cat({key, " is not a string"}));
        *out = d.at(key).get<std::string>();
      }
      c.health = d.contains("health") && d.at("health").is_boolean() && d.at("health").get<bool>();
      cards.push_back(std::move(c));
    }
    return cards;
  }
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = std::min(text.find(':', begin), text.size());
    std::vector<std::string_view> f;
    for (size_t at = begin; at <= end;) {
      const size_t comma = std::min(text.find(',', at), end);
      f.push_back(std::string_view(text).substr(at, comma - at));
      at = comma + 1;
    }
    begin = end + 1;
    if (f.size() == 1 && f[0].empty()) continue;
    if (f.size() < 7) return fail("a device has fewer than 7 fields");
    const std::optional<int64_t> count = ParseInteger(f[1]), devmem = ParseInteger(f[2]),
                                 devcore = ParseInteger(f[3]);
    if (!count || !devmem || !devcore) return fail("a count, devmem or devcore is not a number");
    HamiRegistered c{std::string(f[0]), 0,  *count,        *devmem, *devcore,
                     std::string(f[4]), "", f[6] == "true"};
    if (f.size() > 7) c.index = ParseInteger(f[7]).value_or(0);
    if (f.size() > 8) c.mode = f[8];
    cards.push_back(std::move(c));
  }
  return cards;
}

// A HAMi node (docs/semantics.md §2.8): the cards its device plugin registered. knobsim models
// cards registered alike, healthy, in HAMi-core mode; the rest is refused at the annotation. The
// value lists card UUIDs: kept to map pods' allocations, shown nowhere. False when the node has
// no registration.
bool ReadHamiSide(ObjectReader& r, const ObjectMeta& meta, NodeSpec& node) {
  if (!meta.annotations) return false;
  const std::optional<Field> f = r.Get(*meta.annotations, kHamiRegisterAnnotation);
  if (!f) return false;
  const std::string what = Cat({"node ", node.name, ": HAMi's ", kHamiRegisterAnnotation});
  std::string error;
  const std::optional<std::vector<HamiRegistered>> cards =
      ParseHamiRegistration(r.String(*f, /*reveal=*/false), error);
  if (!cards || cards->empty())
    r.Fail(*f, Cat({what, ": ", cards ? "no devices" : error}),
           "HAMi writes a JSON list of its cards ([{\"id\": ..., \"count\": 10, \"devmem\": "
           "24576, ...}]; before v2.8 \"id,count,devmem,devcore,type,numa,health:\" per card)");
  if (static_cast<int64_t>(cards->size()) > kMaxCardsPerNode)
    r.Fail(*f,
           Cat({std::to_string(cards->size()), " GPUs on one node is more than knobsim models (",
                std::to_string(kMaxCardsPerNode), ")"}));
  const HamiRegistered& first = cards->front();
  for (size_t i = 0; i < cards->size(); ++i) {
    const HamiRegistered& c = (*cards)[i];
    const std::string at = Cat({what, " device ", std::to_string(i), ": "});
    if (!c.mode.empty() && c.mode != "hami-core")
      r.Fail(*f, Cat({at, "HAMi's ", Quote(c.mode), " mode is not modelled"}),
             "knobsim models HAMi's hami-core mode (vGPUs limited by HAMi-core); export the "
             "cluster without these nodes and their pods");
    if (!c.health)
      r.Fail(*f, Cat({at, "an unhealthy card (HAMi's CardNotHealth) is not modelled"}),
             "export the cluster once the card is healthy, or without this node");
    if (c.id.empty() || c.count < 1 || c.count > 1024 || c.devmem < 1 || c.devmem > (1 << 30) ||
        c.devcore < 0 || c.devcore > 10000)
      r.Fail(*f, Cat({at, "needs an id, a count in 1..1024, devmem in MiB and devcore"}));
    if (c.count != first.count || c.devmem != first.devmem || c.devcore != first.devcore ||
        c.type != first.type)
      r.Fail(*f, Cat({at, "registered unlike device 0 (count, devmem, devcore or type)"}),
             "knobsim models HAMi nodes whose cards are all alike");
  }
  std::vector<HamiRegistered> by_index = *cards;
  std::stable_sort(
      by_index.begin(), by_index.end(),
      [](const HamiRegistered& a, const HamiRegistered& b) { return a.index < b.index; });
  node.hami = {static_cast<int>(first.count),
               static_cast<int>(first.devmem),
               static_cast<int>(first.devcore),
               HamiCorePolicy::kDefault,
               {}};
  for (const HamiRegistered& c : by_index) node.hami.card_uuids.push_back(c.id);
  node.annotations.erase(kHamiRegisterAnnotation);  // card UUIDs: kept above, shown nowhere
  node.gpu_cards = static_cast<int>(cards->size());
  node.gpu_schedule = "default";
  // GPU feature discovery's product where the GPU operator labels the node, else HAMi's type in
  // GFD's spelling: NVML's name ("NVIDIA A10"), which older HAMi prefixed with "NVIDIA-".
  if (auto product = node.labels.find(kGfdProductLabel); product != node.labels.end()) {
    node.gpu_model = product->second;
  } else {
    std::string type = first.type;
    if (type.starts_with("NVIDIA-NVIDIA")) type.erase(0, 7);
    std::replace(type.begin(), type.end(), ' ', '-');
    node.gpu_model = type;
  }
  return true;
}

// The GPU side (docs/semantics.md §1.1-1.2), from the labels and status.capacity as ACK's plugin
// reads them.
void ReadGpuSide(ObjectReader& r, const std::vector<ResourceEntry>& capacity,
                 const std::optional<Field>& labels, NodeSpec& node) {
  auto label = [&](std::string_view key) -> std::string {
    auto it = node.labels.find(std::string(key));
    return it == node.labels.end() ? std::string() : it->second;
  };
  auto cap = [&](std::string_view resource) -> const ResourceEntry* {
    for (const ResourceEntry& e : capacity) {
      if (e.name == resource) return &e;
    }
    return nullptr;
  };
  auto cap_value = [&](std::string_view resource) -> int64_t {
    const ResourceEntry* e = cap(resource);
    return e == nullptr ? 0 : e->value;
  };
  node.gpu_schedule = label(kGpuScheduleLabel);
  if (node.gpu_schedule.empty()) {
    // Pre-node-pool labels, as ACK's migration maps them.
    if (label("cgpu") == "true") {
      node.gpu_schedule = "cgpu";
    } else if (label("gpushare") == "true") {
      node.gpu_schedule = "share";
    } else {
      node.gpu_schedule = "default";
    }
  }
  if (auto mig = DevicePluginMig(node.labels, node.capacity)) {
    return ReadMigSide(r, *mig, capacity, labels, node);
  }
  const int64_t share_cards = cap_value(kGpuCountResource);
  const ResourceEntry* cards_entry = cap(kGpuCountResource);
  // ACK's topology-aware aliyun.com/gpu is refused before (gpu_sharing_modes.h).
  if (share_cards == 0) cards_entry = cap(kNvidiaGpuResource);
  // Time-slicing or MPS replicas: the capacity counts replicas, the labels the cards
  // (gpu_sharing_modes.h); GFD's product then carries -SHARED, which is no GPU model.
  const std::optional<ModelledReplicas> replicas =
      share_cards == 0 ? DevicePluginReplicas(node.labels, node.capacity) : std::nullopt;
  const int64_t cards = replicas                 ? replicas->cards
                        : cards_entry == nullptr ? 0
                                                 : cards_entry->value;
  if (cards > kMaxCardsPerNode) {
    r.Fail(cards_entry->field,
           Cat({std::to_string(cards), " GPUs on one node is more than knobsim models (",
                std::to_string(kMaxCardsPerNode), ")"}));
  }
  if (replicas) {
    node.device_sharing = replicas->sharing;
    node.gpu_cards = replicas->cards;
    std::string product = label(kGfdProductLabel);
    if (EndsWith(product, "-SHARED")) product.resize(product.size() - 7);
    node.gpu_model = label(kGpuModelLabel).empty() ? product : label(kGpuModelLabel);
    return;
  }
  node.gpu_cards = static_cast<int>(cards);
  if (share_cards > 0) {
    node.card_mem_units = static_cast<int>(cap_value(kGpuMemResource) / share_cards);
    node.card_core_percent = static_cast<int>(cap_value(kGpuCoreResource) / share_cards);
  } else if (const ResourceEntry* mem = cap(kGpuMemResource); mem != nullptr && mem->value > 0) {
    r.Warn(mem->field,
           "aliyun.com/gpu-mem without aliyun.com/gpu-count: ACK sees no card to share here");
  }
  node.gpu_model = label(kGpuModelLabel);
  if (node.gpu_model.empty()) node.gpu_model = label(kGfdProductLabel);
  node.placement = label(kGpuPlacementLabel);
  if (auto p = NormalizePlacement(node.placement)) node.placement = *p;
  if (labels) {
    if (auto max_pod = r.Get(*labels, kGpuMaxPodLabel)) {
      node.max_pods_per_card = static_cast<int>(r.Int(*max_pod, 0, 1'000'000));
    }
  }
}

// A sharing mode knobsim does not model stops the read at the field that shows it
// (gpu_sharing_modes.h). Annotation keys are taken before the secret filter, values never.
void RefuseUnmodelledSharing(ObjectReader& r, const ObjectMeta& meta,
                             const std::vector<ResourceEntry>& capacity, const NodeSpec& node) {
  std::vector<std::string> annotation_keys;
  if (meta.annotations) {
    for (const auto& [key, value] : r.Entries(*meta.annotations, /*reveal=*/false))
      annotation_keys.push_back(key);
  }
  const std::optional<UnmodelledSharing> found =
      UnmodelledNodeSharing(node.labels, annotation_keys, node.capacity);
  if (!found) return;
  std::optional<Field> field;
  switch (found->evidence) {
    case SharingEvidence::kLabel:
      if (meta.labels) field = r.Get(*meta.labels, found->key);
      break;
    case SharingEvidence::kAnnotation:
      if (meta.annotations) field = r.Get(*meta.annotations, found->key);
      break;
    case SharingEvidence::kCapacity:
    case SharingEvidence::kPodResource:
      for (const ResourceEntry& e : capacity) {
        if (e.name == found->key) field = e.field;
      }
      break;
  }
  r.Fail(field.value_or(meta.name_field),
         UnmodelledSharingMessage(*found, Cat({"node ", node.name})),
         std::string(kUnmodelledSharingHint));
}

}  // namespace

NodeSpec ReadNode(ObjectReader& r, const Field& object) {
  NodeSpec node;
  const ObjectMeta meta = ReadObjectMeta(r, object, "Node", node);
  const std::optional<Field>& labels = meta.labels;

  if (auto spec = r.Get(object, "spec")) {
    r.ExpectMap(*spec);
    if (auto taints = r.Get(*spec, "taints")) {
      for (const Field& t : r.Items(*taints)) {
        r.ExpectMap(t);
        Taint taint;
        const Field key = r.Require(t, "key");
        taint.key = r.String(key);
        if (taint.key.empty()) r.Fail(key, "empty taint key");
        if (auto value = r.Get(t, "value")) taint.value = r.String(*value);
        taint.effect = r.Enum(r.Require(t, "effect"),
                              {"NoSchedule", "PreferNoSchedule", "NoExecute"}, "a taint effect");
        node.taints.push_back(std::move(taint));
      }
    }
    if (auto unschedulable = r.Get(*spec, "unschedulable"))
      node.unschedulable = r.Bool(*unschedulable);
  }

  std::vector<ResourceEntry> capacity;
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    capacity = Resources(r, r.Get(*status, "capacity"));
    for (const ResourceEntry& e : capacity) node.capacity[e.name] = e.value;
    const std::optional<Field> allocatable = r.Get(*status, "allocatable");
    for (const ResourceEntry& e : Resources(r, allocatable)) node.allocatable[e.name] = e.value;
    // The kubelet always reports allocatable; a hand-written node without it offers capacity.
    if (!allocatable) node.allocatable = node.capacity;
    if (auto images = r.Get(*status, "images")) {
      for (const Field& i : r.Items(*images)) {
        r.ExpectMap(i);
        ContainerImage image;
        image.names = r.StringList(r.Get(i, "names"));
        if (auto size = r.Get(i, "sizeBytes")) {
          image.size_bytes = r.Int(*size, 0, std::numeric_limits<int64_t>::max());
        }
        node.images.push_back(std::move(image));
      }
    }
    node.ready_status = ReadyStatus(r, *status);
    if (auto info = r.Get(*status, "nodeInfo")) {
      r.ExpectMap(*info);
      if (auto version = r.Get(*info, "kubeletVersion")) node.kubelet_version = r.String(*version);
    }
  }

  RefuseUnmodelledSharing(r, meta, capacity, node);
  if (!ReadHamiSide(r, meta, node)) ReadGpuSide(r, capacity, labels, node);
  return node;
}

}  // namespace knobsim::kube
