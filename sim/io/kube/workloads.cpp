#include "sim/io/kube/kinds.h"

#include <optional>
#include <string>
#include <utility>

#include "sim/io/kube/selectors.h"

namespace knobsim::kube {
namespace {

Labels TemplateLabels(ObjectReader& r, const Field& spec) {
  const std::optional<Field> pod_template = r.Get(spec, "template");
  if (!pod_template) return {};
  r.ExpectMap(*pod_template);
  const std::optional<Field> meta = r.Get(*pod_template, "metadata");
  if (!meta) return {};
  r.ExpectMap(*meta);
  return r.StringMap(r.Get(*meta, "labels"));
}

// A config repository holds the manifests, not the pods they make: the template, read like a
// pod, named after its owner and bound nowhere, stands for them (cluster_import uses it only
// for owners without pods in the input).
void KeepTemplatePod(ObjectReader& r, const Field& spec, const std::string& kind,
                     const std::string& ns, const std::string& name) {
  const std::optional<Field> pod_template = r.Get(spec, "template");
  if (!pod_template) return;
  r.ExpectMap(*pod_template);
  const std::optional<Field> pod_spec = r.Get(*pod_template, "spec");
  if (!pod_spec) return;
  r.ExpectMap(*pod_spec);
  std::optional<Field> labels, annotations;
  if (const std::optional<Field> meta = r.Get(*pod_template, "metadata")) {
    r.ExpectMap(*meta);
    labels = r.Get(*meta, "labels");
    annotations = r.Get(*meta, "annotations");
  }
  PodSpec pod;
  pod.name = name;
  pod.namespace_ = ns;
  pod.labels = r.StringMap(labels);
  pod.annotations = r.Annotations(annotations);
  pod.owner_references.push_back(OwnerReference{"apps/v1", kind, name, "", true});
  ReadPodBody(r, *pod_spec, labels, annotations, pod);
  pod.phase = "Pending";
  r.out().template_pods.push_back(std::move(pod));
  r.out().template_pod_sources.push_back(ObjectSource{r.file(), pod_template->line});
}

}  // namespace

DeploymentSpec ReadDeployment(ObjectReader& r, const Field& object) {
  DeploymentSpec d;
  ReadObjectMeta(r, object, "Deployment", d);
  const Field spec = r.Require(object, "spec");
  r.ExpectMap(spec);
  d.replicas = r.Count(r.Get(spec, "replicas"), 1);
  d.selector = ReadLabelSelector(r, r.Require(spec, "selector"));
  d.template_labels = TemplateLabels(r, spec);
  KeepTemplatePod(r, spec, "Deployment", d.namespace_, d.name);
  if (auto strategy = r.Get(spec, "strategy")) {
    r.ExpectMap(*strategy);
    if (auto type = r.Get(*strategy, "type")) {
      d.strategy = r.Enum(*type, {"RollingUpdate", "Recreate"}, "a deployment strategy");
    }
    if (auto rolling = r.Get(*strategy, "rollingUpdate")) {
      r.ExpectMap(*rolling);
      // The API server's rules (ValidateDeploymentStrategy, ValidateRollingUpdateDeployment).
      if (d.strategy == "Recreate") {
        r.Fail(*rolling, "rollingUpdate is given with strategy type Recreate",
               "drop rollingUpdate, or use type RollingUpdate");
      }
      const std::optional<Field> surge = r.Get(*rolling, "maxSurge");
      const std::optional<Field> unavailable = r.Get(*rolling, "maxUnavailable");
      if (surge) d.max_surge = r.ReadIntOrPercent(*surge, /*up_to_100=*/false);
      if (unavailable) d.max_unavailable = r.ReadIntOrPercent(*unavailable, /*up_to_100=*/true);
      if (d.max_surge.value == 0 && d.max_unavailable.value == 0) {
        r.Fail(unavailable ? *unavailable : *surge, "maxUnavailable and maxSurge are both 0",
               "a rollout could neither add nor remove a pod; raise one of them");
      }
    }
  }
  d.min_ready_seconds = r.Count(r.Get(spec, "minReadySeconds"), 0);
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    d.status_replicas = r.Count(r.Get(*status, "replicas"), 0);
    d.ready_replicas = r.Count(r.Get(*status, "readyReplicas"), 0);
    d.available_replicas = r.Count(r.Get(*status, "availableReplicas"), 0);
  }
  return d;
}

ReplicaSetSpec ReadReplicaSet(ObjectReader& r, const Field& object) {
  ReplicaSetSpec rs;
  ReadObjectMeta(r, object, "ReplicaSet", rs);
  if (auto spec = r.Get(object, "spec")) {
    r.ExpectMap(*spec);
    rs.replicas = r.Count(r.Get(*spec, "replicas"), 1);
  }
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    rs.status_replicas = r.Count(r.Get(*status, "replicas"), 0);
    rs.ready_replicas = r.Count(r.Get(*status, "readyReplicas"), 0);
  }
  return rs;
}

StatefulSetSpec ReadStatefulSet(ObjectReader& r, const Field& object) {
  StatefulSetSpec sts;
  ReadObjectMeta(r, object, "StatefulSet", sts);
  const Field spec = r.Require(object, "spec");
  r.ExpectMap(spec);
  sts.replicas = r.Count(r.Get(spec, "replicas"), 1);
  sts.selector = ReadLabelSelector(r, r.Require(spec, "selector"));
  sts.template_labels = TemplateLabels(r, spec);
  KeepTemplatePod(r, spec, "StatefulSet", sts.namespace_, sts.name);
  if (auto templates = r.Get(spec, "volumeClaimTemplates")) {
    for (const Field& t : r.Items(*templates)) {
      r.ExpectMap(t);
      const Field t_meta = r.Require(t, "metadata");
      r.ExpectMap(t_meta);
      const Field name = r.Require(t_meta, "name");
      sts.volume_claim_templates.push_back(r.String(name));
      if (sts.volume_claim_templates.back().empty()) r.Fail(name, "empty claim template name");
    }
  }
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    sts.status_replicas = r.Count(r.Get(*status, "replicas"), 0);
    sts.ready_replicas = r.Count(r.Get(*status, "readyReplicas"), 0);
  }
  return sts;
}

void ReadDaemonSet(ObjectReader& r, const Field& object) {
  // Only the identity (for the duplicate check) and the template matter: its pods' count
  // follows the nodes, which the run lays out (sim/controllers/daemon_sets.h).
  struct Identity {
    std::string namespace_ = "default";
    std::string name;
    std::string uid;
  } ds;
  ReadObjectMeta(r, object, "DaemonSet", ds);
  if (const std::optional<Field> spec = r.Get(object, "spec")) {
    r.ExpectMap(*spec);
    KeepTemplatePod(r, *spec, "DaemonSet", ds.namespace_, ds.name);
  }
}

JobSpec ReadJob(ObjectReader& r, const Field& object) {
  JobSpec job;
  ReadObjectMeta(r, object, "Job", job);
  return job;
}

}  // namespace knobsim::kube
