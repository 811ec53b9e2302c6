#include "sim/import/scenario_writer.h"

#include "sim/import/scenario_writer_internal.h"

#include "sim/mig_layout.h"
#include "sim/quantity.h"
#include "sim/text.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace knobsim {

using writer_internal::List;
using writer_internal::Map;
using writer_internal::Out;
using writer_internal::Requirement;
using writer_internal::Selector;
using writer_internal::Terms;
using writer_internal::WriteKube;

namespace {

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string TrimZeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// An inter-pod affinity term's keys, in the scenario's spelling (docs/scenario.md).
std::string PodAffinityTermText(const PodAffinityTerm& t) {
  std::string e = "topology_key: " + YamlScalar(t.topology_key) +
                  ", label_selector: " + Selector(t.label_selector);
  if (!t.namespaces.empty()) e += ", namespaces: " + List(t.namespaces);
  if (t.namespace_selector) e += ", namespace_selector: " + Selector(*t.namespace_selector);
  if (!t.match_label_keys.empty()) e += ", match_label_keys: " + List(t.match_label_keys);
  if (!t.mismatch_label_keys.empty()) e += ", mismatch_label_keys: " + List(t.mismatch_label_keys);
  return e;
}

std::string Note(const ImportedWorkload& w, const std::string& key) {
  auto it = w.notes.find(key);
  return it == w.notes.end() ? "" : it->second;
}

// Impossible evidence about `key` (CheckEvidence), as warnings above it.
void Evidence(Out& o, int indent, const ImportedWorkload& w, const std::string& key) {
  auto it = w.evidence.find(key);
  if (it == w.evidence.end()) return;
  for (const std::string& line : it->second) o.Comment(indent, "warning: " + line);
}

void WritePool(Out& o, const ImportedPool& ip) {
  const NodePool& p = ip.pool;
  for (const std::string& n : ip.notes) o.Comment(2, n);
  for (const std::string& line : ip.evidence) o.Comment(2, "warning: " + line);
  o.Line(2, "- name: " + YamlScalar(p.name));
  o.Line(4, "count: " + std::to_string(p.count));
  if (!p.gpu_type.empty()) {
    o.Line(4, "gpu: " + YamlScalar(p.gpu_type));
    o.Line(4, "gpus_per_node: " + std::to_string(p.gpus_per_node));
  }
  if (!p.instance_type.empty()) o.Line(4, "instance_type: " + YamlScalar(p.instance_type));
  o.Line(4, "cpu: " + ScenarioCpu(p.cpu_milli), "allocatable");
  o.Line(4, "memory: " + ScenarioMemory(p.memory_mib), "allocatable, whole MiB");
  o.Line(4, "pods: " + std::to_string(p.pods));
  if (!p.labels.empty()) {
    o.Line(4, "labels:");
    for (const auto& [k, v] : p.labels) o.Line(6, YamlScalar(k) + ": " + YamlScalar(v));
  }
  if (!p.taints.empty()) {
    o.Line(4, "taints:");
    for (const Taint& t : p.taints)
      o.Line(6, "- {key: " + YamlScalar(t.key) +
                    (t.value.empty() ? "" : ", value: " + YamlScalar(t.value)) +
                    ", effect: " + t.effect + "}");
  }
  if (!p.cgpu_version.empty()) o.Line(4, "cgpu_version: " + YamlScalar(p.cgpu_version));
  for (const std::string& n : ip.isolation_notes) o.Comment(4, n);
  if (p.dra.enabled) {
    o.Line(4, "dra: " + DraPoolValue(p));
  } else if (p.hami.enabled()) {
    std::string h = "hami: {split_count: " + std::to_string(p.hami.split_count);
    if (p.hami.memory_scaling != 1)
      h += ", memory_scaling: " + ShortestNumber(p.hami.memory_scaling);
    if (p.hami.core_scaling != 1) h += ", core_scaling: " + ShortestNumber(p.hami.core_scaling);
    if (p.hami.core_policy != HamiCorePolicy::kDefault)
      h += std::string(", core_policy: ") + HamiCorePolicyName(p.hami.core_policy);
    o.Line(4, h + "}");
  } else if (p.mig.enabled()) {
    o.Line(4, std::string("mig: {strategy: ") + MigStrategyName(p.mig.strategy) +
                  ", layout: " + MigLayoutString(p.mig.instances) + "}");
  } else if (const DeviceSharing& d = p.device_sharing; d.shared()) {
    o.Line(4, std::string("device_sharing: {strategy: ") + DeviceSharingStrategyName(d.strategy) +
                  ", replicas: " + std::to_string(d.replicas) +
                  ", fail_requests_greater_than_one: " +
                  (d.fail_requests_greater_than_one ? "true" : "false") + ", allocation: " +
                  (d.allocation == ReplicaAllocation::kPacked ? "packed" : "distributed") +
                  (d.renamed ? ", rename_by_default: true" : "") + "}");
  } else if (!p.gpu_type.empty()) {
    o.Line(4, std::string("memory_isolation: ") +
                  (p.isolation == MemoryIsolation::kHard ? "hard" : "soft"));
  }
  o.Line(4, "nodes:");
  for (const ImportedNode& n : ip.nodes) {
    std::string e = "- {name: " + YamlScalar(n.name);
    if (!n.zone.empty()) e += ", zone: " + YamlScalar(n.zone);
    if (!n.labels.empty()) e += ", labels: " + Map(n.labels);
    o.Line(6, e + "}");
  }
}

// `key: [counts]` as one flow list, twenty counts a line: a week at one minute stays a
// readable 504 lines.
void WriteCountList(Out& o, int indent, const std::string& key,
                    const std::vector<int64_t>& values) {
  for (size_t i = 0; i < values.size() || i == 0; i += 20) {
    std::string line = i == 0 ? key + ": [" : "";
    const size_t end = std::min(i + 20, values.size());
    for (size_t k = i; k < end; ++k) {
      if (k > i) line += ", ";
      line += std::to_string(values[k]);
    }
    line += end < values.size() ? "," : "]";
    o.Line(i == 0 ? indent : indent + 2, line);
  }
}

// The workload's traffic: a rate, pieces or recorded counts, with the import's note.
void WriteTraffic(Out& o, const ImportedWorkload& iw) {
  const Workload& w = iw.spec;
  Evidence(o, 4, iw, "traffic");
  if (iw.has_traffic) {
    const Traffic& t = w.traffic;
    if (t.kind == ArrivalKind::kPoisson) {
      o.Line(4, "traffic: {rate: " + ScenarioRate(t.rate) + "}", Note(iw, "traffic"));
    } else if (t.kind == ArrivalKind::kCounts) {
      o.Comment(4, Note(iw, "traffic"));
      o.Line(4, "traffic:");
      o.Line(6, "counts:");
      o.Line(8, "step: " + ScenarioDuration(static_cast<double>(t.counts.step) / kNanosPerSecond));
      if (!t.counts.values.empty() || t.counts.per_pod.empty())
        WriteCountList(o, 8, "values", t.counts.values);
      if (!t.counts.per_pod.empty()) {
        o.Line(8, "per_pod:");
        for (const PodCounts& pod : t.counts.per_pod)
          WriteCountList(o, 10, YamlScalar(pod.pod), pod.values);
      }
    } else {
      o.Comment(4, Note(iw, "traffic"));
      o.Line(4, "traffic:");
      o.Line(6, "piecewise:");
      for (const RatePoint& p : t.pieces)
        o.Line(8, "- {at: " + ScenarioDuration(static_cast<double>(p.at) / kNanosPerSecond) +
                      ", rate: " + ScenarioRate(p.rate) + "}");
    }
  } else if (!Note(iw, "traffic").empty()) {
    o.Comment(4, "traffic: " + Note(iw, "traffic"));
  }
}

// `hpa:` as the scenario reader reads it (docs/autoscaling.md).
void WriteHpa(Out& o, const ImportedWorkload& iw) {
  const Workload& w = iw.spec;
  if (!w.hpa) {
    if (!Note(iw, "hpa").empty()) o.Comment(4, "hpa: " + Note(iw, "hpa"));
    return;
  }
  const HpaSpec& h = *w.hpa;
  o.Line(4, "hpa:", Note(iw, "hpa"));
  if (h.name != w.name) o.Line(6, "name: " + YamlScalar(h.name));
  o.Line(6, "min_replicas: " + std::to_string(h.min_replicas));
  o.Line(6, "max_replicas: " + std::to_string(h.max_replicas));
  o.Line(6, "metrics:");
  for (const HpaMetric& m : h.metrics) o.Line(8, "- " + HpaMetricValue(m));
  if (h.behavior) {
    o.Line(6, "behavior:");
    if (h.behavior->scale_up) o.Line(8, "scale_up: " + HpaRulesValue(*h.behavior->scale_up));
    if (h.behavior->scale_down) o.Line(8, "scale_down: " + HpaRulesValue(*h.behavior->scale_down));
  }
}

// `cron_hpa:` as the scenario reader reads it (docs/autoscaling.md "CronHPA").
void WriteCronHpa(Out& o, const ImportedWorkload& iw) {
  const Workload& w = iw.spec;
  if (!w.cron_hpa) {
    if (!Note(iw, "cron_hpa").empty()) o.Comment(4, "cron_hpa: " + Note(iw, "cron_hpa"));
    return;
  }
  const CronHpaSpec& c = *w.cron_hpa;
  o.Line(4, "cron_hpa:", Note(iw, "cron_hpa"));
  if (c.name != w.name) o.Line(6, "name: " + YamlScalar(c.name));
  o.Line(6, std::string("target: ") +
                (c.target_kind == "HorizontalPodAutoscaler" ? "hpa" : "workload"));
  if (!c.exclude_dates.empty()) {
    std::vector<std::string> dates;
    for (const CronExcludeDate& d : c.exclude_dates) dates.push_back(d.text);
    o.Line(6, "exclude_dates: " + List(dates));
  }
  o.Line(6, "jobs:");
  for (const CronHpaJob& j : c.jobs) {
    o.Line(8, "- {name: " + YamlScalar(j.name) + ", schedule: " + YamlScalar(j.schedule_text) +
                  ", target_size: " + std::to_string(j.target_size) +
                  (j.run_once ? ", run_once: true}" : "}"));
  }
}

// `node_affinity:`: required terms (each a list of requirements) and weighted preferences.
void WriteNodeAffinity(Out& o, const NodeAffinity& a) {
  if (!a.required_terms.empty() || !a.preferred.empty()) {
    o.Line(4, "node_affinity:");
    if (!a.required_terms.empty()) {
      o.Line(6, "required:");
      for (const auto& term : a.required_terms) {
        std::string t = "- [";
        for (size_t i = 0; i < term.size(); ++i) {
          if (i) t += ", ";
          t += Requirement(term[i].key, term[i].op, term[i].values);
        }
        o.Line(8, t + "]");
      }
    }
    if (!a.preferred.empty()) {
      o.Line(6, "preferred:");
      for (const auto& p : a.preferred) {
        std::string t = "- {weight: " + std::to_string(p.weight) + ", match: [";
        for (size_t i = 0; i < p.expressions.size(); ++i) {
          if (i) t += ", ";
          t += Requirement(p.expressions[i].key, p.expressions[i].op, p.expressions[i].values);
        }
        o.Line(8, t + "]}");
      }
    }
  }
}

void WriteTolerations(Out& o, const std::vector<Toleration>& tolerations) {
  if (!tolerations.empty()) {
    o.Line(4, "tolerations:");
    for (const Toleration& t : tolerations) {
      std::string e = "- {";
      std::string sep;
      if (!t.key.empty()) {
        e += "key: " + YamlScalar(t.key);
        sep = ", ";
      }
      e += sep + "operator: " + t.op;
      if (!t.value.empty()) e += ", value: " + YamlScalar(t.value);
      if (!t.effect.empty()) e += ", effect: " + t.effect;
      if (t.toleration_seconds)
        e += ", toleration_seconds: " + std::to_string(*t.toleration_seconds);
      o.Line(6, e + "}");
    }
  }
}

// `topology_spread:`, or the note on why there is none.
void WriteTopologySpread(Out& o, const ImportedWorkload& iw) {
  const Workload& w = iw.spec;
  if (!w.topology_spread.empty()) {
    o.Line(4, "topology_spread:", Note(iw, "topology_spread"));
    for (const TopologySpreadConstraint& c : w.topology_spread) {
      std::string e = "- {max_skew: " + std::to_string(c.max_skew) +
                      ", topology_key: " + YamlScalar(c.topology_key) +
                      ", when_unsatisfiable: " + c.when_unsatisfiable +
                      ", label_selector: " + Selector(c.label_selector);
      if (!c.match_label_keys.empty()) e += ", match_label_keys: " + List(c.match_label_keys);
      if (c.min_domains) e += ", min_domains: " + std::to_string(*c.min_domains);
      if (c.node_affinity_policy != "Honor")
        e += ", node_affinity_policy: " + c.node_affinity_policy;
      if (c.node_taints_policy != "Ignore") e += ", node_taints_policy: " + c.node_taints_policy;
      o.Line(6, e + "}");
    }
  } else if (!Note(iw, "topology_spread").empty()) {
    o.Comment(4, "topology_spread: " + Note(iw, "topology_spread"));
  }
}

void WriteHostPorts(Out& o, const std::vector<HostPort>& host_ports) {
  if (!host_ports.empty()) {
    o.Line(4, "host_ports:");
    for (const HostPort& p : host_ports) {
      std::string e = "- {port: " + std::to_string(p.port);
      if (p.protocol != "TCP") e += ", protocol: " + p.protocol;
      if (p.host_ip != "0.0.0.0") e += ", host_ip: " + YamlScalar(p.host_ip);
      o.Line(6, e + "}");
    }
  }
}

// `pod_affinity:` and `pod_anti_affinity:`, or the note on why one is left out.
void WritePodAffinities(Out& o, const ImportedWorkload& iw) {
  const Workload& w = iw.spec;
  for (const auto& [a, key] : {std::pair{&w.pod_affinity, "pod_affinity"},
                               std::pair{&w.pod_anti_affinity, "pod_anti_affinity"}}) {
    if (a->empty()) {
      if (!Note(iw, key).empty()) o.Comment(4, std::string(key) + ": " + Note(iw, key));
      continue;
    }
    o.Line(4, std::string(key) + ":", Note(iw, key));
    if (!a->required.empty()) o.Line(6, "required:");
    for (const PodAffinityTerm& t : a->required) o.Line(8, "- {" + PodAffinityTermText(t) + "}");
    if (!a->preferred.empty()) o.Line(6, "preferred:");
    for (const WeightedPodAffinityTerm& t : a->preferred) {
      o.Line(8,
             "- {weight: " + std::to_string(t.weight) + ", " + PodAffinityTermText(t.term) + "}");
    }
  }
}

// Priority and requests: cpu, memory, whole cards or the shared card's gpu-mem and gpu-core,
// then the probe and the model's GPU memory.
void WriteResources(Out& o, const ImportedWorkload& iw) {
  const Workload& w = iw.spec;
  if (w.priority != 0) o.Line(4, "priority: " + std::to_string(w.priority));
  o.Line(4, "cpu: " + ScenarioCpu(w.cpu_milli), "requests");
  o.Line(4, "memory: " + ScenarioMemory(w.memory_mib));
  if (w.dra.enabled()) {
    const std::string note = Note(iw, "dra");
    o.Line(4, "dra: " + DraAskValue(w.dra),
           !note.empty()  ? note
           : w.dra.shared ? "one ResourceClaim its pods share (GpuConfig sharing)"
                          : "a ResourceClaim per pod, from its template");
  } else if (w.hami.enabled()) {
    // Every amount written: read back, HAMi's webhook defaults would otherwise apply again.
    const HamiRequest& r = w.hami.request;
    std::string h = "hami: {gpus: " + std::to_string(r.vgpus);
    h += r.mem_mib > 0 ? ", gpumem: " + std::to_string(r.mem_mib)
                       : ", gpumem_percentage: " + std::to_string(r.mem_percent);
    h += ", gpucores: " + std::to_string(r.cores);
    const std::pair<const char*, const char*> keys[] = {
        {kHamiNodePolicyAnnotation, "node_policy"},
        {kHamiGpuPolicyAnnotation, "gpu_policy"},
        {kHamiUseTypeAnnotation, "use_gputype"},
        {kHamiNoUseTypeAnnotation, "nouse_gputype"}};
    for (const auto& [annotation, key] : keys) {
      if (auto a = w.hami.annotations.find(annotation); a != w.hami.annotations.end())
        h += std::string(", ") + key + ": " + YamlScalar(a->second);
    }
    o.Line(4, h + "}", "nvidia.com/gpu, gpumem, gpucores (HAMi)");
  } else if (w.whole_gpus > 0 && !w.mig_profile.empty()) {
    o.Line(4, "mig_profile: " + w.mig_profile, std::string(kMigResourcePrefix) + w.mig_profile);
    if (w.whole_gpus > 1) o.Line(4, "whole_gpus: " + std::to_string(w.whole_gpus), "instances");
  } else if (w.whole_gpus > 0 && w.shared_replicas) {
    o.Line(4, std::string("gpu_resource: ") + kSharedGpuResource, "renameByDefault replicas");
    o.Line(4, "whole_gpus: " + std::to_string(w.whole_gpus), kSharedGpuResource);
  } else if (w.whole_gpus > 0) {
    o.Line(4, "whole_gpus: " + std::to_string(w.whole_gpus), kNvidiaGpuResource);
  } else if (w.gpu_mem > 0) {
    o.Line(4, "gpu_mem: " + std::to_string(w.gpu_mem), "aliyun.com/gpu-mem limits, summed");
    if (w.gpu_count > 1)
      o.Line(4, "gpu_count: " + std::to_string(w.gpu_count), "pod label aliyun.com/gpu-count");
    if (w.gpu_core > 0) o.Line(4, "gpu_core: " + std::to_string(w.gpu_core), "per card");
  }
  o.Line(4, std::string("probe: ") + (w.probe == ReadinessKind::kTcp ? "tcp" : "model"),
         Note(iw, "probe"));
  Evidence(o, 4, iw, "gpu_memory");
  if (iw.has_memory) {
    o.Line(4,
           "gpu_memory: {weights: " + ScenarioMemory(w.memory.weights_mib) +
               ", activation: " + ScenarioMemory(w.memory.activation_mib) + "}",
           Note(iw, "gpu_memory"));
  } else if (!Note(iw, "gpu_memory").empty()) {
    o.Comment(4, "gpu_memory: " + Note(iw, "gpu_memory"));
  }
  if (w.gpu_profile) {
    std::string text;
    const GpuProfile& p = *w.gpu_profile;
    for (const auto& [key, value] : {std::pair{"sm_active", p.sm_active},
                                     {"sm_occupancy", p.sm_occupancy},
                                     {"dram_active", p.dram_active},
                                     {"tensor_active", p.tensor_active},
                                     {"gr_engine_active", p.gr_engine_active}})
      if (value)
        text += (text.empty() ? "" : ", ") + std::string(key) + ": " + ScenarioDecimal(*value);
    o.Line(4, "gpu_profile: {" + text + "}", Note(iw, "gpu_profile"));
  } else if (!Note(iw, "gpu_profile").empty()) {
    o.Comment(4, "gpu_profile: " + Note(iw, "gpu_profile"));
  }
}

void WriteSlo(Out& o, const ImportedWorkload& iw) {
  const Workload& w = iw.spec;
  if (iw.has_slo) {
    const std::string budget =
        "error_budget: " + TrimZeros(Fmt("%.4f", w.slo.error_budget * 100)) + "%";
    o.Line(4,
           w.slo.latency > 0
               ? "slo: {latency: " + ScenarioDuration(static_cast<double>(w.slo.latency) / 1e9) +
                     ", percentile: 99, " + budget + "}"
               : "slo: {" + budget + "}",
           Note(iw, "slo"));
  }
}

// `pods:`: where each current replica runs, its cards and readiness.
void WriteCurrentPods(Out& o, const ImportedWorkload& iw) {
  if (!iw.pods.empty()) {
    o.Line(4, "pods:", Note(iw, "pods").empty() ? "where each replica runs now" : Note(iw, "pods"));
    for (const ImportedPod& p : iw.pods) {
      std::string e = "- {name: " + YamlScalar(p.name) + ", node: " + YamlScalar(p.node);
      if (!p.cards.empty()) {
        e += ", cards: [";
        for (size_t i = 0; i < p.cards.size(); ++i) {
          if (i) e += ", ";
          e += std::to_string(p.cards[i]);
        }
        e += "]";
      }
      if (!p.ready) e += ", ready: false";
      o.Line(6, e + "}");
    }
  }
}

void WriteWorkload(Out& o, const ImportedWorkload& iw) {
  const Workload& w = iw.spec;
  o.Comment(2, iw.kind + " " + w.namespace_ + "/" + iw.owner);
  if (!Note(iw, "").empty()) o.Comment(2, Note(iw, ""));
  o.Line(2, "- name: " + YamlScalar(w.name));
  o.Line(4, "namespace: " + YamlScalar(w.namespace_));
  o.Line(4, "replicas: " + std::to_string(w.replicas), Note(iw, "replicas"));
  if (w.kind != "Deployment") o.Line(4, "kind: " + w.kind);
  if (!w.images.empty()) o.Line(4, "images: " + List(w.images));
  if (w.image_size_mib > 0)
    o.Line(4, "image_size: " + ScenarioMemory(w.image_size_mib), "from the node's image list");
  if (!w.annotations.empty()) o.Line(4, "annotations: " + Map(w.annotations));
  if (!w.volumes.empty()) o.Line(4, "volumes: " + List(w.volumes));
  if (!w.labels.empty()) o.Line(4, "labels: " + Map(w.labels));
  if (!w.node_selector.empty()) o.Line(4, "node_selector: " + Map(w.node_selector));
  WriteNodeAffinity(o, w.node_affinity);
  WriteTolerations(o, w.tolerations);
  WriteTopologySpread(o, iw);
  WriteHostPorts(o, w.host_ports);
  WritePodAffinities(o, iw);
  WriteResources(o, iw);
  WriteTraffic(o, iw);
  if (iw.has_work) o.Line(4, "work: " + ScenarioWork(w.work), Note(iw, "work"));
  WriteSlo(o, iw);
  WriteHpa(o, iw);
  WriteCronHpa(o, iw);
  Evidence(o, 4, iw, "pods");
  WriteCurrentPods(o, iw);
}

}  // namespace

