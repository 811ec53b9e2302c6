// What the scheduler sees of a pod and a node's card model (docs/fgd-policies.md §1.2): the
// resource tuple `data/pod_csv_to_yaml.py` writes into the pod's YAML, and the model constraint as
// a set of model ids. Knows nothing of the trace files: sim/replay/trace_conversion.h turns a trace
// row into the WrittenRequest below.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace knobsim::fgd {

inline constexpr int kMilliPerCard = 1000;  // each card holds 1000 milli-GPU (§1.1)

// The card models of a node list, numbered in order of first appearance. A model constraint
// becomes a bitmask over these ids, so the filter and the fragment measure test it in one AND.
class ModelTable {
 public:
  static constexpr int kMaxModels = 64;
  // The id of `model`, added if new; -1 for the empty model (a CPU-only node) or when the table
  // is full.
  int Add(std::string_view model);
  int Find(std::string_view model) const;  // -1 when unknown
  const std::vector<std::string>& names() const { return names_; }
  // The ids allowed by a normalised spec: every id when the spec is empty (§1.2 "empty = any"),
  // else those of the listed alternatives that some node has.
  uint64_t Mask(std::string_view spec) const;

 private:
  std::vector<std::string> names_;
};

inline constexpr uint64_t kAnyModel = ~uint64_t{0};

// The scheduler's resource tuple of one pod (§1.2).
struct PodRequest {
  int64_t cpu = 0;   // milli-cores
  int64_t mem = 0;   // MiB
  int num_gpu = 0;   // cards; 0 = CPU-only (whatever gpu_milli and gpu_spec say)
  int milli = 0;     // per-card milli-GPU: gpu_milli clamped to 0..1000; 0 when num_gpu == 0
  std::string spec;  // gpu_spec without empty alternatives ("" = any model)
  uint64_t models = kAnyModel;  // the ids `spec` allows

  // The GPU request counted by `arrived` and `used` (§1.2): num_gpu × milli.
  int64_t gpu_request() const { return int64_t{num_gpu} * milli; }
  // Only a pod with a per-card share goes through the Open-Gpu-Share filter (§3 filter 4).
  bool wants_gpu() const { return milli > 0; }
  // A shared pod: one card, part of it (§1.2 pod classes).
  bool shared() const { return num_gpu == 1 && milli > 0 && milli < kMilliPerCard; }
  // GpuClustering's tag (§4.3) as a bit: bit 0 `share`, bit k `k-gpu`; 0 for CPU-only pods.
  uint64_t tag() const;
};

// A pod's resources as written (a trace row's columns, in the units of §1), before §1.2's
// normalisation.
struct WrittenRequest {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;
  int64_t gpu_milli = 0;      // per-card share
  std::string_view gpu_spec;  // allowed models, `|`-separated; empty = any
};

// §1.2's conversion; `models` numbers the node list's models.
PodRequest MakeRequest(const WrittenRequest& pod, const ModelTable& models);

// The spec with empty alternatives dropped and the rest re-joined with `|`.
std::string NormaliseSpec(std::string_view spec);

}  // namespace knobsim::fgd
