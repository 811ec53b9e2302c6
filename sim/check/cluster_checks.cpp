#include "sim/check/cluster_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sim/controllers/disruption_budget.h"
#include "sim/engine/simulation.h"
#include "sim/results.h"
#include "sim/text.h"
#include "sim/run_limits.h"
#include "sim/variant.h"

namespace knobsim {

const std::vector<std::string> kCheckIds = {
    "quota-vs-peak",      "port-only-probe", "pdb-blocks-drain", "image-after-reset",
    "pvc-without-backup", "cgpu-isolation",  "quota-headroom"};

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kCritical:
      return "critical";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "info";
}

std::string ObjectRef::ToString() const {
  return kind + " " + (ns.empty() ? name : ns + "/" + name);
}

int CheckReport::Count(Severity s) const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(),
                                        [s](const Finding& f) { return f.severity == s; }));
}

namespace {

std::string Mib(double mib) {
  return std::to_string(static_cast<int64_t>(std::llround(mib))) + " MiB";
}

std::string Clock(SimTime t) {
  const int64_t s = t / kNanosPerSecond;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60),
                static_cast<long long>(s % 60));
  return buf;
}

ObjectRef PodRef(const CheckPod& p) {
  return {"Pod", p.spec.namespace_, p.spec.name};
}
std::string PodName(const CheckPod& p) {
  return p.spec.namespace_ + "/" + p.spec.name;
}

Finding Skipped(const std::string& id, std::string missing) {
  Finding f;
  f.id = id;
  f.severity = Severity::kInfo;
  f.message = "not checked: " + missing;
  f.skipped = std::move(missing);
  return f;
}

// The scenario once with memory isolation hard on every cGPU pool: what the upgraded module
// does to the pods that use more than their quota today.
struct ConsequenceRun {
  bool ran = false;
  std::map<std::string, PodResult> pods;                    // "ns/name" ->
  std::map<std::string, std::vector<ClusterEvent>> events;  // "ns/name" ->
  std::map<std::string, WorkloadResult> workloads;          // "ns/name" of the workload ->
  std::map<std::string, std::string> workload_of_pod;       // "ns/name" -> workload key
};

ConsequenceRun Simulate(const CheckInput& input, const CheckOptions& options, std::string* note) {
  ConsequenceRun run;
  if (!options.simulate) {
    *note = "analytic: the simulation was turned off";
    return run;
  }
  if (!input.scenario) {
    *note = "analytic: " +
            (input.scenario_error.empty() ? std::string("no scenario") : input.scenario_error);
    return run;
  }
  Variant hard;
  hard.name = "isolation-hard";
  hard.memory_isolation["*"] = MemoryIsolation::kHard;
  Scenario s = ApplyVariant(*input.scenario, hard);
  s.variants.clear();
  s.run.duration = options.consequence_duration;
  s.run.warmup = 0;
  s.run.replications = 1;
  // An export too large to simulate (sim/run_limits.h) keeps the analytic answer.
  Sweep sweep;
  sweep.runs.push_back({"", &s});
  if (Status within = CheckRunLimits(sweep, RunLimits{}); !within) {
    *note = "analytic: not simulated, " + within.ToString();
    return run;
  }
  const RunResult r = knobsim::Simulate(s, s.run.seed);
  run.ran = true;
  for (const PodResult& p : r.pods) {
    run.pods[p.namespace_ + "/" + p.name] = p;
    run.workload_of_pod[p.namespace_ + "/" + p.name] = p.namespace_ + "/" + p.workload;
  }
  for (const ClusterEvent& e : r.cluster.events) run.events[e.pod].push_back(e);
  for (const WorkloadResult& w : r.workloads) run.workloads[w.namespace_ + "/" + w.name] = w;
  *note = "simulated: the scenario for " + Clock(s.run.duration) +
          " (min:s) with memory isolation hard on every cGPU pool, seed " +
          std::to_string(s.run.seed);
  return run;
}

