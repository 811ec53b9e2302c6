#include "sim/import/cluster_import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "models/gpu_catalog.h"
#include "models/memory_isolation.h"
#include "models/work_fit.h"
#include "sim/io/kube_owners.h"

namespace knobsim {

namespace {

std::string Format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> Tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == '-' || c == ' ' || c == '_') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '-'))
      return false;
  return s.front() != '-' && s.back() != '-';
}

// A DNS-1123 label made from any text: lower case, other characters as '-', at most 63.
std::string DnsLabel(std::string_view s) {
  std::string out;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    out.push_back(std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-');
  }
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && out.back() == '-') out.pop_back();
  while (!out.empty() && out.front() == '-') out.erase(out.begin());
  return out.empty() ? "x" : out;
}

// Labels that differ node by node without changing what the scheduler can place: the hostname
// and the zone labels (topology.kubernetes.io/zone and the older or CSI copies of it).
bool IsPerNodeLabel(const std::string& key) {
  if (key == "kubernetes.io/hostname") return true;
  const auto slash = key.rfind('/');
  const std::string last = slash == std::string::npos ? key : key.substr(slash + 1);
  return last == "zone";
}

// Pod labels that name one pod or one revision, never a workload.
bool IsPerPodLabel(const std::string& key) {
  return key == "pod-template-hash" || key == "controller-revision-hash" ||
         key == "statefulset.kubernetes.io/pod-name" || key == "pod-template-generation" ||
         key == "apps.kubernetes.io/pod-index";
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

double MedianStep(const std::vector<double>& times) {
  std::vector<double> d;
  for (size_t i = 1; i < times.size(); ++i) d.push_back(times[i] - times[i - 1]);
  return Median(d);
}

// Mean per bin of `bin` seconds from `start` (NaN where a bin has no sample).
std::vector<double> Bin(const std::vector<double>& times, const std::vector<double>& values,
                        double start, double bin, int bins) {
  std::vector<double> sum(bins, 0), n(bins, 0);
  for (size_t i = 0; i < times.size() && i < values.size(); ++i) {
    if (!std::isfinite(values[i])) continue;
    const double k = std::floor((times[i] - start) / bin);
    if (k < 0 || k >= bins) continue;
    sum[static_cast<size_t>(k)] += values[i];
    n[static_cast<size_t>(k)] += 1;
  }
  std::vector<double> out(bins, std::numeric_limits<double>::quiet_NaN());
  for (int k = 0; k < bins; ++k)
    if (n[k] > 0) out[k] = sum[k] / n[k];
  return out;
}

std::string Mib(double mib) { return Format("%.0f MiB", mib); }

std::string Seconds(double s) {
  if (s >= 1) return Format("%.4g s", s);
  return Format("%.4g ms", s * 1000);
}

}  // namespace

const std::vector<std::string_view> kModelAwareHttpPaths = {
    "/v1/models",        // OpenAI-compatible servers (vLLM, TGI): lists loaded models
    "/v1/models/*",      // TF Serving model status, KServe v1 model readiness
    "/v2/health/ready",  // KServe v2 / Triton: every model ready
    "/v2/models/*",      // KServe v2 / Triton: one model ready
    "/health/ready",     // Triton-style aliases
    "/ready",            // TGI-style; llama.cpp server
};

Expected<ProbeRule> ParseProbeRule(std::string_view text) {
  auto fail = [&](std::string message, std::string hint) -> Expected<ProbeRule> {
    InputError e;
    e.path = "--probe-rule";
    e.message = "\"" + std::string(text) + "\" " + message;
    e.hint = std::move(hint);
    return e;
  };
  const auto eq = text.find('=');
  if (eq == std::string_view::npos)
    return fail("has no `=`", "write [NAMESPACE/]NAME=tcp or [NAMESPACE/]NAME=model");
  const std::string_view who = text.substr(0, eq), kind = text.substr(eq + 1);
  ProbeRule rule;
  if (kind == "tcp") {
    rule.probe = ReadinessKind::kTcp;
  } else if (kind == "model") {
    rule.probe = ReadinessKind::kModel;
  } else {
    return fail("names no probe kind", "the kind after `=` is tcp or model");
  }
  const auto slash = who.find('/');
  if (slash != std::string_view::npos) {
    rule.ns = std::string(who.substr(0, slash));
    rule.name = std::string(who.substr(slash + 1));
  } else {
    rule.name = std::string(who);
  }
  if (rule.name.empty() || rule.ns.empty() || rule.name.find('/') != std::string::npos)
    return fail("names no workload", "write [NAMESPACE/]NAME=KIND, e.g. ai-infer/ocr=tcp or *=model");
  return rule;
}

Expected<IsolationRule> ParseIsolationRule(std::string_view text) {
  auto fail = [&](std::string message, std::string hint) -> Expected<IsolationRule> {
    InputError e;
    e.path = "--isolation";
    e.message = "\"" + std::string(text) + "\" " + message;
    e.hint = std::move(hint);
    return e;
  };
  const auto eq = text.find('=');
  if (eq == std::string_view::npos)
    return fail("has no `=`", "write POOL=hard or POOL=soft (`*` for every pool)");
  IsolationRule rule;
  rule.pool = std::string(text.substr(0, eq));
  const std::string_view mode = text.substr(eq + 1);
  if (mode == "hard") {
    rule.isolation = MemoryIsolation::kHard;
  } else if (mode == "soft") {
    rule.isolation = MemoryIsolation::kSoft;
  } else {
    return fail("names no isolation", "the value after `=` is hard or soft");
  }
  if (rule.pool.empty()) return fail("names no pool", "write POOL=hard|soft, e.g. gpu-l20-1=soft or *=hard");
  return rule;
}

