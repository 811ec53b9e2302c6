#include "sim/check/check_input.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "sim/import/imported_scenario.h"
#include "sim/io/kube_owners.h"
#include "sim/scenario_objects.h"

namespace knobsim {
namespace {

bool IsCgpuSchedule(const std::string& s) {
  return s == "cgpu" || s == "core_mem";
}

std::string MibText(double mib) {
  return std::to_string(static_cast<int64_t>(std::llround(mib))) + " MiB";
}

// The container whose readiness decides fake Ready: the first that asks for GPU memory.
const ContainerInfo* GpuContainer(const PodSpec& pod) {
  for (size_t i = 0; i < pod.containers.size(); ++i)
    if (i < pod.container_gpus.size() && pod.container_gpus[i].gpu_mem > 0)
      return &pod.containers[i];
  return pod.containers.empty() ? nullptr : &pod.containers.front();
}

// Keeps the entry with the largest peak / quota of a pod.
void KeepWorst(PodGpuMemory* have, const PodGpuMemory& next) {
  auto ratio = [](const PodGpuMemory& m) {
    return m.quota_mib > 0 ? m.peak_mib / static_cast<double>(m.quota_mib) : 0.0;
  };
  if (!have->known || ratio(next) > ratio(*have)) *have = next;
}

}  // namespace

int UnitsForPeak(double peak_mib, int64_t card_mib, int card_units) {
  for (int u = 1; u <= card_units; ++u)
    if (static_cast<double>(VisibleQuotaMib(card_mib, u, card_units)) >= peak_mib) return u;
  return card_units + 1;
}

Metrics PodMemoryMetrics(std::span<const PromResult> results, double window_start,
                         double window_end) {
  // ACK's process metric wins for the pods that have it; FB_USED speaks for the others
  // (the rule `knobsim import` applies, docs/import.md).
  Metrics metrics = InterpretPodMemoryMetrics(results, MetricNames{}, window_start, window_end);
  std::sort(metrics.pod_memory.begin(), metrics.pod_memory.end(),
            [](const PodMemoryPeak& a, const PodMemoryPeak& b) {
              return std::tie(a.pod, a.card) < std::tie(b.pod, b.card);
            });
  for (const PromResult& r : results)
    metrics.warnings.insert(metrics.warnings.end(), r.warnings.begin(), r.warnings.end());
  return metrics;
}

namespace {

// Each exported node with the pool and isolation the import gives it; a label-listed release
// lacks isolation on this node even where the pool was decided otherwise (the import reads the
// label alone; the annotation is ours).
void NodesFromExport(const KubeObjects& objects, const ImportModel& model,
                     const CheckInputOptions& options, CheckInput& in) {
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  auto card_mib = [&](const std::string& gpu) -> int64_t {
    if (const GpuType* t = catalog.Find(gpu)) return t->memory_mib;
    for (const ImportedGpuType& t : model.gpu_types)
      if (t.type.name == gpu) return t.type.memory_mib;
    return 0;
  };
  std::map<std::string, const ImportedPool*> pool_of_node;
  for (const ImportedPool& p : model.pools)
    for (const ImportedNode& n : p.nodes) pool_of_node[n.name] = &p;
  for (const NodeSpec& n : objects.nodes) {
    CheckNode c;
    c.name = n.name;
    c.schedule = n.gpu_schedule.empty() ? "default" : n.gpu_schedule;
    c.cgpu_module = IsCgpuSchedule(c.schedule);
    auto off = n.labels.find(kCgpuDisableIsolationLabel);
    c.isolation_label_off = off != n.labels.end() && off->second == "true";
    if (auto v = n.labels.find(options.cgpu_version_label); v != n.labels.end()) {
      c.cgpu_version = v->second;
    } else if (auto a = n.annotations.find(options.cgpu_version_label); a != n.annotations.end()) {
      c.cgpu_version = a->second;
    }
    if (auto p = pool_of_node.find(n.name); p != pool_of_node.end()) {
      const ImportedPool& pool = *p->second;
      c.pool = pool.pool.name;
      c.gpu_type = pool.pool.gpu_type;
      c.isolation = pool.pool.isolation;
      if (!pool.isolation_notes.empty()) c.isolation_why = pool.isolation_notes.front();
    }
    c.card_mib = card_mib(c.gpu_type);
    c.card_units = n.card_mem_units > 0 ? n.card_mem_units
                                        : (c.card_mib > 0 ? CardMemoryUnits(c.card_mib) : 0);
    const auto& bad = options.cgpu_no_isolation_versions;
    if (c.cgpu_module && !c.cgpu_version.empty() &&
        std::find(bad.begin(), bad.end(), c.cgpu_version) != bad.end() &&
        c.isolation == MemoryIsolation::kHard) {
      c.isolation = MemoryIsolation::kSoft;
      c.isolation_why = "cGPU " + c.cgpu_version + " is a release without memory isolation";
    }
    in.nodes.push_back(std::move(c));
  }
}

// Each exported pod with its workload (through its owners) and its probe's reading.
void PodsFromExport(const KubeObjects& objects, CheckInput& in) {
  std::map<std::string, const DeploymentSpec*> deployments;
  for (const DeploymentSpec& d : objects.deployments) deployments[d.namespace_ + "/" + d.name] = &d;
  in.pods.resize(objects.pods.size());
  for (size_t i = 0; i < objects.pods.size(); ++i) in.pods[i].spec = objects.pods[i];
  for (const OwnedPods& g : GroupPodsByWorkload(objects, &in.warnings)) {
    for (int i : g.pods) {
      CheckPod& p = in.pods[static_cast<size_t>(i)];
      p.workload_kind = g.workload.kind;
      p.workload = g.workload.kind == "Pod" ? std::string() : g.workload.name;
      p.workload_key = g.workload.kind == "Pod"
                           ? std::string()
                           : g.workload.kind + "/" + g.workload.ns + "/" + g.workload.name;
      p.workload_replicas = g.spec_replicas;
      if (g.workload.kind == "Deployment")
        if (auto d = deployments.find(g.workload.ns + "/" + g.workload.name);
            d != deployments.end())
          p.max_surge = d->second->max_surge;
    }
  }
  for (CheckPod& p : in.pods) {
    Probe none;
    const ContainerInfo* c = GpuContainer(p.spec);
    p.probe = ClassifyProbe(c ? c->readiness : none, &p.probe_why);
  }
}

// The measured GPU memory of each shared-GPU pod on a node whose cards are known.
void PeaksFromMetrics(const Metrics& metrics, CheckInput& in) {
  std::map<PodKey, size_t> pod_of;
  for (size_t i = 0; i < in.pods.size(); ++i)
    pod_of[{in.pods[i].spec.namespace_, in.pods[i].spec.name}] = i;
  std::map<std::string, size_t> node_index;
  for (size_t i = 0; i < in.nodes.size(); ++i) node_index[in.nodes[i].name] = i;
  for (const PodMemoryPeak& m : metrics.pod_memory) {
    auto at = pod_of.find(m.pod);
    if (at == pod_of.end()) continue;
    CheckPod& p = in.pods[at->second];
    if (p.spec.gpu_mem <= 0 || p.spec.whole_gpus > 0 || p.spec.node_name.empty()) continue;
    auto ni = node_index.find(p.spec.node_name);
    if (ni == node_index.end()) continue;
    const CheckNode& node = in.nodes[ni->second];
    if (node.card_mib <= 0 || node.card_units <= 0) continue;
    PodGpuMemory g;
    g.known = true;
    g.peak_mib = m.peak_mib;
    g.rest_mib = m.mean_mib;
    if (!m.card.gpu.empty())
      std::from_chars(m.card.gpu.data(), m.card.gpu.data() + m.card.gpu.size(), g.card);
    if (g.card < 0 && p.spec.allocated_mem.size() == 1)
      g.card = p.spec.allocated_mem.begin()->first;
    g.units = p.spec.gpu_mem / std::max(1, p.spec.gpu_count);
    if (auto u = p.spec.allocated_mem.find(g.card); u != p.spec.allocated_mem.end())
      g.units = u->second;
    g.quota_mib = VisibleQuotaMib(node.card_mib, g.units, node.card_units);
    g.source = m.source + ", window peak " + MibText(m.peak_mib) + ", mean " + MibText(m.mean_mib);
    KeepWorst(&p.memory, g);
    in.have_memory = true;
  }
}

}  // namespace

CheckInput CheckInputFromExport(const KubeObjects& objects, const Metrics* metrics,
                                const CheckInputOptions& options) {
  CheckInput in;
  in.origin = "export";
  in.pdbs = objects.pdbs;
  in.stateful_sets = objects.stateful_sets;
  in.pvcs = objects.pvcs;
  in.pvs = objects.pvs;
  in.storage_classes = objects.storage_classes;
  in.resource_quotas = objects.resource_quotas;
  in.warnings = objects.warnings;

  ImportOptions io;
  io.name = "check";
  io.cgpu_version_label = options.cgpu_version_label;
  io.cgpu_no_isolation_versions = options.cgpu_no_isolation_versions;
  io.window_start = options.window_start;
  io.window_end = options.window_end;
  const ImportModel model = ImportCluster(objects, metrics, io);
  in.warnings.insert(in.warnings.end(), model.warnings.begin(), model.warnings.end());

  NodesFromExport(objects, model, options, in);
  PodsFromExport(objects, in);
  if (!metrics) {
    in.memory_source = "no metrics (--prom): peaks unknown";
  } else {
    in.memory_source = "Prometheus";
    PeaksFromMetrics(*metrics, in);
  }

  // The scenario the import writes, as `knobsim run` would read it.
  Expected<Scenario> scenario = ScenarioFromImport(model, "<imported export>");
  if (scenario.ok()) {
    in.scenario = std::move(*scenario);
  } else {
    in.scenario_error = "the export does not import as a scenario: " + scenario.error().ToString();
  }
  return in;
}

namespace {

// The nodes of each pool, with the isolation the pool and the version list give them.
void NodesFromScenario(const Scenario& scenario, const CheckInputOptions& options, CheckInput& in) {
  for (size_t pi = 0; pi < scenario.node_pools.size(); ++pi) {
    const NodePool& pool = scenario.node_pools[pi];
    for (int o = 0; o < pool.count; ++o) {
      const NodeSpec spec = NodeSpecForPool(scenario, static_cast<int>(pi), o);
      CheckNode c;
      c.name = spec.name;
      c.pool = pool.name;
      c.gpu_type = pool.gpu_type;
      if (const GpuType* t =
              pool.gpu_type.empty() ? nullptr : scenario.catalog.Find(pool.gpu_type)) {
        c.card_mib = t->memory_mib;
        c.card_units = CardMemoryUnits(t->memory_mib);
      }
      c.schedule = pool.gpu_type.empty() ? "default" : GpuScheduleLabelValue(pool.schedule);
      c.cgpu_module = !pool.gpu_type.empty() && IsCgpuSchedule(c.schedule);
      auto off = spec.labels.find(kCgpuDisableIsolationLabel);
      c.isolation_label_off = off != spec.labels.end() && off->second == "true";
      c.cgpu_version = pool.cgpu_version;
      if (auto v = spec.labels.find(options.cgpu_version_label);
          v != spec.labels.end() && c.cgpu_version.empty())
        c.cgpu_version = v->second;
      c.isolation = pool.isolation;
      const auto& bad = options.cgpu_no_isolation_versions;
      const bool bad_version = c.cgpu_module && !c.cgpu_version.empty() &&
                               std::find(bad.begin(), bad.end(), c.cgpu_version) != bad.end();
      if (bad_version) c.isolation = MemoryIsolation::kSoft;
      if (!c.cgpu_module) {
        c.isolation_why = "no cGPU module (schedule " + c.schedule + ")";
      } else if (c.isolation_label_off) {
        c.isolation_why = "label cgpu.disable.isolation=true";
      } else if (bad_version) {
        c.isolation_why = "cGPU " + c.cgpu_version + " is a release without memory isolation";
      } else if (c.isolation == MemoryIsolation::kSoft) {
        c.isolation_why = "pool " + pool.name +
                          " has memory_isolation: soft (the module does not enforce quotas)";
      } else {
        c.isolation_why = "cGPU active, memory_isolation hard";
      }
      in.nodes.push_back(std::move(c));
    }
  }
}

// Replica `i` of `w` as a pod: bound where `pods:` says, Running, Ready unless `ready: false`,
// with its images as containers and its claims.
CheckPod ScenarioPod(const Workload& w, int i, const StatefulSetSpec* set) {
  CheckPod p;
  p.spec = PodSpecForWorkload(w, i);
  p.spec.phase = "Running";
  // `ready: false` (docs/scenario.md): running, not Ready, which the disruption budgets count.
  const bool ready = i >= static_cast<int>(w.pods.size()) || w.pods[i].ready;
  p.spec.ready_status = ready ? "True" : "False";
  if (i < static_cast<int>(w.pods.size())) p.spec.node_name = w.pods[i].node;
  p.spec.annotations = w.annotations;
  p.spec.images = w.images;
  for (size_t k = 0; k < std::max<size_t>(1, w.images.size()); ++k) {
    ContainerInfo c;
    c.name = k == 0 ? w.name : w.name + "-" + std::to_string(k);
    if (k < w.images.size()) {
      c.image = w.images[k];
      c.image_digest = c.image.find("@sha256:") != std::string::npos;
    }
    c.ready = ready;
    p.spec.containers.push_back(std::move(c));
  }
  p.spec.pvc_claims = ReplicaClaims(w, set, i);
  p.workload_kind = w.kind;
  p.workload = w.kind == "Pod" ? std::string() : w.name;
  p.workload_key = w.kind == "Pod" ? std::string() : w.kind + "/" + w.namespace_ + "/" + w.name;
  p.workload_replicas = set ? set->replicas : w.replicas;
  p.probe = w.probe;
  p.probe_why = w.probe == ReadinessKind::kTcp ? "scenario probe: tcp (port-only)"
                                               : "scenario probe: model (model-aware)";
  return p;
}

// The simulator's allocation per card (sim/simulation.cpp): context at start, weights at load,
// activation × batch per job, `concurrency` jobs at once. Unknown without a memory model, for
// whole GPUs, or without a card to take the quota from.
PodGpuMemory ModelledMemory(const Workload& w, const CheckNode* node, const GpuCatalog& catalog) {
  PodGpuMemory g;
  const bool modelled = w.memory.weights_mib > 0 || w.memory.activation_mib > 0;
  if (!modelled || w.gpu_mem <= 0 || w.whole_gpus != 0 || !node || node->card_mib <= 0) return g;
  const int m = std::max(1, w.gpu_count);
  const GpuType* t = catalog.Find(node->gpu_type);
  const int64_t context = w.memory.context_mib.value_or(t ? t->context_mib : 0);
  const int64_t weights = (w.memory.weights_mib + m - 1) / m;
  const int64_t activation = (w.memory.activation_mib + m - 1) / m;
  const int jobs = std::max(1, w.concurrency);
  const int batch = std::max(1, w.batching.max_batch);
  g.known = true;
  g.rest_mib = static_cast<double>(context + weights);
  g.peak_mib = static_cast<double>(context + weights + activation * batch * jobs);
  g.units = w.gpu_mem / m;
  g.quota_mib = VisibleQuotaMib(node->card_mib, g.units, node->card_units);
  g.source = "gpu_memory model: context " + std::to_string(context) + " + weights " +
             std::to_string(weights) + " + activation " + std::to_string(activation) +
             (batch > 1 ? " × batch " + std::to_string(batch) : std::string()) + " × " +
             std::to_string(jobs) + " in flight MiB per card" +
             (w.concurrency == 0 ? " (concurrency unlimited, counted as 1)" : "");
  return g;
}

}  // namespace

CheckInput CheckInputFromScenario(const Scenario& scenario, const CheckInputOptions& options) {
  CheckInput in;
  in.origin = "scenario";
  in.pdbs = scenario.kube.pdbs;
  in.stateful_sets = scenario.kube.stateful_sets;
  in.pvcs = scenario.kube.pvcs;
  in.pvs = scenario.kube.pvs;
  in.storage_classes = scenario.kube.storage_classes;
  in.resource_quotas = scenario.kube.resource_quotas;
  in.scenario = scenario;
  NodesFromScenario(scenario, options, in);
  std::map<std::string, size_t> node_index;
  for (size_t i = 0; i < in.nodes.size(); ++i) node_index[in.nodes[i].name] = i;

  for (const Workload& w : scenario.workloads) {
    const StatefulSetSpec* set = StatefulSetOf(w, scenario.kube);
    for (int i = 0; i < w.replicas; ++i) {
      CheckPod p = ScenarioPod(w, i, set);
      auto ni = node_index.find(p.spec.node_name);
      const CheckNode* node = ni == node_index.end() ? nullptr : &in.nodes[ni->second];
      if (!node) {
        // Not bound: any node of a GPU pool its selector allows would do; take the first GPU
        // pool's card for the quota (pools in a scenario usually share one GPU type).
        for (const CheckNode& n : in.nodes)
          if (n.card_mib > 0) {
            node = &n;
            break;
          }
      }
      if (PodGpuMemory g = ModelledMemory(w, node, scenario.catalog); g.known) {
        p.memory = g;
        in.have_memory = true;
      }
      in.pods.push_back(std::move(p));
    }
  }
  in.memory_source =
      in.have_memory ? "the scenario's gpu_memory model" : "no workload has a gpu_memory model";
  return in;
}

}  // namespace knobsim
