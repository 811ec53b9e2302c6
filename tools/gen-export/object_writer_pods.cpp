// ObjectWriter's nodes and pods (object_writer.h): v1 Nodes with ACK's labels, capacity and
// status; Pods with their controller's labels and owner, the GPU scheduler's allocation
// annotations, the spec admission completes, and a Running or Pending status; and the
// container and pod-spec parts the controllers' templates share.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "tools/gen-export/object_writer.h"
#include "tools/gen-export/text_encoding.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

json ProbeJson(Probe probe, int port, bool liveness) {
  json p = {{"failureThreshold", 3},
            {"periodSeconds", 10},
            {"successThreshold", 1},
            {"timeoutSeconds", 1}};
  p["initialDelaySeconds"] = liveness ? 60 : 10;
  switch (probe) {
    case Probe::kHealthz:
      p["httpGet"] = {{"path", "/healthz"}, {"port", port}, {"scheme", "HTTP"}};
      break;
    case Probe::kModels:
      p["httpGet"] = {{"path", "/v1/models"}, {"port", port}, {"scheme", "HTTP"}};
      break;
    case Probe::kTcp:
      p["tcpSocket"] = {{"port", port}};
      break;
    case Probe::kGrpc:
      p["grpc"] = {{"port", port}, {"service", ""}};
      break;
    case Probe::kExec:
      p["exec"] = {{"command",
                    port > 0 ? json::array({"/bin/sh", "-c",
                                            fmt::format("curl -sf http://127.0.0.1:{}/ping", port)})
                             : json::array({"/bin/sh", "-c", "test -f /tmp/ready"})}};
      break;
    case Probe::kNone:
      break;
  }
  return p;
}

// A Pending pod's status: unschedulable, with the scheduler's message.
json PendingPodStatus(const PodPlan& pod) {
  return {{"conditions",
           {{{"lastProbeTime", nullptr},
             {"lastTransitionTime", Rfc3339(pod.created)},
             {"message", pod.message},
             {"reason", "Unschedulable"},
             {"status", "False"},
             {"type", "PodScheduled"}}}},
          {"phase", "Pending"},
          {"qosClass", "Burstable"}};
}

}  // namespace

json ObjectWriter::Meta(const std::string& ns, const std::string& name, const std::string& uid,
                        int64_t created, Rng& rng) {
  json m = {{"name", name},
            {"uid", uid},
            {"creationTimestamp", Rfc3339(created)},
            {"resourceVersion", std::to_string(rng.Int(100000000, 119999999))}};
  if (!ns.empty()) m["namespace"] = ns;
  return m;
}

