#include "sim/import/imported_scenario.h"

#include "sim/io/kube_scenario_fields.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "sim/dns_label.h"
#include "sim/import/import_steps.h"
#include "sim/import/scenario_writer.h"
#include "sim/io/yaml_fields.h"
#include "sim/mig_layout.h"
#include "sim/quantity.h"
#include "sim/scenario_objects.h"
#include "sim/scheduler/card_placement.h"
#include "sim/text.h"

namespace knobsim {
namespace {

// The first thing the reader would refuse; thrown out of the conversion, caught at its top.
struct Refused {
  InputError error;
};

class Converter {
 public:
  explicit Converter(std::string file) : file_(std::move(file)) {}
  Scenario Convert(const ImportModel& model) const;

 private:
  [[noreturn]] void Fail(std::string path, std::string message, std::string hint = "") const {
    throw Refused{InputError{file_, 0, std::move(path), std::move(message), std::move(hint)}};
  }
  void DnsName(const std::string& path, const std::string& name) const;
  void ReadGpuTypes(const ImportModel& model, GpuCatalog& catalog) const;
  ClusterKnobs Cluster(const ImportModel& model) const;
  NodePool Pool(const ImportedPool& ip, const GpuCatalog& catalog, const std::string& path) const;
  void PoolFromLabels(NodePool& p, const std::string& path) const;
  Workload WorkloadOf(const ImportedWorkload& iw, const std::set<std::string>& nodes,
                      const std::string& path) const;
  void Gpus(const Workload& from, Workload& w, const std::string& path) const;
  Traffic TrafficOf(const Traffic& t) const;
  ScenarioKube Kube(const ScenarioKube& k) const;

  std::string file_;
};

// The numbers as the written text holds them, read by the reader's parsers.
double WrittenRate(double per_s) {
  return *ParseRate(ScenarioRate(per_s)).value;
}
SimTime WrittenDuration(double seconds) {
  return *ParseDuration(ScenarioDuration(seconds)).value;
}
double WrittenDecimal(double v) {
  const std::string text = ScenarioDecimal(v);
  double out = 0;
  std::from_chars(text.data(), text.data() + text.size(), out);
  return out;
}

void Converter::DnsName(const std::string& path, const std::string& name) const {
  if (!IsDnsLabel(name))
    Fail(path, Quote(name) + " is not a valid name",
         "names are DNS-1123 labels: lower-case letters, digits and '-', at most 63 characters");
}

// gpu_types: `{name, memory, speed: 1.0}`; a name the catalog knows keeps its other fields.
void Converter::ReadGpuTypes(const ImportModel& model, GpuCatalog& catalog) const {
  std::set<std::string> seen;
  for (size_t i = 0; i < model.gpu_types.size(); ++i) {
    const GpuType& written = model.gpu_types[i].type;
    std::string lower = written.name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!seen.insert(lower).second)
      Fail("gpu_types[" + std::to_string(i) + "].name",
           "duplicate GPU type " + Quote(written.name));
    GpuType type;
    type.name = written.name;
    if (const GpuType* existing = catalog.Find(written.name)) {
      type = *existing;
    } else {
      type.interconnect = "pcie";
    }
    type.memory_mib = written.memory_mib;
    if (type.memory_mib <= 0)
      Fail("gpu_types[" + std::to_string(i) + "].memory", "a card needs memory");
    type.speed = 1.0;  // the writer writes `speed: 1.0`, a default for the user to set
    catalog.Put(std::move(type));
  }
}

ClusterKnobs Converter::Cluster(const ImportModel& model) const {
  ClusterKnobs c;
  if (model.policy < 0 || model.policy > 5)
    Fail("cluster.policy", std::to_string(model.policy) + " is not in [0, 5]");
  c.policy = static_cast<SharingPolicy>(model.policy);
  c.switch_overhead = WrittenDecimal(model.switch_overhead);
  if (c.switch_overhead < 0 || c.switch_overhead >= 1)
    Fail("cluster.switch_overhead", ScenarioDecimal(model.switch_overhead) + " is not in [0, 1)");
  c.default_placement = "binpack";
  return c;
}

// What the reader derives from a pool's labels (docs/semantics.md §1.2, docs/scenario.md).
void Converter::PoolFromLabels(NodePool& p, const std::string& path) const {
  const std::string labels = path + ".labels.";
  if (auto it = p.labels.find(kGpuScheduleLabel); it != p.labels.end()) {
    const std::string& s = it->second;
    if (s == "default")
      p.schedule = GpuSchedule::kDefault;
    else if (s == "share")
      p.schedule = GpuSchedule::kShare;
    else if (s == "cgpu")
      p.schedule = GpuSchedule::kCgpu;
    else if (s == "core_mem")
      p.schedule = GpuSchedule::kCoreMem;
    else
      Fail(labels + kGpuScheduleLabel, Quote(s) + " is not an ack.node.gpu.schedule value");
  } else if (!p.gpu_type.empty()) {
    p.schedule = GpuSchedule::kCgpu;
    p.labels[kGpuScheduleLabel] = "cgpu";
  } else {
    p.schedule = GpuSchedule::kDefault;
  }
  if (auto it = p.labels.find(kGpuPlacementLabel); it != p.labels.end()) {
    const std::optional<std::string> placement = NormalizePlacement(it->second);
    if (!placement)
      Fail(labels + kGpuPlacementLabel, Quote(it->second) + " is not a valid placement");
    p.placement = *placement;
    it->second = *placement;
  }
  if (auto it = p.labels.find(kGpuMaxPodLabel); it != p.labels.end()) {
    const std::string& text = it->second;
    int n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 1)
      Fail(labels + kGpuMaxPodLabel, Quote(text) + " is not a whole number of at least 1");
    p.max_pods_per_card = n;
  }
  const bool module = !p.gpu_type.empty() &&
                      (p.schedule == GpuSchedule::kCgpu || p.schedule == GpuSchedule::kCoreMem);
  auto disable = p.labels.find(kCgpuDisableIsolationLabel);
  p.cgpu_active = module && !(disable != p.labels.end() && disable->second == "true");
}