// What the upgraded module does to an over-quota pod, by the memory model and the probe kind.
std::string AnalyticConsequence(const CheckPod& p) {
  const PodGpuMemory& m = p.memory;
  const bool at_load = m.rest_mib > static_cast<double>(m.quota_mib);
  std::string text =
      at_load ? "CUDA OOM at load: the model (" + Mib(m.rest_mib) + ") does not fit the quota " +
                    Mib(static_cast<double>(m.quota_mib))
              : "CUDA OOM under load: requests that take it past " +
                    Mib(static_cast<double>(m.quota_mib)) + " fail (peak " + Mib(m.peak_mib) + ")";
  if (at_load) {
    text += p.probe == ReadinessKind::kTcp
                ? "; the port-only readiness probe still passes: fake Ready, every request routed "
                  "to it fails"
                : "; the model-aware readiness probe keeps it unready: it serves nothing";
  }
  return text;
}

void QuotaVsPeak(const CheckInput& in, const CheckOptions& o, const ConsequenceRun& run,
                 const std::map<std::string, const CheckNode*>& nodes, std::vector<Finding>* out) {
  if (!in.have_memory) {
    out->push_back(
        Skipped("quota-vs-peak", in.origin == "export"
                                     ? "no GPU memory metrics (--prom FILE: DCGM_FI_DEV_FB_USED "
                                       "or ACK's process metric over the window)"
                                     : "no workload has a gpu_memory model"));
    return;
  }
  for (const CheckPod& p : in.pods) {
    const PodGpuMemory& m = p.memory;
    if (!m.known || m.quota_mib <= 0) continue;
    const double ratio = m.peak_mib / static_cast<double>(m.quota_mib);
    if (ratio < o.warning_ratio) continue;
    auto n = nodes.find(p.spec.node_name);
    const CheckNode* node = n == nodes.end() ? nullptr : n->second;
    Finding f;
    f.id = "quota-vs-peak";
    f.severity = ratio >= o.critical_ratio ? Severity::kCritical : Severity::kWarning;
    f.objects = {PodRef(p)};
    const int per_card = node ? UnitsForPeak(m.peak_mib, node->card_mib, node->card_units) : 0;
    f.message = "peak GPU memory " + Mib(m.peak_mib) + " is " + Percent(ratio, 0, " %") +
                " of its visible quota " + Mib(static_cast<double>(m.quota_mib)) + " (" +
                std::to_string(m.units) + " GiB" +
                (node ? " of " + std::to_string(node->card_units) + " on " + node->gpu_type
                      : std::string()) +
                (m.card >= 0 ? ", gpu " + std::to_string(m.card) : std::string()) +
                (p.spec.node_name.empty() ? std::string() : ", node " + p.spec.node_name) + "); " +
                m.source;
    if (node && per_card <= node->card_units && ratio >= o.critical_ratio)
      f.message += "; a quota of " + std::to_string(per_card * std::max(1, p.spec.gpu_count)) +
                   " (aliyun.com/gpu-mem) holds the peak";
    else if (node && ratio >= o.critical_ratio)
      f.message += "; not even a whole card holds the peak";
    if (node && !node->cgpu_module) {
      // No cGPU module: the upgrade does not enforce this quota, so it is not critical for it.
      f.severity = Severity::kWarning;
      f.consequence = "none from the upgrade: node " + node->name +
                      " has no cGPU module (schedule " + node->schedule +
                      "), the quota is not enforced there";
      f.consequence_kind = "analytic";
      out->push_back(std::move(f));
      continue;
    }
    if (ratio < o.critical_ratio) {
      f.consequence = "under hard isolation it runs within " +
                      Mib(static_cast<double>(m.quota_mib) - m.peak_mib) + " of CUDA OOM";
      f.consequence_kind = "analytic";
      out->push_back(std::move(f));
      continue;
    }
    const std::string key = PodName(p);
    std::vector<std::string> seen;
    bool failed = false;
    if (run.ran) {
      if (auto r = run.pods.find(key); r != run.pods.end()) {
        seen.push_back("pod " + r->second.state);
        failed = r->second.state != "Running";
      }
      if (auto e = run.events.find(key); e != run.events.end()) {
        for (const ClusterEvent& ev : e->second) {
          seen.push_back(ev.kind + " at " + Clock(ev.time) + " (" + ev.message + ")");
          failed = true;
        }
      }
      if (auto w = run.workload_of_pod.find(key); w != run.workload_of_pod.end()) {
        if (auto wr = run.workloads.find(w->second); wr != run.workloads.end()) {
          const WorkloadResult& r = wr->second;
          if (r.errors.oom > 0 || r.errors.fake_ready > 0) {
            failed = true;
            seen.push_back("workload " + w->second + ": " +
                           std::to_string(r.errors.oom + r.errors.fake_ready) + " of " +
                           std::to_string(r.requests) + " requests failed (CUDA OOM " +
                           std::to_string(r.errors.oom) + ", fake Ready " +
                           std::to_string(r.errors.fake_ready) + ")");
          }
        }
      }
    }
    if (run.ran && failed) {
      f.consequence = Join(seen, "; ");
      f.consequence_kind = "simulated";
    } else {
      f.consequence = AnalyticConsequence(p);
      if (run.ran)
        f.consequence += " (the simulated run showed no failure: " +
                         (seen.empty() ? std::string("pod not simulated") : Join(seen, "; ")) +
                         "; its traffic does not reach the peak)";
      f.consequence_kind = "analytic";
    }
    out->push_back(std::move(f));
  }
}