ReadinessKind ClassifyProbe(const Probe& probe, std::string* why) {
  auto say = [&](std::string text, ReadinessKind kind) {
    if (why) *why = std::move(text);
    return kind;
  };
  switch (probe.kind) {
    case ProbeKind::kNone:
      return say("no readiness probe: Ready once the container runs", ReadinessKind::kTcp);
    case ProbeKind::kTcpSocket:
      return say("readiness tcpSocket: port-only", ReadinessKind::kTcp);
    case ProbeKind::kGrpc:
      if (probe.grpc_service.empty())
        return say("readiness grpc without service: the server's health, port-only",
                   ReadinessKind::kTcp);
      return say("readiness grpc service " + probe.grpc_service + ": model-aware",
                 ReadinessKind::kModel);
    case ProbeKind::kExec:
      return say("readiness exec " + probe.exec_command + ": a command may test the model",
                 ReadinessKind::kModel);
    case ProbeKind::kHttpGet: {
      std::string path = probe.http_path.empty() ? "/" : probe.http_path;
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      for (std::string_view p : kModelAwareHttpPaths) {
        const bool prefix = p.back() == '*';
        const std::string_view stem = prefix ? p.substr(0, p.size() - 1) : p;
        if (prefix ? (path.size() > stem.size() && path.compare(0, stem.size(), stem) == 0)
                   : path == stem)
          return say("readiness httpGet " + path + ": a model-aware path", ReadinessKind::kModel);
      }
      return say("readiness httpGet " + path + ": not a model-aware path, port-only",
                 ReadinessKind::kTcp);
    }
  }
  return ReadinessKind::kModel;
}

std::string GpuCatalogKey(std::string_view nvidia_name) {
  std::vector<std::string> t = Tokens(Upper(nvidia_name));
  t.erase(std::remove_if(t.begin(), t.end(),
                         [](const std::string& s) {
                           return s == "NVIDIA" || s == "TESLA" || s == "GEFORCE";
                         }),
          t.end());
  if (t.empty()) return "";
  auto has = [&](std::string_view what) { return std::find(t.begin(), t.end(), what) != t.end(); };
  const std::string& model = t.front();
  if (model == "L20") return "L20";
  if (model == "T4") return "T4";
  if (model == "A10") return "A10";
  if (model == "H100") return "H100";
  if (model == "H200") return "H200";
  if (model == "A100") return has("80GB") || has("80G") ? "A100-80G" : "A100-40G";
  if (model == "V100") return has("32GB") || has("32G") ? "V100-32G" : "V100-16G";
  return "";
}

GpuMemoryFit FitGpuMemory(double peak_mib, double rest_mib, int64_t context_mib, int concurrency) {
  GpuMemoryFit fit;
  const double ctx = static_cast<double>(context_mib);
  fit.weights_mib = static_cast<int64_t>(std::floor(std::max(0.0, rest_mib - ctx)));
  const double left = peak_mib - ctx - static_cast<double>(fit.weights_mib);
  fit.activation_mib =
      static_cast<int64_t>(std::ceil(std::max(0.0, left) / std::max(1, concurrency) - 1e-9));
  return fit;
}

TrafficCurve DownsampleTraffic(const std::vector<double>& times, const std::vector<double>& rates,
                               double start, double end, double piece_s, double flat_cv) {
  TrafficCurve curve;
  const int bins = std::max(1, static_cast<int>(std::ceil((end - start) / piece_s - 1e-9)));
  std::vector<double> mean = Bin(times, rates, start, piece_s, bins);
  double sum = 0;
  for (int k = 0; k < bins; ++k) {
    const double r = std::isfinite(mean[k]) ? mean[k] : 0;
    curve.pieces.push_back({static_cast<SimTime>(std::llround(k * piece_s)) * kNanosPerSecond, r});
    sum += r;
  }
  curve.mean = sum / bins;
  double var = 0;
  for (const RatePoint& p : curve.pieces) var += (p.rate - curve.mean) * (p.rate - curve.mean);
  const double sd = std::sqrt(var / bins);
  curve.flat = curve.mean <= 0 || sd <= flat_cv * curve.mean;
  return curve;
}

bool FitEligible(int policy, double switch_overhead, bool exclusive, int pods_on_card) {
  if (exclusive) return true;
  if (policy == 0 || policy == 3) return false;
  if (policy == 5 && switch_overhead > 0) return pods_on_card <= 1;
  return true;
}

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

struct PodPlace {
  std::string node;
  std::vector<int> cards;
};

// Ran healthy in the export: Running, Ready (or not reported), no container OOMKilled, crashed
// with an error or in CrashLoopBackOff. Only such a pod's peak proves the module let it through.
bool RanHealthy(const PodSpec& p, std::string* why) {
  if (p.phase != "Running") {
    *why = "phase " + p.phase;
    return false;
  }
  if (!p.ready_status.empty() && p.ready_status != "True") {
    *why = "not Ready";
    return false;
  }
  for (const ContainerInfo& c : p.containers) {
    for (const std::string* r : {&c.terminated_reason, &c.last_terminated_reason, &c.waiting_reason}) {
      if (*r == "OOMKilled" || *r == "CrashLoopBackOff" || *r == "Error") {
        *why = "container " + c.name + " " + *r;
        return false;
      }
    }
  }
  return true;
}