NodePool Converter::Pool(const ImportedPool& ip, const GpuCatalog& catalog,
                         const std::string& path) const {
  const NodePool& from = ip.pool;
  NodePool p;
  p.name = from.name;
  DnsName(path + ".name", p.name);
  for (const ImportedNode& n : ip.nodes) p.nodes.push_back({n.name, n.zone, n.labels});
  p.count = static_cast<int>(p.nodes.size());
  if (!from.gpu_type.empty()) {
    const GpuType* type = catalog.Find(from.gpu_type);
    if (!type) Fail(path + ".gpu", "unknown GPU type " + Quote(from.gpu_type));
    p.gpu_type = type->name;
    p.gpus_per_node = from.gpus_per_node;
    if (p.gpus_per_node < 1) Fail(path + ".gpus_per_node", "a GPU pool needs at least 1 card");
  }
  p.cpu_milli = from.cpu_milli;
  p.memory_mib = from.memory_mib;
  p.pods = from.pods;
  p.instance_type = from.instance_type;
  p.labels = from.labels;
  for (size_t k = 0; k < from.taints.size(); ++k) {
    const Taint& t = from.taints[k];
    if (t.key.empty()) Fail(path + ".taints[" + std::to_string(k) + "].key", "needs a value");
    if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute")
      Fail(path + ".taints[" + std::to_string(k) + "].effect",
           Quote(t.effect) + " is not a taint effect");
    p.taints.push_back(t);
  }
  p.cgpu_version = from.cgpu_version;
  if (!p.gpu_type.empty() &&
      (from.device_sharing.shared() || from.mig.enabled() || from.hami.enabled())) {
    // The reader's ReadDeviceSharing / ReadMig / ReadHamiPool: the device plugin shares or cuts
    // the cards, no ACK schedule, memory per the strategy (MPS, MIG and HAMi hard,
    // time-slicing soft).
    p.device_sharing = from.device_sharing;
    p.mig = from.mig;
    p.hami = from.hami;
    if (p.mig.enabled()) {
      if (auto problem = CheckMigLayout(p.gpu_type, p.mig))
        Fail(path + ".mig.layout", problem->error, problem->hint);
    }
    UseDevicePluginCards(p);
    return p;
  }
  PoolFromLabels(p, path);
  p.isolation = p.cgpu_active ? MemoryIsolation::kHard : MemoryIsolation::kSoft;
  if (!p.gpu_type.empty()) {  // the writer writes memory_isolation on GPU pools
    p.isolation = from.isolation;
    if (p.isolation == MemoryIsolation::kHard && !p.cgpu_active)
      Fail(path + ".memory_isolation", "hard isolation needs cGPU, but ack.node.gpu.schedule is " +
                                           p.labels[kGpuScheduleLabel]);
  }
  return p;
}