void PortOnlyProbe(const CheckInput& in, std::vector<Finding>* out) {
  std::map<std::string, Finding> by_workload;  // ordered: deterministic
  for (const CheckPod& p : in.pods) {
    if (!p.UsesGpu() || p.probe != ReadinessKind::kTcp) continue;
    const std::string key = p.workload_key.empty() ? "Pod/" + PodName(p) : p.workload_key;
    Finding& f = by_workload[key];
    if (f.id.empty()) {
      f.id = "port-only-probe";
      f.severity = Severity::kWarning;
      f.message =
          (p.workload_key.empty() ? "pod " + PodName(p)
                                  : p.workload_kind + " " + p.spec.namespace_ + "/" + p.workload) +
          ": " + p.probe_why +
          ". A CUDA OOM at load leaves the port open: the pod turns Ready "
          "(fake Ready) and every request routed to it fails";
      f.consequence =
          "fake Ready instead of unready when the model does not load; a readiness probe "
          "on a model-aware endpoint (e.g. httpGet /v2/health/ready) catches it";
      f.consequence_kind = "analytic";
    }
    f.objects.push_back(PodRef(p));
  }
  for (auto& [key, f] : by_workload) out->push_back(std::move(f));
}

BudgetPod ToBudgetPod(const CheckPod& p) {
  BudgetPod b;
  b.name = p.spec.name;
  b.phase = p.spec.phase;
  b.ready = p.spec.ready_status == "True";
  b.terminating = p.spec.terminating;
  b.controller = p.workload_key;
  b.controller_scale = p.workload_replicas;
  return b;
}