std::string ScenarioMemory(int64_t mib) {
  if (mib == 0) return "0";
  if (mib % 1024 == 0) return std::to_string(mib / 1024) + "Gi";
  return std::to_string(mib) + "Mi";
}

std::string YamlScalar(const std::string& text) {
  bool plain = !text.empty();
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || c == '.' || c == '-' || c == '_' || c == '/')) plain = false;
  }
  if (plain) {
    const unsigned char f = static_cast<unsigned char>(text.front());
    if (!std::isalpha(f)) plain = false;  // numbers, ".5", "-x", "/x"
    std::string lower;
    for (char c : text)
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    for (const char* word :
         {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "nan", "inf"})
      if (lower == word) plain = false;
  }
  if (plain) return text;
  std::string out = "\"";
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

const char* WorkDistName(WorkDistribution dist) {
  switch (dist) {
    case WorkDistribution::kConstant:
      return "constant";
    case WorkDistribution::kExponential:
      return "exponential";
    case WorkDistribution::kLognormal:
      return "lognormal";
    case WorkDistribution::kGamma:
      return "gamma";
  }
  return "exponential";
}

std::string ScenarioWork(const WorkModel& work) {
  std::string s =
      std::string("{dist: ") + WorkDistName(work.dist) + ", mean: " + ScenarioDuration(work.mean_s);
  if (work.dist == WorkDistribution::kLognormal || work.dist == WorkDistribution::kGamma)
    s += ", cv: " + ScenarioDecimal(work.cv);
  return s + "}";
}