// gpu_mem with gpu_count and gpu_core, or whole_gpus: the writer writes one or the other.
void Converter::Gpus(const Workload& from, Workload& w, const std::string& path) const {
  if (from.hami.enabled()) {
    w.hami = from.hami;
    return;
  }
  if (from.whole_gpus > 0) {
    w.whole_gpus = from.whole_gpus;
    w.mig_profile = from.mig_profile;
    w.shared_replicas = from.shared_replicas;
    return;
  }
  if (from.gpu_mem <= 0) return;
  w.gpu_mem = from.gpu_mem;
  w.gpu_count = std::max(1, from.gpu_count);
  w.gpu_core = std::max(0, from.gpu_core);
  if (w.gpu_core > 100)
    Fail(path + ".gpu_core", std::to_string(w.gpu_core) + " is not in [0, 100]");
  if (w.gpu_count > 1 && w.gpu_mem % w.gpu_count != 0)
    Fail(path + ".gpu_mem",
         "invalid replica for resource aliyun.com/gpu-mem, because " + std::to_string(w.gpu_mem) +
             " / " + std::to_string(w.gpu_count) + " = " +
             MessageNumber(static_cast<double>(w.gpu_mem) / w.gpu_count),
         "make gpu_mem a multiple of gpu_count (" + std::to_string(w.gpu_count) + ")");
}

Traffic Converter::TrafficOf(const Traffic& t) const {
  Traffic out;
  out.kind = t.kind;
  if (t.kind == ArrivalKind::kPoisson) {
    out.rate = WrittenRate(t.rate);
    return out;
  }
  if (t.kind == ArrivalKind::kCounts) {  // whole numbers and a step the writer writes exactly
    out.counts = t.counts;
    out.counts.step = WrittenDuration(static_cast<double>(t.counts.step) / kNanosPerSecond);
    return out;
  }
  for (const RatePoint& p : t.pieces)
    out.pieces.push_back(
        {WrittenDuration(static_cast<double>(p.at) / kNanosPerSecond), WrittenRate(p.rate)});
  return out;
}

Workload Converter::WorkloadOf(const ImportedWorkload& iw, const std::set<std::string>& nodes,
                               const std::string& path) const {
  const Workload& from = iw.spec;
  Workload w;
  w.name = from.name;
  DnsName(path + ".name", w.name);
  w.namespace_ = from.namespace_;
  DnsName(path + ".namespace", w.namespace_);
  w.replicas = from.replicas;
  if (static_cast<int>(iw.pods.size()) > w.replicas)
    Fail(path + ".pods",
         std::to_string(iw.pods.size()) + " current pods listed for " + std::to_string(w.replicas) +
             " replicas",
         "list at most `replicas` pods");
  for (size_t k = 0; k < iw.pods.size(); ++k) {
    const ImportedPod& ip = iw.pods[k];
    const std::string at = path + ".pods[" + std::to_string(k) + "]";
    DnsName(at + ".name", ip.name);
    if (!nodes.count(ip.node)) Fail(at + ".node", "no node " + Quote(ip.node) + " in node_pools");
    for (size_t c = 0; c < ip.cards.size(); ++c)
      if (ip.cards[c] < 0 || ip.cards[c] > 63 || (c > 0 && ip.cards[c] <= ip.cards[c - 1]))
        Fail(at + ".cards", "cards must be distinct, in increasing order, from 0 to 63");
    for (const CurrentPod& other : w.pods)
      if (other.name == ip.name) Fail(at + ".name", "duplicate pod " + Quote(ip.name));
    CurrentPod pod;
    pod.name = ip.name;
    pod.node = ip.node;
    pod.cards = ip.cards;
    pod.ready = ip.ready;
    w.pods.push_back(std::move(pod));
  }
  w.labels = from.labels.empty() ? Labels{{"app", w.name}} : from.labels;
  w.kind = from.kind;
  w.images = from.images;
  w.image_size_mib = std::max<int64_t>(0, from.image_size_mib);
  w.annotations = from.annotations;
  w.volumes = from.volumes;
  w.node_selector = from.node_selector;
  w.node_affinity = from.node_affinity;
  w.tolerations = from.tolerations;
  w.topology_spread = from.topology_spread;
  w.pod_affinity = from.pod_affinity;
  w.pod_anti_affinity = from.pod_anti_affinity;
  w.host_ports = from.host_ports;
  w.priority = from.priority;
  w.cpu_milli = from.cpu_milli;
  w.memory_mib = from.memory_mib;
  Gpus(from, w, path);
  w.probe = from.probe;
  if (iw.has_memory) {
    w.memory.weights_mib = from.memory.weights_mib;
    w.memory.activation_mib = from.memory.activation_mib;
  }
  if (iw.has_traffic) {
    if (!w.asks_gpu())
      Fail(path + ".traffic", "a workload with traffic needs a GPU (gpu_mem, whole_gpus or hami)",
           "GPU work runs on cards; model CPU-only steps with cpu_time on a GPU workload");
    w.traffic = TrafficOf(from.traffic);
    // Each pod's counts go to the current pod of its name, as the reader resolves them.
    for (PodCounts& pod : w.traffic.counts.per_pod) {
      const auto at = std::find_if(w.pods.begin(), w.pods.end(),
                                   [&pod](const CurrentPod& p) { return p.name == pod.pod; });
      if (at == w.pods.end())
        Fail(path + ".traffic.counts.per_pod." + pod.pod,
             "no pod " + Quote(pod.pod) + " in the workload's `pods:`");
      pod.replica = static_cast<int>(at - w.pods.begin());
    }
  }
  if (iw.has_work) {
    w.work.dist = from.work.dist;
    w.work.mean_s = static_cast<double>(WrittenDuration(from.work.mean_s)) / kNanosPerSecond;
    w.work.cv = from.work.dist == WorkDistribution::kConstant      ? 0
                : from.work.dist == WorkDistribution::kExponential ? 1
                                                                   : WrittenDecimal(from.work.cv);
  }
  return w;
}

