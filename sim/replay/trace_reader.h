// Reads the Alibaba `openb` GPU trace (docs/fgd-policies.md §1): the node list
// (`sn,cpu_milli,memory_mib,gpu,model`) and the pod lists (eleven columns, or the five of the
// `multigpu*` files). Every column is kept as written, in the units of §1; turning a row into
// the resource tuple the scheduler sees is sim/replay/trace_conversion.h's job.
//
// Strict on purpose, like every knobsim reader: a malformed row would silently bend a curve that
// is meant to match the paper's to the second decimal. A wrong header, a missing or extra field,
// a non-integer or negative amount, an unknown QoS or phase, or a duplicate name is an InputError
// naming the file, the 1-based line and the column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"

namespace knobsim::replay {

struct TraceNode {
  std::string name;        // sn, e.g. openb-node-0000
  int64_t cpu_milli = 0;   // allocatable CPU, milli-cores
  int64_t memory_mib = 0;  // allocatable memory, MiB
  int gpu = 0;             // cards (each 1000 milli-GPU)
  std::string model;       // card model (G2, T4, ...); empty on CPU-only nodes
  int line = 0;            // where it was read
};

struct TracePod {
  std::string name;        // openb-pod-NNNN
  int64_t cpu_milli = 0;   // CPU request, milli-cores
  int64_t memory_mib = 0;  // memory request, MiB
  int num_gpu = 0;         // cards requested
  int64_t gpu_milli = 0;   // per-card share as written (normalised by request.h, §1.2)
  std::string gpu_spec;    // allowed models, `|`-separated, as written; empty = any
  // The columns below are absent from the 5-column multigpu files. The replay protocol ignores
  // them (§1.2: nothing is ordered by time); a timed replay needs them.
  std::string qos;                       // LS | BE | Burstable | Guaranteed
  std::string pod_phase;                 // Running | Succeeded | Failed | Pending
  std::optional<int64_t> creation_time;  // seconds from the trace start
  std::optional<int64_t> deletion_time;
  std::optional<int64_t> scheduled_time;  // empty for Pending pods
  int line = 0;
};

Expected<std::vector<TraceNode>> ReadNodeCsv(const std::string& path);
Expected<std::vector<TracePod>> ReadPodCsv(const std::string& path);

// The same from text; `file_name` is what errors call it.
Expected<std::vector<TraceNode>> ParseNodeCsv(std::string_view text, const std::string& file_name);
Expected<std::vector<TracePod>> ParsePodCsv(std::string_view text, const std::string& file_name);

}  // namespace knobsim::replay
