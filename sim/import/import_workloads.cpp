// Pods -> workloads, their current pods and the `kube:` objects (import_steps.h).
#include <algorithm>
#include <tuple>

#include "sim/dns_label.h"
#include "sim/import/import_dra.h"
#include "sim/import/import_steps.h"
#include "sim/io/kube_owners.h"

namespace knobsim {
using namespace import_text;

namespace {

int64_t Get(const ResourceList& r, const std::string& key) {
  auto it = r.find(key);
  return it == r.end() ? 0 : it->second;
}

// The pod a workload is read from: the first that is bound, else the first.
int Representative(const KubeObjects& objects, const std::vector<int>& live) {
  for (int i : live)
    if (!objects.pods[i].node_name.empty()) return i;
  return live.front();
}

// Labels (credentials left out, with a warning), node selection, tolerations and spread.
void Scheduling(const PodSpec& p, ImportedWorkload& iw, std::vector<std::string>& warnings) {
  Workload& w = iw.spec;
  for (const auto& [k, v] : p.labels) {
    if (IsPerPodLabel(k)) continue;
    if (LooksLikeSecret(k, v)) {
      warnings.push_back("workload " + w.namespace_ + "/" + w.name + ": label " + k +
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
    if (!kept.empty())
      w.node_affinity.required_terms.push_back(std::move(kept));
    else if (!term.empty())
      iw.notes["pods"] = "pinned by matchFields metadata.name; kept through pods:";
  }
  w.node_affinity.preferred = p.node_affinity.preferred;
  w.tolerations = p.tolerations;
  w.host_ports = p.host_ports;
  for (const TopologySpreadConstraint& c : p.topology_spread) {
    const auto& e = c.label_selector.match_expressions;
    if (c.label_selector.match_labels.empty() && e.size() == 1 && e[0].key.empty()) {
      iw.notes["topology_spread"] = "a constraint without labelSelector matches no pod; left out";
      continue;
    }
    w.topology_spread.push_back(c);
  }
  // A term without labelSelector matches no pod: an anti-affinity one repels nothing, an
  // affinity one no node can satisfy (the pod stays Pending). The scenario format has no such
  // selector; the term is left out with a note.
  for (const auto& [from, to, key] :
       {std::tuple{&p.pod_affinity, &w.pod_affinity, "pod_affinity"},
        std::tuple{&p.pod_anti_affinity, &w.pod_anti_affinity, "pod_anti_affinity"}}) {
    auto never = [](const PodAffinityTerm& t) {
      const auto& e = t.label_selector.match_expressions;
      return std::any_of(e.begin(), e.end(), [](const auto& r) { return r.key.empty(); });
    };
    for (const PodAffinityTerm& t : from->required) {
      if (never(t)) {
        iw.notes[key] = "a term without labelSelector matches no pod; left out";
      } else {
        to->required.push_back(t);
      }
    }
    for (const WeightedPodAffinityTerm& t : from->preferred) {
      if (never(t.term)) {
        iw.notes[key] = "a term without labelSelector matches no pod; left out";
      } else {
        to->preferred.push_back(t);
      }
    }
  }
  w.priority = p.priority;
}

// What the checks read: the owner kind, the images (and their size from the node's image list,
// for pull time after a reset), a Deployment's claims, and the backup markers only — other
// annotations may hold tokens (last-applied-configuration holds whole manifests).
void CheckedFields(const PodSpec& p, const std::string& kind, const NodeIndex& nodes,
                   const ImportOptions& options, Workload& w) {
  w.kind = kind;
  for (const ContainerInfo& c : p.containers) {
    if (c.image.empty()) continue;
    w.images.push_back(c.image);
    const auto node = nodes.node_by_name.find(p.node_name);
    if (node == nodes.node_by_name.end()) continue;
    for (const ContainerImage& im : node->second->images) {
      if (std::find(im.names.begin(), im.names.end(), c.image) != im.names.end()) {
        w.image_size_mib += (im.size_bytes + (1 << 20) - 1) >> 20;
        break;
      }
    }
  }
  if (w.kind != "StatefulSet") w.volumes = p.pvc_claims;
  for (const std::string& key : options.backup_annotations) {
    if (auto a = p.annotations.find(key);
        a != p.annotations.end() && !LooksLikeSecret(key, a->second))
      w.annotations[key] = a->second;
  }
}

void Requests(const PodSpec& p, Workload& w) {
  w.cpu_milli = Get(p.requests, "cpu");
  w.memory_mib = (Get(p.requests, "memory") + (1 << 20) - 1) >> 20;
  w.whole_gpus = p.whole_gpus;
  if (!p.hami.empty()) {
    // A scenario workload is one container: its first HAMi container (WorkloadOf warns about
    // the others), and the annotations HAMi's scheduler reads.
    w.hami.request = p.hami.front();
    for (const char* key : {kHamiNodePolicyAnnotation, kHamiGpuPolicyAnnotation,
                            kHamiUseTypeAnnotation, kHamiNoUseTypeAnnotation}) {
      if (auto a = p.annotations.find(key); a != p.annotations.end())
        w.hami.annotations[key] = a->second;
    }
    return;
  }
  if (p.device_resource.starts_with(kMigResourcePrefix))
    w.mig_profile = p.device_resource.substr(kMigResourcePrefix.size());
  w.shared_replicas = p.device_resource == kSharedGpuResource;
  if (p.whole_gpus == 0) {
    w.gpu_mem = p.gpu_mem;
    w.gpu_count = std::max(1, p.gpu_count);
    w.gpu_core = p.gpu_core / w.gpu_count;
  }
}

// The workload of one owner, read from its representative pod `p`.
ImportedWorkload WorkloadOf(const OwnedPods& g, const PodSpec& p, int live_pods,
                            const std::map<std::string, int>& name_count, const NodeIndex& nodes,
                            const ImportOptions& options, std::vector<std::string>& warnings) {
  ImportedWorkload iw;
  iw.kind = g.workload.kind;
  iw.owner = g.workload.name;
  Workload& w = iw.spec;
  const std::string name =
      name_count.at(g.workload.name) > 1 ? g.workload.ns + "-" + g.workload.name : g.workload.name;
  w.name = IsDnsLabel(name) ? name : DnsLabel(name);
  if (w.name != name) iw.notes[""] = "named from \"" + name + "\" (not a DNS label)";
  w.namespace_ = g.workload.ns;
  if (g.spec_replicas >= 0) {
    w.replicas = g.spec_replicas;
    iw.notes["replicas"] = "spec.replicas of the " + g.workload.kind;
  } else {
    w.replicas = live_pods;
    iw.notes["replicas"] = "pods in the export (" + g.workload.kind + ")";
  }
  Scheduling(p, iw, warnings);
  CheckedFields(p, g.workload.kind, nodes, options, w);
  Requests(p, w);
  for (const ContainerInfo& c : p.containers) iw.containers.push_back(c.name);
  if (p.hami.size() > 1)
    warnings.push_back("pod " + p.namespace_ + "/" + p.name + ": " + std::to_string(p.hami.size()) +
                       " containers ask HAMi vGPUs and a scenario workload has one: the first "
                       "one's are imported, the others' left out");
  std::string why;
  w.probe = WorkloadProbe(p, w.namespace_, iw.owner, options.probe_rules, &why);
  iw.notes["probe"] = why;
  return iw;
}

// Indexes the live pods of workload `wi` and places the bound ones.
void PlacePods(const KubeObjects& objects, const std::vector<int>& live, int wi,
               const NodeIndex& nodes, PodIndex& index, std::vector<std::string>& warnings) {
  for (int i : live) {
    const PodSpec& q = objects.pods[i];
    index.workload_of[PodKey{q.namespace_, q.name}] = {wi, i};
    if (q.node_name.empty()) continue;
    if (!nodes.pool_of_node.count(q.node_name)) {
      warnings.push_back("pod " + q.namespace_ + "/" + q.name + " is bound to node " + q.node_name +
                         ", absent from the export; left to the scheduler");
      continue;
    }
    PodPlace& pl = index.place[i];
    pl.node = q.node_name;
    std::set<int> cards;
    for (const auto& [card, units] : q.allocated_mem) cards.insert(card);
    for (const auto& [card, units] : q.allocated_core) cards.insert(card);
    // HAMi's allocation names cards by UUID: their indexes in the node's registration.
    const std::vector<std::string>& uuids = nodes.node_by_name.at(q.node_name)->hami.card_uuids;
    for (const std::string& uuid : q.hami_allocated) {
      const auto at = std::find(uuids.begin(), uuids.end(), uuid);
      if (at != uuids.end()) cards.insert(static_cast<int>(at - uuids.begin()));
    }
    pl.cards.assign(cards.begin(), cards.end());
    for (int c : pl.cards) index.card_pods[{q.node_name, c}].push_back(i);
  }
}

}  // namespace

bool IsPerPodLabel(const std::string& key) {
  return key == "pod-template-hash" || key == "controller-revision-hash" ||
         key == "statefulset.kubernetes.io/pod-name" || key == "pod-template-generation" ||
         key == "apps.kubernetes.io/pod-index";
}

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

ReadinessKind WorkloadProbe(const PodSpec& p, const std::string& ns, const std::string& owner,
                            const std::vector<ProbeRule>& rules, std::string* why) {
  const ContainerInfo* probed = nullptr;
  for (size_t c = 0; c < p.containers.size(); ++c) {
    const bool gpu = c < p.container_gpus.size() && p.container_gpus[c].gpu_mem > 0;
    if (gpu && !probed) probed = &p.containers[c];
  }
  for (const ContainerInfo& c : p.containers)
    if (!probed && c.readiness.kind != ProbeKind::kNone) probed = &c;
  ReadinessKind probe = ClassifyProbe(probed ? probed->readiness : Probe{}, why);
  for (const ProbeRule& r : rules) {
    if ((r.ns == "*" || r.ns == ns) && (r.name == "*" || r.name == owner)) {
      probe = r.probe;
      *why = "--probe-rule " + r.ns + "/" + r.name;
    }
  }
  return probe;
}

PodIndex WorkloadsFromPods(const KubeObjects& objects, const NodeIndex& nodes,
                           const ImportOptions& options, ImportModel& model) {
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

  PodIndex index;
  int finished = 0;
  const ExtendedResourceNodes extended_nodes = ExtendedResourceNodesOf(objects);
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
    const PodSpec& p = objects.pods[Representative(objects, live)];
    const int wi = static_cast<int>(model.workloads.size());
    ImportedWorkload iw =
        WorkloadOf(g, p, static_cast<int>(live.size()), name_count, nodes, options, model.warnings);
    std::string why, resource;
    if (!p.resource_claims.empty()) {
      // ImportCluster kept only pods whose claims a scenario can say (WithScenarioDra).
      if (std::optional<DraAsk> ask = ScenarioDraAsk(p, objects, &why)) iw.spec.dra = *ask;
    } else if (std::optional<DraAsk> ask =
                   ExtendedResourceDraAsk(p, objects, extended_nodes, &why, &resource)) {
      // DRAExtendedResource: the claim the scheduler makes for the pod, one of its own.
      iw.spec.dra = *ask;
      iw.spec.whole_gpus = 0;
      iw.spec.mig_profile.clear();
      iw.notes["dra"] =
          "asks " + resource +
          ", which a DeviceClass backs and no device plugin offers (DRAExtendedResource, "
          "Kubernetes 1.36+): the claim the scheduler makes for each pod";
    }
    PlacePods(objects, live, wi, nodes, index, model.warnings);
    model.workloads.push_back(std::move(iw));
  }
  if (finished > 0)
    model.warnings.push_back(std::to_string(finished) +
                             " Succeeded or Failed pods occupy nothing; left out");
  return index;
}

void CurrentPods(const KubeObjects& objects, const PodIndex& pods, ImportModel& model) {
  for (const auto& [key, at] : pods.workload_of) {
    auto pl = pods.place.find(at.second);
    if (pl == pods.place.end()) continue;
    const PodSpec& exported = objects.pods[at.second];
    ImportedPod ip;
    ip.name = exported.name;
    ip.node = pl->second.node;
    ip.cards = pl->second.cards;
    // A running pod that is not Ready (an etcd member catching up) stays so in the scenario:
    // its disruption budget counts it unhealthy (`ready: false`, docs/scenario.md).
    ip.ready = !(exported.phase == "Running" && exported.ready_status == "False");
    model.workloads[at.first].pods.push_back(std::move(ip));
  }
  for (ImportedWorkload& iw : model.workloads)
    std::sort(iw.pods.begin(), iw.pods.end(),
              [](const ImportedPod& a, const ImportedPod& b) { return a.name < b.name; });
}

void KubeSection(const KubeObjects& objects, ImportModel& model) {
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
    model.header.push_back("jobs: " + std::to_string(objects.jobs.size()) +
                           " (read only for pod ownership)");
}

}  // namespace knobsim
