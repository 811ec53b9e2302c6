#include "sim/autoscaling/replica_calculator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace knobsim::autoscaling {
namespace {

// Sums as wide as upstream's: it guards its int64 sums against overflow with big integers.
__extension__ typedef __int128 Wide;

enum class Group { kReady, kUnready, kMissing, kIgnored };

// groupPods: which of the four groups a pod is in.
Group GroupOf(const PodSample& pod, bool cpu, const ReadinessSettings& readiness, SimTime now) {
  if (pod.deleting || pod.phase == ApiPodPhase::kFailed) return Group::kIgnored;
  if (pod.phase == ApiPodPhase::kPending) return Group::kUnready;
  if (!pod.value) return Group::kMissing;
  if (!cpu) return Group::kReady;
  bool unready = false;
  if (!pod.ready || !pod.start_time) {
    unready = true;
  } else if (*pod.start_time + readiness.cpu_initialization_period > now) {
    // Still initializing: unready, or no full metric window since the last transition.
    unready = !*pod.ready || pod.sample_time < pod.ready_transition + pod.sample_window;
  } else {
    // Past initialization: ignored only if unready and never Ready since the initial delay.
    unready = !*pod.ready && *pod.start_time + readiness.initial_readiness_delay > pod.ready_transition;
  }
  return unready ? Group::kUnready : Group::kReady;
}

// One pod's value in the calculation (PodMetricsInfo entry).
struct Entry {
  int64_t value = 0;
  int64_t request = 0;
  bool has_request = false;
};

struct Grouped {
  int32_t ready = 0;
  std::vector<Entry> metrics;  // the samples of ready pods
  std::vector<const PodSample*> unready, missing;
};

Grouped GroupPods(const std::vector<PodSample>& pods, bool cpu,
                  const ReadinessSettings& readiness, SimTime now) {
  Grouped g;
  for (const PodSample& pod : pods) {
    switch (GroupOf(pod, cpu, readiness, now)) {
      case Group::kIgnored:
        break;
      case Group::kUnready:
        g.unready.push_back(&pod);
        break;
      case Group::kMissing:
        g.missing.push_back(&pod);
        break;
      case Group::kReady:
        ++g.ready;
        g.metrics.push_back({*pod.value, pod.request.value_or(0), pod.request.has_value()});
        break;
    }
  }
  return g;
}

// GetResourceUtilizationRatio: whole percent of the requests, then the ratio to the target.
struct Utilization {
  double ratio = 0;
  int32_t percent = 0;
  int64_t raw_average = 0;
};
Utilization UtilizationRatio(const std::vector<Entry>& metrics, int32_t target) {
  Wide used = 0, requested = 0;
  for (const Entry& e : metrics) {
    used += e.value;
    requested += e.request;
  }
  Utilization u;
  Wide percent = used * 100 / requested;
  percent = std::clamp<Wide>(percent, std::numeric_limits<int32_t>::min(),
                                 std::numeric_limits<int32_t>::max());
  u.percent = static_cast<int32_t>(percent);
  u.raw_average = static_cast<int64_t>(used / static_cast<Wide>(metrics.size()));
  u.ratio = static_cast<double>(u.percent) / static_cast<double>(target);
  return u;
}

// GetMetricUsageRatio: the average (integer division) over the target.
struct Usage {
  double ratio = 0;
  int64_t average = 0;
};
Usage UsageRatio(const std::vector<Entry>& metrics, int64_t target) {
  Wide total = 0;
  for (const Entry& e : metrics) total += e.value;
  Usage u;
  u.average = static_cast<int64_t>(total / static_cast<Wide>(metrics.size()));
  u.ratio = static_cast<double>(u.average) / static_cast<double>(target);
  return u;
}

int32_t CeilToReplicas(double x) {
  const double c = std::ceil(x);
  if (c >= static_cast<double>(std::numeric_limits<int32_t>::max()))
    return std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(c);
}

ReplicaProposal Fail(std::string message) {
  ReplicaProposal p;
  p.error = std::move(message);
  return p;
}

// The common tail of both calculations: the fast path, else the rebalanced ratio.
// `ratio_of` recomputes the ratio of a metrics list; `fill_missing_down` is what a missing pod
// uses on a scale-down.
template <typename RatioOf, typename MissingDown>
int32_t Propose(int32_t current, Grouped& g, double ratio, const Tolerances& tolerances,
                RatioOf ratio_of, MissingDown fill_missing_down) {
  const bool scale_up_with_unready = !g.unready.empty() && ratio > 1.0;
  if (!scale_up_with_unready && g.missing.empty()) {
    if (tolerances.Within(ratio)) return current;
    return CeilToReplicas(ratio * g.ready);
  }
  if (!g.missing.empty()) {
    for (const PodSample* pod : g.missing) {
      if (ratio < 1.0) {
        g.metrics.push_back({fill_missing_down(*pod), pod->request.value_or(0),
                             pod->request.has_value()});
      } else if (ratio > 1.0) {
        g.metrics.push_back({0, pod->request.value_or(0), pod->request.has_value()});
      }
    }
  }
  if (scale_up_with_unready) {
    for (const PodSample* pod : g.unready)
      g.metrics.push_back({0, pod->request.value_or(0), pod->request.has_value()});
  }
  const double new_ratio = ratio_of(g.metrics);
  if (tolerances.Within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) ||
      (ratio > 1.0 && new_ratio < 1.0))
    return current;
  const int32_t replicas = CeilToReplicas(new_ratio * static_cast<double>(g.metrics.size()));
  if ((new_ratio < 1.0 && replicas > current) || (new_ratio > 1.0 && replicas < current))
    return current;
  return replicas;
}

}  // namespace

