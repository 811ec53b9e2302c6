#include "sim/io/kube/kinds.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/io/arrival_file.h"
#include "sim/io/kube/ack_allocation.h"
#include "sim/io/kube/gpu_sharing_modes.h"
#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/resources.h"
#include "sim/io/kube/secret_filter.h"
#include "sim/io/kube/selectors.h"
#include "sim/mig_layout.h"

namespace knobsim::kube {
namespace {

constexpr std::string_view kWholeDeviceKey = "ack.gpushare.placement";

// A probe's port: a number 1-65535 or the name of a container port (an IANA service name, at
// most 15 characters).
std::string ReadPort(ObjectReader& r, const Field& f) {
  const std::string text = r.String(f);
  if (text.empty()) r.Fail(f, "empty port", "give a port number or the name of a container port");
  if (std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::to_string(r.Int(f, 1, 65535));
  }
  if (text.size() > 15) {
    r.Fail(f, Quote(text) + " is not a port number or name",
           "a port name has at most 15 characters");
  }
  return text;
}

// A probe (docs/semantics.md §5.3). What may hold a credential is never read: HTTP headers, the
// arguments of an exec command, a path's query string; what is kept is checked once more with
// LooksLikeSecret and left empty if it looks like one.
Probe ReadProbe(ObjectReader& r, const Field& f) {
  r.ExpectMap(f);
  Probe probe;
  std::optional<Field> handler;
  std::string_view handler_key;
  for (const auto& [key, kind] : {std::pair{std::string_view("exec"), ProbeKind::kExec},
                                  std::pair{std::string_view("httpGet"), ProbeKind::kHttpGet},
                                  std::pair{std::string_view("tcpSocket"), ProbeKind::kTcpSocket},
                                  std::pair{std::string_view("grpc"), ProbeKind::kGrpc}}) {
    std::optional<Field> h = r.Get(f, key);
    if (!h) continue;
    if (handler) {
      r.Fail(*h,
             Cat({"a probe has one handler, and ", Backquote(handler_key), " is already given"}),
             "keep one of exec, httpGet, tcpSocket and grpc");
    }
    handler = std::move(h);
    handler_key = key;
    probe.kind = kind;
  }
  if (!handler)
    r.Fail(f, "a probe needs a handler", "give one of exec, httpGet, tcpSocket and grpc");
  r.ExpectMap(*handler, /*reveal=*/false);
  switch (probe.kind) {
    case ProbeKind::kExec:
      if (auto command = r.Get(*handler, "command")) {
        const std::vector<Field> words = r.Items(*command, /*reveal=*/false);
        if (!words.empty()) {
          // The program alone: up to the first blank (a whole shell line in one word), without
          // its directory.
          const std::string first = r.String(words[0], /*reveal=*/false);
          std::string_view program(first);
          program = program.substr(0, program.find_first_of(" \t\n"));
          program = program.substr(program.find_last_of('/') + 1);
          if (!LooksLikeSecret("", program)) probe.exec_command = std::string(program);
        }
      }
      break;
    case ProbeKind::kHttpGet:
      probe.port = ReadPort(r, r.Require(*handler, "port"));
      if (auto path = r.Get(*handler, "path")) {
        std::string text = r.String(*path, /*reveal=*/false);
        text.resize(std::min(text.size(), text.find('?')));
        if (!LooksLikeSecret("", text)) probe.http_path = std::move(text);
      }
      break;
    case ProbeKind::kTcpSocket:
      probe.port = ReadPort(r, r.Require(*handler, "port"));
      break;
    case ProbeKind::kGrpc:
      probe.port = std::to_string(r.Int(r.Require(*handler, "port"), 1, 65535));
      if (auto service = r.Get(*handler, "service")) probe.grpc_service = r.String(*service);
      break;
    case ProbeKind::kNone:
      break;
  }
  // Validation's minimums (validateProbe): only the initial delay may be 0.
  for (const auto& [key, min, out] :
       {std::tuple{"initialDelaySeconds", 0, &probe.initial_delay_seconds},
        std::tuple{"periodSeconds", 1, &probe.period_seconds},
        std::tuple{"timeoutSeconds", 1, &probe.timeout_seconds},
        std::tuple{"successThreshold", 1, &probe.success_threshold},
        std::tuple{"failureThreshold", 1, &probe.failure_threshold}}) {
    if (auto t = r.Get(f, key))
      *out = static_cast<int>(r.Int(*t, min, std::numeric_limits<int32_t>::max()));
  }
  return probe;
}

// status.containerStatuses onto the containers of the same name: readiness, restarts and the
// reasons (never the messages, which quote logs and commands).
void ReadContainerStatuses(ObjectReader& r, const Field& statuses, PodSpec& pod) {
  for (const Field& s : r.Items(statuses)) {
    r.ExpectMap(s);
    const std::string name = r.String(r.Require(s, "name"));
    auto it = std::find_if(pod.containers.begin(), pod.containers.end(),
                           [&](const ContainerInfo& c) { return c.name == name; });
    if (it == pod.containers.end()) continue;  // not a regular container of the spec
    if (auto ready = r.Get(s, "ready")) it->ready = r.Bool(*ready);
    it->restart_count = r.Count(r.Get(s, "restartCount"), 0);
    auto reason = [&](std::string_view state_key, std::string_view state) -> std::string {
      const std::optional<Field> states = r.Get(s, state_key);
      if (!states) return "";
      r.ExpectMap(*states);
      const std::optional<Field> one = r.Get(*states, state);
      if (!one) return "";
      r.ExpectMap(*one);
      const std::optional<Field> text = r.Get(*one, "reason");
      return text ? r.String(*text) : "";
    };
    it->waiting_reason = reason("state", "waiting");
    it->terminated_reason = reason("state", "terminated");
    it->last_terminated_reason = reason("lastState", "terminated");
  }
}

// spec.priority and the preemption policy. The Priority admission plugin copies the class's
// value (and policy) into the spec, so an exported pod has them; a manifest's pod may not, and
// then waits for the PriorityClass objects read with it (ResolvePriorityClasses).
void ReadPriority(ObjectReader& r, const Field& spec, PodSpec& pod) {
  if (auto class_name = r.Get(spec, "priorityClassName")) {
    pod.priority_class_name = r.String(*class_name);
  }
  if (auto priority = r.Get(spec, "priority")) {
    pod.priority = static_cast<int>(
        r.Int(*priority, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
  } else {
    pod.priority_pending = true;
  }
  if (auto policy = r.Get(spec, "preemptionPolicy")) {
    pod.preemption_policy =
        r.Enum(*policy, {"PreemptLowerPriority", "Never"}, "a preemption policy");
    pod.preemption_policy_given = true;
  }
}

// The DisruptionTarget condition the scheduler sets on a pod it preempts.
bool PreemptedByScheduler(ObjectReader& r, const Field& status) {
  const std::optional<Field> conditions = r.Get(status, "conditions");
  if (!conditions) return false;
  for (const Field& c : r.Items(*conditions)) {
    r.ExpectMap(c);
    const std::optional<Field> type = r.Get(c, "type");
    if (!type || r.String(*type) != "DisruptionTarget") continue;
    const std::optional<Field> value = r.Get(c, "status");
    const std::optional<Field> reason = r.Get(c, "reason");
    return value && r.String(*value) == "True" && reason &&
           r.String(*reason) == "PreemptionByScheduler";
  }
  return false;
}

// spec.affinity: required and preferred node affinity, inter-pod affinity and anti-affinity.
void ReadAffinity(ObjectReader& r, const Field& affinity, PodSpec& pod) {
  r.ExpectMap(affinity);
  if (auto node_affinity = r.Get(affinity, "nodeAffinity")) {
    r.ExpectMap(*node_affinity);
    if (auto required = r.Get(*node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
      r.ExpectMap(*required);
      const Field terms = r.Require(*required, "nodeSelectorTerms");
      for (const Field& term : r.Items(terms)) {
        pod.node_affinity.required_terms.push_back(ReadNodeSelectorTerm(r, term));
      }
      if (pod.node_affinity.required_terms.empty()) {
        r.Fail(terms, "no nodeSelectorTerms", "give at least one term, or drop the required part");
      }
    }
    if (auto preferred = r.Get(*node_affinity, "preferredDuringSchedulingIgnoredDuringExecution")) {
      for (const Field& p : r.Items(*preferred)) {
        r.ExpectMap(p);
        NodeAffinity::Preferred pref;
        pref.weight = static_cast<int>(r.Int(r.Require(p, "weight"), 1, 100));
        pref.expressions = ReadNodeSelectorTerm(r, r.Require(p, "preference"));
        pod.node_affinity.preferred.push_back(std::move(pref));
      }
    }
  }
  if (auto f = r.Get(affinity, "podAffinity")) pod.pod_affinity = ReadPodAffinity(r, *f);
  if (auto f = r.Get(affinity, "podAntiAffinity")) pod.pod_anti_affinity = ReadPodAffinity(r, *f);
}

// Things that change whether or by whom a pending pod is scheduled, which we do not model.
void WarnUnmodelledScheduling(ObjectReader& r, const Field& spec) {
  if (auto gates = r.Get(spec, "schedulingGates")) {
    r.Warn(*gates, "scheduling gates are not modelled; the pod is scheduled as if ungated");
  }
  if (auto scheduler = r.Get(spec, "schedulerName")) {
    // HAMi's hami-scheduler is kube-scheduler with HAMi's extender, which knobsim models
    // (sim/scheduler/hami_devices.h).
    if (const std::string name = r.String(*scheduler);
        name != "default-scheduler" && name != "hami-scheduler") {
      r.Warn(*scheduler, Cat({"scheduler ", Quote(name),
                              " places this pod in the cluster; knobsim applies kube-scheduler's "
                              "rules"}));
    }
  }
}

struct PodContainers {
  std::vector<ContainerResources> regular;
  std::vector<ContainerResources> init;
};

// One of spec.containers: its name, image, probes and ACK's GPU limits onto the pod; its
// resources returned.
ContainerResources ReadContainer(ObjectReader& r, const Field& c, PodSpec& pod) {
  r.ExpectMap(c);
  ContainerResources resources = ReadContainerResources(r, c, /*init=*/false);
  ContainerInfo info;
  if (auto container_name = r.Get(c, "name")) info.name = r.String(*container_name);
  if (auto image = r.Get(c, "image")) {
    info.image = r.String(*image);
    pod.images.push_back(info.image);
    // `@` appears in an image reference only before a digest (`name@sha256:…`).
    info.image_digest = info.image.find('@') != std::string::npos;
  }
  for (const auto& [key, probe] :
       {std::pair{"readinessProbe", &info.readiness}, std::pair{"livenessProbe", &info.liveness},
        std::pair{"startupProbe", &info.startup}}) {
    if (auto f = r.Get(c, key)) *probe = ReadProbe(r, *f);
  }
  pod.containers.push_back(std::move(info));
  const ResourceList& limits = resources.limits;
  ContainerGpu gpu;
  if (auto it = limits.find(kGpuMemResource); it != limits.end()) {
    gpu.gpu_mem = static_cast<int>(it->second);
  }
  if (auto it = limits.find(kGpuCoreResource); it != limits.end()) {
    gpu.gpu_core = static_cast<int>(it->second);
  }
  pod.container_gpus.push_back(gpu);
  pod.gpu_mem += gpu.gpu_mem;
  pod.gpu_core += gpu.gpu_core;
  return resources;
}

// spec.initContainers and spec.containers (at least one).
PodContainers ReadContainers(ObjectReader& r, const Field& spec, PodSpec& pod) {
  // Containers: requests for the scheduler, limits for ACK (docs/semantics.md §1.1: ACK reads
  // limits of spec.containers only).
  PodContainers out;
  const Field containers_field = r.Require(spec, "containers");
  const std::vector<Field> container_items = r.Items(containers_field);
  if (container_items.empty()) r.Fail(containers_field, "a pod needs at least one container");
  if (auto init = r.Get(spec, "initContainers")) {
    for (const Field& c : r.Items(*init)) {
      r.ExpectMap(c);
      out.init.push_back(ReadContainerResources(r, c, /*init=*/true));
      if (auto image = r.Get(c, "image")) pod.images.push_back(r.String(*image));
    }
  }
  for (const Field& c : container_items) out.regular.push_back(ReadContainer(r, c, pod));
  return out;
}

// The host ports of spec.containers[].ports (NodePorts): a hostPort > 0, or on a hostNetwork pod
// the containerPort, which the API server defaults hostPort to (pkg/apis/core/v1/defaults.go,
// defaultHostNetworkPorts); hostIP empty = 0.0.0.0, protocol absent = TCP. Init containers'
// ports hold no node port for the scheduler (upstream reads spec.containers only).
void ReadHostPorts(ObjectReader& r, const Field& spec, PodSpec& pod) {
  bool host_network = false;
  if (auto f = r.Get(spec, "hostNetwork")) host_network = r.Bool(*f);
  for (const Field& c : r.Items(r.Require(spec, "containers"))) {
    const std::optional<Field> ports = r.Get(c, "ports");
    if (!ports) continue;
    for (const Field& p : r.Items(*ports)) {
      r.ExpectMap(p);
      int port = 0;
      if (auto host_port = r.Get(p, "hostPort"))
        port = static_cast<int>(r.Int(*host_port, 0, 65535));
      if (port == 0 && host_network) {
        port = static_cast<int>(r.Int(r.Require(p, "containerPort"), 1, 65535));
      }
      if (port == 0) continue;
      HostPort hp;
      hp.port = port;
      if (auto ip = r.Get(p, "hostIP")) {
        if (std::string text = r.String(*ip); !text.empty()) hp.host_ip = std::move(text);
      }
      if (auto protocol = r.Get(p, "protocol")) {
        hp.protocol = r.Enum(*protocol, {"TCP", "UDP", "SCTP"}, "a port protocol");
      }
      pod.host_ports.push_back(std::move(hp));
    }
  }
}

// The claims of spec.volumes: persistentVolumeClaim.claimName, and `<pod>-<volume>` for a
// generic ephemeral volume.
void ReadVolumeClaims(ObjectReader& r, const Field& volumes, PodSpec& pod) {
  for (const Field& v : r.Items(volumes)) {
    r.ExpectMap(v);
    if (auto claim = r.Get(v, "persistentVolumeClaim")) {
      r.ExpectMap(*claim);
      const Field claim_name = r.Require(*claim, "claimName");
      pod.pvc_claims.push_back(r.String(claim_name));
      if (pod.pvc_claims.back().empty()) r.Fail(claim_name, "empty claimName");
    } else if (r.Get(v, "ephemeral")) {
      // A generic ephemeral volume: its controller names the claim `<pod>-<volume>`.
      pod.pvc_claims.push_back(Cat({pod.name, "-", r.String(r.Require(v, "name"))}));
      pod.ephemeral_claims.push_back(pod.pvc_claims.back());
    }
  }
}

// A sharing mode knobsim does not model (gpu_sharing_modes.h) stops the read at the annotation
// or container resource that shows it. Annotation keys are taken before the secret filter (HAMi's
// allocation lists card UUIDs), values never.
void RefuseUnmodelledSharing(ObjectReader& r, const Field& spec,
                             const std::optional<Field>& annotations, const PodSpec& pod) {
  std::vector<std::pair<std::string, Field>> keys;
  if (annotations) keys = r.Entries(*annotations, /*reveal=*/false);
  std::vector<std::pair<std::string, Field>> resources;
  for (std::string_view list : {"initContainers", "containers"}) {
    const std::optional<Field> containers = r.Get(spec, list);
    if (!containers) continue;
    for (const Field& c : r.Items(*containers)) {
      const std::optional<Field> res = r.Get(c, "resources");
      if (!res) continue;
      for (std::string_view kind : {"limits", "requests"}) {
        if (auto amounts = r.Get(*res, kind)) {
          for (auto& entry : r.Entries(*amounts)) resources.push_back(std::move(entry));
        }
      }
    }
  }
  auto names = [](const std::vector<std::pair<std::string, Field>>& entries) {
    std::vector<std::string> out;
    for (const auto& [name, field] : entries) out.push_back(name);
    return out;
  };
  const std::optional<UnmodelledSharing> found =
      UnmodelledPodSharing(names(keys), names(resources));
  if (!found) return;
  const auto& entries = found->evidence == SharingEvidence::kAnnotation ? keys : resources;
  auto it = std::find_if(entries.begin(), entries.end(),
                         [&](const auto& e) { return e.first == found->key; });
  r.Fail(it == entries.end() ? spec : it->second,
         UnmodelledSharingMessage(*found, Cat({"pod ", pod.namespace_, "/", pod.name})),
         std::string(kUnmodelledSharingHint));
}

// Devices of a name other than nvidia.com/gpu: MIG devices under the device plugin's mixed
// strategy (nvidia.com/mig-<profile>) and replicas under renameByDefault
// (nvidia.com/gpu.shared), whole devices the pod's whole_gpus then count
// (PodSpec::device_resource). One kind of device per pod: a pod asking two profiles, or a
// profile and nvidia.com/gpu, is not modelled.
void ReadDeviceRequest(ObjectReader& r, const Field& spec, PodSpec& pod) {
  for (const auto& [name, amount] : pod.requests) {
    const bool mig = name.starts_with(kMigResourcePrefix);
    if ((!mig && name != kSharedGpuResource) || amount <= 0) continue;
    if (mig && !ReadMigProfileName(name.substr(kMigResourcePrefix.size())))
      r.Fail(spec, Cat({"pod ", pod.namespace_, "/", pod.name, ": ", name,
                        " names no MIG profile (<g>g.<m>gb)"}));
    if (pod.whole_gpus > 0)
      r.Fail(spec,
             Cat({"pod ", pod.namespace_, "/", pod.name, ": asking ", name, " beside ",
                  pod.device_resource.empty() ? kNvidiaGpuResource : pod.device_resource,
                  " is not modelled (one kind of GPU device per pod)"}),
             std::string(kUnmodelledSharingHint));
    pod.whole_gpus = static_cast<int>(amount);
    pod.device_resource = name;
  }
}

// HAMi's vGPUs (docs/semantics.md §2.8): a container asking nvidia.com/gpumem,
// gpumem-percentage or gpucores is a HAMi container, and its nvidia.com/gpu counts vGPUs
// (pkg/device/nvidia/device.go GenerateResourceRequests; an export shows the pod after HAMi's
// webhook, which adds the count and gpucores where it does). kube-scheduler ignores all four
// (the chart's ignoredByScheduler), so they leave the pod's requests. The cards HAMi allocated
// (hami.io/vgpu-devices-allocated: "UUID,NVIDIA,MiB,cores:" per vGPU, ";" after each container)
// are kept for the bind, never printed.
// The container's GPU_CORE_UTILIZATION_POLICY, as HAMi's webhook writes it (a literal value;
// only this variable of the env list is read, and its value only as one of the three policies).
std::optional<HamiCorePolicy> ContainerCorePolicy(ObjectReader& r, const Field& container,
                                                  const std::string& who) {
  const std::optional<Field> env = r.Get(container, "env");
  if (!env) return std::nullopt;
  for (const Field& e : r.Items(*env)) {
    r.ExpectMap(e);
    const std::optional<Field> name = r.Get(e, "name");
    if (!name || r.String(*name) != kHamiCorePolicyEnv) continue;
    const std::optional<Field> value = r.Get(e, "value");
    const std::string text = value ? r.String(*value) : std::string();
    // HAMi-core's set_env_utilization_switch (src/multiprocess/multiprocess_memory_limit.c):
    // force or FORCE, disable or DISABLE; anything else is the default policy.
    if (text == "force" || text == "FORCE") return HamiCorePolicy::kForce;
    if (text == "disable" || text == "DISABLE") return HamiCorePolicy::kDisable;
    if (text != "default" && text != "DEFAULT") {
      r.Warn(value.value_or(*name),
             Cat({who, kHamiCorePolicyEnv,
                  " is not force or disable (or not a literal value): HAMi-core applies its "
                  "default policy"}));
    }
    return HamiCorePolicy::kDefault;
  }
  return std::nullopt;
}

void ReadHamiRequest(ObjectReader& r, const Field& spec, const std::optional<Field>& annotations,
                     const PodContainers& containers, PodSpec& pod) {
  const std::array<const char*, 3> hami_only = {kHamiMemResource, kHamiMemPercentResource,
                                                kHamiCoresResource};
  auto is_hami = [&](const ContainerResources& c) {
    return std::any_of(hami_only.begin(), hami_only.end(),
                       [&](const char* name) { return c.requests.count(name) > 0; });
  };
  const std::string who = Cat({"pod ", pod.namespace_, "/", pod.name, ": "});
  for (const ContainerResources& c : containers.init) {
    if (is_hami(c))
      r.Fail(spec, Cat({who, "HAMi vGPUs of an init container are not modelled"}),
             std::string(kUnmodelledSharingHint));
  }
  if (std::none_of(containers.regular.begin(), containers.regular.end(), is_hami)) return;
  auto amount = [](const ContainerResources& c, const char* name) -> int64_t {
    const auto it = c.requests.find(name);
    return it == c.requests.end() ? -1 : it->second;
  };
  const std::vector<Field> container_fields = r.Items(r.Require(spec, "containers"));
  for (size_t i = 0; i < containers.regular.size(); ++i) {
    const ContainerResources& c = containers.regular[i];
    const int64_t count = amount(c, kNvidiaGpuResource);
    if (count <= 0 && !is_hami(c)) continue;
    HamiRequest h;
    HamiAsked asked;
    // The webhook adds defaultGPUNum (1) to a container asking memory or cores alone.
    asked.vgpus_defaulted = count < 0;
    h.vgpus = static_cast<int>(std::clamp<int64_t>(count, 1, kMaxCardsPerNode));
    const int64_t mem = amount(c, kHamiMemResource);
    h.mem_mib = std::max<int64_t>(0, mem);
    // GenerateResourceRequests: a percentage above 100 counts as 100, one of 0 or less as unset.
    const int64_t percent = amount(c, kHamiMemPercentResource);
    h.mem_percent = percent > 0 ? static_cast<int>(std::min<int64_t>(percent, 100)) : 100;
    asked.mem_defaulted = mem <= 0 && percent <= 0;
    const int64_t cores = amount(c, kHamiCoresResource);
    // defaultExclusiveCoreIfNeeded: the webhook writes gpucores 100 where no cores are asked
    // and the container takes the whole memory (a percentage of 100, or no memory asked).
    const bool exclusive = cores < 0 && (percent >= 0 ? percent == 100 : mem < 0);
    h.cores = exclusive ? 100 : static_cast<int>(std::clamp<int64_t>(cores, 0, 100));
    asked.cores_defaulted = cores < 0 && !exclusive;
    asked.core_policy = ContainerCorePolicy(r, container_fields[i], who);
    pod.hami.push_back(h);
    pod.hami_asked.push_back(asked);
  }
  for (const char* name :
       {kNvidiaGpuResource, kHamiMemResource, kHamiMemPercentResource, kHamiCoresResource})
    pod.requests.erase(name);
  pod.whole_gpus = 0;
  pod.container_whole_gpus_max = 0;
  if (auto policy = pod.annotations.find(kHamiGpuPolicyAnnotation);
      policy != pod.annotations.end() && policy->second != "binpack" &&
      policy->second != "spread" && policy->second != "mutex")
    r.Fail(annotations ? r.Get(*annotations, kHamiGpuPolicyAnnotation).value_or(spec) : spec,
           Cat({who, "HAMi's GPU scheduler policy ", Quote(policy->second),
                " is not modelled (binpack, spread and mutex are)"}),
           std::string(kUnmodelledSharingHint));
  // The allocation lists card UUIDs: kept below as hami_allocated, shown nowhere.
  pod.annotations.erase(kHamiAllocatedAnnotation);
  pod.annotations.erase("hami.io/vgpu-devices-to-allocate");
  if (!annotations) return;
  const std::optional<Field> allocated = r.Get(*annotations, kHamiAllocatedAnnotation);
  if (!allocated) return;
  const std::string text = r.String(*allocated, /*reveal=*/false);
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = std::min(text.find_first_of(":;", begin), text.size());
    const std::string_view device(text.data() + begin, end - begin);
    if (!device.empty()) pod.hami_allocated.emplace_back(device.substr(0, device.find(',')));
    begin = end + 1;
  }
}

}  // namespace

PodSpec ReadPod(ObjectReader& r, const Field& object) {
  PodSpec pod;
  const ObjectMeta meta = ReadObjectMeta(r, object, "Pod", pod);
  const std::optional<Field>& labels = meta.labels;
  const std::optional<Field>& annotations = meta.annotations;
  pod.terminating = r.Get(meta.field, "deletionTimestamp").has_value();

  const Field spec = r.Require(object, "spec");
  r.ExpectMap(spec);
  ReadPodBody(r, spec, labels, annotations, pod);

  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    if (auto phase = r.Get(*status, "phase")) {
      pod.phase =
          r.Enum(*phase, {"Pending", "Running", "Succeeded", "Failed", "Unknown"}, "a pod phase");
    }
    pod.ready_status = ReadyStatus(r, *status);
    if (auto statuses = r.Get(*status, "containerStatuses"))
      ReadContainerStatuses(r, *statuses, pod);
    if (auto start = r.Get(*status, "startTime")) {
      const std::string text = r.String(*start);
      pod.start_time = ParseRfc3339(text);
      if (!pod.start_time) {
        r.Fail(*start, Cat({Quote(text), " is not a time"}),
               "an RFC 3339 time such as 2026-01-05T08:00:00Z");
      }
    }
    if (auto nominated = r.Get(*status, "nominatedNodeName")) {
      pod.nominated_node_name = r.String(*nominated);
    }
    pod.preempted_by_scheduler = PreemptedByScheduler(r, *status);
    ReadPodResourceClaimStatuses(r, *status, pod);
  }
  return pod;
}

void ReadPodBody(ObjectReader& r, const Field& spec, const std::optional<Field>& labels,
                 const std::optional<Field>& annotations, PodSpec& pod) {
  if (auto node_name = r.Get(spec, "nodeName")) pod.node_name = r.String(*node_name);
  ReadPriority(r, spec, pod);
  ReadPodResourceClaims(r, spec, pod);
  pod.node_selector = r.StringMap(r.Get(spec, "nodeSelector"));
  if (auto affinity = r.Get(spec, "affinity")) ReadAffinity(r, *affinity, pod);
  if (pod.node_name.empty()) WarnUnmodelledScheduling(r, spec);
  if (auto tolerations = r.Get(spec, "tolerations")) {
    for (const Field& t : r.Items(*tolerations)) pod.tolerations.push_back(ReadToleration(r, t));
  }
  if (auto constraints = r.Get(spec, "topologySpreadConstraints")) {
    for (const Field& c : r.Items(*constraints)) {
      pod.topology_spread.push_back(ReadSpreadConstraint(r, c));
    }
  }
  ResourceList overhead;
  for (const ResourceEntry& e : Resources(r, r.Get(spec, "overhead"))) overhead[e.name] = e.value;

  const PodContainers containers = ReadContainers(r, spec, pod);
  ReadHostPorts(r, spec, pod);
  RefuseUnmodelledSharing(r, spec, annotations, pod);
  pod.num_containers = static_cast<int>(containers.regular.size());
  if (auto volumes = r.Get(spec, "volumes")) ReadVolumeClaims(r, *volumes, pod);
  pod.requests = PodRequests(containers.regular, containers.init, overhead, {});
  for (const ContainerResources& c : containers.init)
    pod.container_requests.push_back({true, c.sidecar, c.requests});
  for (const ContainerResources& c : containers.regular)
    pod.container_requests.push_back({false, false, c.requests});
  // Scoring's non-zero requests: 100m cpu and 200Mi memory for a container that sets none.
  const ResourceList nonzero = PodRequests(containers.regular, containers.init, overhead,
                                           {{"cpu", 100}, {"memory", int64_t{200} << 20}});
  pod.nonzero_cpu_milli = nonzero.at("cpu");
  pod.nonzero_memory_bytes = nonzero.at("memory");
  if (auto it = pod.requests.find(kNvidiaGpuResource); it != pod.requests.end()) {
    pod.whole_gpus = static_cast<int>(it->second);
  }
  ReadDeviceRequest(r, spec, pod);
  ReadHamiRequest(r, spec, annotations, containers, pod);
  const std::string device =
      pod.device_resource.empty() ? std::string(kNvidiaGpuResource) : pod.device_resource;
  for (const auto* list : {&containers.regular, &containers.init}) {
    for (const ContainerResources& c : *list) {
      if (auto it = c.requests.find(device); it != c.requests.end()) {
        pod.container_whole_gpus_max =
            std::max(pod.container_whole_gpus_max, static_cast<int>(it->second));
      }
    }
  }

  if (labels) {
    if (auto count = r.Get(*labels, kPodGpuCountLabel)) {
      pod.gpu_count = static_cast<int>(r.Int(*count, 1, kMaxCardsPerNode));
    }
  }
  auto whole_device = [&](const Labels& map) {
    auto it = map.find(std::string(kWholeDeviceKey));
    return it != map.end() && it->second == "require-whole-device";
  };
  pod.require_whole_device = whole_device(pod.labels) || whole_device(pod.annotations);
  if (annotations) ReadAllocation(r, *annotations, pod);
}

}  // namespace knobsim::kube
