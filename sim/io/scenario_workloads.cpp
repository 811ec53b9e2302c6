// `workloads:`: a workload's identity, current pods, rules, resources, startup and serving knobs
// (scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include <algorithm>
#include <limits>

#include "sim/io/spelling.h"
#include "sim/mig_layout.h"
#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim::scenario_internal {

// A workload's `interference:`: a job of the model file by name, or its own solo profile
// (the columns of SOLO.csv), or `none`... (`none` is handled by the caller).
JobProfile Reader::ReadInterferenceProfile(const Field& f) const {
  if (f.node.IsScalar()) {
    const std::string job = NonEmptyString(f);
    std::vector<std::string> names;
    for (const JobProfile& p : interference_->profiles) {
      if (p.job == job) return p;
      names.push_back(p.job);
    }
    Fail(f,
         "the interference model " + Quote(interference_->source) + " holds no job " + Quote(job),
         SuggestName(job, names, "its jobs include"));
  }
  Section p(*this, f, {"gpu_util_pct", "mem_bw_util_pct", "memory_mib"});
  JobProfile profile;  // no job name: the fit's per-job offsets are for its own jobs only
  profile.gpu_util_pct = Number(p.Require("gpu_util_pct"), 0, 100, false, false);
  profile.mem_bw_util_pct = Number(p.Require("mem_bw_util_pct"), 0, 100, false, false);
  profile.memory_mib =
      Number(p.Require("memory_mib"), 0, std::numeric_limits<double>::max(), false, false);
  return profile;
}

// `gpu_profile:` DCGM's profiling counters of the workload alone on a card, ratios 0..1 as
// dcgm-exporter exports them (docs/scenario.md "GPU profile"). At least one; SM_ACTIVE above 0
// (a job whose kernels occupy no SM has no profile to speak of).
GpuProfile Reader::ReadGpuProfile(const Field& f) const {
  Section p(*this, f,
            {"sm_active", "sm_occupancy", "dram_active", "tensor_active", "gr_engine_active"});
  GpuProfile profile;
  if (auto v = p.Get("sm_active")) profile.sm_active = Number(*v, 0, 1, true, false);
  if (auto v = p.Get("sm_occupancy")) profile.sm_occupancy = Number(*v, 0, 1, false, false);
  if (auto v = p.Get("dram_active")) profile.dram_active = Number(*v, 0, 1, false, false);
  if (auto v = p.Get("tensor_active")) profile.tensor_active = Number(*v, 0, 1, false, false);
  if (auto v = p.Get("gr_engine_active")) profile.gr_engine_active = Number(*v, 0, 1, true, false);
  if (profile == GpuProfile{}) {
    Fail(f, "a gpu_profile needs at least one counter",
         "give sm_active, sm_occupancy, dram_active, tensor_active or gr_engine_active (ratios "
         "0..1), or leave gpu_profile out");
  }
  return profile;
}

// ACK splits a multi-card pod's gpu-mem evenly over its cards and rejects a remainder, with
// this message (docs/semantics.md §1.2, aliyun.com/gpu-count).
void Reader::CheckGpuMemSplit(const Field& f, int gpu_mem, int gpu_count) const {
  if (gpu_count <= 1 || gpu_mem % gpu_count == 0) return;
  Fail(f,
       "invalid replica for resource aliyun.com/gpu-mem, because " + std::to_string(gpu_mem) +
           " / " + std::to_string(gpu_count) + " = " +
           MessageNumber(static_cast<double>(gpu_mem) / gpu_count),
       "make gpu_mem a multiple of gpu_count (" + std::to_string(gpu_count) + ")");
}