void PdbBlocksDrain(const CheckInput& in, std::vector<Finding>* out) {
  if (in.pdbs.empty()) {
    out->push_back(Skipped("pdb-blocks-drain",
                           "no PodDisruptionBudget in the input (kubectl get pdb -A -o json)"));
    return;
  }
  // Every budget's status first: an eviction consults all budgets that select the pod.
  std::vector<std::vector<size_t>> selected(in.pdbs.size());
  std::vector<BudgetStatus> status(in.pdbs.size());
  for (size_t b = 0; b < in.pdbs.size(); ++b) {
    std::vector<BudgetPod> pods;
    for (size_t i = 0; i < in.pods.size(); ++i) {
      const CheckPod& p = in.pods[i];
      if (p.spec.phase == "Succeeded" || p.spec.phase == "Failed") continue;
      if (!BudgetSelects(in.pdbs[b], p.spec.namespace_, p.spec.labels)) continue;
      selected[b].push_back(i);
      pods.push_back(ToBudgetPod(p));
    }
    status[b] = ComputeBudgetStatus(in.pdbs[b], pods);
  }
  for (size_t b = 0; b < in.pdbs.size(); ++b) {
    const PodDisruptionBudgetSpec& pdb = in.pdbs[b];
    const BudgetStatus& s = status[b];
    if (selected[b].empty()) continue;
    // Per node hosting a selected pod: does its drain wait?
    std::map<std::string, std::vector<std::string>> blocked, free_now;  // node -> reasons
    std::string cause;
    for (size_t i : selected[b]) {
      const CheckPod& p = in.pods[i];
      if (p.spec.node_name.empty()) continue;
      std::vector<MatchingBudget> budgets;
      for (size_t o = 0; o < in.pdbs.size(); ++o)
        if (std::find(selected[o].begin(), selected[o].end(), i) != selected[o].end())
          budgets.push_back({&in.pdbs[o], status[o]});
      const EvictionDecision d = DecideEviction(ToBudgetPod(p), budgets);
      if (d.http_status >= 400) {
        blocked[p.spec.node_name].push_back(p.spec.name + " (" + std::to_string(d.http_status) +
                                            ")");
        if (cause.empty()) cause = d.cause.empty() ? d.message : d.cause;
      } else {
        free_now[p.spec.node_name].push_back(p.spec.name + (p.Ready() ? "" : " (not Ready)"));
      }
    }
    const std::string counts = "expected " + std::to_string(s.expected_pods) +
                               ", desired healthy " + std::to_string(s.desired_healthy) +
                               ", current healthy " + std::to_string(s.current_healthy);
    if (!blocked.empty()) {
      Finding f;
      f.id = "pdb-blocks-drain";
      f.severity = Severity::kCritical;
      f.objects.push_back({"PodDisruptionBudget", pdb.namespace_, pdb.name});
      std::vector<std::string> nodes;
      for (const auto& [node, pods] : blocked) {
        f.objects.push_back({"Node", "", node});
        nodes.push_back(node + " [" + Join(pods) + "]");
      }
      f.message = "allows " + std::to_string(s.disruptions_allowed) + " disruptions now (" +
                  counts + (s.sync_failed ? "; sync failed: " + s.sync_error : std::string()) +
                  "): draining " + Join(nodes) + " waits, the Eviction API answers HTTP 429 (\"" +
                  cause + "\")";
      std::vector<std::string> go;
      for (const auto& [node, pods] : free_now)
        if (!blocked.count(node)) go.push_back(node + " [" + Join(pods) + "]");
      if (!go.empty())
        f.message +=
            "; " + Join(go) + " drains at once (" + pdb.unhealthy_pod_eviction_policy + ")";
      f.consequence =
          "kubectl drain retries every 5 s until the budget allows it (forever without "
          "--timeout): the rolling upgrade stops at the first such node until every "
          "selected pod is Ready again";
      f.consequence_kind = "analytic";
      out->push_back(std::move(f));
    } else if (s.disruptions_allowed > 0) {
      std::set<std::string> hosts;
      for (size_t i : selected[b])
        if (!in.pods[i].spec.node_name.empty() && in.pods[i].Ready())
          hosts.insert(in.pods[i].spec.node_name);
      if (static_cast<int>(hosts.size()) > s.disruptions_allowed) {
        Finding f;
        f.id = "pdb-blocks-drain";
        f.severity = Severity::kInfo;
        f.objects.push_back({"PodDisruptionBudget", pdb.namespace_, pdb.name});
        f.message = "allows " + std::to_string(s.disruptions_allowed) + " disruption" +
                    (s.disruptions_allowed == 1 ? "" : "s") + " now (" + counts + ") over " +
                    std::to_string(hosts.size()) + " nodes: their drains go " +
                    std::to_string(s.disruptions_allowed) +
                    " at a time, each waiting until the "
                    "evicted pod is Ready again elsewhere; while one is unready, draining a node "
                    "with a Ready one waits (429)";
        out->push_back(std::move(f));
      }
    }
  }
}

