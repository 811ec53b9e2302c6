// `node_pools:`: a pool's nodes, cards and taints, and what the reader derives from its labels
// (docs/semantics.md §1.2; scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include "sim/mig_layout.h"
#include "sim/quantity.h"
#include "sim/scenario_objects.h"
#include "sim/text.h"

namespace knobsim::scenario_internal {

Taint Reader::ReadTaint(const Field& f) const {
  Section s(*this, f, {"key", "value", "effect"});
  Taint t;
  t.key = NonEmptyString(s.Require("key"));
  if (auto v = s.Get("value")) t.value = String(*v);
  t.effect = std::string(Enum<std::string_view>(s.Require("effect"), "taint effect",
                                                {{"NoSchedule", "NoSchedule"},
                                                 {"PreferNoSchedule", "PreferNoSchedule"},
                                                 {"NoExecute", "NoExecute"}}));
  return t;
}

NodePool Reader::ReadNodePool(const Field& f, const GpuCatalog& catalog) const {
  Section s(*this, f,
            {"name",
             "count",
             "nodes",
             "gpu",
             "gpus_per_node",
             "cpu",
             "memory",
             "pods",
             "zones",
             "instance_type",
             "labels",
             "taints",
             "memory_isolation",
             "cgpu_version",
             "spot",
             "autoscaling",
             "device_sharing",
             "mig",
             "hami",
             "dra"});
  NodePool p;
  p.name = DnsName(s.Require("name"));
  if (auto v = s.Get("nodes")) {
    p.nodes = ReadPoolNodes(*v);
    p.count = static_cast<int>(p.nodes.size());
  }
  if (auto v = s.Get("count")) {
    p.count = Int(*v, 0);
    if (!p.nodes.empty() && p.count != static_cast<int>(p.nodes.size())) {
      Fail(*v,
           "count " + std::to_string(p.count) + " disagrees with the " +
               std::to_string(p.nodes.size()) + " nodes listed",
           "leave count out when nodes are listed");
    }
  }
  ReadPoolGpu(s, catalog, p);
  if (auto v = s.Get("cpu")) p.cpu_milli = Unit(*v, &ParseCpuMilli, "a quantity");
  if (auto v = s.Get("memory")) p.memory_mib = Unit(*v, &ParseMemoryMib, "a quantity");
  if (auto v = s.Get("pods")) p.pods = Int(*v, 0);
  if (auto v = s.Get("zones")) p.zones = StringList(*v);
  if (auto v = s.Get("instance_type")) p.instance_type = String(*v);
  if (auto v = s.Get("taints")) {
    for (const Field& item : Items(*v)) p.taints.push_back(ReadTaint(item));
  }
  if (auto v = s.Get("cgpu_version")) p.cgpu_version = String(*v);
  if (auto v = s.Get("spot")) ReadPoolSpot(*v, s.Has("autoscaling"), p.spot);
  if (auto v = s.Get("autoscaling")) p.autoscaling = ReadPoolAutoscaling(*v, p, s.Get("count"));
  ReadPoolSharing(s, p);
  return p;
}

// `spot:` (docs/autoscaling.md "Spot pools"): reclaims per node-hour (a Poisson process per
// node; above one a minute the pool would mostly be down), the interruption notice and what the
// cluster does on it, the protection period, and for autoscaled pools the stock-outs. What the
// keys mean depends on whether the pool autoscales: a fixed pool's node comes back after
// `replace_after`; an autoscaled pool's does not, and only it creates new instances that a
// stock-out can refuse.
void Reader::ReadPoolSpot(const Field& f, bool autoscaled, SpotInterruptions& spot) const {
  Section s(*this, f,
            {"per_node_hour", "replace_after", "notice", "on_notice", "protection", "stockout",
             "compensate_with_on_demand"});
  spot.per_node_hour = Number(s.Require("per_node_hour"), 0, 60, false, false,
                              "reclaims per node per hour, e.g. 0.05; 0 = on-demand");
  if (auto v = s.Get("replace_after")) spot.replace_after = Duration(*v);
  if (auto v = s.Get("notice")) spot.notice = Duration(*v);
  if (auto v = s.Get("on_notice"))
    spot.drain_on_notice = Enum<bool>(*v, "on_notice", {{"drain", true}, {"none", false}});
  if (auto v = s.Get("protection")) spot.protection = Duration(*v);
  if (auto v = s.Get("stockout"))
    spot.stockout = Number(*v, 0, 1, false, false, "the chance a new spot instance is refused");
  if (auto v = s.Get("compensate_with_on_demand")) spot.compensate_with_on_demand = Bool(*v);
  if (autoscaled) {
    if (auto v = s.Get("replace_after"))
      Fail(*v, "an autoscaled pool's reclaimed node is not replaced after a delay",
           "leave replace_after out: the cluster-autoscaler adds nodes as Pending pods need them");
    return;
  }
  for (const char* key : {"stockout", "compensate_with_on_demand"}) {
    if (auto v = s.Get(key))
      Fail(*v, std::string(key) + " applies to the new instances of an autoscaled pool",
           "add autoscaling: {min, max} to the pool, or leave " + std::string(key) + " out");
  }
}

// `nodes:`: the pool's nodes by name, or as {name, zone, labels}.
std::vector<PoolNode> Reader::ReadPoolNodes(const Field& f) const {
  std::vector<PoolNode> nodes;
  for (const Field& item : Items(f)) {
    PoolNode n;
    if (item.node.IsMap()) {
      Section ns(*this, item, {"name", "zone", "labels"});
      n.name = NonEmptyString(ns.Require("name"));
      if (auto z = ns.Get("zone")) n.zone = String(*z);
      if (auto l = ns.Get("labels")) n.labels = StringMap(*l);
    } else {
      n.name = NonEmptyString(item);
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

// `gpu:` (a type of the catalog) and `gpus_per_node:`, which a pool without cards may only zero.
void Reader::ReadPoolGpu(const Section& s, const GpuCatalog& catalog, NodePool& p) const {
  if (auto v = s.Get("gpu")) {
    const std::string name = NonEmptyString(*v);
    const GpuType* type = catalog.Find(name);
    if (type == nullptr) {
      std::vector<std::string> names;
      for (const GpuType& t : catalog.types()) names.push_back(t.name);
      Fail(*v, "unknown GPU type " + Quote(name),
           "known types: " + Join(names) + "; add others under gpu_types");
    }
    p.gpu_type = type->name;
    p.gpus_per_node = 1;
  }
  if (auto v = s.Get("gpus_per_node")) {
    if (p.gpu_type.empty()) {
      const int n = Int(*v, 0);
      if (n > 0) Fail(*v, "a pool without `gpu` has no cards", "set `gpu` to a catalog type");
    } else {
      p.gpus_per_node = Int(*v, 1);
    }
  }
}

// `labels:` and `memory_isolation:`, and the sharing derived from the labels (docs/semantics.md
// §1.2). knobsim's default for a GPU pool without ack.node.gpu.schedule is cgpu (ACK's is
// exclusive cards): scenarios are about sharing. The label is then written, so node selectors see
// what the simulator assumes.
void Reader::ReadPoolSharing(const Section& s, NodePool& p) const {
  const std::optional<Field> labels_field = s.Get("labels");
  if (labels_field) p.labels = StringMap(*labels_field);
  auto label_field = [&](std::string_view key) { return EntryOf(*labels_field, key); };
  if (auto v = s.Get("dra")) {
    for (const char* other : {"device_sharing", "mig", "hami"}) {
      if (auto d = s.Get(other))
        Fail(*d, std::string(other) + " and dra are two ways to hand out the cards",
             "keep one of them");
    }
    ReadDraPool(*v, p);
    if (auto iso = s.Get("memory_isolation"))
      Fail(*iso, "with dra the memory isolation follows each claim's sharing",
           "drop memory_isolation: time-slicing pools memory (soft), an MPS pinned-memory limit "
           "or HAMi-core caps each pod (hard), a MIG instance is its own memory");
    return;
  }
  if (auto v = s.Get("hami")) {
    for (const char* other : {"device_sharing", "mig"}) {
      if (auto d = s.Get(other))
        Fail(*d, std::string(other) + " and hami are two ways to share the cards",
             "keep one of them");
    }
    ReadHamiPool(*v, p);
    if (auto iso = s.Get("memory_isolation"))
      Fail(*iso, "HAMi-core limits each pod's memory (hard isolation)", "drop memory_isolation");
    return;
  }
  if (auto v = s.Get("mig")) {
    if (auto d = s.Get("device_sharing"))
      Fail(*d, "device_sharing of MIG instances is not modelled",
           "drop device_sharing: each MIG instance is then its own device");
    ReadMig(*v, p);
    if (auto iso = s.Get("memory_isolation"))
      Fail(*iso, "a MIG instance has its own memory (hard isolation by the hardware)",
           "drop memory_isolation");
    return;
  }
  if (auto v = s.Get("device_sharing")) {
    ReadDeviceSharing(*v, p);
    if (auto iso = s.Get("memory_isolation")) {
      Fail(
          *iso, "with device_sharing the memory isolation follows the strategy",
          "drop memory_isolation: time-slicing pools memory (soft), MPS limits each client (hard)");
    }
    return;
  }
  if (auto it = p.labels.find(std::string(kGpuScheduleLabel)); it != p.labels.end()) {
    p.schedule = Enum<GpuSchedule>(label_field(kGpuScheduleLabel), "ack.node.gpu.schedule value",
                                   {{"default", GpuSchedule::kDefault},
                                    {"share", GpuSchedule::kShare},
                                    {"cgpu", GpuSchedule::kCgpu},
                                    {"core_mem", GpuSchedule::kCoreMem}});
  } else if (!p.gpu_type.empty()) {
    p.schedule = GpuSchedule::kCgpu;
    p.labels[std::string(kGpuScheduleLabel)] = "cgpu";
  } else {
    p.schedule = GpuSchedule::kDefault;
  }
  if (auto it = p.labels.find(std::string(kGpuPlacementLabel)); it != p.labels.end()) {
    p.placement = Placement(label_field(kGpuPlacementLabel));
    it->second = p.placement;
  }
  if (auto it = p.labels.find(std::string(kGpuMaxPodLabel)); it != p.labels.end()) {
    p.max_pods_per_card = Int(label_field(kGpuMaxPodLabel), 1);
  }
  const bool module = !p.gpu_type.empty() &&
                      (p.schedule == GpuSchedule::kCgpu || p.schedule == GpuSchedule::kCoreMem);
  auto disable = p.labels.find(std::string(kCgpuDisableIsolationLabel));
  const bool disabled = disable != p.labels.end() && disable->second == "true";
  p.cgpu_active = module && !disabled;
  p.isolation = p.cgpu_active ? MemoryIsolation::kHard : MemoryIsolation::kSoft;
  if (auto v = s.Get("memory_isolation")) {
    // soft on an active module is the buggy-module case (docs/design.md §1 item 1): memory is not
    // isolated but the cluster POLICY still shares compute. hard needs a module that is on.
    p.isolation =
        Enum<MemoryIsolation>(*v, "memory isolation",
                              {{"hard", MemoryIsolation::kHard}, {"soft", MemoryIsolation::kSoft}});
    if (p.isolation == MemoryIsolation::kHard && !p.cgpu_active) {
      if (p.gpu_type.empty()) Fail(*v, "a pool without `gpu` has no GPU memory to isolate");
      if (disabled) {
        Fail(*v, "hard isolation contradicts the label cgpu.disable.isolation=true",
             "remove the label or make memory_isolation soft");
      }
      Fail(*v,
           "hard isolation needs cGPU, but ack.node.gpu.schedule is " +
               p.labels[std::string(kGpuScheduleLabel)],
           "use ack.node.gpu.schedule cgpu or core_mem, or make memory_isolation soft");
    }
  }
}

// `device_sharing:` (docs/scenario.md "Device-plugin sharing"): the NVIDIA device plugin's
// time-slicing or MPS replicas of whole cards. Such a pool is no ACK sharing pool: its pods ask
// nvidia.com/gpu, cGPU does not run, time-sliced cards pool their memory (soft) and MPS clients
// each have a pinned memory limit of the card's memory / replicas (hard); docs/semantics.md §2.6.
void Reader::ReadDeviceSharing(const Field& f, NodePool& p) const {
  Section d(*this, f,
            {"strategy", "replicas", "fail_requests_greater_than_one", "allocation",
             "rename_by_default", "active_thread_percentage"});
  if (p.gpu_type.empty()) Fail(f, "a pool without `gpu` has no cards to share", "set `gpu`");
  DeviceSharing& sharing = p.device_sharing;
  sharing.strategy =
      Enum<DeviceSharingStrategy>(d.Require("strategy"), "device-plugin sharing strategy",
                                  {{"time-slicing", DeviceSharingStrategy::kTimeSlicing},
                                   {"mps", DeviceSharingStrategy::kMps}});
  const bool mps = sharing.strategy == DeviceSharingStrategy::kMps;
  // The plugin refuses fewer than 2 replicas; CUDA MPS serves at most 48 clients per device
  // (Volta and later); 256 time slices a card is knobsim's bound.
  sharing.replicas = Int(d.Require("replicas"), 2, mps ? 48 : 256,
                         mps ? "CUDA MPS serves at most 48 clients per card"
                             : "the device plugin needs 2 or more; 256 is knobsim's bound");
  sharing.fail_requests_greater_than_one = mps;  // the plugin's defaults (api/config/v1)
  if (auto v = d.Get("fail_requests_greater_than_one")) {
    sharing.fail_requests_greater_than_one = Bool(*v);
  }
  if (auto v = d.Get("allocation")) {
    sharing.allocation = Enum<ReplicaAllocation>(
        *v, "replica allocation policy",
        {{"distributed", ReplicaAllocation::kDistributed}, {"packed", ReplicaAllocation::kPacked}});
  }
  if (auto v = d.Get("rename_by_default")) sharing.renamed = Bool(*v);
  if (auto v = d.Get("active_thread_percentage")) {
    if (!mps) Fail(*v, "an active thread percentage is MPS's", "leave it out for time-slicing");
    sharing.active_thread_percentage =
        Int(*v, 1, 100, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE is a percentage of the card's threads");
  }
  RefuseAckSharingLabels(f, p, "device_sharing");
  UseDevicePluginCards(p);
}

// A pool whose cards the NVIDIA device plugin advertises (device_sharing, mig) runs no ACK GPU
// sharing: ack.node.gpu.schedule may only say default, and ACK's card labels mean nothing.
void Reader::RefuseAckSharingLabels(const Field& f, const NodePool& p, std::string_view key) const {
  if (auto it = p.labels.find(std::string(kGpuScheduleLabel));
      it != p.labels.end() && it->second != "default") {
    Fail(f,
         std::string(key) +
             " replaces ACK's GPU sharing, but the pool's ack.node.gpu.schedule is " + it->second,
         "drop the label (or make it default)");
  }
  for (const char* label : {kGpuPlacementLabel, kGpuMaxPodLabel, kCgpuDisableIsolationLabel}) {
    if (p.labels.count(label)) {
      Fail(f,
           std::string("the label ") + label + " is ACK's and has no meaning with " +
               std::string(key),
           "drop the label");
    }
  }
}

// `mig:` (docs/scenario.md "MIG"): every card cut into the same MIG instances, which the device
// plugin advertises by its strategy. An instance is an exclusive smaller card with its own memory
// (models/mig_profiles.h): no cGPU, hard isolation by the hardware.
void Reader::ReadMig(const Field& f, NodePool& p) const {
  Section m(*this, f, {"strategy", "layout"});
  if (p.gpu_type.empty()) Fail(f, "a pool without `gpu` has no cards to cut", "set `gpu`");
  const Field layout_field = m.Require("layout");
  std::string text;
  if (layout_field.node.IsSequence()) {
    for (const Field& item : Items(layout_field)) text += (text.empty() ? "" : "+") + String(item);
  } else {
    text = String(layout_field);
  }
  MigLayoutText parsed = ParseMigLayout(text);
  if (!parsed.layout) Fail(layout_field, parsed.error, parsed.hint);
  p.mig = *parsed.layout;
  if (auto v = m.Get("strategy")) {
    p.mig.strategy = Enum<MigStrategy>(
        *v, "MIG strategy", {{"single", MigStrategy::kSingle}, {"mixed", MigStrategy::kMixed}});
  }
  if (auto problem = CheckMigLayout(p.gpu_type, p.mig))
    Fail(layout_field, problem->error, problem->hint);
  RefuseAckSharingLabels(f, p, "mig");
  UseDevicePluginCards(p);
}

// `hami:` (docs/scenario.md "HAMi"): HAMi's device plugin splits each card into vGPU slots
// (its deviceSplitCount, deviceMemoryScaling, deviceCoreScaling, gpuCorePolicy; the chart's
// defaults 10, 1, 1, default). No cGPU; HAMi-core limits each pod's memory (hard).
void Reader::ReadHamiPool(const Field& f, NodePool& p) const {
  Section h(*this, f, {"split_count", "memory_scaling", "core_scaling", "core_policy"});
  if (p.gpu_type.empty()) Fail(f, "a pool without `gpu` has no cards to split", "set `gpu`");
  HamiPool& hami = p.hami;
  hami.split_count = 10;
  if (auto v = h.Get("split_count"))
    hami.split_count = Int(*v, 1, 256, "vGPU slots per card; HAMi's default is 10");
  if (auto v = h.Get("memory_scaling")) {
    // Above 1 HAMi registers more memory than the card has and sets CUDA_OVERSUBSCRIBE, which
    // HAMi-core does not implement (no host-memory swap): what happens then is not modelled.
    hami.memory_scaling =
        Number(*v, 0, 1, true, false,
               "a factor in (0, 1]; memory oversubscription (above 1) is not modelled");
  }
  if (auto v = h.Get("core_scaling"))
    hami.core_scaling = Number(*v, 0, 1, true, false,
                               "a factor in (0, 1]; compute oversubscription is not modelled");
  if (auto v = h.Get("core_policy")) {
    hami.core_policy = Enum<HamiCorePolicy>(*v, "HAMi gpuCorePolicy",
                                            {{"default", HamiCorePolicy::kDefault},
                                             {"force", HamiCorePolicy::kForce},
                                             {"disable", HamiCorePolicy::kDisable}});
  }
  RefuseAckSharingLabels(f, p, "hami");
  UseDevicePluginCards(p);
}

// `dra: true` or `dra: {driver, mig, dynamic_mig}` (docs/scenario.md "DRA"): a DRA driver
// publishes the pool's cards — the NVIDIA DRA driver whole GPUs of class gpu.nvidia.com, with
// `mig` the MIG instances of that layout (class mig.nvidia.com), with `dynamic_mig` each card
// whole and every MIG placement of it; HAMi's DRA driver each card as one device claims share by
// memory and cores. No cGPU, no device plugin resource.
void Reader::ReadDraPool(const Field& f, NodePool& p) const {
  if (p.gpu_type.empty()) Fail(f, "a pool without `gpu` has no cards to publish", "set `gpu`");
  p.dra.enabled = true;
  if (f.node.IsScalar()) {
    if (!Bool(f)) Fail(f, "dra: false is the default", "drop the key");
  } else {
    Section d(*this, f, {"driver", "mig", "dynamic_mig", "shared_memory"});
    if (auto v = d.Get("driver")) {
      p.dra.driver = Enum<DraDriver>(
          *v, "DRA driver", {{"nvidia", DraDriver::kNvidia}, {"hami", DraDriver::kHamiCore}});
    }
    if (auto v = d.Get("mig")) {
      if (p.dra.driver != DraDriver::kNvidia)
        Fail(*v, "HAMi's DRA driver publishes whole cards, not MIG instances",
             "drop mig, or use driver: nvidia");
      MigLayoutText parsed = ParseMigLayout(String(*v));
      if (!parsed.layout) Fail(*v, parsed.error, parsed.hint);
      // The NVIDIA DRA driver publishes whatever instances exist; the device plugin's strategy
      // means nothing here, but a layout of one profile reads as single: keep it mixed.
      p.mig = *parsed.layout;
      p.mig.strategy = MigStrategy::kMixed;
      if (auto problem = CheckMigLayout(p.gpu_type, p.mig)) Fail(*v, problem->error, problem->hint);
    }
    if (auto v = d.Get("shared_memory")) {
      if (p.dra.driver != DraDriver::kNvidia || p.mig.enabled())
        Fail(*v, "shared_memory shares the NVIDIA driver's whole GPUs",
             "drop mig or driver: hami (HAMi's driver shares by memory and cores itself)");
      Section m(*this, *v, {"default", "min", "step"});
      DraPool::SharedMemory shared;
      if (auto x = m.Get("default")) shared.default_mib = Unit(*x, &ParseMemoryMib, "a quantity");
      if (auto x = m.Get("min")) shared.min_mib = Unit(*x, &ParseMemoryMib, "a quantity");
      if (auto x = m.Get("step")) shared.step_mib = Unit(*x, &ParseMemoryMib, "a quantity");
      if (shared.min_mib < 1 || shared.step_mib < 1)
        Fail(*v, "min and step are at least 1Mi", "e.g. {min: 1Gi, step: 1Gi}");
      p.dra.shared_memory = shared;
    }
    if (auto v = d.Get("dynamic_mig")) {
      p.dra.dynamic_mig = Bool(*v);
      if (p.dra.dynamic_mig && p.dra.driver != DraDriver::kNvidia)
        Fail(*v, "DynamicMIG is the NVIDIA DRA driver's",
             "drop dynamic_mig, or use driver: nvidia");
      if (p.dra.dynamic_mig && p.mig.enabled())
        Fail(*v,
             "with dynamic_mig the driver creates MIG instances as claims ask; mig is a layout "
             "created ahead",
             "keep one of them");
      if (p.dra.dynamic_mig && MigProfilesOf(p.gpu_type).empty())
        Fail(*v, "knobsim has no MIG geometry for " + p.gpu_type,
             "use a MIG-capable card: A100-40G, A100-80G, H100, H200");
    }
  }
  RefuseAckSharingLabels(f, p, "dra");
  UseDevicePluginCards(p);
}

}  // namespace knobsim::scenario_internal