json ObjectWriter::NodeJson(int n) {
  const Node& node = plan_.nodes[n];
  const Pool& pool = plan_.pools[node.pool];
  const Instance& inst = pool.spec->instance;
  Rng rng = Stream(plan_.o.seed, kPodStreamBase + (uint64_t{2} << 40) + n);
  json labels = {{"ack.aliyun.com", plan_.cluster_id},
                 {std::string(kPoolLabel), pool.id},
                 {"beta.kubernetes.io/arch", "amd64"},
                 {"beta.kubernetes.io/instance-type", inst.name},
                 {"beta.kubernetes.io/os", "linux"},
                 {"failure-domain.beta.kubernetes.io/region", kRegion},
                 {"failure-domain.beta.kubernetes.io/zone", node.zone},
                 {"kubernetes.io/arch", "amd64"},
                 {"kubernetes.io/hostname", node.name},
                 {"kubernetes.io/os", "linux"},
                 {"node.csi.alibabacloud.com/disktype.cloud_essd", "available"},
                 {"node.kubernetes.io/instance-type", inst.name},
                 {"topology.diskplugin.csi.alibabacloud.com/zone", node.zone},
                 {"topology.kubernetes.io/region", kRegion},
                 {"topology.kubernetes.io/zone", node.zone}};
  json capacity = {{"cpu", std::to_string(inst.vcpu)},
                   {"ephemeral-storage", "123329516Ki"},
                   {"hugepages-1Gi", "0"},
                   {"hugepages-2Mi", "0"},
                   {"memory", fmt::format("{}Ki", node.cap_mem_ki)},
                   {"pods", std::to_string(inst.max_pods)}};
  json allocatable = capacity;
  allocatable["cpu"] = Cpu(inst.cpu_alloc_m);
  allocatable["ephemeral-storage"] = "113659787795";
  allocatable["memory"] = fmt::format("{}Ki", node.alloc_mem_ki);
  json spec = {{"providerID", fmt::format("{}.{}", kRegion, node.instance_id)}};
  if (pool.gpu != nullptr) {
    labels["ack.node.gpu.schedule"] = pool.spec->schedule;
    if (!pool.spec->placement.empty()) labels["ack.node.gpu.placement"] = pool.spec->placement;
    if (pool.spec->max_pod > 0) labels["ack.node.gpu.max-pod"] = std::to_string(pool.spec->max_pod);
    labels["aliyun.accelerator/nvidia_count"] = std::to_string(inst.gpus);
    labels["aliyun.accelerator/nvidia_mem"] = fmt::format("{}MiB", pool.gpu->memory_mib);
    labels["aliyun.accelerator/nvidia_name"] = pool.names->node_label;
    for (json* r : {&capacity, &allocatable}) {
      if (pool.exclusive) {
        (*r)["nvidia.com/gpu"] = std::to_string(inst.gpus);
      } else {
        // The device plugin patches both (docs/semantics.md §1.1); nvidia.com/gpu reads 0 here.
        (*r)["aliyun.com/gpu-count"] = std::to_string(inst.gpus);
        (*r)["aliyun.com/gpu-mem"] = std::to_string(inst.gpus * pool.units);
        (*r)["nvidia.com/gpu"] = "0";
      }
    }
    spec["taints"] =
        json::array({{{"effect", "NoSchedule"}, {"key", kGpuTaintKey}, {"value", "present"}}});
  } else {
    labels["workload-type"] = "general";
  }
  json meta = Meta("", node.name, node.uid, node.created, rng);
  meta["labels"] = labels;
  meta["annotations"] = {
      {"csi.volume.kubernetes.io/nodeid",
       fmt::format(R"({{"diskplugin.csi.alibabacloud.com":"{}"}})", node.instance_id)},
      {"node.alpha.kubernetes.io/ttl", "0"},
      {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}};
  const std::string heartbeat = Rfc3339(plan_.now - rng.Int(5, 50));
  const std::string since = Rfc3339(node.created + 32);
  auto condition = [&](const char* type, const char* status, const char* reason,
                       const char* message) {
    return json{{"lastHeartbeatTime", heartbeat},
                {"lastTransitionTime", since},
                {"message", message},
                {"reason", reason},
                {"status", status},
                {"type", type}};
  };
  json status = {{"addresses",
                  {{{"address", node.ip}, {"type", "InternalIP"}},
                   {{"address", node.name}, {"type", "Hostname"}}}},
                 {"allocatable", allocatable},
                 {"capacity", capacity},
                 {"conditions",
                  {condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                             "kubelet has sufficient memory available"),
                   condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                             "kubelet has no disk pressure"),
                   condition("PIDPressure", "False", "KubeletHasSufficientPID",
                             "kubelet has sufficient PID available"),
                   condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")}},
                 {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
                 {"images", NodeImagesJson(node)},
                 {"nodeInfo",
                  {{"architecture", "amd64"},
                   {"bootID", node.boot_id},
                   {"containerRuntimeVersion", "containerd://1.6.28"},
                   {"kernelVersion", "5.10.134-16.1.al8.x86_64"},
                   {"kubeProxyVersion", kKubeletVersion},
                   {"kubeletVersion", kKubeletVersion},
                   {"machineID", node.machine_id},
                   {"operatingSystem", "linux"},
                   {"osImage", "Alibaba Cloud Linux 3.2104 U9 (OpenAnolis Edition)"},
                   {"systemUUID", node.system_uuid}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", meta},
          {"spec", spec},
          {"status", status}};
}

// The images on the node, as the kubelet reports them: its pods' images and the two every node
// pulls, each by digest and by tag, with a made-up size.
json ObjectWriter::NodeImagesJson(const Node& node) {
  json images = json::array();
  std::vector<std::string> names = node.images;
  names.push_back("acs/coredns:v1.9.3.10-7dfca203-aliyun");
  names.push_back("acs/kube-proxy:v1.28.9-aliyun.1");
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& image : names) {
    const size_t colon = image.rfind(':');
    const std::string repo = image.substr(0, colon), tag = image.substr(colon + 1);
    Rng size(HashText(image));
    images.push_back(
        {{"names",
          {fmt::format("{}/{}@sha256:{}", kRegistry, repo, Digest(plan_, repo, tag)),
           fmt::format("{}/{}", kRegistry, image)}},
         {"sizeBytes", int64_t{size.Int(12, 12000)} * 1048576 + size.Int(0, 1048575)}});
  }
  return images;
}

json ObjectWriter::ContainerJson(const Container& c, const std::string& api_volume) {
  json requests = {{"cpu", Cpu(c.cpu_m)}, {"memory", Mem(c.mem_mib)}};
  json limits = {{"memory", Mem(c.mem_mib)}};
  // Extended resources go in limits; the API server copies them to requests (§1.1).
  if (c.gpu_mem > 0) {
    limits["aliyun.com/gpu-mem"] = std::to_string(c.gpu_mem);
    requests["aliyun.com/gpu-mem"] = std::to_string(c.gpu_mem);
  }
  if (c.whole_gpus > 0) {
    limits["nvidia.com/gpu"] = std::to_string(c.whole_gpus);
    requests["nvidia.com/gpu"] = std::to_string(c.whole_gpus);
  }
  json j = {{"image", ImageRef(plan_, c)},
            {"imagePullPolicy", "IfNotPresent"},
            {"name", c.name},
            {"resources", {{"limits", limits}, {"requests", requests}}},
            {"terminationMessagePath", "/dev/termination-log"},
            {"terminationMessagePolicy", "File"}};
  if (c.port > 0) {
    j["ports"] = json::array({{{"containerPort", c.port},
                               {"name", c.probe == Probe::kGrpc ? "grpc" : "http"},
                               {"protocol", "TCP"}}});
  }
  if (c.probe != Probe::kNone) j["readinessProbe"] = ProbeJson(c.probe, c.port, false);
  if (c.liveness && c.port > 0) j["livenessProbe"] = ProbeJson(Probe::kTcp, c.port, true);
  if (!c.env.empty()) {
    json env = json::array();
    for (const Env& e : c.env) {
      if (!e.secret_name.empty()) {
        env.push_back(
            {{"name", e.name},
             {"valueFrom", {{"secretKeyRef", {{"key", e.secret_key}, {"name", e.secret_name}}}}}});
      } else {
        env.push_back({{"name", e.name}, {"value", e.value}});
      }
    }
    j["env"] = env;
  }
  json mounts = json::array();
  for (const auto& [volume, path] : c.mounts) {
    mounts.push_back({{"mountPath", path}, {"name", volume}});
  }
  if (!api_volume.empty()) {
    mounts.push_back({{"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
                      {"name", api_volume},
                      {"readOnly", true}});
  }
  if (!mounts.empty()) j["volumeMounts"] = mounts;
  return j;
}

// The pod spec of a template (pod == nullptr) or of one pod, with what admission and the
// scheduler add to a pod: the service-account volume, default tolerations, nodeName.
json ObjectWriter::PodSpecJson(const Workload& w, const PodPlan* pod, Rng* rng) {
  const std::string api_volume = pod ? "kube-api-access-" + rng->Chars(kKubeAlphabet, 5) : "";
  json containers = json::array();
  for (const Container& c : w.containers) containers.push_back(ContainerJson(c, api_volume));
  json spec = {{"containers", containers},
               {"dnsPolicy", "ClusterFirst"},
               {"enableServiceLinks", true},
               {"restartPolicy", w.restart_policy},
               {"schedulerName", "default-scheduler"},
               {"securityContext", json::object()},
               {"serviceAccountName", "default"},
               {"terminationGracePeriodSeconds", 30}};
  if (pod) {
    spec["preemptionPolicy"] = "PreemptLowerPriority";
    spec["priority"] = 0;
    spec["serviceAccount"] = "default";
    if (pod->node >= 0) spec["nodeName"] = plan_.nodes[pod->node].name;
  }
  json tolerations = json::array();
  if (w.tolerate_all) {
    tolerations.push_back({{"operator", "Exists"}});
  } else if (w.pool >= 0 && plan_.pools[w.pool].gpu != nullptr) {
    tolerations.push_back(
        {{"effect", "NoSchedule"}, {"key", kGpuTaintKey}, {"operator", "Exists"}});
  }
  if (pod) {
    for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      tolerations.push_back({{"effect", "NoExecute"},
                             {"key", key},
                             {"operator", "Exists"},
                             {"tolerationSeconds", 300}});
    }
  }
  if (!tolerations.empty()) spec["tolerations"] = tolerations;
  if (w.pool >= 0 && w.kind != Kind::kDaemonSet) {
    spec["nodeSelector"] = {{std::string(kPoolLabel), plan_.pools[w.pool].id}};
  }
  if (w.kind == Kind::kDaemonSet && pod && pod->node >= 0) {
    // The DaemonSet controller pins each pod to its node with matchFields (§5.3).
    spec["affinity"] = {{"nodeAffinity",
                         {{"requiredDuringSchedulingIgnoredDuringExecution",
                           {{"nodeSelectorTerms",
                             {{{"matchFields",
                                {{{"key", "metadata.name"},
                                  {"operator", "In"},
                                  {"values", {plan_.nodes[pod->node].name}}}}}}}}}}}}};
  }
  if (w.kind == Kind::kStatefulSet && pod) {
    spec["hostname"] = pod->name;
    spec["subdomain"] = w.service_name;
  }
  json volumes = json::array();
  if (pod) {
    for (const Claim& claim : w.claims) {
      volumes.push_back(
          {{"name", claim.name},
           {"persistentVolumeClaim",
            {{"claimName", fmt::format("{}-{}-{}", claim.name, w.name, pod->ordinal)}}}});
    }
    volumes.push_back(
        {{"name", api_volume},
         {"projected",
          {{"defaultMode", 420},
           {"sources",
            {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
             {{"configMap",
               {{"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}},
                {"name", "kube-root-ca.crt"}}}},
             {{"downwardAPI",
               {{"items",
                 {{{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}},
                   {"path", "namespace"}}}}}}}}}}}});
  }
  if (!volumes.empty()) spec["volumes"] = volumes;
  return spec;
}

json ObjectWriter::TemplateJson(const Workload& w, bool with_hash) {
  json labels = w.labels;
  if (with_hash) labels["pod-template-hash"] = w.hash;
  json meta = {{"creationTimestamp", nullptr}, {"labels", labels}};
  if (!w.template_annotations.empty()) meta["annotations"] = w.template_annotations;
  return {{"metadata", meta}, {"spec", PodSpecJson(w, nullptr, nullptr)}};
}

json ObjectWriter::PodJson(int p) {
  const PodPlan& pod = plan_.pods[p];
  const Workload& w = plan_.workloads[pod.workload];
  Rng rng = Stream(plan_.o.seed, kPodStreamBase + p);
  json meta = Meta(w.ns, pod.name, pod.uid, pod.created, rng);
  SetPodOwner(w, pod, meta);
  json annotations = PodAnnotations(w, pod, rng);
  if (!annotations.empty()) meta["annotations"] = annotations;
  const json status = pod.node >= 0 ? RunningPodStatus(w, pod, rng) : PendingPodStatus(pod);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", meta},
          {"spec", PodSpecJson(w, &pod, &rng)},
          {"status", status}};
}

// The labels, generateName and ownerReference the pod's controller gives it, and the GPU
// labels of multi-card and whole-device pods.
void ObjectWriter::SetPodOwner(const Workload& w, const PodPlan& pod, json& meta) const {
  json labels = w.labels;
  json owner;
  switch (w.kind) {
    case Kind::kDeployment:
      labels["pod-template-hash"] = w.hash;
      meta["generateName"] = fmt::format("{}-{}-", w.name, w.hash);
      owner = {{"kind", "ReplicaSet"},
               {"name", fmt::format("{}-{}", w.name, w.hash)},
               {"uid", w.rs_uid}};
      break;
    case Kind::kStatefulSet:
      labels["controller-revision-hash"] = w.revision_hash;
      labels["statefulset.kubernetes.io/pod-name"] = pod.name;
      labels["apps.kubernetes.io/pod-index"] = std::to_string(pod.ordinal);
      meta["generateName"] = w.name + "-";
      owner = {{"kind", "StatefulSet"}, {"name", w.name}, {"uid", w.uid}};
      break;
    case Kind::kDaemonSet:
      labels["controller-revision-hash"] = w.revision_hash.substr(w.revision_hash.rfind('-') + 1);
      labels["pod-template-generation"] = "1";
      meta["generateName"] = w.name + "-";
      owner = {{"kind", "DaemonSet"}, {"name", w.name}, {"uid", w.uid}};
      break;
    case Kind::kBarePod:
      break;
  }
  if (owner.is_object()) {
    owner["apiVersion"] = "apps/v1";
    owner["blockOwnerDeletion"] = true;
    owner["controller"] = true;
    meta["ownerReferences"] = json::array({owner});
  }
  if (w.gpu_count > 1 && w.whole == 0) labels["aliyun.com/gpu-count"] = std::to_string(w.gpu_count);
  if (w.whole_device) labels["ack.gpushare.placement"] = "require-whole-device";
  meta["labels"] = labels;
}

// The template's annotations, kubectl's last-applied configuration, and the card allocation of
// a bound GPU-sharing pod.
json ObjectWriter::PodAnnotations(const Workload& w, const PodPlan& pod, Rng& rng) const {
  json annotations = w.template_annotations;
  if (!w.last_applied.empty()) {
    annotations["kubectl.kubernetes.io/last-applied-configuration"] = w.last_applied;
  }
  if (pod.node >= 0 && w.units_per_card > 0) AddAllocationAnnotations(w, pod, rng, annotations);
  return annotations;
}

// The scheduler's card allocation (docs/semantics.md §1.3) in the form the pool's scheduler writes:
// the extender's ALIYUN_COM_GPU_MEM_* (v1) or the gpushare framework's JSON (v2), per container
// and card, in units or as "used/total" strings.
void ObjectWriter::AddAllocationAnnotations(const Workload& w, const PodPlan& pod, Rng& rng,
                                            json& annotations) const {
  const Node& node = plan_.nodes[pod.node];
  const Pool& pool = plan_.pools[node.pool];
  const std::string assume_time = fmt::format("{}{:09}", pod.created + rng.Int(1, 5),
                                              static_cast<int64_t>(rng.Int(0, 999999999)));
  if (pool.spec->allocation == Allocation::kV1) {
    annotations["ALIYUN_COM_GPU_MEM_IDX"] = std::to_string(plan_.cards[pod.cards[0]].index);
    annotations["ALIYUN_COM_GPU_MEM_POD"] = std::to_string(w.units_per_card);
    annotations["ALIYUN_COM_GPU_MEM_DEV"] = std::to_string(pool.units);
    annotations["ALIYUN_COM_GPU_MEM_ASSIGNED"] = "true";
    annotations["ALIYUN_COM_GPU_MEM_ASSUME_TIME"] = assume_time;
    return;
  }
  json allocation = json::object();
  for (size_t ci = 0; ci < w.containers.size(); ++ci) {
    const Container& c = w.containers[ci];
    if (c.gpu_mem == 0) continue;
    json per_card = json::object();
    for (int card : pod.cards) {
      const int units = c.gpu_mem / w.gpu_count;
      const std::string index = std::to_string(plan_.cards[card].index);
      if (pool.spec->allocation == Allocation::kV2Fraction) {
        per_card[index] = fmt::format("{}/{}", units, pool.units);
      } else {
        per_card[index] = units;
      }
    }
    allocation[std::to_string(ci)] = per_card;
  }
  json devices = json::object();
  for (int c = 0; c < node.cards; ++c) devices[std::to_string(c)] = pool.units;
  annotations["scheduler.framework.gpushare.allocation"] = allocation.dump();
  annotations["gpushare.alibabacloud.com/device-resource"] = devices.dump();
  annotations["scheduler.framework.gpushare.assigned"] = "true";
  annotations["scheduler.framework.gpushare.assume-time"] = assume_time;
}

// A bound pod's status: scheduled, initialized and ready, every container running.
json ObjectWriter::RunningPodStatus(const Workload& w, const PodPlan& pod, Rng& rng) {
  const Node& node = plan_.nodes[pod.node];
  const std::string created = Rfc3339(pod.created);
  const std::string started = Rfc3339(pod.created + 2);
  const std::string ready = Rfc3339(pod.created + 49);
  json conditions = json::array();
  for (const auto& [type, at] : {std::pair{"Initialized", started},
                                 {"Ready", ready},
                                 {"ContainersReady", ready},
                                 {"PodScheduled", created}}) {
    conditions.push_back({{"lastProbeTime", nullptr},
                          {"lastTransitionTime", at},
                          {"status", "True"},
                          {"type", type}});
  }
  json statuses = json::array();
  for (const Container& c : w.containers) {
    json s = {{"containerID", "containerd://" + rng.Hex(64)},
              {"image", ImageRef(plan_, c)},
              {"imageID",
               fmt::format("{}/{}@sha256:{}", kRegistry, c.repo, Digest(plan_, c.repo, c.tag))},
              {"lastState", json::object()},
              {"name", c.name},
              {"ready", true},
              {"restartCount", pod.restarts},
              {"started", true},
              {"state", {{"running", {{"startedAt", Rfc3339(pod.created + 21)}}}}}};
    statuses.push_back(s);
  }
  return {{"conditions", conditions},
          {"containerStatuses", statuses},
          {"hostIP", node.ip},
          {"hostIPs", {{{"ip", node.ip}}}},
          {"phase", "Running"},
          {"podIP", pod.ip},
          {"podIPs", {{{"ip", pod.ip}}}},
          {"qosClass", "Burstable"},
          {"startTime", started}};
}

}  // namespace knobsim::gen_export