// Rules 2-4 of ImportCluster's memory isolation, on the pools rule 1 left hard.
void DecideIsolation(ImportModel& model, const KubeObjects& objects, const Metrics* metrics,
                     const ImportOptions& options,
                     const std::map<PodKey, std::pair<int, int>>& pod_index,
                     const std::map<int, PodPlace>& place,
                     const std::map<std::string, const NodeSpec*>& node_by_name,
                     const GpuCatalog& catalog) {
  std::map<std::string, int> pool_of_node;
  for (size_t i = 0; i < model.pools.size(); ++i)
    for (const ImportedNode& n : model.pools[i].nodes) pool_of_node[n.name] = static_cast<int>(i);
  auto card_mib = [&](const std::string& gpu) -> int64_t {
    if (const GpuType* t = catalog.Find(gpu)) return t->memory_mib;
    for (const ImportedGpuType& t : model.gpu_types)
      if (t.type.name == gpu) return t.type.memory_mib;
    return 0;
  };
  if (metrics) {
    for (const PodMemoryPeak& m : metrics->pod_memory) {
      auto at = pod_index.find(m.pod);
      if (at == pod_index.end()) continue;
      auto pl = place.find(at->second.second);
      if (pl == place.end()) continue;
      const PodSpec& pod = objects.pods[at->second.second];
      const int pi = pool_of_node.at(pl->second.node);
      ImportedPool& pool = model.pools[pi];
      if (!pool.pool.cgpu_active || pod.whole_gpus > 0 || pod.gpu_mem <= 0) continue;
      int card = -1;
      if (!m.card.gpu.empty())
        std::from_chars(m.card.gpu.data(), m.card.gpu.data() + m.card.gpu.size(), card);
      if (card < 0 && pl->second.cards.size() == 1) card = pl->second.cards.front();
      int units = pod.gpu_mem / std::max(1, pod.gpu_count);
      if (auto u = pod.allocated_mem.find(card); u != pod.allocated_mem.end()) units = u->second;
      const int64_t mib = card_mib(pool.pool.gpu_type);
      const NodeSpec* node = node_by_name.at(pl->second.node);
      const int card_units = node->card_mem_units > 0 ? node->card_mem_units : CardMemoryUnits(mib);
      const int64_t quota = VisibleQuotaMib(mib, units, card_units);
      if (quota <= 0 || m.peak_mib <= static_cast<double>(quota) * (1 + options.over_quota_margin))
        continue;
      std::string why;
      if (!RanHealthy(pod, &why)) {
        model.warnings.push_back("pod " + m.pod.ToString() + " peaked at " + Mib(m.peak_mib) +
                                 " over its quota " + Mib(static_cast<double>(quota)) + " but " +
                                 why + ": not counted as evidence of soft isolation");
        continue;
      }
      pool.over_quota.push_back({m.pod.ns, m.pod.pod, pl->second.node, card, m.peak_mib, quota});
    }
  }
  for (ImportedPool& pool : model.pools) {
    NodePool& np = pool.pool;
    if (np.gpu_type.empty() || !np.cgpu_active) continue;
    const auto& bad = options.cgpu_no_isolation_versions;
    if (!np.cgpu_version.empty() && std::find(bad.begin(), bad.end(), np.cgpu_version) != bad.end()) {
      np.isolation = MemoryIsolation::kSoft;
      pool.isolation_notes.push_back("memory isolation soft: rule 2, node label " +
                                     options.cgpu_version_label + "=" + np.cgpu_version +
                                     " is a cGPU release without memory isolation "
                                     "(--cgpu-no-isolation-versions)");
    } else if (!pool.over_quota.empty()) {
      np.isolation = MemoryIsolation::kSoft;
      pool.isolation_notes.push_back(
          "memory isolation soft: rule 3, " + std::to_string(pool.over_quota.size()) +
          " pod(s) ran healthy above their cGPU quota, so the module does not enforce it (the "
          "buggy-module incident; --isolation " + np.name + "=hard to assume a fixed one):");
    } else {
      np.isolation = MemoryIsolation::kHard;
      pool.isolation_notes.push_back(
          std::string("memory isolation hard: rule 4, cGPU runs and ") +
          (metrics ? "no pod's measured peak is above its quota" : "no metrics to say otherwise"));
    }
    for (const OverQuotaPod& q : pool.over_quota)
      pool.isolation_notes.push_back(
          "  " + q.ns + "/" + q.pod + " on " + q.node +
          (q.card >= 0 ? " gpu" + std::to_string(q.card) : std::string()) + ": peak " +
          Mib(q.peak_mib) + " > quota " + Mib(static_cast<double>(q.quota_mib)) + " (" +
          Format("%.0f %%", 100 * q.peak_mib / static_cast<double>(q.quota_mib)) + ")");
  }
}

}  // namespace

std::optional<InputError> ApplyIsolationRules(ImportModel& model,
                                              const std::vector<IsolationRule>& rules) {
  for (const IsolationRule& r : rules) {
    const std::string text =
        r.pool + "=" + (r.isolation == MemoryIsolation::kHard ? "hard" : "soft");
    auto fail = [&](std::string message, std::string hint) {
      InputError e;
      e.path = "--isolation";
      e.message = "\"" + text + "\" " + message;
      e.hint = std::move(hint);
      return e;
    };
    bool matched = false;
    std::string names;
    for (ImportedPool& pool : model.pools) {
      NodePool& np = pool.pool;
      if (!np.gpu_type.empty()) names += (names.empty() ? "" : ", ") + np.name;
      if (r.pool != "*" && r.pool != np.name) continue;
      matched = true;
      if (np.gpu_type.empty()) {
        if (r.pool == "*") continue;
        return fail("names a pool without GPUs", "pools with GPUs: " + names);
      }
      if (r.isolation == MemoryIsolation::kHard && !np.cgpu_active) {
        if (r.pool == "*") continue;
        return fail("asks hard isolation of a pool without a cGPU module",
                    "hard needs ack.node.gpu.schedule cgpu or core_mem without "
                    "cgpu.disable.isolation=true");
      }
      np.isolation = r.isolation;
      pool.isolation_notes.push_back("memory isolation overridden by --isolation " + text);
    }
    if (!matched) {
      return fail("names no imported pool", "pools with GPUs: " + names);
    }
  }
  return std::nullopt;
}

namespace {

// A config repository holds Deployments and StatefulSets but not their pods: each owner without
// a pod in the input gets its template pod (KubeObjects::template_pods), pending, so it becomes
// a workload with spec.replicas and no `pods:` (the scheduler places them). Owners that have
// pods, as in a live export, are read from their pods only.
KubeObjects WithTemplatePods(const KubeObjects& exported) {
  KubeObjects objects = exported;
  std::set<std::tuple<std::string, std::string, std::string>> owned;
  for (const OwnedPods& g : GroupPodsByWorkload(exported))
    owned.insert({g.workload.kind, g.workload.ns, g.workload.name});
  for (size_t i = 0; i < exported.template_pods.size(); ++i) {
    const PodSpec& pod = exported.template_pods[i];
    const OwnerReference& owner = pod.owner_references.front();
    if (owned.count({owner.kind, pod.namespace_, owner.name})) continue;
    objects.pods.push_back(pod);
    objects.pod_sources.push_back(i < exported.template_pod_sources.size()
                                      ? exported.template_pod_sources[i]
                                      : ObjectSource{});
  }
  return objects;
}

}  // namespace