void ImageAfterReset(const CheckInput& in, const CheckOptions& o, std::vector<Finding>* out) {
  std::map<std::string, std::vector<ObjectRef>> pods_of;  // image -> pods
  for (const CheckPod& p : in.pods)
    for (const ContainerInfo& c : p.spec.containers)
      if (!c.image.empty()) {
        auto& v = pods_of[c.image];
        if (v.empty() || v.back() != PodRef(p)) v.push_back(PodRef(p));
      }
  if (pods_of.empty()) {
    out->push_back(Skipped("image-after-reset", in.origin == "export"
                                                    ? "no container image in the input"
                                                    : "no workload lists its `images`"));
    return;
  }
  for (auto& [image, pods] : pods_of) {
    const ImageRef ref = ParseImageRef(image);
    if (ref.pinned()) continue;
    Finding f;
    f.id = "image-after-reset";
    f.objects = pods;
    if (o.registry_tags && o.registry_tags->Knows(ref.repository) && !o.registry_tags->Has(ref)) {
      f.severity = Severity::kCritical;
      f.message = "image " + image + ": tag " + ref.tag + " no longer exists in " + ref.repository +
                  " (" + o.registry_tags->file + "); the node reset empties the image cache";
      f.consequence = "ImagePullBackOff on the reset node: the pod does not start again";
    } else {
      f.severity = Severity::kWarning;
      f.message =
          "image " + image +
          " is pinned by tag only: the node reset empties the image cache "
          "and the tag is pulled again, whatever it points to then" +
          std::string(o.registry_tags && !o.registry_tags->Knows(ref.repository)
                          ? " (repository not in " + o.registry_tags->file + ": existence unknown)"
                          : "");
      f.consequence =
          "a moved tag runs other code after the upgrade; a deleted one is ImagePullBackOff";
    }
    f.consequence_kind = "analytic";
    out->push_back(std::move(f));
  }
  if (!o.registry_tags)
    out->push_back(Skipped(
        "image-after-reset",
        "whether tags still exist: no --registry-tags FILE (one registry/repository:tag a line)"));
}