Workload Reader::ReadWorkload(const Field& f) const {
  Section s(*this, f,
            {"name",
             "namespace",
             "replicas",
             "labels",
             "node_selector",
             "node_affinity",
             "tolerations",
             "topology_spread",
             "priority",
             "cpu",
             "memory",
             "gpu_mem",
             "gpu_core",
             "gpu_count",
             "whole_gpus",
             "mig_profile",
             "schd_weight",
             "gpu_memory",
             "startup",
             "probe",
             "on_load_oom",
             "traffic",
             "closed_loop",
             "work",
             "concurrency",
             "batching",
             "cpu_time",
             "timeout",
             "on_timeout",
             "routing",
             "slo",
             "pods",
             "kind",
             "images",
             "image_size",
             "annotations",
             "volumes",
             "pod_affinity",
             "pod_anti_affinity",
             "host_ports",
             "hpa",
             "cron_hpa",
             "interference",
             "gpu_profile",
             "hami",
             "gpu_resource",
             "dra"});
  Workload w;
  w.name = DnsName(s.Require("name"));
  if (auto v = s.Get("namespace")) w.namespace_ = DnsName(*v);
  if (auto v = s.Get("replicas")) w.replicas = Int(*v, 0);
  if (auto v = s.Get("pods")) w.pods = ReadCurrentPods(*v, w.replicas);
  ReadPodMetadata(s, w);
  ReadSchedulingRules(s, w);
  ReadWorkloadAutoscalers(s, w);
  ReadResources(s, w);
  ReadStartup(s, w);
  ReadServing(s, w);
  ReadWorkloadInterference(s, f, w);
  if (auto v = s.Get("gpu_profile")) w.gpu_profile = ReadGpuProfile(*v);
  return w;
}

// `pods:`: the workload's running pods (at most `replicas`), each on a node of node_pools.
std::vector<CurrentPod> Reader::ReadCurrentPods(const Field& f, int replicas) const {
  std::vector<CurrentPod> pods;
  const std::vector<Field> items = Items(f);
  if (static_cast<int>(items.size()) > replicas) {
    Fail(f,
         std::to_string(items.size()) + " current pods listed for " + std::to_string(replicas) +
             " replicas",
         "list at most `replicas` pods");
  }
  for (const Field& item : items) {
    Section ps(*this, item, {"name", "node", "cards", "ready", "ready_after"});
    CurrentPod pod;
    pod.name = DnsName(ps.Require("name"));
    const Field node = ps.Require("node");
    pod.node = NonEmptyString(node);
    if (!KnownNode(pod.node)) {
      Fail(node, "no node " + Quote(pod.node) + " in node_pools",
           SuggestName(pod.node, HintedNodeNames(), "nodes include"));
    }
    if (auto c = ps.Get("cards")) {
      for (const Field& card : Items(*c)) pod.cards.push_back(Int(card, 0, 63));
      if (!std::is_sorted(pod.cards.begin(), pod.cards.end()) ||
          std::adjacent_find(pod.cards.begin(), pod.cards.end()) != pod.cards.end()) {
        Fail(*c, "cards must be distinct and in increasing order");
      }
    }
    if (auto r = ps.Get("ready")) pod.ready = Bool(*r);
    if (auto r = ps.Get("ready_after")) {
      if (pod.ready)
        Fail(*r, "ready_after is for a pod that is not Ready at the start", "add `ready: false`");
      pod.ready_after = Duration(*r);
    }
    for (const CurrentPod& other : pods) {
      if (other.name == pod.name) Fail(EntryOf(item, "name"), "duplicate pod " + Quote(pod.name));
    }
    pods.push_back(std::move(pod));
  }
  return pods;
}

// `labels:` (the workload's own by default), the owner's kind, images, annotations, volumes.
void Reader::ReadPodMetadata(const Section& s, Workload& w) const {
  if (auto v = s.Get("labels")) {
    w.labels = StringMap(*v);
  } else {
    w.labels = {{"app", w.name}};
  }
  // The owner's kind as Kubernetes names it; the checks know Deployment, StatefulSet, DaemonSet,
  // ReplicaSet, Job, CronJob and Pod, and treat other (custom) kinds as opaque owners.
  if (auto v = s.Get("kind")) w.kind = NonEmptyString(*v);
  if (auto v = s.Get("images")) w.images = StringList(*v);
  if (auto v = s.Get("image_size")) w.image_size_mib = Unit(*v, &ParseMemoryMib, "a quantity");
  if (auto v = s.Get("annotations")) w.annotations = StringMap(*v);
  if (auto v = s.Get("volumes")) w.volumes = StringList(*v);
}