// The fields WriteKube writes, nothing else (sim/io/kube_scenario_fields.h); namespaces DNS
// labels and no object twice, as the reader keys them.
ScenarioKube Converter::Kube(const ScenarioKube& k) const {
  ScenarioKube out;
  ForEachKubeList([&](std::string_view key, auto list) {
    const auto& from = k.*list;
    std::set<std::string> seen;
    for (size_t i = 0; i < from.size(); ++i) {
      auto object = KubeScenarioFields(from[i]);
      const std::string path = "kube." + std::string(key) + "[" + std::to_string(i) + "]";
      std::string id = object.name;
      if constexpr (requires { object.namespace_; }) {
        DnsName(path + ".namespace", object.namespace_);
        id = object.namespace_ + "/" + object.name;
      }
      if (!seen.insert(id).second) Fail(path, "duplicate " + Quote(id));
      (out.*list).push_back(std::move(object));
    }
  });
  return out;
}

Scenario Converter::Convert(const ImportModel& model) const {
  Scenario sc;
  sc.file = file_;
  sc.name = model.name;
  if (sc.name.empty()) Fail("name", "needs a value");
  ReadGpuTypes(model, sc.catalog);
  sc.cluster = Cluster(model);
  std::set<std::string> nodes;
  for (size_t i = 0; i < model.pools.size(); ++i) {
    const std::string path = "node_pools[" + std::to_string(i) + "]";
    NodePool p = Pool(model.pools[i], sc.catalog, path);
    for (const NodePool& other : sc.node_pools)
      if (other.name == p.name) Fail(path + ".name", "duplicate node pool name " + Quote(p.name));
    sc.node_pools.push_back(std::move(p));
  }
  AddMigInstanceTypes(sc);
  for (const NodePool& p : sc.node_pools)
    for (int i = 0; i < p.count; ++i) nodes.insert(PoolNodeName(p, i));
  for (size_t i = 0; i < model.workloads.size(); ++i) {
    const std::string path = "workloads[" + std::to_string(i) + "]";
    Workload w = WorkloadOf(model.workloads[i], nodes, path);
    for (const Workload& other : sc.workloads)
      if (other.name == w.name)
        Fail(path + ".name", "duplicate workload name " + Quote(w.name),
             "variants refer to workloads by name, so names are unique across namespaces");
    sc.workloads.push_back(std::move(w));
  }
  sc.run.duration = WrittenDuration(model.duration_s);
  if (sc.run.duration <= 0) Fail("run.duration", "the run needs a positive duration");
  sc.run.warmup = 0;
  sc.run.seed = 1;
  sc.run.replications = 1;
  sc.kube = Kube(model.kube);
  return sc;
}

}  // namespace

Expected<Scenario> ScenarioFromImport(const ImportModel& model, const std::string& file_name) {
  try {
    return Converter(file_name).Convert(model);
  } catch (const Refused& refused) {
    return refused.error;
  }
}

}  // namespace knobsim