std::string ScenarioDuration(double seconds) {
  if (!(seconds > 0)) return "0";
  const double r = std::round(seconds);
  if (std::fabs(seconds - r) < 1e-9 && r >= 1) {
    const long long s = static_cast<long long>(r);
    if (s % 3600 == 0) return std::to_string(s / 3600) + "h";
    if (s % 60 == 0) return std::to_string(s / 60) + "m";
    return std::to_string(s) + "s";
  }
  if (seconds >= 1) return TrimZeros(Fmt("%.4f", seconds)) + "s";
  if (seconds >= 1e-3) return TrimZeros(Fmt("%.4g", seconds * 1e3)) + "ms";
  if (seconds >= 1e-6) return TrimZeros(Fmt("%.4g", seconds * 1e6)) + "us";
  return std::to_string(std::max(1LL, std::llround(seconds * 1e9))) + "ns";
}

std::string ScenarioRate(double per_s) {
  if (!(per_s > 0)) return "0";
  const int digits = std::max(0, 5 - static_cast<int>(std::floor(std::log10(per_s))));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", std::min(digits, 12), per_s);
  return TrimZeros(buf) + "/s";
}

std::string ScenarioCpu(int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

std::string ScenarioDecimal(double v) {
  return TrimZeros(Fmt("%.6f", v));
}

std::string WriteScenarioYaml(const ImportModel& m) {
  Out o;
  o.Comment(0,
            m.name + ".yaml: an exported cluster, written by `knobsim import` (docs/import.md).");
  o.Comment(0, "Every imported number says where it came from; `default` marks what the export");
  o.Comment(0, "did not tell. Node pools group identical nodes; `pods:` lists where each replica");
  o.Comment(0, "runs now, so a run with no knob changed starts from the exported placement.");
  for (const std::string& h : m.header) o.Comment(0, h);
  o.Line(0, "name: " + YamlScalar(m.name));
  if (!m.evidence.empty()) {
    o.Comment(0,
              "What this was imported from, by name: a `knobsim backtest` of the same export and");
    o.Comment(0,
              "metrics is found by it, and whatif and plan print its scores (docs/backtest.md).");
    o.Line(0, "evidence: " + m.evidence);
  }
  o.Blank();
  o.Comment(
      0, "The cGPU POLICY is not in the export: --policy (default 5, ACK's native time-slicing)");
  o.Comment(0, "and --switch-overhead (default 0, the linear model the work fit assumes).");
  o.Line(0, "cluster: {policy: " + std::to_string(m.policy) + ", switch_overhead: " +
                ScenarioDecimal(m.switch_overhead) + ", default_placement: binpack}");
  if (!m.gpu_types.empty()) {
    o.Blank();
    o.Line(0, "gpu_types:");
    for (const ImportedGpuType& t : m.gpu_types) {
      o.Comment(2, t.note);
      o.Line(2,
             "- {name: " + YamlScalar(t.type.name) +
                 ", memory: " + std::to_string(t.type.memory_mib) + "Mi, speed: 1.0}",
             "default speed");
    }
  }
  o.Blank();
  o.Line(0, m.pools.empty() ? "node_pools: []" : "node_pools:");
  for (const ImportedPool& p : m.pools) WritePool(o, p);
  o.Blank();
  o.Line(0, m.workloads.empty() ? "workloads: []" : "workloads:");
  for (size_t i = 0; i < m.workloads.size(); ++i) {
    if (i) o.Blank();
    WriteWorkload(o, m.workloads[i]);
  }
  o.Blank();
  if (!m.run_note.empty()) o.Comment(0, m.run_note);
  o.Comment(0, "Pods are running already: no warm-up.");
  std::string start;
  if (m.cron_hpa_start && m.start_unix_s) {
    o.Comment(0, "start: the metrics window's start, the wall clock the CronHPA jobs fire on.");
    start = ", start: \"" + Rfc3339(static_cast<double>(*m.start_unix_s)) + "\"";
  }
  o.Line(0, "run: {duration: " + ScenarioDuration(m.duration_s) + ", warmup: 0, seed: 1" + start +
                "}");
  if (!m.kube.empty()) {
    o.Blank();
    WriteKube(o, m.kube);
  }
  return o.str();
}

}  // namespace knobsim
