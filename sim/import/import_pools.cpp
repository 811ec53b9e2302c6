// Nodes -> pools (import_steps.h, PoolsFromNodes).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <tuple>

#include "models/gpu_catalog.h"
#include "sim/import/import_dra.h"
#include "sim/import/import_steps.h"
#include "sim/mig_layout.h"
#include "sim/scenario_objects.h"
#include "sim/text.h"

namespace knobsim {
using namespace import_text;

namespace {

// What makes two nodes interchangeable for the scheduler, apart from name and zone.
struct PoolKey {
  std::string gpu;
  int cards = 0;
  int64_t cpu = 0, memory = 0, pods = 0;
  Labels labels;
  std::vector<std::tuple<std::string, std::string, std::string>> taints;
  std::string schedule, placement;
  int max_pod = 0;
  // Device-plugin replicas (NodeSpec::device_sharing): strategy, replicas, failRequests > 1,
  // renamed, allocation.
  std::tuple<int, int, bool, bool, int> replicas{0, 0, false, false, 0};
  std::pair<int, std::vector<std::string>> mig;  // NodeSpec::mig: strategy, each card's instances
  // NodeSpec::hami: split count, devmem, devcore, core policy.
  std::tuple<int, int, int, int> hami{0, 0, 0, 0};
  int dra = 0;  // its GPUs are a DRA driver's devices (import_dra.h): 1 + DraDriver; 0: not
  bool dra_dynamic_mig = false;
  std::optional<std::tuple<int64_t, int64_t, int64_t>> dra_shared_memory;  // default, min, step
  bool unschedulable = false;
  auto operator<=>(const PoolKey&) const = default;
};

int64_t Get(const ResourceList& r, const std::string& key) {
  auto it = r.find(key);
  return it == r.end() ? 0 : it->second;
}

GpuSchedule ScheduleOf(const std::string& s) {
  if (s == "share") return GpuSchedule::kShare;
  if (s == "cgpu") return GpuSchedule::kCgpu;
  if (s == "core_mem") return GpuSchedule::kCoreMem;
  return GpuSchedule::kDefault;
}

// The GPU type labels: ACK's (kube_types.h), else NVIDIA GPU feature discovery's (gpu.memory in
// MiB).

// The node label that gave NodeSpec::gpu_model (the kube reader's order).
const char* GpuModelLabel(const NodeSpec& node) {
  return node.labels.count(kGpuModelLabel) && !node.labels.at(kGpuModelLabel).empty()
             ? kGpuModelLabel
             : kGfdProductLabel;
}

// The leading whole number of a node label ("97871MiB" -> 97871); 0 when absent or none.
int64_t LabelNumber(const NodeSpec& node, const char* key) {
  int64_t n = 0;
  auto it = node.labels.find(key);
  if (it == node.labels.end()) return 0;
  const auto [ptr, ec] =
      std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
  return ec == std::errc() && n > 0 ? n : 0;
}

// The catalog entry of a GPU model the catalog does not know: memory from the node label
// aliyun.accelerator/nvidia_mem, else nvidia.com/gpu.memory, else gpu-mem units x 1024 (1024
// when none of them is there); speed 1.0. The speed, and a memory no label gave, are guesses:
// the warning that `warning` receives says so on stderr, naming the node and what to set.
ImportedGpuType UnknownGpuType(const NodeSpec& node, const std::string& name,
                               const DraNodeGpus* dra, std::string& warning) {
  ImportedGpuType t;
  t.type.name = name;
  int64_t mib = 0;
  std::string from;
  for (const char* key : {kGpuMemoryLabel, kGfdMemoryLabel}) {
    if (mib > 0) break;
    mib = LabelNumber(node, key);
    from = std::string("from node label ") + key;
  }
  if (mib == 0 && dra != nullptr && dra->memory_mib > 0) {
    mib = dra->memory_mib;
    from = "from the memory capacity of its DRA devices";
  }
  if (mib == 0 && node.hami.enabled()) {
    // HAMi registers NVML's memory × deviceMemoryScaling: the card's own at the default scaling.
    mib = node.hami.devmem_mib;
    from = std::string("from HAMi's registered devmem (") + kHamiRegisterAnnotation +
           "; deviceMemoryScaling assumed 1)";
  }
  const bool memory_known = mib > 0;
  if (!memory_known) {
    mib = int64_t{std::max(1, node.card_mem_units)} * 1024;
    from = std::string("from gpu-mem capacity per card x 1024 (no ") + kGpuMemoryLabel + " or " +
           kGfdMemoryLabel + ")";
  }
  t.type.memory_mib = mib;
  t.type.speed = 1.0;
  t.type.interconnect = "pcie";
  const std::string model =
      node.gpu_model.empty() ? std::string("a GPU no label names (no ") + kGpuModelLabel + " or " +
                                   kGfdProductLabel + ")"
                             : Quote(node.gpu_model) + " (node label " + GpuModelLabel(node) + ")";
  t.note = model + " is not in the catalog: memory " + std::to_string(mib) + " MiB " + from +
           "; speed 1.0 (default: the A10's, set it from a benchmark)";
  warning = "node " + node.name + ": " + model + " is not in the GPU catalog: imported as type " +
            name + " with " + std::to_string(mib) + " MiB " + from +
            (memory_known ? "" : " (a placeholder: the card's memory is unknown)") +
            " and speed 1.0, the A10's (an assumption: every latency on it scales with it); set "
            "its gpu_types entry from the card's datasheet or a benchmark (knobsim import "
            "--overlay)";
  return t;
}

PoolKey KeyOf(const NodeSpec& node, const std::string& gpu, const DraNodeGpus* dra,
              const std::set<std::pair<std::string, std::string>>& selected,
              std::set<std::string>& dropped_labels) {
  PoolKey key;
  key.gpu = gpu;
  key.dra = dra != nullptr ? 1 + static_cast<int>(dra->driver) : 0;
  key.dra_dynamic_mig = dra != nullptr && dra->dynamic_mig;
  if (dra != nullptr && dra->shared_memory) {
    key.dra_shared_memory = {dra->shared_memory->default_mib, dra->shared_memory->min_mib,
                             dra->shared_memory->step_mib};
  }
  key.cards = node.gpu_cards;
  key.mig = {static_cast<int>(node.mig.strategy), node.mig.instances};
  key.hami = {node.hami.split_count, node.hami.devmem_mib, node.hami.devcore,
              static_cast<int>(node.hami.core_policy)};
  key.cpu = Get(node.allocatable, "cpu");
  key.memory = Get(node.allocatable, "memory");
  key.pods = Get(node.allocatable, "pods");
  for (const auto& [k, v] : node.labels) {
    if (IsPerNodeLabel(k)) continue;
    if (LooksLikeSecret(k, v) && !selected.count({k, v})) {
      dropped_labels.insert(k);
      continue;
    }
    key.labels[k] = v;
  }
  for (const Taint& t : node.taints) key.taints.emplace_back(t.key, t.value, t.effect);
  std::sort(key.taints.begin(), key.taints.end());
  key.schedule = node.gpu_cards > 0 ? node.gpu_schedule : "";
  key.placement = node.placement;
  key.max_pod = node.max_pods_per_card;
  const DeviceSharing& d = node.device_sharing;
  if (d.shared())
    key.replicas = {static_cast<int>(d.strategy), d.replicas, d.fail_requests_greater_than_one,
                    d.renamed, static_cast<int>(d.allocation)};
  key.unschedulable = node.unschedulable;
  return key;
}

// A GPU pool's schedule, cGPU state, rule-1 isolation and the notes that say where they came
// from; a schedule knobsim does not simulate is imported as `default`, with a warning.
// A pool of time-slicing or MPS replicas (gpu_sharing_modes.h DevicePluginReplicas): no ACK
// schedule, memory pooled (time-slicing) or limited per client (MPS).
void ReplicaPoolSharing(const NodeSpec& node, const std::string& gpu, const std::string* config,
                        ImportedPool& p) {
  NodePool& np = p.pool;
  const DeviceSharing& d = node.device_sharing;
  np.device_sharing = d;
  np.labels.erase(kGpuScheduleLabel);
  UseDevicePluginCards(np);
  p.notes.push_back("gpu " + gpu + " from node label " + GpuModelLabel(node) + " \"" +
                    node.gpu_model + "\"; " + std::to_string(node.gpu_cards) + " cards from " +
                    kGfdCountLabel);
  p.notes.push_back(
      std::string("device_sharing ") + DeviceSharingStrategyName(d.strategy) + " x" +
      std::to_string(d.replicas) + " from " + kGfdSharingStrategyLabel + " and " +
      kGfdReplicasLabel +
      (d.renamed ? std::string("; rename_by_default from capacity ") + kSharedGpuResource
                 : std::string()) +
      "; fail_requests_greater_than_one " + (d.fail_requests_greater_than_one ? "true" : "false") +
      " and allocation " + (d.allocation == ReplicaAllocation::kPacked ? "packed" : "distributed") +
      (config != nullptr ? " from the node's " + *config
                         : std::string(" are the device plugin's defaults (no config of it in "
                                       "the export applies to this node)")));
}

// A pool of MIG cards (gpu_sharing_modes.h DevicePluginMig, the kube reader's ReadMigSide): no
// ACK schedule, each instance an exclusive smaller card with its own memory.
void MigPool(const NodeSpec& node, const std::string& gpu, ImportedPool& p) {
  NodePool& np = p.pool;
  np.mig = node.mig;
  np.gpus_per_node = node.gpu_cards / static_cast<int>(node.mig.instances.size());
  np.labels.erase(kGpuScheduleLabel);
  UseDevicePluginCards(np);
  const bool single = node.mig.strategy == MigStrategy::kSingle;
  p.notes.push_back("gpu " + gpu + " from node label " + kGfdProductLabel + " \"" +
                    node.labels.at(kGfdProductLabel) + "\"");
  p.notes.push_back(
      std::string("mig ") + MigStrategyName(node.mig.strategy) + " from " + kGfdMigStrategyLabel +
      ": " + std::to_string(np.gpus_per_node) + " cards of " + MigLayoutString(node.mig.instances) +
      (single ? ", the cards cut whole into the profile's most instances (an assumption: the "
                "labels count MIG devices, not cards)"
              : std::string(", from the capacity's nvidia.com/mig-* devices over ") +
                    kGfdCountLabel + " cards"));
}

// A pool of HAMi vGPUs (the kube reader's ReadHamiSide): no ACK schedule, HAMi-core limits each
// pod's memory. memory_scaling is the registered devmem over the card's memory (1 within 1 %:
// NVML's MiB and the catalog's differ by a few); oversubscription (devmem or devcore above the
// card) is not modelled, so it is imported at 1 with a warning that says so.
void HamiPoolOf(const NodeSpec& node, const std::string& gpu, const std::string* config,
                ImportedPool& p, std::vector<std::string>& warnings) {
  NodePool& np = p.pool;
  const HamiDevices& h = node.hami;
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  const GpuType* type = catalog.Find(gpu);
  const double physical = type != nullptr ? static_cast<double>(type->memory_mib) : h.devmem_mib;
  const double memory = h.devmem_mib / physical;
  np.hami.split_count = h.split_count;
  np.hami.memory_scaling = std::abs(memory - 1) <= 0.01 ? 1 : std::min(memory, 1.0);
  np.hami.core_scaling = std::min(h.devcore / 100.0, 1.0);
  np.hami.core_policy = h.core_policy;
  if (memory > 1.01 || h.devcore > 100)
    warnings.push_back("node " + node.name + ": HAMi registers " + std::to_string(h.devmem_mib) +
                       " MiB and " + std::to_string(h.devcore) + " cores per card, more than a " +
                       gpu +
                       " has: HAMi's oversubscription (deviceMemoryScaling or "
                       "deviceCoreScaling above 1) is not modelled, imported at 1 (pods asking "
                       "more than the card holds stay Pending)");
  np.labels.erase(kGpuScheduleLabel);
  UseDevicePluginCards(np);
  p.notes.push_back("gpu " + gpu + " from " +
                    (node.labels.count(kGfdProductLabel)
                         ? std::string("node label ") + kGfdProductLabel
                         : std::string("HAMi's device type")) +
                    " \"" + node.gpu_model + "\"; " + std::to_string(node.gpu_cards) +
                    " cards from " + kHamiRegisterAnnotation);
  p.notes.push_back("hami: " + std::to_string(h.split_count) + " vGPUs a card, " +
                    std::to_string(h.devmem_mib) + " MiB and " + std::to_string(h.devcore) +
                    " cores registered; gpuCorePolicy " + HamiCorePolicyName(h.core_policy) +
                    (config != nullptr ? " from " + *config
                                       : std::string(" (HAMi's default: its device config is "
                                                     "not in the export)")));
}

// `config`: where the node's device-plugin or HAMi config came from (null: their defaults).
void GpuPoolSchedule(const NodeSpec& node, const std::string& gpu, const std::string* config,
                     ImportedPool& p, std::vector<std::string>& warnings) {
  NodePool& np = p.pool;
  if (node.device_sharing.shared()) return ReplicaPoolSharing(node, gpu, config, p);
  if (node.mig.enabled()) return MigPool(node, gpu, p);
  if (node.hami.enabled()) return HamiPoolOf(node, gpu, config, p, warnings);
  std::string sched = node.gpu_schedule.empty() ? "default" : node.gpu_schedule;
  // mps, topology and mig are refused by the kube reader (gpu_sharing_modes.h); what reaches
  // here is `disabled` (GPUs offered by another plugin, e.g. DRA) or a value ACK does not
  // document: the capacity is all the scheduler has, read as whole cards.
  if (sched != "default" && sched != "share" && sched != "cgpu" && sched != "core_mem") {
    warnings.push_back("node " + node.name + ": ack.node.gpu.schedule=" + sched +
                       " is not simulated; its pool is imported as exclusive cards (default)");
    sched = "default";
  }
  np.labels[kGpuScheduleLabel] = sched;
  np.schedule = ScheduleOf(sched);
  const bool disabled = node.labels.count(kCgpuDisableIsolationLabel) &&
                        node.labels.at(kCgpuDisableIsolationLabel) == "true";
  np.cgpu_active = (sched == "cgpu" || sched == "core_mem") && !disabled;
  // Rule 1 here; rules 2-4 once every node and pod is known (DecideIsolation).
  np.isolation = np.cgpu_active ? MemoryIsolation::kHard : MemoryIsolation::kSoft;
  if (!np.cgpu_active)
    p.isolation_notes.push_back(
        disabled ? "memory isolation soft: rule 1, cgpu.disable.isolation=true (the device "
                   "plugin sets CGPU_DISABLE)"
                 : "memory isolation soft: rule 1, no cGPU module (schedule " + sched + ")");
  p.notes.push_back("gpu " + gpu +
                    (node.gpu_model.empty()
                         ? std::string(": no node label names the model")
                         : std::string(" from node label ") + GpuModelLabel(node) + " \"" +
                               node.gpu_model + "\"") +
                    "; " + std::to_string(node.gpu_cards) + " cards from capacity");
  p.notes.push_back("schedule " + sched + " from ack.node.gpu.schedule" +
                    (node.labels.count(kGpuScheduleLabel) ? "" : " (absent: default)"));
  p.notes.push_back(std::string("placement ") +
                    (node.placement.empty() ? "binpack (label absent: the cluster default)"
                                            : node.placement + " from ack.node.gpu.placement"));
}

// A pool of GPUs a DRA driver publishes (import_dra.h): `dra:` with the driver and the NVIDIA
// driver's MIG layout, no ACK schedule; ACK's sharing labels, which mean nothing there, are not
// written.
void DraPoolOf(const NodeSpec& node, const std::string& gpu, const DraNodeGpus& dra,
               ImportedPool& p) {
  NodePool& np = p.pool;
  np.dra.enabled = true;
  np.dra.driver = dra.driver;
  if (!dra.mig.empty()) np.mig = {MigStrategy::kMixed, dra.mig};
  np.dra.dynamic_mig = dra.dynamic_mig;
  np.dra.shared_memory = dra.shared_memory;
  for (const char* label :
       {kGpuScheduleLabel, kGpuPlacementLabel, kGpuMaxPodLabel, kCgpuDisableIsolationLabel})
    np.labels.erase(label);
  np.placement.clear();
  np.max_pods_per_card = 0;
  UseDevicePluginCards(np);
  const bool hami = dra.driver == DraDriver::kHamiCore;
  const std::string driver = hami ? "HAMi DRA driver" : "NVIDIA DRA driver";
  std::string devices = std::to_string(node.gpu_cards) + " whole GPUs";
  if (hami) devices = std::to_string(node.gpu_cards) + " GPUs shared by consumable capacity";
  if (!dra.mig.empty())
    devices = std::to_string(node.gpu_cards) + " GPUs cut into MIG instances " +
              MigLayoutString(dra.mig) + " (by their parentUUID)";
  if (dra.shared_memory)
    devices = std::to_string(node.gpu_cards) +
              " GPUs that allow multiple allocations, shared by consumable memory (the allocator "
              "accounts the shares; the run enforces none)";
  if (dra.dynamic_mig)
    devices = std::to_string(node.gpu_cards) +
              " GPUs partitioned by DynamicMIG (one counter set a card; the run publishes every "
              "MIG placement of the card)";
  p.notes.push_back("gpu " + gpu + " from the productName of the " + driver + "'s devices (\"" +
                    node.gpu_model + "\"); " + devices + " from its ResourceSlice");
  p.notes.push_back(hami ? "dra: each claim's memory and cores are HAMi-core's limits for its pod"
                         : "dra: claims get these devices from the DRA allocator; each claim's "
                           "sharing (GpuConfig) is its workload's");
}

// The pool the first node of a key opens.
ImportedPool NewPool(const NodeSpec& node, const PoolKey& key, const DraNodeGpus* dra,
                     const ImportOptions& options, const std::string* config,
                     std::vector<std::string>& warnings) {
  ImportedPool p;
  NodePool& np = p.pool;
  np.gpu_type = key.gpu;
  np.gpus_per_node = node.gpu_cards;
  np.cpu_milli = key.cpu;
  np.memory_mib = key.memory / (1024 * 1024);  // floor: never more than the node has
  np.pods = static_cast<int>(key.pods);
  np.labels = key.labels;
  auto inst = node.labels.find(kInstanceTypeLabel);
  if (inst != node.labels.end()) np.instance_type = inst->second;
  np.taints = node.taints;
  std::sort(np.taints.begin(), np.taints.end(), [](const Taint& a, const Taint& b) {
    return std::tie(a.key, a.value, a.effect) < std::tie(b.key, b.value, b.effect);
  });
  np.placement = node.placement;
  np.max_pods_per_card = node.max_pods_per_card;
  if (auto v = key.labels.find(options.cgpu_version_label); v != key.labels.end())
    np.cgpu_version = v->second;
  p.gpu_model = node.gpu_model;
  if (dra != nullptr) {
    DraPoolOf(node, key.gpu, *dra, p);
  } else if (node.gpu_cards > 0) {
    GpuPoolSchedule(node, key.gpu, config, p, warnings);
  } else {
    np.schedule = GpuSchedule::kDefault;
    np.cgpu_active = false;
    np.isolation = MemoryIsolation::kSoft;
  }
  if (node.unschedulable)
    warnings.push_back("node " + node.name +
                       " is cordoned (spec.unschedulable); the scenario has no key for it, so "
                       "its pool is schedulable");
  return p;
}

// A node as its pool lists it: name, zone and the other zone labels.
ImportedNode PoolEntry(const NodeSpec& node) {
  ImportedNode n;
  n.name = node.name;
  for (const auto& [k, v] : node.labels) {
    if (!IsPerNodeLabel(k) || k == kHostnameLabel) continue;
    if (k == kZoneLabel)
      n.zone = v;
    else
      n.labels[k] = v;
  }
  return n;
}

}  // namespace

bool IsPerNodeLabel(const std::string& key) {
  if (key == kHostnameLabel) return true;
  const auto slash = key.rfind('/');
  const std::string last = slash == std::string::npos ? key : key.substr(slash + 1);
  return last == "zone";
}

std::set<std::pair<std::string, std::string>> SelectedNodeLabels(const std::vector<PodSpec>& pods) {
  // `alibabacloud.com/nodepool-id: np933b39b9...` reads like a blob to LooksLikeSecret, and
  // dropping it from the pool while the pods' nodeSelector keeps it left them no node at all.
  std::set<std::pair<std::string, std::string>> selected;
  for (const PodSpec& p : pods) {
    for (const auto& [k, v] : p.node_selector) selected.emplace(k, v);
    auto add = [&](const std::vector<NodeSelectorRequirement>& term) {
      for (const NodeSelectorRequirement& r : term)
        for (const std::string& v : r.values) selected.emplace(r.key, v);
    };
    for (const auto& term : p.node_affinity.required_terms) add(term);
    for (const auto& pref : p.node_affinity.preferred) add(pref.expressions);
  }
  return selected;
}

void NamePools(std::vector<ImportedPool>& pools) {
  std::map<std::string, int> seen, total;
  auto base_of = [](const ImportedPool& p) {
    return p.pool.gpu_type.empty() ? std::string("cpu") : "gpu-" + DnsLabel(p.pool.gpu_type);
  };
  for (const ImportedPool& p : pools) ++total[base_of(p)];
  for (ImportedPool& p : pools) {
    const std::string base = base_of(p);
    const int k = ++seen[base];
    p.pool.name = total[base] > 1 ? base + "-" + std::to_string(k) : base;
    p.pool.count = static_cast<int>(p.nodes.size());
  }
}

NodeIndex PoolsFromNodes(const KubeObjects& objects, const ImportOptions& options,
                         ImportModel& model) {
  NodeIndex index;
  std::map<PoolKey, int> pool_of_key;
  std::set<std::string> unknown_gpus;
  const std::set<std::pair<std::string, std::string>> selected = SelectedNodeLabels(objects.pods);
  std::set<std::string> dropped_node_labels;
  // ImportCluster gave these nodes their DRA GPUs as cards (WithScenarioDra).
  const std::map<std::string, DraNodeGpus> dra_nodes = DraGpuNodes(objects, nullptr);
  for (const NodeSpec& node : objects.nodes) {
    index.node_by_name[node.name] = &node;
    const auto dra_node = dra_nodes.find(node.name);
    const DraNodeGpus* dra =
        dra_node != dra_nodes.end() && node.gpu_cards > 0 ? &dra_node->second : nullptr;
    std::string gpu;
    if (node.gpu_cards > 0) {
      gpu = GpuCatalogKey(node.gpu_model);
      if (gpu.empty()) {
        gpu = DnsLabel(node.gpu_model.empty() ? "unknown-gpu" : node.gpu_model);
        if (unknown_gpus.insert(gpu).second) {
          std::string warning;
          model.gpu_types.push_back(UnknownGpuType(node, gpu, dra, warning));
          model.warnings.push_back(std::move(warning));
        }
      }
    }
    const PoolKey key = KeyOf(node, gpu, dra, selected, dropped_node_labels);
    auto [it, fresh] = pool_of_key.emplace(key, static_cast<int>(model.pools.size()));
    if (fresh) {
      const auto config = objects.device_config_of_node.find(node.name);
      model.pools.push_back(
          NewPool(node, key, dra, options,
                  config == objects.device_config_of_node.end() ? nullptr : &config->second,
                  model.warnings));
    }
    model.pools[it->second].nodes.push_back(PoolEntry(node));
    index.pool_of_node[node.name] = it->second;
    index.gpu_of_node[node.name] = gpu;
    // The device plugin's capacity is what the scheduler places on; feature discovery counts
    // the cards the driver sees. Fewer offered: the plugin is down or has marked cards
    // unhealthy. More offered is sharing, which the kube reader refuses (gpu_sharing_modes.h).
    if (const int64_t seen = LabelNumber(node, kGfdCountLabel);
        seen > 0 && seen != node.gpu_cards && !node.mig.enabled())
      model.warnings.push_back("node " + node.name + ": " + kGfdCountLabel + "=" +
                               std::to_string(seen) + " but its capacity offers " +
                               std::to_string(node.gpu_cards) +
                               " cards; the capacity is imported (what the scheduler places on)");
  }
  for (const std::string& k : dropped_node_labels)
    model.warnings.push_back("node label " + k +
                             " looks like a credential and no pod selects by it; not written");
  NamePools(model.pools);
  return index;
}

}  // namespace knobsim
