#include "sim/io/kube_owners.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

namespace knobsim {
namespace {

// Objects of one kind by "namespace/name".
template <class T>
std::map<std::string, const T*> ByName(const std::vector<T>& objects) {
  std::map<std::string, const T*> index;
  for (const T& o : objects) index.emplace(o.namespace_ + "/" + o.name, &o);
  return index;
}

template <class T>
const T* Find(const std::map<std::string, const T*>& index, const std::string& ns,
              const std::string& name) {
  auto it = index.find(ns + "/" + name);
  return it == index.end() ? nullptr : it->second;
}

// upstream's GetControllerOf: the reference with controller: true.
const OwnerReference* ControllerOf(const std::vector<OwnerReference>& owners) {
  for (const OwnerReference& o : owners) {
    if (o.controller) return &o;
  }
  return nullptr;
}

class Resolver {
 public:
  Resolver(const KubeObjects& objects, std::vector<std::string>* warnings)
      : objects_(objects),
        warnings_(warnings),
        deployments_(ByName(objects.deployments)),
        replica_sets_(ByName(objects.replica_sets)),
        stateful_sets_(ByName(objects.stateful_sets)),
        jobs_(ByName(objects.jobs)) {}

  // The workload of pod `i` and its spec.replicas when known.
  std::pair<WorkloadRef, int> Resolve(size_t i) {
    pod_ = i;
    const PodSpec& pod = objects_.pods[i];
    const OwnerReference* owner = ControllerOf(pod.owner_references);
    if (owner == nullptr && pod.owner_references.size() == 1) {
      owner = &pod.owner_references[0];
      Warn(fmt::format("its only owner reference ({} {}) has no controller: true; taken as its "
                       "controller",
                       owner->kind, owner->name),
           "controller:" + pod.namespace_ + "/" + pod.name);
    }
    if (owner == nullptr) return {WorkloadRef{"Pod", pod.namespace_, pod.name}, -1};
    const std::string& ns = pod.namespace_;
    if (owner->kind == "ReplicaSet") return FromReplicaSet(pod, *owner);
    if (owner->kind == "StatefulSet") {
      const StatefulSetSpec* sts = Find(stateful_sets_, ns, owner->name);
      if (sts == nullptr) Missing("StatefulSet", ns, owner->name);
      CheckUid(sts, *owner);
      return {WorkloadRef{"StatefulSet", ns, owner->name}, sts ? sts->replicas : -1};
    }
    if (owner->kind == "Job") {
      // A Job made by a CronJob belongs to the CronJob; known only from the Job object.
      if (const JobSpec* job = Find(jobs_, ns, owner->name)) {
        CheckUid(job, *owner);
        if (const OwnerReference* cron = ControllerOf(job->owner_references);
            cron != nullptr && cron->kind == "CronJob") {
          return {WorkloadRef{"CronJob", ns, cron->name}, -1};
        }
      }
      return {WorkloadRef{"Job", ns, owner->name}, -1};
    }
    return {WorkloadRef{owner->kind, ns, owner->name}, -1};
  }

