// The run matrix of the FGD experiments (docs/fgd-policies.md §2.1): every trace × policy × seed,
// in parallel with OpenMP. Each run is independent and writes only its own slot, so the output
// is the same for any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/replay/result_csv.h"
#include "sim/replay/workload.h"
#include "sim/scheduler/fgd/policy.h"
#include "sim/shard.h"

namespace knobsim::replay {

struct SweepResults {
  std::vector<ResultRow> allo, frag, frag_ratio;  // sorted as the reference's files
  std::vector<double> worker_busy_s;  // each thread's seconds inside runs (RunJobs); no file
  const std::vector<ResultRow>& rows(ResultFile file) const;
};

// Called from one thread at a time after each run; `done` counts finished runs.
using SweepProgress = std::function<void(int done, int total)>;

// `threads` <= 0: OpenMP's default. With a `shard`, only the runs it owns: run j is the j-th of
// workloads × policies × seeds in that nesting order (docs/sharding.md).
SweepResults RunSweep(std::span<const Workload> workloads,
                      std::span<const fgd::PolicyKind> policies, std::span<const int64_t> seeds,
                      double tune, int threads, const SweepProgress& progress = {},
                      const Shard& shard = {});

// One run's three rows.
void AppendRunRows(const Workload& workload, fgd::PolicyKind policy, int64_t seed, double tune,
                   const DiscreteCurves& curves, SweepResults* out);

}  // namespace knobsim::replay
