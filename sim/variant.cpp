#include "sim/variant.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "sim/scenario_objects.h"

namespace knobsim {
namespace {

// The value a per-name knob map gives `name`: its own entry wins over the "*" entry, so a
// variant can say "spread everywhere, but binpack on gpu-a10". `star_applies` is false for
// entities a "*" should leave alone (below).
template <class V>
const V* Lookup(const std::map<std::string, V>& knob, const std::string& name,
                bool star_applies = true) {
  if (auto it = knob.find(name); it != knob.end()) return &it->second;
  if (!star_applies) return nullptr;
  if (auto it = knob.find("*"); it != knob.end()) return &it->second;
  return nullptr;
}

bool HasCgpuModule(const NodePool& pool) {
  return !pool.gpu_type.empty() &&
         (pool.schedule == GpuSchedule::kCgpu || pool.schedule == GpuSchedule::kCoreMem);
}

// The `sharing` knob on one pool. The ACK labels that mean nothing without ACK's sharing go
// with it; cGPU is a working module (hard isolation), as a fresh ACK cGPU pool is.
void SetPoolSharing(NodePool& pool, const PoolSharingKnob& knob) {
  pool.device_sharing = {};
  pool.labels.erase(kCgpuDisableIsolationLabel);
  switch (knob.mode) {
    case PoolSharingKnob::Mode::kCgpu:
      pool.schedule = GpuSchedule::kCgpu;
      pool.labels[kGpuScheduleLabel] = "cgpu";
      pool.cgpu_active = true;
      pool.isolation = MemoryIsolation::kHard;
      return;
    case PoolSharingKnob::Mode::kExclusive:
      pool.schedule = GpuSchedule::kDefault;
      pool.labels[kGpuScheduleLabel] = "default";
      break;
    case PoolSharingKnob::Mode::kReplicas:
      pool.schedule = GpuSchedule::kDefault;
      pool.labels.erase(kGpuScheduleLabel);
      pool.device_sharing = knob.replicas;
      break;
  }
  pool.labels.erase(kGpuPlacementLabel);
  pool.labels.erase(kGpuMaxPodLabel);
  pool.placement.clear();
  pool.max_pods_per_card = 0;
  pool.cgpu_active = false;
  pool.isolation = knob.mode == PoolSharingKnob::Mode::kReplicas &&
                           knob.replicas.strategy == DeviceSharingStrategy::kMps
                       ? MemoryIsolation::kHard
                       : MemoryIsolation::kSoft;
}

// Whether some GPU pool takes ACK gpu-mem requests, and whether some takes nvidia.com/gpu.
struct OfferedRequests {
  bool gpu_mem = false;
  bool whole = false;
  int gpu_mem_card_units = 0;  // the first ACK-sharing pool's card, in gpu-mem units
};

OfferedRequests Offered(const Scenario& s) {
  OfferedRequests o;
  for (const NodePool& pool : s.node_pools) {
    if (pool.gpu_type.empty()) continue;
    if (pool.schedule == GpuSchedule::kDefault) {
      o.whole = true;
    } else if (!o.gpu_mem) {
      o.gpu_mem = true;
      o.gpu_mem_card_units = CardMemoryUnits(s.catalog.Find(pool.gpu_type)->memory_mib);
    }
  }
  return o;
}

// After a `sharing` change, a GPU workload whose request no pool takes any more asks for what
// the pools now offer (docs/whatif.md "sharing"): gpu-mem on M cards becomes M nvidia.com/gpu
// (a replica, or a whole card, per card it shared), and N whole cards become N × the card's
// gpu-mem over aliyun.com/gpu-count N. Its memory demand (weights, activations, context) stays:
// what no longer fits shows as OOMs. Its pods are placed again. True when it changed.
bool TranslateRequest(Workload& w, const OfferedRequests& offered) {
  if (w.gpu_mem > 0 && !offered.gpu_mem && offered.whole) {
    w.whole_gpus = std::max(1, w.gpu_count);
    w.gpu_mem = 0;
    w.gpu_core = 0;
    w.gpu_count = 1;
    return true;
  }
  if (w.whole_gpus > 0 && !offered.whole && offered.gpu_mem) {
    w.gpu_count = w.whole_gpus;
    w.gpu_mem = w.whole_gpus * offered.gpu_mem_card_units;
    w.whole_gpus = 0;
    return true;
  }
  return false;
}

// Hard isolation is what a working cGPU module enforces: turning it on means the module is
// (fixed and) active, so cgpu_active becomes true and a cgpu.disable.isolation label goes.
// Pools without a module (share, default, CPU-only) cannot be hard; the reader rejects a
// variant naming one, and "*" passes them by. Soft keeps cgpu_active as it was: on an active
// module it is the buggy-module case (the cluster POLICY still shares compute), on a pool
// without one it is what the pool already had.
void SetIsolation(NodePool& pool, MemoryIsolation isolation) {
  if (isolation == MemoryIsolation::kHard) {
    if (!HasCgpuModule(pool)) return;
    pool.cgpu_active = true;
    pool.labels.erase(kCgpuDisableIsolationLabel);
  }
  pool.isolation = isolation;
}

// Per-pod counts follow their pod (PodCounts::replica) when a variant changes the current pods:
// a pod kept serves its share at its new index; a rollout (every pod recreated) keeps each
// ordinal, its new pod serving the old one's share; pods moved off replaced nodes are recreated
// after the ones kept, in their order. An ordinal beyond `replicas` has no pod: its requests go
// to the Service.
void FollowPods(const std::vector<CurrentPod>& before, const std::vector<CurrentPod>& kept,
                IntervalCounts& counts) {
  std::vector<int> ordinal(before.size(), -1);
  int moved = static_cast<int>(kept.size());
  for (size_t i = 0, k = 0; i < before.size(); ++i) {
    if (k < kept.size() && kept[k].name == before[i].name) {
      ordinal[i] = static_cast<int>(k++);
    } else {
      ordinal[i] = moved++;
    }
  }
  for (PodCounts& pod : counts.per_pod)
    if (pod.replica >= 0 && pod.replica < static_cast<int>(ordinal.size()))
      pod.replica = ordinal[pod.replica];
}

}  // namespace

Scenario ApplyVariant(const Scenario& base, const Variant& variant) {
  Scenario s = base;
  if (variant.policy) s.cluster.policy = *variant.policy;
  if (variant.max_inst) s.cluster.max_inst = *variant.max_inst;
  if (variant.switch_overhead) s.cluster.switch_overhead = *variant.switch_overhead;
  // `on` is the scenario as written (the reader refuses it without a model): only `off` changes.
  if (variant.interference == false) s.cluster.interference = nullptr;

  std::set<std::string> replaced_nodes;  // nodes whose pods a placement change moves
  for (NodePool& pool : s.node_pools) {
    // Placement picks a card inside a node; a "*" has nothing to say to a CPU-only pool.
    const bool has_cards = !pool.gpu_type.empty();
    if (const auto* placement = Lookup(variant.placement, pool.name, has_cards)) {
      if (*placement != pool.placement) {
        for (int i = 0; i < pool.count; ++i) replaced_nodes.insert(PoolNodeName(pool, i));
      }
      pool.placement = *placement;
      pool.labels[kGpuPlacementLabel] = *placement;
    }
    if (const auto* sharing = Lookup(variant.sharing, pool.name, has_cards)) {
      SetPoolSharing(pool, *sharing);
      for (int i = 0; i < pool.count; ++i) replaced_nodes.insert(PoolNodeName(pool, i));
    }
    if (const auto* isolation = Lookup(variant.memory_isolation, pool.name)) {
      SetIsolation(pool, *isolation);
    }
    if (const auto* count = Lookup(variant.node_count, pool.name)) pool.count = *count;
    if (pool.autoscaling) {
      // The reader checked that the bounds stay ordered; the size at t = 0 follows them.
      if (const auto* min = Lookup(variant.pool_min, pool.name)) pool.autoscaling->min = *min;
      if (const auto* max = Lookup(variant.pool_max, pool.name)) pool.autoscaling->max = *max;
      pool.count = std::clamp(pool.count, pool.autoscaling->min, pool.autoscaling->max);
    }
  }

  const OfferedRequests offered = Offered(s);
  for (Workload& w : s.workloads) {
    if (!variant.sharing.empty() && TranslateRequest(w, offered)) w.pods.clear();
    // A "*" quota or core change is about GPU-sharing workloads; it must not hand GPU memory
    // to a CPU-only service or to one that owns whole cards.
    const bool shares_gpu = w.gpu_mem > 0;
    const int gpu_mem_before = w.gpu_mem;
    const int gpu_core_before = w.gpu_core;
    const auto* spread = Lookup(variant.topology_spread, w.name);
    if (spread != nullptr) w.topology_spread = *spread;
    if (const auto* units = Lookup(variant.gpu_mem, w.name, shares_gpu)) w.gpu_mem = *units;
    if (const auto* core = Lookup(variant.gpu_core, w.name, shares_gpu)) w.gpu_core = *core;
    if (const auto* replicas = Lookup(variant.replicas, w.name)) w.replicas = *replicas;
    if (const auto* priority = Lookup(variant.priority, w.name)) w.priority = *priority;
    // Current pods (an imported cluster) stay where they run unless the change is one that
    // recreates them: a new quota, core share or spread rolls the workload out again, and the
    // scheduler places the new pods; a placement change on a pool re-places its pods (the
    // question it asks is where they would go). Fewer replicas drop the last ones.
    if (w.gpu_mem != gpu_mem_before || w.gpu_core != gpu_core_before || spread != nullptr) {
      w.pods.clear();
    }
    const size_t listed = w.pods.size();
    const std::vector<CurrentPod> before =
        w.traffic.counts.per_pod.empty() ? std::vector<CurrentPod>{} : w.pods;
    std::erase_if(w.pods, [&](const CurrentPod& p) { return replaced_nodes.count(p.node) > 0; });
    if (w.pods.size() < listed && !before.empty()) FollowPods(before, w.pods, w.traffic.counts);
    if (static_cast<int>(w.pods.size()) > w.replicas) w.pods.resize(w.replicas);
    if (const auto* scale = Lookup(variant.traffic_scale, w.name)) w.traffic.scale *= *scale;
    if (const bool* keep = Lookup(variant.cron_hpa, w.name); keep != nullptr && !*keep)
      w.cron_hpa.reset();
    if (w.hpa) {
      if (const auto* min = Lookup(variant.hpa_min_replicas, w.name)) w.hpa->min_replicas = *min;
      if (const auto* max = Lookup(variant.hpa_max_replicas, w.name)) w.hpa->max_replicas = *max;
      if (const auto* target = Lookup(variant.hpa_target, w.name))
        w.hpa->metrics.front().target_milli = std::llround(*target * 1000);
      // The HPA starts from `replicas`, which its new bounds may move (as the controller's
      // first sync would at once).
      w.replicas = std::clamp(w.replicas, w.hpa->min_replicas, w.hpa->max_replicas);
      if (static_cast<int>(w.pods.size()) > w.replicas) w.pods.resize(w.replicas);
    }
  }
  return s;
}

// Replication r > 0 takes the r-th output of a splitmix64 generator started at `seed`: well
// mixed, so neighbouring seeds and replications do not give correlated streams.
uint64_t ReplicationSeed(uint64_t seed, int replication) {
  if (replication == 0) return seed;
  uint64_t z = seed + static_cast<uint64_t>(replication) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

PoolSharingText ParsePoolSharing(std::string_view text) {
  PoolSharingText out;
  const std::string_view kForms = "cgpu, exclusive, timeslicing:N (N 2..256) or mps:N (N 2..48)";
  if (text == "cgpu" || text == "exclusive") {
    PoolSharingKnob knob;
    knob.mode = text == "cgpu" ? PoolSharingKnob::Mode::kCgpu : PoolSharingKnob::Mode::kExclusive;
    out.knob = knob;
    return out;
  }
  const size_t colon = text.find(':');
  const std::string_view mode = text.substr(0, colon);
  if (mode == "hami" || mode == "mig") {
    out.error = std::string(mode == "hami" ? "HAMi" : "MIG") + " sharing is not modelled yet";
    out.hint = std::string("knobsim models ") + std::string(kForms);
    return out;
  }
  DeviceSharing d;
  if (mode == "timeslicing" || mode == "time-slicing") {
    d.strategy = DeviceSharingStrategy::kTimeSlicing;
  } else if (mode == "mps") {
    d.strategy = DeviceSharingStrategy::kMps;
    d.fail_requests_greater_than_one = true;  // the plugin's MPS default
  } else {
    out.error = "unknown sharing " + std::string(text);
    out.hint = std::string("one of ") + std::string(kForms);
    return out;
  }
  const bool mps = d.strategy == DeviceSharingStrategy::kMps;
  const std::string_view count = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  int n = 0;
  bool ok = !count.empty() && count.size() <= 3;
  for (char c : count) ok = ok && c >= '0' && c <= '9';
  if (ok) n = std::stoi(std::string(count));
  if (!ok || n < 2 || n > (mps ? 48 : 256)) {
    out.error = "sharing " + std::string(text) + " needs a replica count";
    out.hint = mps ? "mps:N with N in 2..48 (MPS clients per card)" : "timeslicing:N, N in 2..256";
    return out;
  }
  d.replicas = n;
  PoolSharingKnob knob;
  knob.mode = PoolSharingKnob::Mode::kReplicas;
  knob.replicas = d;
  out.knob = knob;
  return out;
}

}  // namespace knobsim
