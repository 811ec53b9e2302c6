#include "sim/variant.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "models/mig_profiles.h"
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
  pool.mig = {};
  pool.hami = {};
  pool.dra = {};
  pool.labels.erase(kCgpuDisableIsolationLabel);
  switch (knob.mode) {
    case PoolSharingKnob::Mode::kCgpu:
      pool.schedule = GpuSchedule::kCgpu;
      pool.labels[kGpuScheduleLabel] = "cgpu";
      pool.cgpu_active = true;
      pool.isolation = MemoryIsolation::kHard;
      return;
    case PoolSharingKnob::Mode::kExclusive:
      pool.labels[kGpuScheduleLabel] = "default";
      break;
    case PoolSharingKnob::Mode::kReplicas:
      pool.labels.erase(kGpuScheduleLabel);
      pool.device_sharing = knob.replicas;
      break;
    case PoolSharingKnob::Mode::kMig:
      pool.labels.erase(kGpuScheduleLabel);
      pool.mig = knob.mig;
      break;
    case PoolSharingKnob::Mode::kHami:
      pool.labels.erase(kGpuScheduleLabel);
      pool.hami = knob.hami;
      break;
    case PoolSharingKnob::Mode::kDra:
      pool.labels.erase(kGpuScheduleLabel);
      pool.dra = knob.dra;
      pool.dra.enabled = true;
      pool.mig = knob.mig;  // dra:mig:LAYOUT: the instances the NVIDIA DRA driver publishes
      break;
  }
  pool.labels.erase(kGpuPlacementLabel);
  pool.labels.erase(kGpuMaxPodLabel);
  pool.placement.clear();
  pool.max_pods_per_card = 0;
  UseDevicePluginCards(pool);
}

// What the GPU pools take: ACK gpu-mem requests, nvidia.com/gpu (whole cards, replicas, MIG
// instances under the single strategy), and the MIG instances of mixed-strategy pools.
struct OfferedRequests {
  bool gpu_mem = false;
  bool whole = false;
  bool hami = false;           // HAMi vGPUs (its webhook makes every nvidia.com/gpu pod a HAMi pod)
  bool shared = false;         // replicas renamed to nvidia.com/gpu.shared (renameByDefault)
  bool dra = false;            // some pool hands its cards to DRA claims
  bool dra_gpus = false;       // NVIDIA DRA driver whole GPUs
  bool dra_hami = false;       // HAMi DRA driver shares (consumable capacity)
  std::vector<std::pair<std::string, const GpuType*>> dra_mig;  // NVIDIA DRA MIG instances
  int gpu_mem_card_units = 0;  // the first ACK-sharing pool's card, in gpu-mem units
  std::vector<std::pair<std::string, const GpuType*>> mig;  // profile, instance type
};

OfferedRequests Offered(const Scenario& s) {
  OfferedRequests o;
  for (const NodePool& pool : s.node_pools) {
    if (pool.gpu_type.empty()) continue;
    if (pool.dra.enabled) {
      o.dra = true;  // claims alone: none of the requests below
      if (pool.dra.driver == DraDriver::kHamiCore) {
        o.dra_hami = true;
      } else if (pool.dra.dynamic_mig) {
        o.dra_gpus = true;  // each card whole, and every MIG profile of it
        for (const MigProfile& profile : MigProfilesOf(pool.gpu_type)) {
          const GpuType* type = s.catalog.Find(MigInstanceTypeName(pool.gpu_type, profile.name));
          if (type != nullptr) o.dra_mig.emplace_back(profile.name, type);
        }
      } else if (pool.mig.enabled()) {
        for (const std::string& profile : pool.mig.instances) {
          const GpuType* type = s.catalog.Find(MigInstanceTypeName(pool.gpu_type, profile));
          if (type != nullptr) o.dra_mig.emplace_back(profile, type);
        }
      } else {
        o.dra_gpus = true;
      }
    } else if (pool.mig.strategy == MigStrategy::kMixed) {
      for (const std::string& profile : pool.mig.instances) {
        const GpuType* type = s.catalog.Find(MigInstanceTypeName(pool.gpu_type, profile));
        if (type != nullptr) o.mig.emplace_back(profile, type);
      }
    } else if (pool.hami.enabled()) {
      o.hami = true;
    } else if (pool.device_sharing.renamed) {
      o.shared = true;
    } else if (pool.schedule == GpuSchedule::kDefault) {
      o.whole = true;
    } else if (!o.gpu_mem) {
      o.gpu_mem = true;
      o.gpu_mem_card_units = CardMemoryUnits(s.catalog.Find(pool.gpu_type)->memory_mib);
    }
  }
  return o;
}