ImportModel ImportCluster(const KubeObjects& exported, const Metrics* metrics,
                          const ImportOptions& options) {
  const KubeObjects objects = WithTemplatePods(exported);
  ImportModel model;
  model.name = options.name;
  model.policy = options.policy;
  model.switch_overhead = options.switch_overhead;
  const GpuCatalog catalog = GpuCatalog::BuiltIn();

  // ---- Nodes -> pools -----------------------------------------------------------------------
  std::map<PoolKey, int> pool_of_key;
  std::map<std::string, int> pool_of_node;       // node name -> pool index
  std::map<std::string, std::string> gpu_of_node;  // node name -> catalog key
  std::map<std::string, std::string> unknown_gpus;  // key -> model name
  std::map<std::string, const NodeSpec*> node_by_name;
  // Node label values that pods select nodes by. They are identifiers, whatever they look like:
  // `alibabacloud.com/nodepool-id: np933b39b9...` reads like a blob to LooksLikeSecret, and
  // dropping it from the pool while the pods' nodeSelector keeps it left them no node at all.
  std::set<std::pair<std::string, std::string>> selected;
  for (const PodSpec& p : objects.pods) {
    for (const auto& [k, v] : p.node_selector) selected.emplace(k, v);
    auto add = [&](const std::vector<NodeSelectorRequirement>& term) {
      for (const NodeSelectorRequirement& r : term)
        for (const std::string& v : r.values) selected.emplace(r.key, v);
    };
    for (const auto& term : p.node_affinity.required_terms) add(term);
    for (const auto& pref : p.node_affinity.preferred) add(pref.expressions);
  }
  std::set<std::string> dropped_node_labels;
  for (const NodeSpec& node : objects.nodes) {
    node_by_name[node.name] = &node;
    PoolKey key;
    std::string gpu;
    if (node.gpu_cards > 0) {
      gpu = GpuCatalogKey(node.gpu_model);
      if (gpu.empty()) {
        gpu = DnsLabel(node.gpu_model.empty() ? "unknown-gpu" : node.gpu_model);
        if (!unknown_gpus.count(gpu)) {
          ImportedGpuType t;
          t.type.name = gpu;
          int64_t mib = 0;
          auto it = node.labels.find("aliyun.accelerator/nvidia_mem");
          if (it != node.labels.end()) std::from_chars(it->second.data(), it->second.data() + it->second.size(), mib);
          std::string from = "from node label aliyun.accelerator/nvidia_mem";
          if (mib <= 0) {
            mib = int64_t{std::max(1, node.card_mem_units)} * 1024;
            from = "from gpu-mem capacity per card x 1024 (no aliyun.accelerator/nvidia_mem)";
          }
          t.type.memory_mib = mib;
          t.type.speed = 1.0;
          t.type.interconnect = "pcie";
          t.note = "\"" + node.gpu_model + "\" is not in the catalog: memory " + from +
                   "; speed 1.0 (default: the A10's, set it from a benchmark)";
          model.gpu_types.push_back(t);
          unknown_gpus[gpu] = node.gpu_model;
        }
      }
    }
    key.gpu = gpu;
    key.cards = node.gpu_cards;
    key.cpu = Get(node.allocatable, "cpu");
    key.memory = Get(node.allocatable, "memory");
    key.pods = Get(node.allocatable, "pods");
    for (const auto& [k, v] : node.labels) {
      if (IsPerNodeLabel(k)) continue;
      if (LooksLikeSecret(k, v) && !selected.count({k, v})) {
        dropped_node_labels.insert(k);
        continue;
      }
      key.labels[k] = v;
    }
    for (const Taint& t : node.taints) key.taints.emplace_back(t.key, t.value, t.effect);
    std::sort(key.taints.begin(), key.taints.end());
    key.schedule = node.gpu_cards > 0 ? node.gpu_schedule : "";
    key.placement = node.placement;
    key.max_pod = node.max_pods_per_card;
    key.unschedulable = node.unschedulable;
    auto [it, fresh] = pool_of_key.emplace(key, static_cast<int>(model.pools.size()));
    if (fresh) {
      ImportedPool p;
      NodePool& np = p.pool;
      np.gpu_type = gpu;
      np.gpus_per_node = node.gpu_cards;
      np.cpu_milli = key.cpu;
      np.memory_mib = key.memory / (1024 * 1024);  // floor: never more than the node has
      np.pods = static_cast<int>(key.pods);
      np.labels = key.labels;
      auto inst = node.labels.find("node.kubernetes.io/instance-type");
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
      if (node.gpu_cards > 0) {
        std::string sched = node.gpu_schedule.empty() ? "default" : node.gpu_schedule;
        if (sched != "default" && sched != "share" && sched != "cgpu" && sched != "core_mem") {
          model.warnings.push_back("node " + node.name + ": ack.node.gpu.schedule=" + sched +
                                   " is not simulated; its pool is imported as exclusive cards "
                                   "(default)");
          sched = "default";
        }
        np.labels["ack.node.gpu.schedule"] = sched;
        np.schedule = ScheduleOf(sched);
        const bool disabled = node.labels.count("cgpu.disable.isolation") &&
                              node.labels.at("cgpu.disable.isolation") == "true";
        np.cgpu_active = (sched == "cgpu" || sched == "core_mem") && !disabled;
        // Rule 1 here; rules 2-4 once every node and pod is known (DecideIsolation below).
        np.isolation = np.cgpu_active ? MemoryIsolation::kHard : MemoryIsolation::kSoft;
        if (!np.cgpu_active)
          p.isolation_notes.push_back(
              disabled ? "memory isolation soft: rule 1, cgpu.disable.isolation=true (the device "
                         "plugin sets CGPU_DISABLE)"
                       : "memory isolation soft: rule 1, no cGPU module (schedule " + sched + ")");
        p.notes.push_back("gpu " + gpu + " from node label aliyun.accelerator/nvidia_name \"" +
                          node.gpu_model + "\"; " + std::to_string(node.gpu_cards) +
                          " cards from capacity");
        p.notes.push_back("schedule " + sched + " from ack.node.gpu.schedule" +
                          (node.labels.count("ack.node.gpu.schedule") ? "" : " (absent: default)"));
        p.notes.push_back(std::string("placement ") +
                          (node.placement.empty() ? "binpack (label absent: the cluster default)"
                                                  : node.placement + " from ack.node.gpu.placement"));
      } else {
        np.schedule = GpuSchedule::kDefault;
        np.cgpu_active = false;
        np.isolation = MemoryIsolation::kSoft;
      }
      if (node.unschedulable)
        model.warnings.push_back("node " + node.name +
                                 " is cordoned (spec.unschedulable); the scenario has no key for "
                                 "it, so its pool is schedulable");
      model.pools.push_back(std::move(p));
    }
    ImportedPool& pool = model.pools[it->second];
    ImportedNode n;
    n.name = node.name;
    for (const auto& [k, v] : node.labels) {
      if (!IsPerNodeLabel(k) || k == "kubernetes.io/hostname") continue;
      if (k == "topology.kubernetes.io/zone") n.zone = v;
      else n.labels[k] = v;
    }
    pool.nodes.push_back(std::move(n));
    pool_of_node[node.name] = it->second;
    gpu_of_node[node.name] = gpu;
  }
  for (const std::string& k : dropped_node_labels)
    model.warnings.push_back("node label " + k +
                             " looks like a credential and no pod selects by it; not written");
  // Pool names: gpu-<type> / cpu, numbered when several pools share one.
  {
    std::map<std::string, int> seen, total;
    for (const ImportedPool& p : model.pools)
      ++total[p.pool.gpu_type.empty() ? "cpu" : "gpu-" + DnsLabel(p.pool.gpu_type)];
    for (ImportedPool& p : model.pools) {
      const std::string base = p.pool.gpu_type.empty() ? "cpu" : "gpu-" + DnsLabel(p.pool.gpu_type);
      const int k = ++seen[base];
      p.pool.name = total[base] > 1 ? base + "-" + std::to_string(k) : base;
      p.pool.count = static_cast<int>(p.nodes.size());
    }
  }

  // ---- Pods -> workloads -------------------------------------------------------------------
  std::vector<std::string> owner_warnings;
  std::vector<OwnedPods> groups = GroupPodsByWorkload(objects, &owner_warnings);
  // A template pod names its Deployment directly (no ReplicaSet between): its replicas.
  for (OwnedPods& g : groups) {
    if (g.spec_replicas >= 0 || g.workload.kind != "Deployment") continue;
    for (const DeploymentSpec& d : objects.deployments)
      if (d.namespace_ == g.workload.ns && d.name == g.workload.name) g.spec_replicas = d.replicas;
  }
  for (auto& w : owner_warnings) model.warnings.push_back(std::move(w));
  std::map<std::string, int> name_count;
  for (const OwnedPods& g : groups) ++name_count[g.workload.name];

  std::map<PodKey, std::pair<int, int>> pod_index;  // -> (workload, pod index in objects)
  std::map<int, PodPlace> place;                    // pod index -> where it runs
  std::map<std::pair<std::string, int>, std::vector<int>> card_pods;  // (node, card) -> pods
  int finished = 0;

  for (const OwnedPods& g : groups) {
    std::vector<int> live;
    for (int i : g.pods) {
      const PodSpec& p = objects.pods[i];
      if (p.phase == "Succeeded" || p.phase == "Failed") {
        ++finished;
        continue;
      }
      live.push_back(i);
    }
    if (live.empty()) continue;
    ImportedWorkload iw;
    iw.kind = g.workload.kind;
    iw.owner = g.workload.name;
    Workload& w = iw.spec;
    std::string name = name_count[g.workload.name] > 1 ? g.workload.ns + "-" + g.workload.name
                                                       : g.workload.name;
    w.name = IsDnsLabel(name) ? name : DnsLabel(name);
    if (w.name != name) iw.notes[""] = "named from \"" + name + "\" (not a DNS label)";
    w.namespace_ = g.workload.ns;
    // The representative: the first pod that is bound, else the first.
    int rep = live.front();
    for (int i : live)
      if (!objects.pods[i].node_name.empty()) {
        rep = i;
        break;
      }
    const PodSpec& p = objects.pods[rep];
    const int wi = static_cast<int>(model.workloads.size());
    if (g.spec_replicas >= 0) {
      w.replicas = g.spec_replicas;
      iw.notes["replicas"] = "spec.replicas of the " + g.workload.kind;
    } else {
      w.replicas = static_cast<int>(live.size());
      iw.notes["replicas"] = "pods in the export (" + g.workload.kind + ")";
    }
    for (const auto& [k, v] : p.labels) {
      if (IsPerPodLabel(k)) continue;
      if (LooksLikeSecret(k, v)) {
        model.warnings.push_back("workload " + w.namespace_ + "/" + w.name + ": label " + k +
                                 " looks like a credential; not written");
        continue;
      }
      w.labels[k] = v;
    }
    w.node_selector = p.node_selector;
    // matchFields metadata.name pins a DaemonSet pod to its node; the `pods:` list does that.
    for (const auto& term : p.node_affinity.required_terms) {
      std::vector<NodeSelectorRequirement> kept;
      for (const auto& r : term)
        if (r.key != "metadata.name") kept.push_back(r);
      if (!kept.empty()) w.node_affinity.required_terms.push_back(std::move(kept));
      else if (!term.empty()) iw.notes["pods"] = "pinned by matchFields metadata.name; kept through pods:";
    }
    w.node_affinity.preferred = p.node_affinity.preferred;
    w.tolerations = p.tolerations;
    for (const TopologySpreadConstraint& c : p.topology_spread) {
      const auto& e = c.label_selector.match_expressions;
      if (c.label_selector.match_labels.empty() && e.size() == 1 && e[0].key.empty()) {
        iw.notes["topology_spread"] = "a constraint without labelSelector matches no pod; left out";
        continue;
      }
      w.topology_spread.push_back(c);
    }
    w.priority = p.priority;
    // What the checks read: the owner kind, the images (and their size from the node's image
    // list, for pull time after a reset), a Deployment's claims, and the backup markers only —
    // other annotations may hold tokens (last-applied-configuration holds whole manifests).
    w.kind = g.workload.kind;
    for (const ContainerInfo& c : p.containers) {
      if (c.image.empty()) continue;
      w.images.push_back(c.image);
      const auto node = node_by_name.find(p.node_name);
      if (node == node_by_name.end()) continue;
      for (const ContainerImage& im : node->second->images) {
        if (std::find(im.names.begin(), im.names.end(), c.image) != im.names.end()) {
          w.image_size_mib += (im.size_bytes + (1 << 20) - 1) >> 20;
          break;
        }
      }
    }
    if (w.kind != "StatefulSet") w.volumes = p.pvc_claims;
    for (const std::string& key : options.backup_annotations) {
      if (auto a = p.annotations.find(key); a != p.annotations.end() && !LooksLikeSecret(key, a->second))
        w.annotations[key] = a->second;
    }
    w.cpu_milli = Get(p.requests, "cpu");
    w.memory_mib = (Get(p.requests, "memory") + (1 << 20) - 1) >> 20;
    w.whole_gpus = p.whole_gpus;
    if (p.whole_gpus == 0) {
      w.gpu_mem = p.gpu_mem;
      w.gpu_count = std::max(1, p.gpu_count);
      w.gpu_core = p.gpu_core / w.gpu_count;
    }
    // Probe: the GPU container's, else the first container with one.
    const ContainerInfo* probed = nullptr;
    for (size_t c = 0; c < p.containers.size(); ++c) {
      const bool gpu = c < p.container_gpus.size() && p.container_gpus[c].gpu_mem > 0;
      if (gpu && !probed) probed = &p.containers[c];
    }
    for (const ContainerInfo& c : p.containers)
      if (!probed && c.readiness.kind != ProbeKind::kNone) probed = &c;
    std::string why;
    w.probe = ClassifyProbe(probed ? probed->readiness : Probe{}, &why);
    for (const ProbeRule& r : options.probe_rules) {
      if ((r.ns == "*" || r.ns == w.namespace_) && (r.name == "*" || r.name == iw.owner)) {
        w.probe = r.probe;
        why = "--probe-rule " + r.ns + "/" + r.name;
      }
    }
    iw.notes["probe"] = why;
    for (int i : live) {
      const PodSpec& q = objects.pods[i];
      pod_index[PodKey{q.namespace_, q.name}] = {wi, i};
      if (q.node_name.empty()) continue;
      if (!pool_of_node.count(q.node_name)) {
        model.warnings.push_back("pod " + q.namespace_ + "/" + q.name + " is bound to node " +
                                 q.node_name + ", absent from the export; left to the scheduler");
        continue;
      }
      PodPlace& pl = place[i];
      pl.node = q.node_name;
      std::set<int> cards;
      for (const auto& [card, units] : q.allocated_mem) cards.insert(card);
      for (const auto& [card, units] : q.allocated_core) cards.insert(card);
      pl.cards.assign(cards.begin(), cards.end());
      for (int c : pl.cards) card_pods[{q.node_name, c}].push_back(i);
    }
    model.workloads.push_back(std::move(iw));
  }
  if (finished > 0)
    model.warnings.push_back(std::to_string(finished) +
                             " Succeeded or Failed pods occupy nothing; left out");

  // ---- Metrics ------------------------------------------------------------------------------
  std::vector<std::string>& defaults = model.defaults;
  if (metrics) {
    model.duration_s = std::max(1.0, options.window_end - options.window_start);
    for (const std::string& n : metrics->notes) model.header.push_back("metrics: " + n);
    for (const std::string& w : metrics->warnings) model.warnings.push_back(w);
    std::set<PodKey> unknown;
    auto known = [&](const PodKey& k) {
      if (pod_index.count(k)) return true;
      unknown.insert(k);
      return false;
    };
    // Whole-GPU pods (and others without allocation annotations) take their cards from the
    // DCGM labels of the card's series.
    std::map<int, std::set<int>> dcgm_cards;
    for (const CardUtilization& cu : metrics->cards) {
      int gpu = -1;
      std::from_chars(cu.card.gpu.data(), cu.card.gpu.data() + cu.card.gpu.size(), gpu);
      if (gpu < 0 || !pool_of_node.count(cu.card.node)) continue;
      for (const PodKey& k : cu.pods) {
        if (!known(k)) continue;
        const int i = pod_index[k].second;
        auto pl = place.find(i);
        if (pl == place.end() || pl->second.node != cu.card.node || !pl->second.cards.empty())
          continue;
        dcgm_cards[i].insert(gpu);
      }
    }
    for (auto& [i, cards] : dcgm_cards) {
      place[i].cards.assign(cards.begin(), cards.end());
      for (int c : cards) card_pods[{place[i].node, c}].push_back(i);
    }

    // Memory: the pod with the highest peak gives the workload's.
    std::vector<const PodMemoryPeak*> peak(model.workloads.size(), nullptr);
    for (const PodMemoryPeak& m : metrics->pod_memory) {
      if (!known(m.pod)) continue;
      const int wi = pod_index[m.pod].first;
      if (!peak[wi] || m.peak_mib > peak[wi]->peak_mib) peak[wi] = &m;
    }
    for (size_t wi = 0; wi < model.workloads.size(); ++wi) {
      ImportedWorkload& iw = model.workloads[wi];
      const bool gpu = iw.spec.gpu_mem > 0 || iw.spec.whole_gpus > 0;
      if (!gpu) continue;
      if (!peak[wi]) {
        iw.notes["gpu_memory"] = "default: no per-pod memory metric (weights 0, activation 0)";
        defaults.push_back("gpu_memory of " + iw.spec.namespace_ + "/" + iw.spec.name);
        for (const CardTotalMemory& t : metrics->card_totals)
          for (const PodKey& k : t.pods)
            if (pod_index.count(k) && pod_index[k].first == static_cast<int>(wi))
              iw.notes["gpu_memory"] += "; card " + t.card.ToString() + " total peak " +
                                        Mib(t.peak_mib) + " over " + std::to_string(t.pods.size()) +
                                        " pods";
        continue;
      }
      const PodMemoryPeak& m = *peak[wi];
      int64_t context = 0;
      const auto pl = place.find(pod_index[m.pod].second);
      if (pl != place.end()) {
        if (const GpuType* t = catalog.Find(gpu_of_node[pl->second.node])) context = t->context_mib;
      }
      const GpuMemoryFit fit = FitGpuMemory(m.peak_mib, m.mean_mib, context, iw.spec.concurrency);
      iw.spec.memory.weights_mib = fit.weights_mib;
      iw.spec.memory.activation_mib = fit.activation_mib;
      iw.has_memory = true;
      iw.notes["gpu_memory"] = "window peak of " + m.source + ": " + Mib(m.peak_mib) +
                               " (" + m.pod.pod + "), mean " + Mib(m.mean_mib) + "; weights = mean - context " +
                               std::to_string(context) + " MiB, activation = the rest at concurrency " +
                               std::to_string(iw.spec.concurrency);
    }

    // Traffic: the pods' rates summed per piece.
    const double start = options.window_start, end = options.window_end;
    std::vector<std::vector<const PodRate*>> rates(model.workloads.size());
    std::map<int, const PodRate*> rate_of_pod;
    for (const PodRate& r : metrics->rates) {
      if (!known(r.pod)) continue;
      rates[pod_index[r.pod].first].push_back(&r);
      rate_of_pod[pod_index[r.pod].second] = &r;
    }
    for (size_t wi = 0; wi < model.workloads.size(); ++wi) {
      ImportedWorkload& iw = model.workloads[wi];
      if (rates[wi].empty()) continue;
      TrafficCurve sum;
      for (const PodRate* r : rates[wi]) {
        TrafficCurve c = DownsampleTraffic(r->times, r->rate, start, end, options.piece_s, 0);
        if (sum.pieces.empty()) sum.pieces = c.pieces;
        else
          for (size_t k = 0; k < sum.pieces.size(); ++k) sum.pieces[k].rate += c.pieces[k].rate;
      }
      std::vector<double> t, v;
      for (const RatePoint& rp : sum.pieces) {
        t.push_back(start + static_cast<double>(rp.at) / kNanosPerSecond);
        v.push_back(rp.rate);
      }
      TrafficCurve curve = DownsampleTraffic(t, v, start, end, options.piece_s, options.flat_cv);
      iw.has_traffic = true;
      if (curve.flat) {
        iw.spec.traffic.kind = ArrivalKind::kPoisson;
        iw.spec.traffic.rate = curve.mean;
        iw.notes["traffic"] = "mean of the request rate over the window (" +
                              std::to_string(rates[wi].size()) + " pods); flat within " +
                              Format("%.0f", options.flat_cv * 100) + " %: Poisson";
      } else {
        iw.spec.traffic.kind = ArrivalKind::kPiecewise;
        iw.spec.traffic.pieces = curve.pieces;
        iw.notes["traffic"] = "request rate summed over " + std::to_string(rates[wi].size()) +
                              " pods, mean per " + Seconds(options.piece_s) + " piece; mean " +
                              Format("%.4g/s", curve.mean);
      }
    }

    // Work per request: NNLS over the cards where busy is linear in the rates.
    // Rows are means over fit_bin_s (at least the coarsest series' step): rate samples carry
    // Poisson noise, and noise in a regressor biases least squares low (errors in variables);
    // averaging keeps the equation exact, since busy is linear in the rates.
    double step = options.fit_bin_s;
    for (const CardUtilization& cu : metrics->cards) step = std::max(step, MedianStep(cu.times));
    for (const PodRate& r : metrics->rates) step = std::max(step, MedianStep(r.times));
    std::vector<int> column(model.workloads.size(), -1);
    std::vector<int> workload_of_column;
    for (size_t wi = 0; wi < model.workloads.size(); ++wi)
      if (!rates[wi].empty()) {
        column[wi] = static_cast<int>(workload_of_column.size());
        workload_of_column.push_back(static_cast<int>(wi));
      }
    std::vector<FitCard> fit_cards;
    std::vector<FitPod> fit_pods;
    std::map<int, int> fit_pod_of;
    std::vector<std::string> left_out;
    if (step > 0 && !workload_of_column.empty()) {
      const int bins = std::max(1, static_cast<int>(std::ceil((end - start) / step - 1e-9)));
      for (const CardUtilization& cu : metrics->cards) {
        int gpu = -1;
        std::from_chars(cu.card.gpu.data(), cu.card.gpu.data() + cu.card.gpu.size(), gpu);
        if (!pool_of_node.count(cu.card.node)) {
          model.warnings.push_back("metrics for card " + cu.card.ToString() +
                                   " on a node absent from the export; not used");
          continue;
        }
        const auto& pods = card_pods[{cu.card.node, gpu}];
        bool exclusive = false;
        for (int i : pods) exclusive = exclusive || objects.pods[i].whole_gpus > 0;
        const std::string cname = cu.card.node + "/gpu" + cu.card.gpu;
        if (!FitEligible(options.policy, options.switch_overhead, exclusive,
                         static_cast<int>(pods.size()))) {
          left_out.push_back(cname);
          continue;
        }
        FitCard fc;
        fc.name = cname;
        if (const GpuType* t = catalog.Find(gpu_of_node[cu.card.node])) fc.speed = t->speed;
        fc.busy = Bin(cu.times, cu.busy, start, step, bins);
        for (int i : pods) {
          auto r = rate_of_pod.find(i);
          if (r == rate_of_pod.end()) continue;  // no requests measured: assumed idle
          auto [it, fresh] = fit_pod_of.emplace(i, static_cast<int>(fit_pods.size()));
          if (fresh) {
            FitPod fp;
            fp.workload = column[pod_index[PodKey{objects.pods[i].namespace_, objects.pods[i].name}].first];
            fp.rate = Bin(r->second->times, r->second->rate, start, step, bins);
            for (double& x : fp.rate)
              if (!std::isfinite(x)) x = 0;  // no sample: the pod was not serving
            fit_pods.push_back(std::move(fp));
          }
          fc.pods.push_back(it->second);
        }
        fit_cards.push_back(std::move(fc));
      }
    }
    const std::string policy_text = "POLICY " + std::to_string(options.policy) +
                                    (options.policy == 5 ? Format(", switch overhead %g", options.switch_overhead) : "");
    if (!fit_cards.empty()) {
      WorkFitResult fit = FitWorkPerRequest(fit_cards, fit_pods,
                                            static_cast<int>(workload_of_column.size()));
      model.fit_report.push_back("work per request: NNLS over " + std::to_string(fit_cards.size()) +
                                 " cards, " + std::to_string(fit.rows) + " samples of " +
                                 Seconds(step) + ", R² " + Format("%.4f", fit.r2) +
                                 (fit.converged ? "" : " (did not converge)"));
      if (!left_out.empty())
        model.fit_report.push_back(std::to_string(left_out.size()) + " shared cards left out: under " + policy_text +
                                   " busy is not linear in the rates there");
      for (const auto& c : fit.cards)
        model.fit_report.push_back("  " + c.name + ": RMSE " + Format("%.4f", c.rmse) +
                                   ", mean busy measured " + Format("%.3f", c.mean_measured) +
                                   " fitted " + Format("%.3f", c.mean_fitted) +
                                   (c.saturated ? ", " + std::to_string(c.saturated) + " saturated samples left out" : ""));
      for (const std::string& n : fit.notes) model.fit_report.push_back("  note: " + n);
      for (size_t col = 0; col < workload_of_column.size(); ++col) {
        ImportedWorkload& iw = model.workloads[workload_of_column[col]];
        if (fit.identified[col] && std::isfinite(fit.work_s[col]) && fit.work_s[col] > 0) {
          iw.spec.work.mean_s = fit.work_s[col];
          iw.has_work = true;
          iw.notes["work"] = "fitted (NNLS, " + policy_text + "): busy = Σ rate × work / speed" +
                             (std::isfinite(fit.workloads[col].std_error_s)
                                  ? ", std error " + Seconds(fit.workloads[col].std_error_s)
                                  : "");
        }
      }
    } else if (!workload_of_column.empty()) {
      model.fit_report.push_back("work per request: no card to fit (" +
                                 std::to_string(left_out.size()) + " left out under " +
                                 policy_text + ", or no utilization metric)");
    }
    for (const std::string& line : model.fit_report) model.header.push_back(line);
    for (ImportedWorkload& iw : model.workloads) {
      if (iw.has_traffic && !iw.has_work) {
        iw.spec.work.mean_s = options.default_work_s;
        iw.has_work = true;
        iw.notes["work"] = "default " + Seconds(options.default_work_s) +
                           ": not identified by the fit (no fitted card, or collinear)";
        defaults.push_back("work of " + iw.spec.namespace_ + "/" + iw.spec.name);
      }
    }
    if (!unknown.empty())
      model.warnings.push_back(std::to_string(unknown.size()) +
                               " pods in the metrics are not in the export (e.g. " +
                               unknown.begin()->ToString() + "); their series are not used");
    if (metrics->rates.empty())
      defaults.push_back("traffic and work of every workload (no --rate-metric series)");
  } else {
    defaults.push_back("traffic of every workload: none (no metrics)");
    defaults.push_back("work of every workload: 10ms exponential (the reader's default)");
    defaults.push_back("gpu_memory of every GPU workload: weights 0, activation 0 (no metrics)");
    for (ImportedWorkload& iw : model.workloads) {
      iw.notes["traffic"] = "default: no metrics, no traffic";
      if (iw.spec.gpu_mem > 0 || iw.spec.whole_gpus > 0)
        iw.notes["gpu_memory"] = "default: no metrics (weights 0, activation 0)";
    }
  }

  DecideIsolation(model, objects, metrics, options, pod_index, place, node_by_name, catalog);

  // Pods: where each replica runs now.
  for (const auto& entry : pod_index) {
    const auto& wp = entry.second;
    auto pl = place.find(wp.second);
    if (pl == place.end()) continue;
    ImportedPod ip;
    ip.name = objects.pods[wp.second].name;
    ip.node = pl->second.node;
    ip.cards = pl->second.cards;
    // A running pod that is not Ready (an etcd member catching up) stays so in the scenario:
    // its disruption budget counts it unhealthy (`ready: false`, docs/scenario.md).
    const PodSpec& exported = objects.pods[wp.second];
    ip.ready = !(exported.phase == "Running" && exported.ready_status == "False");
    model.workloads[wp.first].pods.push_back(std::move(ip));
  }
  for (ImportedWorkload& iw : model.workloads)
    std::sort(iw.pods.begin(), iw.pods.end(),
              [](const ImportedPod& a, const ImportedPod& b) { return a.name < b.name; });

  // ---- The objects the checks read (the scenario's `kube:` section) ---------------------------
  model.kube.pdbs = objects.pdbs;
  model.kube.stateful_sets = objects.stateful_sets;
  model.kube.pvcs = objects.pvcs;
  model.kube.pvs = objects.pvs;
  model.kube.storage_classes = objects.storage_classes;
  model.kube.resource_quotas = objects.resource_quotas;
  if (!objects.skipped_kinds.empty()) {
    std::string kinds;
    for (const auto& [k, n] : objects.skipped_kinds)
      kinds += (kinds.empty() ? "" : ", ") + k + " " + std::to_string(n);
    model.header.push_back("kinds knobsim does not use, skipped: " + kinds);
  }
  if (!objects.jobs.empty())
    model.header.push_back("jobs: " + std::to_string(objects.jobs.size()) + " (read only for pod ownership)");
  return model;
}

}  // namespace knobsim