void PvcWithoutBackup(const CheckInput& in, const CheckOptions& o, std::vector<Finding>* out) {
  std::map<std::string, const PersistentVolumeClaimSpec*> pvcs;
  for (const PersistentVolumeClaimSpec& c : in.pvcs) pvcs[c.namespace_ + "/" + c.name] = &c;
  std::map<std::string, const PersistentVolumeSpec*> pvs;
  for (const PersistentVolumeSpec& v : in.pvs) pvs[v.name] = &v;
  std::map<std::string, const StorageClassSpec*> classes;
  const StorageClassSpec* default_class = nullptr;
  for (const StorageClassSpec& c : in.storage_classes) {
    classes[c.name] = &c;
    if (c.is_default && !default_class) default_class = &c;
  }
  std::vector<std::string> missing;
  for (const CheckPod& p : in.pods) {
    if (p.spec.pvc_claims.empty()) continue;
    bool marked = false;
    std::string marker;
    for (const std::string& key : o.backup_annotations)
      if (auto a = p.spec.annotations.find(key);
          a != p.spec.annotations.end() && !a->second.empty()) {
        marked = true;
        marker = key;
      }
    for (const std::string& claim : p.spec.pvc_claims) {
      auto c = pvcs.find(p.spec.namespace_ + "/" + claim);
      if (c == pvcs.end()) {
        missing.push_back(p.spec.namespace_ + "/" + claim);
        continue;
      }
      const PersistentVolumeClaimSpec& pvc = *c->second;
      std::string policy, from;
      if (auto v = pvs.find(pvc.volume_name); !pvc.volume_name.empty() && v != pvs.end()) {
        policy = v->second->reclaim_policy;
        from = "PersistentVolume " + v->first;
      } else {
        const StorageClassSpec* sc = nullptr;
        if (pvc.storage_class_name && !pvc.storage_class_name->empty()) {
          if (auto s = classes.find(*pvc.storage_class_name); s != classes.end()) sc = s->second;
        } else if (!pvc.storage_class_name) {
          sc = default_class;
        }
        if (sc) {
          policy = sc->reclaim_policy;
          from = "StorageClass " + sc->name;
        }
      }
      if (policy.empty()) {
        missing.push_back("the volume of " + p.spec.namespace_ + "/" + claim);
        continue;
      }
      if (policy != "Delete" || marked) continue;
      Finding f;
      f.id = "pvc-without-backup";
      f.severity = Severity::kWarning;
      f.objects = {{"PersistentVolumeClaim", pvc.namespace_, pvc.name}, PodRef(p)};
      f.message =
          (p.workload_key.empty() ? "pod " + PodName(p)
                                  : p.workload_kind + " " + p.spec.namespace_ + "/" + p.workload) +
          " keeps its data on claim " + pvc.name + ", reclaim policy Delete (" + from +
          "), and the pod carries no backup marker (" + Join(o.backup_annotations) + ")";
      f.consequence =
          "deleting the claim (recreating the StatefulSet, cleaning up a node's pods) deletes "
          "the volume and its data, with no backup to restore";
      f.consequence_kind = "analytic";
      out->push_back(std::move(f));
    }
  }
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    out->push_back(
        Skipped("pvc-without-backup",
                "reclaim policy unknown for " + Join(missing) +
                    " (no PersistentVolumeClaim / PersistentVolume / StorageClass in the input)"));
  }
}

void CgpuIsolation(const CheckInput& in, const CheckOptions& o, std::vector<Finding>* out) {
  if (in.nodes.empty()) {
    out->push_back(Skipped("cgpu-isolation", "no node in the input"));
    return;
  }
  // Over-quota pods per node, named in the finding of their node's group.
  std::map<std::string, std::vector<ObjectRef>> over;
  for (const CheckPod& p : in.pods)
    if (p.memory.known && p.memory.quota_mib > 0 &&
        p.memory.peak_mib / static_cast<double>(p.memory.quota_mib) >= o.critical_ratio)
      over[p.spec.node_name].push_back(PodRef(p));
  std::map<std::pair<std::string, std::string>, Finding> groups;  // (pool, why) ->
  for (const CheckNode& n : in.nodes) {
    if (!n.cgpu_module) continue;
    if (n.isolation != MemoryIsolation::kSoft && !n.isolation_label_off) continue;
    std::string why = n.isolation_label_off ? "label cgpu.disable.isolation=true" : n.isolation_why;
    while (!why.empty() && (why.back() == ':' || why.back() == ' ')) why.pop_back();
    Finding& f = groups[{n.pool, why}];
    if (f.id.empty()) {
      f.id = "cgpu-isolation";
      f.severity = Severity::kWarning;
      f.message = "memory isolation is off today (" + why + ")";
      f.consequence =
          n.isolation_label_off
              ? "the label keeps isolation off after the module upgrade unless it is removed"
              : "the upgraded module enforces every quota at once: the pods above their quota hit "
                "CUDA OOM (quota-vs-peak)";
      f.consequence_kind = "analytic";
    }
    f.objects.push_back({"Node", "", n.name});
  }
  for (auto& [key, f] : groups) {
    std::vector<ObjectRef> pods;
    for (const ObjectRef& node : f.objects)
      if (auto it = over.find(node.name); it != over.end())
        pods.insert(pods.end(), it->second.begin(), it->second.end());
    f.message += " on " + std::to_string(f.objects.size()) + " node" +
                 (f.objects.size() == 1 ? "" : "s") +
                 (key.first.empty() ? std::string() : " of pool " + key.first);
    if (pods.empty()) {
      f.message +=
          (in.have_memory ? ": no pod runs above its quota there now"
                          : ": over-quota pods would run unnoticed (no memory peaks to name them)");
    } else {
      std::vector<std::string> names;
      for (const ObjectRef& p : pods) names.push_back(p.ns + "/" + p.name);
      f.message += ": over-quota pods run unnoticed: " + Join(names);
      f.objects.insert(f.objects.end(), pods.begin(), pods.end());
    }
    out->push_back(std::move(f));
  }
}