// The offered MIG profile for a pod needing `need_mib` per device: the instance with the least
// memory that holds it (the slower on a tie); none holds it: the one with the most memory (the
// run then shows the OOMs). need_mib 0: the one with the most memory (a whole card's worth).
std::string FittingMigProfile(const OfferedRequests& offered, int64_t need_mib) {
  const std::pair<std::string, const GpuType*>* best = nullptr;
  const std::pair<std::string, const GpuType*>* largest = nullptr;
  for (const auto& m : offered.mig) {
    const GpuType& t = *m.second;
    if (largest == nullptr || t.memory_mib > largest->second->memory_mib ||
        (t.memory_mib == largest->second->memory_mib && t.speed > largest->second->speed))
      largest = &m;
    if (need_mib <= 0 || t.memory_mib < need_mib) continue;
    if (best == nullptr || t.memory_mib < best->second->memory_mib ||
        (t.memory_mib == best->second->memory_mib && t.speed < best->second->speed))
      best = &m;
  }
  return best != nullptr ? best->first : largest->first;
}

// The smallest offered profile with at least the compute slices and nominal memory of `had`
// (fewest slices, then least memory); empty when none is as large.
std::string GrownMigProfile(const OfferedRequests& offered, const MigProfileSize& had) {
  std::optional<MigProfileSize> best;
  std::string name;
  for (const auto& m : offered.mig) {
    const std::optional<MigProfileSize> size = ReadMigProfileName(m.first);
    if (!size || size->compute_slices < had.compute_slices || size->nominal_gib < had.nominal_gib)
      continue;
    if (!best || size->compute_slices < best->compute_slices ||
        (size->compute_slices == best->compute_slices && size->nominal_gib < best->nominal_gib)) {
      best = size;
      name = m.first;
    }
  }
  return name;
}

bool Offers(const OfferedRequests& offered, const std::string& profile) {
  return std::any_of(offered.mig.begin(), offered.mig.end(),
                     [&](const auto& m) { return m.first == profile; });
}

// What a workload's pod needs of one device's memory: its weights, activations at its
// concurrency and CUDA context (the catalog's when unset); 0 when it declares no demand.
int64_t DeviceMemoryNeed(const Workload& w, const OfferedRequests& offered) {
  const GpuMemoryDemand& m = w.memory;
  if (m.weights_mib == 0 && m.activation_mib == 0) return 0;
  const int64_t context =
      m.context_mib.value_or(offered.mig.empty() ? 0 : offered.mig.front().second->context_mib);
  const int cards = std::max(1, w.whole_gpus > 0 ? w.whole_gpus : w.gpu_count);
  return (m.weights_mib + m.activation_mib * std::max(1, w.concurrency)) / cards + context;
}

// The workload asks `vgpus` HAMi vGPUs of `mem_mib` MiB each (0: the whole card's memory) and
// `cores` percent, as HAMi's webhook would leave the request; its other GPU requests go.
void AskHami(Workload& w, int vgpus, int64_t mem_mib, int cores) {
  w.hami = {};
  w.hami.request.vgpus = std::max(1, vgpus);
  w.hami.request.mem_mib = mem_mib;
  w.hami.request.cores = std::clamp(cores, 0, 100);
  w.gpu_mem = 0;
  w.gpu_core = 0;
  w.gpu_count = 1;
  w.whole_gpus = 0;
  w.mig_profile.clear();
}