ReplicaProposal ResourceReplicas(int32_t current_replicas, int32_t target_utilization, bool cpu,
                                 const std::vector<PodSample>& pods, const Tolerances& tolerances,
                                 const ReadinessSettings& readiness, SimTime now) {
  if (pods.empty()) return Fail("no pods returned by selector while calculating replica count");
  Grouped g = GroupPods(pods, cpu, readiness, now);
  if (g.metrics.empty())
    return Fail("did not receive metrics for targeted pods (pods might be unready)");
  for (const PodSample& pod : pods)
    if (!pod.request) return Fail("missing request for the resource in Pod " + pod.name);
  if (std::none_of(g.metrics.begin(), g.metrics.end(), [](const Entry& e) { return e.request != 0; }))
    return Fail("no metrics returned matched known pods");
  const Utilization u = UtilizationRatio(g.metrics, target_utilization);
  ReplicaProposal p;
  p.usage = u.percent;
  p.raw_usage = u.raw_average;
  const int64_t fallback = std::max<int64_t>(100, target_utilization);
  p.replicas = Propose(
      current_replicas, g, u.ratio, tolerances,
      [&](const std::vector<Entry>& m) { return UtilizationRatio(m, target_utilization).ratio; },
      [&](const PodSample& pod) { return *pod.request * fallback / 100; });
  return p;
}

ReplicaProposal PlainMetricReplicas(int32_t current_replicas, int64_t target_usage, bool cpu,
                                    const std::vector<PodSample>& pods, const Tolerances& tolerances,
                                    const ReadinessSettings& readiness, SimTime now) {
  if (pods.empty()) return Fail("no pods returned by selector while calculating replica count");
  Grouped g = GroupPods(pods, cpu, readiness, now);
  if (g.metrics.empty())
    return Fail("did not receive metrics for targeted pods (pods might be unready)");
  const Usage u = UsageRatio(g.metrics, target_usage);
  ReplicaProposal p;
  p.usage = u.average;
  p.replicas = Propose(
      current_replicas, g, u.ratio, tolerances,
      [&](const std::vector<Entry>& m) { return UsageRatio(m, target_usage).ratio; },
      [&](const PodSample&) { return target_usage; });
  return p;
}

ReplicaProposal ValueMetricReplicas(int32_t current_replicas, int64_t usage, int64_t target,
                                    int32_t ready_pods, const Tolerances& tolerances) {
  const double ratio = static_cast<double>(usage) / static_cast<double>(target);
  ReplicaProposal p;
  p.usage = usage;
  if (current_replicas != 0) {
    if (tolerances.Within(ratio)) {
      p.replicas = current_replicas;
      return p;
    }
    p.replicas = CeilToReplicas(ratio * ready_pods);
  } else {
    p.replicas = CeilToReplicas(ratio);  // scale from zero
  }
  return p;
}

ReplicaProposal AverageValueMetricReplicas(int32_t status_replicas, int64_t usage,
                                           int64_t target_per_pod, const Tolerances& tolerances) {
  ReplicaProposal p;
  p.replicas = status_replicas;
  const double ratio = static_cast<double>(usage) /
                       (static_cast<double>(target_per_pod) * static_cast<double>(status_replicas));
  if (!tolerances.Within(ratio))
    p.replicas = CeilToReplicas(static_cast<double>(usage) / static_cast<double>(target_per_pod));
  // The per-pod average, held at the int64 rail as upstream's (an overflowed sum stays there).
  const double average =
      status_replicas == 0 ? static_cast<double>(usage)
                           : std::ceil(static_cast<double>(usage) / static_cast<double>(status_replicas));
  p.usage = average >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max()
                                              : static_cast<int64_t>(average);
  return p;
}

}  // namespace knobsim::autoscaling