// A quota key's pod amount: `pods` counts pods; requests.X and bare X (cpu, memory and the
// extended resources, whose limits equal requests) the pod's request of X. limits.cpu and
// limits.memory need container limits, which the input does not keep: not judged.
bool QuotaResource(const std::string& key, std::string* resource) {
  if (key == "pods") {
    *resource = "pods";
    return true;
  }
  std::string r = key;
  if (r.rfind("requests.", 0) == 0)
    r = r.substr(9);
  else if (r.rfind("limits.", 0) == 0) {
    r = r.substr(7);
    if (r == "cpu" || r == "memory" || r == "ephemeral-storage") return false;
  }
  if (r == "cpu" || r == "memory" || r.find('/') != std::string::npos) {
    *resource = r;
    return true;
  }
  return false;
}

int64_t PodAmount(const CheckPod& p, const std::string& resource) {
  if (resource == "pods") return 1;
  auto it = p.spec.requests.find(resource);
  return it == p.spec.requests.end() ? 0 : it->second;
}

std::string Amount(const std::string& resource, int64_t v) {
  if (resource == "cpu") return std::to_string(v) + "m";
  if (resource == "memory") return std::to_string(v / (1024 * 1024)) + "Mi";
  return std::to_string(v);
}

void QuotaHeadroom(const CheckInput& in, const CheckOptions& o,
                   const std::map<std::string, const CheckNode*>& nodes,
                   std::vector<Finding>* out) {
  if (in.resource_quotas.empty()) {
    out->push_back(Skipped("quota-headroom",
                           "no ResourceQuota in the input (kubectl get resourcequota -A -o json)"));
    return;
  }
  for (const ResourceQuotaSpec& q : in.resource_quotas) {
    for (const auto& [key, hard] : q.hard) {
      std::string resource;
      if (!QuotaResource(key, &resource)) continue;
      int64_t computed = 0;
      std::map<std::string, int64_t> surge_on;  // node -> Σ of pods a drain recreates early
      int64_t raise = 0, rollout = 0;
      for (const CheckPod& p : in.pods) {
        if (p.spec.namespace_ != q.namespace_ || p.spec.phase == "Succeeded" ||
            p.spec.phase == "Failed")
          continue;
        const int64_t a = PodAmount(p, resource);
        computed += a;
        // Deployment pods are recreated by their ReplicaSet as soon as they are evicted, while the
        // evicted pod still terminates and still counts; a StatefulSet recreates a pod under the
        // same name only after it is gone; DaemonSet pods are not evicted, bare pods not recreated.
        if (!p.spec.node_name.empty() &&
            (p.workload_kind == "Deployment" || p.workload_kind == "ReplicaSet"))
          surge_on[p.spec.node_name] += a;
        if (resource == kGpuMemResource && p.memory.known && p.memory.quota_mib > 0 &&
            p.memory.peak_mib / static_cast<double>(p.memory.quota_mib) >= o.critical_ratio) {
          auto n = nodes.find(p.spec.node_name);
          if (n == nodes.end() || n->second->card_units <= 0) continue;
          const int cards = std::max(1, p.spec.gpu_count);
          const int per_card =
              std::min(UnitsForPeak(p.memory.peak_mib, n->second->card_mib, n->second->card_units),
                       n->second->card_units);
          raise += static_cast<int64_t>(std::max(0, per_card - p.memory.units)) * cards;
          if (p.workload_kind == "Deployment" && p.workload_replicas > 0)
            rollout = std::max<int64_t>(
                rollout, static_cast<int64_t>(p.max_surge.Scaled(p.workload_replicas, true)) *
                             per_card * cards);
        }
      }
      auto u = q.used.find(key);
      const int64_t used = u != q.used.end() ? u->second : computed;
      const std::string used_from = u != q.used.end() ? "status.used" : "summed from the pods";
      int64_t surge = 0;
      std::string surge_node;
      for (const auto& [node, s] : surge_on)
        if (s > surge) {
          surge = s;
          surge_node = node;
        }
      const ObjectRef ref{"ResourceQuota", q.namespace_, q.name};
      if (surge > 0 && used + surge > hard) {
        Finding f;
        f.id = "quota-headroom";
        f.severity = Severity::kWarning;
        f.objects = {ref};
        f.message = key + ": used " + Amount(resource, used) + " (" + used_from + ") + " +
                    Amount(resource, surge) + " for the Deployment pods a drain of " + surge_node +
                    " recreates before the evicted ones "
                    "have terminated > hard " +
                    Amount(resource, hard);
        f.consequence =
            "their replacements are refused (exceeded quota) until the evicted pods are gone: "
            "the workloads run short for the termination grace period of each drain";
        f.consequence_kind = "analytic";
        out->push_back(std::move(f));
      }
      if (raise > 0 && used + raise + rollout > hard) {
        Finding f;
        f.id = "quota-headroom";
        f.severity = Severity::kWarning;
        f.objects = {ref};
        f.message = key + ": raising the over-quota pods to their peaks needs " +
                    std::to_string(raise) + " more, and the rollout surges up to " +
                    std::to_string(rollout) + ": used " + std::to_string(used) + " + " +
                    std::to_string(raise + rollout) + " > hard " + std::to_string(hard);
        f.consequence =
            "fixing quotas before the upgrade is refused (exceeded quota) unless the ResourceQuota "
            "is raised";
        f.consequence_kind = "analytic";
        out->push_back(std::move(f));
      }
    }
  }
}

}  // namespace