// Where its pods may run: node selector and affinity, tolerations, spread, pod (anti-)affinity
// and host ports.
void Reader::ReadSchedulingRules(const Section& s, Workload& w) const {
  if (auto v = s.Get("node_selector")) w.node_selector = StringMap(*v);
  if (auto v = s.Get("node_affinity")) w.node_affinity = ReadNodeAffinity(*v);
  if (auto v = s.Get("tolerations")) {
    for (const Field& item : Items(*v)) w.tolerations.push_back(ReadToleration(item));
  }
  if (auto v = s.Get("topology_spread")) w.topology_spread = ReadSpreadList(*v, w.labels);
  if (auto v = s.Get("pod_affinity")) w.pod_affinity = ReadPodAffinity(*v, w.labels);
  if (auto v = s.Get("pod_anti_affinity")) w.pod_anti_affinity = ReadPodAffinity(*v, w.labels);
  if (auto v = s.Get("host_ports")) {
    for (const Field& item : Items(*v)) w.host_ports.push_back(ReadHostPort(item));
  }
}

// `hpa:` and `cron_hpa:`, which scale only the kinds that have a scale subresource.
void Reader::ReadWorkloadAutoscalers(const Section& s, Workload& w) const {
  if (auto v = s.Get("hpa")) {
    w.hpa = ReadHpa(*v, w);
    if (w.kind != "Deployment" && w.kind != "StatefulSet" && w.kind != "ReplicaSet")
      Fail(*v, "an HPA scales a Deployment, ReplicaSet or StatefulSet, not a " + w.kind);
    if (w.replicas < w.hpa->min_replicas || w.replicas > w.hpa->max_replicas)
      Fail(*v,
           "replicas (" + std::to_string(w.replicas) + ") is outside min_replicas..max_replicas",
           "the HPA starts from `replicas`: set it inside the bounds");
  }
  if (auto v = s.Get("cron_hpa")) {
    if (w.kind != "Deployment" && w.kind != "StatefulSet" && w.kind != "ReplicaSet")
      Fail(*v, "a CronHPA scales a Deployment, ReplicaSet or StatefulSet, not a " + w.kind);
    w.cron_hpa = ReadCronHpa(*v, w);
  }
}

