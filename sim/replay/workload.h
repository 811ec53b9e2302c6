// One trace made ready for replay runs (docs/fgd-policies.md §1): nodes and pods in name order,
// each pod's resource tuple, the typical pods of §5.1, and a small integer per pod type so a run
// can cache a node's score for a type until the node changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/replay/trace_reader.h"
#include "sim/scheduler/fgd/fragmentation.h"
#include "sim/scheduler/fgd/request.h"

namespace knobsim::replay {

struct Workload {
  std::string name;              // the `workload` column: the pod file's stem
  std::vector<TraceNode> nodes;  // sorted by name (byte order)
  std::vector<TracePod> pods;    // sorted by name: the order shuffles and tuning index into
  fgd::ModelTable models;
  std::vector<fgd::PodRequest> requests;  // parallel to `pods`
  // Pods with the same (cpu, per-card milli, num_gpu, spec) score alike on every node under
  // every policy (memory only filters): one id per such key, 0..num_pod_types-1.
  std::vector<int> pod_type;
  int num_pod_types = 0;
  std::vector<fgd::TypicalPod> typical;  // §5.1, from the untuned list
  int64_t capacity_milli = 0;            // Σ cards × 1000: 6 212 000 for openb
  int total_gpus = 0;                    // 6 212
};

Workload MakeWorkload(std::string name, std::vector<TraceNode> nodes, std::vector<TracePod> pods);

// "openb_pod_list_default" for ".../openb_pod_list_default.csv".
std::string FileStem(const std::string& path);

}  // namespace knobsim::replay