 private:
  std::pair<WorkloadRef, int> FromReplicaSet(const PodSpec& pod, const OwnerReference& owner) {
    const std::string& ns = pod.namespace_;
    if (const ReplicaSetSpec* rs = Find(replica_sets_, ns, owner.name)) {
      CheckUid(rs, owner);
      const OwnerReference* rs_owner = ControllerOf(rs->owner_references);
      if (rs_owner == nullptr) return {WorkloadRef{"ReplicaSet", ns, rs->name}, rs->replicas};
      if (rs_owner->kind != "Deployment")
        return {WorkloadRef{rs_owner->kind, ns, rs_owner->name}, -1};
      return ToDeployment(ns, rs_owner->name);
    }
    // The ReplicaSet is not in the export: the pod-template-hash convention names its
    // Deployment (the Deployment controller names ReplicaSets `<deployment>-<hash>`).
    auto hash = pod.labels.find("pod-template-hash");
    const std::string suffix = hash == pod.labels.end() ? "" : "-" + hash->second;
    if (hash != pod.labels.end() && !hash->second.empty() && owner.name.size() > suffix.size() &&
        owner.name.ends_with(suffix)) {
      const std::string deployment = owner.name.substr(0, owner.name.size() - suffix.size());
      Warn(fmt::format("ReplicaSet {}/{} is not in the export; taking Deployment {} from the "
                       "pod-template-hash label",
                       ns, owner.name, deployment),
           "ReplicaSet:" + ns + "/" + owner.name);
      return ToDeployment(ns, deployment);
    }
    Missing("ReplicaSet", ns, owner.name);
    return {WorkloadRef{"ReplicaSet", ns, owner.name}, -1};
  }

  std::pair<WorkloadRef, int> ToDeployment(const std::string& ns, const std::string& name) {
    const DeploymentSpec* d = Find(deployments_, ns, name);
    if (d == nullptr) Missing("Deployment", ns, name);
    return {WorkloadRef{"Deployment", ns, name}, d ? d->replicas : -1};
  }

  // An owner reference whose uid differs from the object's of that name: the owner was
  // deleted and made again, and the pod outlived the old one. Still grouped by name.
  template <class T>
  void CheckUid(const T* object, const OwnerReference& owner) {
    if (object == nullptr || owner.uid.empty() || object->uid.empty() || owner.uid == object->uid) {
      return;
    }
    Warn(fmt::format("its owner {} {} has another uid in the export (it was replaced); grouped "
                     "with it by name",
                     owner.kind, owner.name),
         "uid:" + owner.kind + ":" + object->namespace_ + "/" + owner.name);
  }

  void Missing(std::string_view kind, const std::string& ns, const std::string& name) {
    Warn(fmt::format("its {} {}/{} is not in the export; its replica count is unknown", kind, ns,
                     name),
         fmt::format("{}:{}/{}", kind, ns, name));
  }

  // One warning per `key`, at the first pod that needed it.
  void Warn(const std::string& text, const std::string& key) {
    if (warnings_ == nullptr || !warned_.insert(key).second) return;
    const PodSpec& pod = objects_.pods[pod_];
    const ObjectSource source =
        pod_ < objects_.pod_sources.size() ? objects_.pod_sources[pod_] : ObjectSource{};
    warnings_->push_back(fmt::format("{}:{}: pod {}/{}: {}", source.file, source.line,
                                     pod.namespace_, pod.name, text));
  }

  const KubeObjects& objects_;
  std::vector<std::string>* warnings_;
  std::map<std::string, const DeploymentSpec*> deployments_;
  std::map<std::string, const ReplicaSetSpec*> replica_sets_;
  std::map<std::string, const StatefulSetSpec*> stateful_sets_;
  std::map<std::string, const JobSpec*> jobs_;
  std::set<std::string> warned_;
  size_t pod_ = 0;
};

}  // namespace

std::vector<OwnedPods> GroupPodsByWorkload(const KubeObjects& objects,
                                           std::vector<std::string>* warnings) {
  Resolver resolver(objects, warnings);
  std::map<std::tuple<std::string, std::string, std::string>, OwnedPods> groups;
  for (size_t i = 0; i < objects.pods.size(); ++i) {
    auto [workload, replicas] = resolver.Resolve(i);
    OwnedPods& group = groups[{workload.ns, workload.kind, workload.name}];
    if (group.pods.empty()) {
      group.workload = std::move(workload);
      group.spec_replicas = replicas;
    }
    group.pods.push_back(static_cast<int>(i));
  }
  std::vector<OwnedPods> out;
  out.reserve(groups.size());
  for (auto& [key, group] : groups) out.push_back(std::move(group));
  return out;
}

}  // namespace knobsim