// Priority and requests: CPU, memory, the shared GPU's memory and core, or whole cards.
void Reader::ReadResources(const Section& s, Workload& w) const {
  if (auto v = s.Get("priority")) {
    w.priority = Int(*v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  }
  if (auto v = s.Get("cpu")) w.cpu_milli = Unit(*v, &ParseCpuMilli, "a quantity");
  if (auto v = s.Get("memory")) w.memory_mib = Unit(*v, &ParseMemoryMib, "a quantity");

  const std::optional<Field> gpu_mem = s.Get("gpu_mem");
  if (gpu_mem) w.gpu_mem = Unit(*gpu_mem, &ParseGpuMemUnits, "a quantity");
  if (auto v = s.Get("gpu_core")) w.gpu_core = Int(*v, 0, 100);
  if (auto v = s.Get("gpu_count")) {
    w.gpu_count = Int(*v, 1);
    if (w.gpu_count > 1 && w.gpu_mem == 0) {
      Fail(*v, "gpu_count splits gpu_mem over cards, but there is no gpu_mem",
           "use whole_gpus for exclusive cards");
    }
  }
  if (gpu_mem) CheckGpuMemSplit(*gpu_mem, w.gpu_mem, w.gpu_count);
  if (auto v = s.Get("whole_gpus")) {
    w.whole_gpus = Int(*v, 0);
    if (w.whole_gpus > 0 && (w.gpu_mem > 0 || w.gpu_core > 0)) {
      Fail(*v, "whole_gpus excludes gpu_mem and gpu_core",
           "a pod either owns whole cards (nvidia.com/gpu) or shares them (aliyun.com/gpu-mem)");
    }
  }
  if (auto v = s.Get("mig_profile")) {
    // One MIG instance of this profile per whole_gpus, asked as nvidia.com/mig-<profile>: what
    // pods on a mixed-strategy MIG pool ask (docs/scenario.md "MIG").
    MigLayoutText parsed = ParseMigLayout(String(*v));
    if (!parsed.layout || parsed.layout->instances.size() != 1)
      Fail(*v, "mig_profile names one MIG profile", "e.g. mig_profile: 1g.10gb");
    if (w.gpu_mem > 0 || w.gpu_core > 0)
      Fail(*v, "mig_profile excludes gpu_mem and gpu_core",
           "a MIG instance is a device of its own, asked whole");
    w.mig_profile = parsed.layout->instances.front();
    if (w.whole_gpus == 0) w.whole_gpus = 1;
  }
  if (auto v = s.Get("gpu_resource")) {
    // The resource whole_gpus counts: nvidia.com/gpu, or the replicas a device plugin with
    // renameByDefault advertises (docs/scenario.md "Device-plugin sharing").
    w.shared_replicas = Enum<bool>(*v, "GPU device resource",
                                   {{kNvidiaGpuResource, false}, {kSharedGpuResource, true}});
    for (const char* other : {"gpu_mem", "gpu_core", "gpu_count", "mig_profile", "hami"}) {
      if (s.Get(other))
        Fail(*v, std::string("gpu_resource excludes ") + other,
             "gpu_resource names what whole_gpus asks for");
    }
    if (w.whole_gpus == 0) w.whole_gpus = 1;
  }
  if (auto v = s.Get("hami")) {
    for (const char* other : {"gpu_mem", "gpu_core", "gpu_count", "whole_gpus", "mig_profile"}) {
      if (s.Get(other))
        Fail(*v, std::string("hami excludes ") + other,
             "a HAMi pod asks nvidia.com/gpu with gpumem / gpucores under `hami:`");
    }
    w.hami = ReadHamiAsk(*v);
  }
  if (auto v = s.Get("dra")) {
    for (const char* other : {"gpu_mem", "gpu_core", "gpu_count", "whole_gpus", "mig_profile",
                              "hami", "gpu_resource"}) {
      if (s.Get(other))
        Fail(*v, std::string("dra excludes ") + other,
             "a DRA pod asks its GPUs through a ResourceClaim only");
    }
    w.dra = ReadDraAsk(*v);
  }
  if (auto v = s.Get("schd_weight")) w.schd_weight = Int(*v, 0);
  if (auto v = s.Get("gpu_memory")) {
    Section m(*this, *v, {"weights", "activation", "context"});
    if (auto x = m.Get("weights")) w.memory.weights_mib = Unit(*x, &ParseMemoryMib, "a quantity");
    if (auto x = m.Get("activation")) {
      w.memory.activation_mib = Unit(*x, &ParseMemoryMib, "a quantity");
    }
    if (auto x = m.Get("context")) w.memory.context_mib = Unit(*x, &ParseMemoryMib, "a quantity");
  }
}

// `dra:` (docs/scenario.md "DRA"): the claim each pod asks through. `shared` makes it one
// ResourceClaim for every replica; `sharing` is the NVIDIA DRA driver's GpuConfig strategy among
// its pods (TimeSlicing by default), `mps` its mpsConfig defaults; `mig_profile` asks MIG
// instances instead of GPUs; `memory` and `cores` (driver hami) ask a share of each device, as
// `memory` alone does with driver nvidia (a pool's shared_memory GPUs).
DraAsk Reader::ReadDraAsk(const Field& f) const {
  Section d(*this, f,
            {"gpus", "shared", "sharing", "mps", "driver", "mig_profile", "memory", "cores"});
  DraAsk ask;
  ask.gpus = 1;
  if (auto v = d.Get("gpus"))
    ask.gpus = Int(*v, 1, 32, "devices per claim (at most 32, the API's limit)");
  if (auto v = d.Get("shared")) ask.shared = Bool(*v);
  const std::optional<Field> memory = d.Get("memory");
  const std::optional<Field> cores = d.Get("cores");
  if (auto v = d.Get("driver")) {
    ask.driver = Enum<DraDriver>(*v, "DRA driver",
                                 {{"nvidia", DraDriver::kNvidia}, {"hami", DraDriver::kHamiCore}});
    if (ask.driver == DraDriver::kNvidia && cores)
      Fail(*cores, "the NVIDIA DRA driver's GPUs have no cores capacity",
           "use driver: hami for a share of a card's compute");
  } else if (memory || cores) {
    ask.driver = DraDriver::kHamiCore;
  }
  if (memory) {
    ask.memory_mib = Unit(*memory, &ParseMemoryMib, "a quantity");
    if (*ask.memory_mib < 1)
      Fail(*memory, "memory below 1Mi", "HAMi's DRA driver's minimum is 1Mi");
  }
  if (cores) ask.cores = Int(*cores, 0, 100, "percent of the card's compute, 0..100");
  const bool hami = ask.driver == DraDriver::kHamiCore;
  if (auto v = d.Get("mig_profile")) {
    if (hami) Fail(*v, "HAMi's DRA driver publishes whole cards", "drop mig_profile");
    ask.mig_profile = String(*v);
    if (!ReadMigProfileName(ask.mig_profile))
      Fail(*v, "not a MIG profile name", "spell it <g>g.<m>gb, e.g. 1g.10gb");
  }
  if (!hami && ask.memory_mib && !ask.mig_profile.empty())
    Fail(*memory, "MIG instances have no consumable capacity", "drop memory or mig_profile");
  if (auto v = d.Get("sharing")) {
    if (hami)
      Fail(*v, "HAMi-core limits each claim by its memory and cores; GpuConfig is NVIDIA's",
           "drop sharing");
    ask.sharing =
        Enum<DeviceSharingStrategy>(*v, "GpuConfig sharing strategy",
                                    {{"time-slicing", DeviceSharingStrategy::kTimeSlicing},
                                     {"mps", DeviceSharingStrategy::kMps}});
    if (!ask.shared)
      Fail(*v, "sharing governs the pods of one claim; each pod here has its own",
           "set shared: true, or drop sharing");
  }
  if (hami && ask.shared) {
    // The driver hands a claim one HAMi-core accounting cache that all its pods write: their
    // memory is limited together, which the run does not model.
    Fail(*d.Get("shared"), "a claim of HAMi's DRA driver shared by several pods is not modelled",
         "give each pod its own claim (drop shared): they still share the card");
  }
  if (auto v = d.Get("mps")) {
    if (ask.sharing != DeviceSharingStrategy::kMps)
      Fail(*v, "mps settings need sharing: mps", "set sharing: mps");
    Section m(*this, *v, {"active_thread_percentage", "pinned_memory"});
    if (auto x = m.Get("active_thread_percentage"))
      ask.mps_active_thread_percentage = Int(*x, 1, 100, "defaultActiveThreadPercentage, 1..100");
    if (auto x = m.Get("pinned_memory"))
      ask.mps_pinned_memory_mib = Unit(*x, &ParseMemoryMib, "a quantity");
  }
  return ask;
}

// `hami:` (docs/scenario.md "HAMi"): one container's HAMi resources, with the defaults HAMi's
// webhook and scheduler fill in (pkg/device/nvidia/device.go MutateAdmission,
// GenerateResourceRequests: gpus 1 when only memory or cores are asked; 100 % of the card's
// memory without gpumem or a percentage; gpucores 100, the card alone, when the pod asks
// neither memory nor cores, or 100 % of the memory), and the pod annotations its scheduler reads.
HamiAsk Reader::ReadHamiAsk(const Field& f) const {
  Section h(*this, f,
            {"gpus", "gpumem", "gpumem_percentage", "gpucores", "node_policy", "gpu_policy",
             "use_gputype", "nouse_gputype"});
  HamiAsk ask;
  HamiRequest& r = ask.request;
  r.vgpus = 1;
  if (auto v = h.Get("gpus")) r.vgpus = Int(*v, 1, 256, "vGPUs, each on its own card");
  const std::optional<Field> mem = h.Get("gpumem");
  const std::optional<Field> percent = h.Get("gpumem_percentage");
  if (mem && percent)
    Fail(*percent, "gpumem and gpumem_percentage are two ways to ask the same memory",
         "keep one of them (HAMi's docs say they cannot be assigned together)");
  if (mem) r.mem_mib = Int(*mem, 1, std::numeric_limits<int>::max(), "MiB per vGPU, e.g. 6000");
  if (percent) r.mem_percent = Int(*percent, 1, 100, "percent of the card's memory, 1..100");
  const bool whole_memory = !mem && (!percent || r.mem_percent == 100);
  if (auto v = h.Get("gpucores")) {
    r.cores = Int(*v, 0, 100, "percent of the card's compute, 0..100");
  } else if (whole_memory) {
    r.cores = 100;
  }
  if (auto v = h.Get("node_policy")) {
    ask.annotations[kHamiNodePolicyAnnotation] = std::string(Enum<std::string_view>(
        *v, "HAMi node scheduler policy", {{"binpack", "binpack"}, {"spread", "spread"}}));
  }
  if (auto v = h.Get("gpu_policy")) {
    ask.annotations[kHamiGpuPolicyAnnotation] = std::string(Enum<std::string_view>(
        *v, "HAMi GPU scheduler policy (numa and topology-aware are not modelled)",
        {{"binpack", "binpack"}, {"spread", "spread"}, {"mutex", "mutex"}}));
  }
  if (auto v = h.Get("use_gputype")) ask.annotations[kHamiUseTypeAnnotation] = NonEmptyString(*v);
  if (auto v = h.Get("nouse_gputype"))
    ask.annotations[kHamiNoUseTypeAnnotation] = NonEmptyString(*v);
  return ask;
}

// How a pod becomes ready: image pull and model load, the readiness probe, a load OOM.
void Reader::ReadStartup(const Section& s, Workload& w) const {
  if (auto v = s.Get("startup")) {
    Section st(*this, *v, {"image_pull", "model_load"});
    if (auto x = st.Get("image_pull")) w.image_pull = Duration(*x);
    if (auto x = st.Get("model_load")) w.model_load = Duration(*x);
  }
  if (auto v = s.Get("probe")) {
    w.probe = Enum<ReadinessKind>(*v, "probe",
                                  {{"tcp", ReadinessKind::kTcp}, {"model", ReadinessKind::kModel}});
  }
  if (auto v = s.Get("on_load_oom")) {
    w.on_load_oom = Enum<LoadOomReaction>(
        *v, "on_load_oom",
        {{"stay_up", LoadOomReaction::kStayUp}, {"exit", LoadOomReaction::kExit}});
  }
}

// How its pods serve requests: traffic, work, concurrency, batching, timeouts, routing, SLO.
void Reader::ReadServing(const Section& s, Workload& w) const {
  if (auto v = s.Get("traffic")) {
    w.traffic = ReadTraffic(*v, w.pods);
    // Work per request is GPU time: a pod without a card has nothing to run it on.
    if (!w.asks_gpu())
      Fail(*v, "a workload with traffic needs a GPU (gpu_mem, whole_gpus, hami or dra)",
           "GPU work runs on cards; model CPU-only steps with cpu_time on a GPU workload");
  }
  if (auto v = s.Get("work")) w.work = ReadWork(*v);
  if (auto v = s.Get("concurrency")) {
    w.concurrency =
        v->node.IsScalar() && v->node.Scalar() == "unlimited"
            ? 0
            : Int(*v, 1, std::numeric_limits<int>::max(), "write `unlimited` for no limit");
  }
  if (auto v = s.Get("batching")) {
    Section b(*this, *v, {"max_batch", "max_wait", "beta"});
    if (auto x = b.Get("max_batch")) w.batching.max_batch = Int(*x, 1);
    if (auto x = b.Get("max_wait")) w.batching.max_wait = Duration(*x);
    if (auto x = b.Get("beta")) w.batching.beta = Number(*x, 0, 1, false, false);
  }
  if (auto v = s.Get("cpu_time")) {
    Section c(*this, *v, {"before", "after"});
    if (auto x = c.Get("before")) w.cpu_before = Duration(*x);
    if (auto x = c.Get("after")) w.cpu_after = Duration(*x);
  }
  if (auto v = s.Get("timeout")) w.timeout = Duration(*v);
  if (auto v = s.Get("on_timeout")) {
    w.on_timeout = Enum<TimeoutAction>(
        *v, "on_timeout",
        {{"abort", TimeoutAction::kAbort}, {"complete", TimeoutAction::kComplete}});
  }
  if (auto v = s.Get("routing")) {
    w.routing = Enum<Routing>(*v, "routing",
                              {{"random", Routing::kRandom},
                               {"round_robin", Routing::kRoundRobin},
                               {"least_outstanding", Routing::kLeastOutstanding}});
  }
  if (auto v = s.Get("slo")) w.slo = ReadSlo(*v);
  if (auto v = s.Get("closed_loop")) ReadClosedLoop(*v, s, w);
}

// `closed_loop: {in_flight, think, steps}`: the job drives itself; nothing else may send it
// requests or size it by them.
void Reader::ReadClosedLoop(const Field& f, const Section& s, Workload& w) const {
  Section c(*this, f, {"in_flight", "think", "steps"});
  ClosedLoop loop;
  if (auto x = c.Get("in_flight")) loop.in_flight = Int(*x, 1, 1024);
  if (auto x = c.Get("think")) loop.think = Duration(*x);
  if (auto x = c.Get("steps")) loop.steps = Int(*x, 1, std::numeric_limits<int>::max());
  if (auto t = s.Get("traffic"))
    Fail(*t, "a closed_loop job sends its own requests: it has no traffic",
         "drop `traffic`, or drop `closed_loop` to serve traffic");
  if (!w.asks_gpu())
    Fail(f, "a closed_loop job needs a GPU (gpu_mem, whole_gpus, hami or dra)",
         "its iterations are GPU work; model its CPU or data phase with `think`");
  if (w.batching.max_batch > 1)
    Fail(f, "a closed_loop job with batching is not modelled",
         "fold the batch into `work` and drop `batching`");
  if (w.hpa || w.cron_hpa)
    Fail(f, "a closed_loop job scaled by an HPA or a CronHPA is not modelled",
         "give it a fixed `replicas`");
  w.closed_loop = loop;
}

// `interference:` under cluster.interference: a job, a solo profile or `none`; required of a
// shared-GPU workload with traffic. `f` is the workload's section, whose name errors point at.
void Reader::ReadWorkloadInterference(const Section& s, const Field& f, Workload& w) const {
  if (auto v = s.Get("interference")) {
    if (!interference_) {
      Fail(*v, "a workload's interference profile needs cluster.interference (a model file)",
           "fit one with `knobsim interference fit` and name it under cluster.interference");
    }
    if (w.whole_gpus > 0) {
      Fail(*v, "whole_gpus pods have their cards to themselves: nothing co-runs with them",
           "leave interference out");
    }
    if (!(v->node.IsScalar() && v->node.Scalar() == "none"))
      w.interference = ReadInterferenceProfile(*v);
  } else if (interference_ && w.gpu_mem > 0 &&
             (w.traffic.kind != ArrivalKind::kNone || w.closed_loop)) {
    // Refuse rather than guess: under a co-location model, a shared-GPU workload silently
    // split by POLICY would be a different model for its neighbours as well.
    Fail(EntryOf(f, "name"),
         "workload " + Quote(w.name) +
             " runs GPU work on shared cards, but has no interference profile for "
             "cluster.interference",
         "give `interference: JOB` (a job of " + Quote(interference_->source) +
             "), its own {gpu_util_pct, mem_bw_util_pct, memory_mib}, or `interference: none` "
             "to share its cards by the POLICY split");
  }
}

}  // namespace knobsim::scenario_internal
