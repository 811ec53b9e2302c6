// What the parallel-sweep benchmarks (plan, replay, run) share: the bundled files' paths, and the
// counters each reports (docs/benchmarks.md "Parallel sweeps"), so
// that a speed-up can be judged on a machine shared with other work, where wall time alone
// cannot say whether a second thread helped:
//   cpu_s    the process's CPU seconds over the iteration (user + system, getrusage): the work,
//            which must not grow with the threads;
//   busy_s   the workers' summed busy seconds (each worker's CPU time inside jobs, so that
//            waiting for a core on a loaded machine does not count);
//   balance  the busiest worker's busy time over the even share, max / (busy_s / threads): 1 is
//            a perfect split, and threads / balance bounds the speed-up the split allows.
#pragma once

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

namespace knobsim::bench {

// A file of the source tree: $KNOBSIM_SOURCE_DIR, else the directory above this header.
inline std::string SourcePath(const std::string& relative) {
  if (const char* dir = std::getenv("KNOBSIM_SOURCE_DIR")) return std::string(dir) + "/" + relative;
  std::string here = __FILE__;
  here.erase(here.rfind("/bench/"));
  return here + "/" + relative;
}

inline double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

inline void SetBalanceCounters(benchmark::State& state, const std::vector<double>& busy,
                               double cpu_s) {
  const double total = std::accumulate(busy.begin(), busy.end(), 0.0);
  const double most = busy.empty() ? 0.0 : *std::max_element(busy.begin(), busy.end());
  state.counters["cpu_s"] = cpu_s;
  state.counters["busy_s"] = total;
  state.counters["balance"] = total > 0 ? most / (total / static_cast<double>(busy.size())) : 0.0;
}

}  // namespace knobsim::bench