// A HAMi workload where no pool offers HAMi any more: its vGPUs become gpu-mem (its MiB rounded up
// to GiB per card, at most the card's; its gpucores go), whole cards, or MIG instances that hold
// its memory. True when it changed.
bool LeaveHami(Workload& w, const OfferedRequests& offered) {
  const HamiRequest r = w.hami.request;
  if (!offered.gpu_mem && !offered.whole && offered.mig.empty()) return false;
  w.hami = {};
  if (offered.gpu_mem) {
    const int card = std::max(1, offered.gpu_mem_card_units);
    const int64_t units =
        r.mem_mib > 0 ? (r.mem_mib + 1023) / 1024 : int64_t{card} * r.mem_percent / 100;
    w.gpu_count = r.vgpus;
    w.gpu_mem = r.vgpus * static_cast<int>(std::clamp<int64_t>(units, 1, card));
    // `sharing: cgpu` makes a cgpu pool, which offers no gpu-core.percentage (only core_mem
    // pools do): the compute share follows the cluster's POLICY there.
    w.gpu_core = 0;
    return true;
  }
  w.whole_gpus = r.vgpus;
  if (!offered.whole) {
    const int64_t need = DeviceMemoryNeed(w, offered);
    w.mig_profile = FittingMigProfile(offered, need > 0 ? need : r.mem_mib);
  }
  return true;
}

