// ObjectWriter: the finished plan (plan.h) as the Kubernetes objects `kubectl get -o json`
// returns for an ACK cluster: Nodes, Pods, Deployments with their ReplicaSets, StatefulSets with
// their claims and volumes, PDBs, StorageClasses and ResourceQuotas.
//
// Contract: each object holds what the API server and the controllers would have written
// (status, ownerReferences, admission's defaults, the GPU scheduler's allocation annotations),
// keys sorted (nlohmann::json's map). Every object draws from its own random stream, keyed by
// its index or uid, so objects can be written in any order with the same bytes. Node and pod
// objects are written in object_writer_pods.cpp, the controllers and the namespace-wide objects
// in object_writer_workloads.cpp. Internal to tools/gen-export.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/gen-export/plan.h"
#include "tools/gen-export/random.h"

namespace knobsim::gen_export {

class ObjectWriter {
 public:
  using json = nlohmann::json;

  explicit ObjectWriter(Plan& plan) : plan_(plan) {}
  json NodeJson(int n);
  json PodJson(int p);
  json DeploymentJson(const Workload& w);
  std::vector<json> ReplicaSetJson(const Workload& w);
  json StatefulSetJson(const Workload& w);
  void ClaimsJson(const Workload& w, std::vector<json>& pvcs, std::vector<json>& pvs);
  json PdbJson(const Workload& w, const json& budget);
  std::vector<json> StorageClassJson() const;
  std::vector<json> QuotaJson();

 private:
  // The steps of PodJson, in the order they draw from the pod's stream.
  void SetPodOwner(const Workload& w, const PodPlan& pod, json& meta) const;
  json PodAnnotations(const Workload& w, const PodPlan& pod, Rng& rng) const;
  void AddAllocationAnnotations(const Workload& w, const PodPlan& pod, Rng& rng,
                                json& annotations) const;
  json RunningPodStatus(const Workload& w, const PodPlan& pod, Rng& rng);

  json NodeImagesJson(const Node& node);
  json ContainerJson(const Container& c, const std::string& api_volume);
  json PodSpecJson(const Workload& w, const PodPlan* pod, Rng* rng);
  json TemplateJson(const Workload& w, bool with_hash);
  json Meta(const std::string& ns, const std::string& name, const std::string& uid, int64_t created,
            Rng& rng);
  int Running(const Workload& w) const {
    int n = 0;
    for (int p : w.pods) n += plan_.pods[p].node >= 0 ? 1 : 0;
    return n;
  }

  Plan& plan_;
};

}  // namespace knobsim::gen_export