CheckReport RunChecks(const CheckInput& input, const CheckOptions& options) {
  CheckReport report;
  report.origin = input.origin;
  report.warnings = input.warnings;
  std::map<std::string, const CheckNode*> nodes;
  for (const CheckNode& n : input.nodes) nodes[n.name] = &n;

  bool any_over = false;
  for (const CheckPod& p : input.pods)
    any_over = any_over || (p.memory.known && p.memory.quota_mib > 0 &&
                            p.memory.peak_mib >=
                                options.critical_ratio * static_cast<double>(p.memory.quota_mib));
  ConsequenceRun run;
  if (any_over) {
    run = Simulate(input, options, &report.consequence_note);
  } else {
    report.consequence_note = "no pod above its quota: nothing to simulate";
  }

  std::vector<Finding>& f = report.findings;
  QuotaVsPeak(input, options, run, nodes, &f);
  PortOnlyProbe(input, &f);
  PdbBlocksDrain(input, &f);
  ImageAfterReset(input, options, &f);
  PvcWithoutBackup(input, options, &f);
  CgpuIsolation(input, options, &f);
  QuotaHeadroom(input, options, nodes, &f);

  auto rank = [](const std::string& id) {
    return std::find(kCheckIds.begin(), kCheckIds.end(), id) - kCheckIds.begin();
  };
  std::stable_sort(f.begin(), f.end(), [&](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity < b.severity;
    if (a.id != b.id) return rank(a.id) < rank(b.id);
    if (a.objects.empty() || b.objects.empty()) return a.objects.size() < b.objects.size();
    return a.objects.front() < b.objects.front();
  });
  return report;
}

}  // namespace knobsim