// After a `sharing` change, a GPU workload whose request no pool takes any more asks for what
// the pools now offer (docs/whatif.md "sharing"): gpu-mem on M cards becomes M nvidia.com/gpu
// (a replica, a whole card or a single-strategy MIG instance per card it shared), N whole cards
// become N × the card's gpu-mem over aliyun.com/gpu-count N, and where only mixed MIG pools
// take GPU pods, each card becomes a MIG instance of the profile that holds the pod's memory
// (FittingMigProfile; its gpu-mem quota when it declares no demand, the largest for a whole
// card); a <g>g.<m>gb instance no longer offered becomes the smallest offered instance at
// least as large (GrownMigProfile; else the memory rule), m GiB of gpu-mem or a whole card. Its
// memory demand (weights, activations, context) stays: what no longer fits shows as OOMs. Its pods
// are placed again. True when it changed.
bool TranslateDeviceKind(Workload& w, const OfferedRequests& offered) {
  const bool mig_only = !offered.gpu_mem && !offered.whole && !offered.mig.empty();
  if (w.hami.enabled()) return !offered.hami && LeaveHami(w, offered);
  if (!w.mig_profile.empty()) {
    if (Offers(offered, w.mig_profile)) return false;
    const MigProfileSize had = ReadMigProfileName(w.mig_profile).value_or(MigProfileSize{});
    if (!offered.whole && offered.hami) {
      // An instance of <g>g.<m>gb becomes a vGPU of m GiB, uncapped.
      AskHami(w, w.whole_gpus, int64_t{had.nominal_gib} * 1024, 0);
      return true;
    }
    if (offered.whole) {
      w.mig_profile.clear();
      return true;
    }
    if (!offered.mig.empty()) {
      w.mig_profile = GrownMigProfile(offered, had);
      if (w.mig_profile.empty())
        w.mig_profile = FittingMigProfile(offered, DeviceMemoryNeed(w, offered));
      return true;
    }
    if (offered.gpu_mem) {
      // An instance of <g>g.<m>gb becomes m GiB of gpu-mem per card (at most the card's).
      w.gpu_count = w.whole_gpus;
      w.gpu_mem = w.whole_gpus * std::clamp(had.nominal_gib, 1, offered.gpu_mem_card_units);
      w.whole_gpus = 0;
      w.mig_profile.clear();
      return true;
    }
    return false;
  }
  if (w.gpu_mem > 0 && !offered.gpu_mem && offered.hami) {
    // gpu-mem N GiB on M cards becomes M vGPUs of N/M GiB, its gpu-core their gpucores.
    const int cards = std::max(1, w.gpu_count);
    AskHami(w, cards, int64_t{w.gpu_mem} * 1024 / cards, w.gpu_core);
    return true;
  }
  if (w.whole_gpus > 0 && !offered.whole && offered.hami) {
    AskHami(w, w.whole_gpus, 0, 100);  // whole cards: all the memory, the card alone
    return true;
  }
  if (w.gpu_mem > 0 && !offered.gpu_mem && (offered.whole || mig_only)) {
    const int64_t quota_mib = int64_t{w.gpu_mem} * 1024 / std::max(1, w.gpu_count);
    w.whole_gpus = std::max(1, w.gpu_count);
    if (mig_only) {
      const int64_t need = DeviceMemoryNeed(w, offered);
      w.mig_profile = FittingMigProfile(offered, need > 0 ? need : quota_mib);
    }
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
  if (w.whole_gpus > 0 && mig_only) {
    w.mig_profile = FittingMigProfile(offered, DeviceMemoryNeed(w, offered));
    return true;
  }
  return false;
}

// Whether a DRA pool takes the claim `ask` (its driver's class; a MIG profile some pool has).
bool OffersDra(const OfferedRequests& offered, const DraAsk& ask) {
  if (ask.driver == DraDriver::kHamiCore) return offered.dra_hami;
  if (ask.mig_profile.empty()) return offered.dra_gpus;
  return std::any_of(offered.dra_mig.begin(), offered.dra_mig.end(),
                     [&](const auto& m) { return m.first == ask.mig_profile; });
}

// A DRA claim as the device-plugin request it amounts to: HAMi-core shares as HAMi vGPUs of
// that memory and cores (no memory asked: the whole card's; no cores asked: the device's
// default, all of them), MIG instances as nvidia.com/mig-<profile>, GPUs as nvidia.com/gpu.
void LeaveDra(Workload& w) {
  const DraAsk ask = w.dra;
  w.dra = {};
  if (ask.driver == DraDriver::kHamiCore) {
    AskHami(w, ask.gpus, ask.memory_mib.value_or(0), ask.cores.value_or(100));
    return;
  }
  w.whole_gpus = ask.gpus;
  w.mig_profile = ask.mig_profile;
}

// The device-plugin request a workload now has (after LeaveDra or TranslateDeviceKind against
// the DRA pools' offers) as a claim per pod: HAMi vGPUs as HAMi-core shares of the same memory
// (whole card: none asked) and cores — a gpu-mem share became such a vGPU with its gpu-core
// percentage as cores (0, no limit, without one); cards and MIG instances as devices.
void AskDra(Workload& w) {
  DraAsk ask;
  if (w.hami.enabled()) {
    const HamiRequest& r = w.hami.request;
    ask.driver = DraDriver::kHamiCore;
    ask.gpus = r.vgpus;
    if (r.mem_mib > 0) ask.memory_mib = r.mem_mib;
    ask.cores = r.cores;
  } else {
    ask.gpus = std::max(1, w.whole_gpus);
    ask.mig_profile = w.mig_profile;
  }
  w.dra = ask;
  w.hami = {};
  w.gpu_mem = 0;
  w.gpu_core = 0;
  w.gpu_count = 1;
  w.whole_gpus = 0;
  w.mig_profile.clear();
  w.shared_replicas = false;
}

// DRA (docs/whatif.md "sharing"). Where only DRA pools take GPU pods, a pod's GPU request
// becomes a claim of its own, translated as though the pools offered what their drivers
// publish — HAMi's DRA driver as HAMi vGPUs, NVIDIA's MIG instances as mixed MIG, its GPUs as
// nvidia.com/gpu — then asked through DRA (AskDra). A claim no DRA pool takes any more is
// translated the same way from the request it amounts to (LeaveDra); where no pool takes
// claims, that request stays (and is translated on from there). True when it changed.
bool TranslateDra(Workload& w, const OfferedRequests& offered) {
  const bool others =
      offered.gpu_mem || offered.whole || offered.hami || offered.shared || !offered.mig.empty();
  if (w.dra.enabled()) {
    if (OffersDra(offered, w.dra) || (offered.dra && others)) return false;
    LeaveDra(w);
    if (!offered.dra) return true;
  } else if (!offered.dra || others || !w.asks_gpu()) {
    return false;
  }
  OfferedRequests as_plugin;
  as_plugin.whole = offered.dra_gpus;
  as_plugin.hami = offered.dra_hami;
  as_plugin.mig = offered.dra_mig;
  TranslateDeviceKind(w, as_plugin);
  AskDra(w);
  return true;
}

// Renamed replicas (nvidia.com/gpu.shared) are whole-card requests of their own name: where no
// pool offers them they become nvidia.com/gpu (and on from there), and an nvidia.com/gpu request
// only renamed replicas take becomes one of them.
bool TranslateRequest(Workload& w, const OfferedRequests& offered) {
  const bool dra = TranslateDra(w, offered);
  if (w.dra.enabled()) return dra;
  const bool unshared = w.shared_replicas && !offered.shared;
  if (unshared) w.shared_replicas = false;
  if (w.shared_replicas) return false;
  OfferedRequests whole_like = offered;
  whole_like.whole = offered.whole || offered.shared;
  bool changed = TranslateDeviceKind(w, whole_like) || unshared || dra;
  if (w.whole_gpus > 0 && w.mig_profile.empty() && !offered.whole && offered.shared) {
    w.shared_replicas = true;
    changed = true;
  }
  return changed;
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
  if (variant.time_slice) s.cluster.time_slice = *variant.time_slice;
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

  AddMigInstanceTypes(s);
  const OfferedRequests offered = Offered(s);
  for (Workload& w : s.workloads) {
    if (!variant.sharing.empty() && TranslateRequest(w, offered)) w.pods.clear();
    // A "*" quota or core change is about GPU-sharing workloads; it must not hand GPU memory
    // to a CPU-only service or to one that owns whole cards.
    // On a HAMi workload the quota is its gpumem (units × 1024 MiB) and the core share its
    // gpucores (docs/whatif.md).
    const bool shares_gpu = w.gpu_mem > 0 || w.hami.enabled();
    const int gpu_mem_before = w.gpu_mem;
    const int gpu_core_before = w.gpu_core;
    const HamiRequest hami_before = w.hami.request;
    const auto* spread = Lookup(variant.topology_spread, w.name);
    if (spread != nullptr) w.topology_spread = *spread;
    if (const auto* units = Lookup(variant.gpu_mem, w.name, shares_gpu)) {
      if (w.hami.enabled()) {
        w.hami.request.mem_mib = int64_t{*units} * 1024;
      } else {
        w.gpu_mem = *units;
      }
    }
    if (const auto* core = Lookup(variant.gpu_core, w.name, shares_gpu)) {
      if (w.hami.enabled()) {
        w.hami.request.cores = *core;
      } else {
        w.gpu_core = *core;
      }
    }
    if (const auto* replicas = Lookup(variant.replicas, w.name)) w.replicas = *replicas;
    if (const auto* priority = Lookup(variant.priority, w.name)) w.priority = *priority;
    // Current pods (an imported cluster) stay where they run unless the change is one that
    // recreates them: a new quota, core share or spread rolls the workload out again, and the
    // scheduler places the new pods; a placement change on a pool re-places its pods (the
    // question it asks is where they would go). Fewer replicas drop the last ones.
    if (w.gpu_mem != gpu_mem_before || w.gpu_core != gpu_core_before ||
        !(w.hami.request == hami_before) || spread != nullptr) {
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
      if (const auto* target = Lookup(variant.hpa_target, w.name)) {
        // An HPA that lists no metric runs on cpu at 80 % (the API's default): the knob moves
        // that one. A Utilization target is a whole percent, at least 1, as the API's.
        if (w.hpa->metrics.empty()) w.hpa->metrics = {DefaultCpuMetric()};
        HpaMetric& first = w.hpa->metrics.front();
        if (first.target_type == HpaTargetType::kUtilization) {
          first.target_utilization =
              static_cast<int32_t>(std::max<long long>(1, std::llround(*target)));
        } else {
          first.target_milli = std::llround(*target * 1000);
        }
      }
      // A window on an HPA without `behavior` gives it one, the rest the API's defaults (as
      // `kubectl edit` adding that field would).
      const auto window = [&](const std::map<std::string, SimTime>& knob, bool up) {
        const SimTime* w_ns = Lookup(knob, w.name);
        if (w_ns == nullptr) return;
        if (!w.hpa->behavior) w.hpa->behavior = HpaBehavior{};
        std::optional<HpaScalingRules>& rules =
            up ? w.hpa->behavior->scale_up : w.hpa->behavior->scale_down;
        if (!rules) rules = HpaScalingRules{};
        rules->stabilization_window_s = static_cast<int32_t>(*w_ns / kNanosPerSecond);
      };
      window(variant.hpa_scale_up_window, true);
      window(variant.hpa_scale_down_window, false);
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

std::optional<MigLayoutProblem> PoolSharingProblem(const NodePool& pool,
                                                   const PoolSharingKnob& knob) {
  if (knob.mode == PoolSharingKnob::Mode::kDra && knob.dra.dynamic_mig && !pool.gpu_type.empty() &&
      MigProfilesOf(pool.gpu_type).empty()) {
    return MigLayoutProblem{"node pool " + pool.name + ": knobsim has no MIG geometry for " +
                                pool.gpu_type + ", so no DynamicMIG",
                            "use a MIG-capable card: A100-40G, A100-80G, H100, H200"};
  }
  const bool mig = knob.mode == PoolSharingKnob::Mode::kMig ||
                   (knob.mode == PoolSharingKnob::Mode::kDra && knob.mig.enabled());
  if (!mig || pool.gpu_type.empty()) return std::nullopt;
  std::optional<MigLayoutProblem> problem = CheckMigLayout(pool.gpu_type, knob.mig);
  if (problem) problem->error = "node pool " + pool.name + ": " + problem->error;
  return problem;
}

namespace {

// The MIG layout `layout` of the `sharing` value `text` into `knob`; false with `out`'s error and
// a hint naming the value's `form`.
bool ReadKnobLayout(std::string_view text, std::string_view layout, std::string_view form,
                    PoolSharingKnob& knob, PoolSharingText& out) {
  MigLayoutText parsed = ParseMigLayout(layout);
  if (!parsed.layout) {
    out.error = "sharing " + std::string(text) + ": " + parsed.error;
    out.hint = std::string(form) + ", " + parsed.hint;
    return false;
  }
  knob.mig = *parsed.layout;
  return true;
}

}  // namespace

PoolSharingText ParsePoolSharing(std::string_view text) {
  PoolSharingText out;
  const std::string_view kForms =
      "cgpu, exclusive, timeslicing:N (N 2..256), mps:N (N 2..48), mig:LAYOUT or "
      "mig-mixed:LAYOUT (e.g. mig:1g.10gb*7), hami or hami:N (N 1..256), dra, dra:hami, "
      "dra:mig:LAYOUT, dra:dynamic-mig";
  if (text == "dra" || text == "dra:hami" || text == "dra:dynamic-mig") {
    PoolSharingKnob knob;
    knob.mode = PoolSharingKnob::Mode::kDra;
    if (text == "dra:hami") knob.dra.driver = DraDriver::kHamiCore;
    knob.dra.dynamic_mig = text == "dra:dynamic-mig";
    out.knob = knob;
    return out;
  }
  if (text.starts_with("dra:mig:")) {
    PoolSharingKnob knob;
    knob.mode = PoolSharingKnob::Mode::kDra;
    if (!ReadKnobLayout(text, text.substr(8), "dra:mig:LAYOUT", knob, out)) return out;
    knob.mig.strategy = MigStrategy::kMixed;
    out.knob = knob;
    return out;
  }
  if (text == "cgpu" || text == "exclusive") {
    PoolSharingKnob knob;
    knob.mode = text == "cgpu" ? PoolSharingKnob::Mode::kCgpu : PoolSharingKnob::Mode::kExclusive;
    out.knob = knob;
    return out;
  }
  const size_t colon = text.find(':');
  const std::string_view mode = text.substr(0, colon);
  if (mode == "hami") {
    // hami: HAMi's chart defaults (10 vGPUs a card); hami:N, N vGPUs a card.
    PoolSharingKnob knob;
    knob.mode = PoolSharingKnob::Mode::kHami;
    knob.hami.split_count = 10;
    if (colon != std::string_view::npos) {
      const std::string_view count = text.substr(colon + 1);
      bool ok = !count.empty() && count.size() <= 3;
      for (char c : count) ok = ok && c >= '0' && c <= '9';
      knob.hami.split_count = ok ? std::stoi(std::string(count)) : 0;
      if (knob.hami.split_count < 1 || knob.hami.split_count > 256) {
        out.error = "sharing " + std::string(text) + " needs a vGPU count";
        out.hint = "hami (10 vGPUs a card, HAMi's default) or hami:N, N in 1..256";
        return out;
      }
    }
    out.knob = knob;
    return out;
  }
  if (mode == "mig" || mode == "mig-mixed") {
    PoolSharingKnob knob;
    knob.mode = PoolSharingKnob::Mode::kMig;
    const std::string_view layout = colon == std::string_view::npos ? "" : text.substr(colon + 1);
    if (!ReadKnobLayout(text, layout, "mig:LAYOUT", knob, out)) return out;
    if (mode == "mig-mixed") knob.mig.strategy = MigStrategy::kMixed;
    out.knob = knob;
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
