// A trace row as the FGD policies (sim/scheduler/fgd/) and knobsim's scheduler see it: the
// resource tuple of a pod (docs/fgd-policies.md §1.2), a node's state before placement, and both as
// the scheduler's NodeSpec/PodSpec. The one place the trace's columns meet the policies' types,
// so sim/scheduler/fgd/ knows nothing of the trace files.
//
// Mapping to the scheduler (docs/fgd-policies.md §1, lossless for trace pods and nodes): a trace
// node has allocatable `cpu` (millicores), `memory` (bytes), `pods` 1001, gpu_cards = `gpu`,
// card_mem_units = 1000 (one unit per milli-GPU), gpu_model = `model`; a trace pod requests
// `cpu`, `memory`, and aliyun.com/gpu-mem = num_gpu × gpu_milli with gpu_count = num_gpu (ACK's
// split: gpu_milli per card), and carries its normalised gpu_spec in the annotation
// fgd::kGpuSpecAnnotation.
#pragma once

#include "sim/kube_types.h"
#include "sim/replay/trace_reader.h"
#include "sim/scheduler/fgd/node_state.h"
#include "sim/scheduler/fgd/request.h"

namespace knobsim::replay {

// §1.2's conversion of a trace row; `models` numbers the node list's models.
fgd::PodRequest MakeRequest(const TracePod& pod, const fgd::ModelTable& models);

// A trace node before any placement: every card wholly free.
fgd::NodeState MakeNodeState(const TraceNode& node, const fgd::ModelTable& models);

// The same rows as the scheduler's types, for the plugins of sim/scheduler/fgd/plugins.h.
knobsim::NodeSpec ToNodeSpec(const TraceNode& node);
knobsim::PodSpec ToPodSpec(const TracePod& pod);

}  // namespace knobsim::replay
