#include "sim/scheduler/fgd/fragmentation.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace knobsim::fgd {

std::vector<TypicalPod> TypicalPods(std::span<const PodRequest> pods, double threshold_percent) {
  // Memory is not part of the key (GetTypicalPods keys on the pod's CPU and GPU tuple).
  using Key = std::tuple<int64_t, int, int, std::string>;
  std::map<Key, TypicalPod> counts;
  for (const PodRequest& r : pods) {
    TypicalPod& t = counts[Key{r.cpu, r.milli, r.num_gpu, r.spec}];
    if (t.count == 0) {
      t.cpu = r.cpu;
      t.milli = r.milli;
      t.num_gpu = r.num_gpu;
      t.spec = r.spec;
      t.models = r.models;
    }
    ++t.count;
  }
  std::vector<TypicalPod> list;
  list.reserve(counts.size());
  for (auto& [key, t] : counts) list.push_back(std::move(t));
  std::sort(list.begin(), list.end(), [](const TypicalPod& a, const TypicalPod& b) {
    if (a.count != b.count) return a.count > b.count;
    return std::tie(a.cpu, a.milli, a.num_gpu, a.spec) >
           std::tie(b.cpu, b.milli, b.num_gpu, b.spec);
  });
  // The same floating-point steps as GetTypicalPods: the share is count/total, then divided by
  // the cumulative share of the types taken.
  const double total = static_cast<double>(pods.size());
  const double expected = threshold_percent * total / 100.0;
  double cum = 0;
  size_t taken = 0;
  while (cum < expected && taken < list.size()) {
    cum += static_cast<double>(list[taken].count);
    list[taken].p = static_cast<double>(list[taken].count) / total;
    ++taken;
  }
  list.resize(taken);
  for (TypicalPod& t : list) t.p /= cum / total;
  return list;
}

FragVector NodeFragVector(const NodeState& node, std::span<const TypicalPod> types) {
  FragVector v{};
  const int64_t idle = node.gpu_free();
  const double idle_d = static_cast<double>(idle);
  for (const TypicalPod& m : types) {
    if (m.milli == 0) {  // CPU-only type: all idle GPU counts as fragment to it
      v[node.cpu_free >= m.cpu ? kXLSatisfied : kXRLackCpu] += m.p * idle_d;
      continue;
    }
    if (node.model < 0 || (m.models >> node.model & 1) == 0) {
      v[kNoAccess] += m.p * idle_d;
      continue;
    }
    int fitting = 0;
    int64_t unusable = 0;  // Σ free of the cards too small for m
    for (int g = 0; g < node.cards; ++g) {
      if (node.free[g] >= m.milli) {
        ++fitting;
      } else {
        unusable += node.free[g];
      }
    }
    const bool gpu_ok = fitting >= m.num_gpu;
    const bool cpu_ok = node.cpu_free >= m.cpu;
    if (gpu_ok && cpu_ok) {
      // Q3: the too-small cards are fragment (booked as Q2 first), the rest is usable.
      v[kQ2LackGpu] += m.p * static_cast<double>(unusable);
      v[kQ3Satisfied] += m.p * static_cast<double>(idle - unusable);
    } else if (gpu_ok) {
      v[kQ4LackCpu] += m.p * idle_d;
    } else if (cpu_ok) {
      v[kQ2LackGpu] += m.p * idle_d;
    } else {
      v[kQ1LackBoth] += m.p * idle_d;
    }
  }
  return v;
}

double FragExceptQ3(const FragVector& v) {
  double out = 0;
  for (int c = 0; c < kFragClasses; ++c) {
    if (c != kQ3Satisfied) out += v[c];
  }
  return out;
}

double FragTotal(const FragVector& v) {
  double out = 0;
  for (int c = 0; c < kFragClasses; ++c) out += v[c];
  return out;
}

}  // namespace knobsim::fgd
