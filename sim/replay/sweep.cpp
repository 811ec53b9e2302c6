#include "sim/replay/sweep.h"

#include <algorithm>

#include "sim/run_set.h"

namespace knobsim::replay {

using fgd::PolicyKind;
using fgd::ScPolicyLabel;

const std::vector<ResultRow>& SweepResults::rows(ResultFile file) const {
  switch (file) {
    case ResultFile::kAllo:
      return allo;
    case ResultFile::kFrag:
      return frag;
    case ResultFile::kFragRatio:
      return frag_ratio;
  }
  return allo;
}

void AppendRunRows(const Workload& w, PolicyKind policy, int64_t seed, double tune,
                   const DiscreteCurves& curves, SweepResults* out) {
  ResultRow r;
  r.workload = w.name;
  r.sc_policy = std::string(ScPolicyLabel(policy));
  r.tune = PyRepr(tune);
  r.seed = seed;
  r.total_gpus = w.total_gpus;
  r.values = curves.allo;
  out->allo.push_back(r);
  r.values = curves.frag;
  out->frag.push_back(r);
  r.values = curves.frag_ratio;
  out->frag_ratio.push_back(std::move(r));
}

SweepResults RunSweep(std::span<const Workload> workloads, std::span<const PolicyKind> policies,
                      std::span<const int64_t> seeds, double tune, int threads,
                      const SweepProgress& progress, const Shard& shard) {
  struct Run {
    const Workload* workload;
    PolicyKind policy;
    int64_t seed;
  };
  std::vector<Run> runs;
  long long job = 0;
  for (const Workload& w : workloads) {
    for (PolicyKind p : policies) {
      for (int64_t s : seeds) {
        if (shard.Owns(job++)) runs.push_back({&w, p, s});
      }
    }
  }
  // FGD runs take longest: starting them first keeps the threads busy to the end.
  std::stable_partition(runs.begin(), runs.end(),
                        [](const Run& r) { return r.policy == PolicyKind::kFgd; });
  const int n = static_cast<int>(runs.size());
  std::vector<DiscreteCurves> curves(runs.size());
  const std::vector<double> busy = RunJobs(
      n, threads,
      [&](int i) {
        const Run& run = runs[i];
        const RunResult result = Replay(*run.workload, run.policy, run.seed, tune);
        curves[i] = Discretize(result.events, run.workload->total_gpus);
      },
      progress);
  SweepResults out;
  out.worker_busy_s = busy;
  for (int i = 0; i < n; ++i)
    AppendRunRows(*runs[i].workload, runs[i].policy, runs[i].seed, tune, curves[i], &out);
  SortRows(out.allo);
  SortRows(out.frag);
  SortRows(out.frag_ratio);
  return out;
}

}  // namespace knobsim::replay
