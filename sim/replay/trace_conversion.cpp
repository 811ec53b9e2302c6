#include "sim/replay/trace_conversion.h"

#include "sim/scheduler/fgd/plugins.h"

namespace knobsim::replay {

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

}  // namespace

fgd::PodRequest MakeRequest(const TracePod& pod, const fgd::ModelTable& models) {
  return fgd::MakeRequest({.cpu_milli = pod.cpu_milli,
                           .memory_mib = pod.memory_mib,
                           .num_gpu = pod.num_gpu,
                           .gpu_milli = pod.gpu_milli,
                           .gpu_spec = pod.gpu_spec},
                          models);
}

fgd::NodeState MakeNodeState(const TraceNode& node, const fgd::ModelTable& models) {
  fgd::NodeState s;
  s.cpu_free = node.cpu_milli;
  s.mem_free = node.memory_mib;
  s.cards = node.gpu;
  s.model = models.Find(node.model);
  for (int g = 0; g < s.cards; ++g) s.free[g] = fgd::kMilliPerCard;
  return s;
}

knobsim::NodeSpec ToNodeSpec(const TraceNode& node) {
  knobsim::NodeSpec s;
  s.name = node.name;
  s.capacity["cpu"] = node.cpu_milli;
  s.capacity["memory"] = node.memory_mib * kMiB;
  s.capacity["pods"] = fgd::kMaxPodsPerNode;
  if (node.gpu > 0) {
    s.capacity[knobsim::kGpuMemResource] = int64_t{node.gpu} * fgd::kMilliPerCard;
    s.capacity[knobsim::kGpuCountResource] = node.gpu;
    s.labels[fgd::kGpuSpecAnnotation] = node.model;
  }
  s.allocatable = s.capacity;
  s.gpu_model = node.model;
  s.gpu_cards = node.gpu;
  s.card_mem_units = node.gpu > 0 ? fgd::kMilliPerCard : 0;
  s.gpu_schedule = node.gpu > 0 ? "share" : "";
  return s;
}

knobsim::PodSpec ToPodSpec(const TracePod& pod) {
  const fgd::PodRequest r = MakeRequest(pod, fgd::ModelTable{});
  knobsim::PodSpec s;
  s.name = pod.name;
  s.requests["cpu"] = r.cpu;
  s.requests["memory"] = r.mem * kMiB;
  s.requests["pods"] = 1;
  s.nonzero_cpu_milli = r.cpu;
  s.nonzero_memory_bytes = r.mem * kMiB;
  if (r.wants_gpu()) {
    s.requests[knobsim::kGpuMemResource] = r.gpu_request();
    s.gpu_mem = static_cast<int>(r.gpu_request());
    s.gpu_count = r.num_gpu;
    s.container_gpus.push_back({s.gpu_mem, 0});
    if (!r.spec.empty()) s.annotations[fgd::kGpuSpecAnnotation] = r.spec;
  }
  return s;
}

}  // namespace knobsim::replay
