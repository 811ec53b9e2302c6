#include "sim/timeline_stats.h"

#include <algorithm>
#include <map>
#include <utility>

namespace knobsim {
namespace {

// The mean and half-width of field(x) over the items that have it.
template <class T, class F>
MeanCi Over(const std::vector<const T*>& items, F field) {
  std::vector<double> values;
  values.reserve(items.size());
  for (const T* x : items) values.push_back(static_cast<double>(field(*x)));
  return Summarize(values);
}

TimelinePointStats PointStats(const std::vector<const TimelinePoint*>& at) {
  TimelinePointStats p;
  p.start = at.front()->start;
  p.replications = static_cast<int>(at.size());
  p.arrivals = Over(at, [](const TimelinePoint& x) { return x.arrivals; });
  p.completed = Over(at, [](const TimelinePoint& x) { return x.completed; });
  p.oom = Over(at, [](const TimelinePoint& x) { return x.errors.oom; });
  p.fake_ready = Over(at, [](const TimelinePoint& x) { return x.errors.fake_ready; });
  p.timeout = Over(at, [](const TimelinePoint& x) { return x.errors.timeout; });
  p.no_replica = Over(at, [](const TimelinePoint& x) { return x.errors.no_replica; });
  p.interrupted = Over(at, [](const TimelinePoint& x) { return x.errors.interrupted; });
  std::vector<const TimelinePoint*> ok;
  for (const TimelinePoint* x : at)
    if (x->completed > 0) ok.push_back(x);
  p.latency_replications = static_cast<int>(ok.size());
  if (!ok.empty()) {
    p.latency_mean_ms = Over(ok, [](const TimelinePoint& x) { return x.latency_mean_ms; });
    p.latency_p50_ms = Over(ok, [](const TimelinePoint& x) { return x.latency_p50_ms; });
    p.latency_p99_ms = Over(ok, [](const TimelinePoint& x) { return x.latency_p99_ms; });
    p.queue_wait_mean_ms = Over(ok, [](const TimelinePoint& x) { return x.queue_wait_mean_ms; });
    p.service_mean_ms = Over(ok, [](const TimelinePoint& x) { return x.service_mean_ms; });
  }
  p.available_mean = Over(at, [](const TimelinePoint& x) { return x.available_mean; });
  p.available_min = Over(at, [](const TimelinePoint& x) { return x.available_min; });
  p.ready_mean = Over(at, [](const TimelinePoint& x) { return x.ready_mean; });
  p.desired_mean = Over(at, [](const TimelinePoint& x) { return x.desired_mean; });
  p.pending_mean = Over(at, [](const TimelinePoint& x) { return x.pending_mean; });
  p.pending_max = Over(at, [](const TimelinePoint& x) { return x.pending_max; });
  return p;
}

CardTimelinePointStats CardPointStats(const std::vector<const CardTimelinePoint*>& at) {
  CardTimelinePointStats p;
  p.start = at.front()->start;
  p.replications = static_cast<int>(at.size());
  p.busy = Over(at, [](const CardTimelinePoint& x) { return x.busy; });
  p.effective = Over(at, [](const CardTimelinePoint& x) { return x.effective; });
  p.memory_used_mib = Over(at, [](const CardTimelinePoint& x) { return x.memory_used_mib; });
  p.memory_peak_mib = Over(at, [](const CardTimelinePoint& x) { return x.memory_peak_mib; });
  return p;
}

PoolTimelinePointStats PoolPointStats(const std::vector<const PoolTimelinePoint*>& at) {
  PoolTimelinePointStats p;
  p.start = at.front()->start;
  p.replications = static_cast<int>(at.size());
  p.nodes_mean = Over(at, [](const PoolTimelinePoint& x) { return x.nodes_mean; });
  return p;
}

// Point k of every series that has one, summarized by `stats`; as many points as the longest.
template <class Series, class Stats>
auto PointsOver(const std::vector<const Series*>& series, Stats stats) {
  size_t longest = 0;
  for (const Series* s : series) longest = std::max(longest, s->points.size());
  std::vector<decltype(stats({}))> points;
  for (size_t k = 0; k < longest; ++k) {
    std::vector<const typename decltype(Series::points)::value_type*> at;
    for (const Series* s : series)
      if (k < s->points.size()) at.push_back(&s->points[k]);
    points.push_back(stats(at));
  }
  return points;
}

}  // namespace

TimelineStats SummarizeTimelines(std::span<const RunResult> runs) {
  TimelineStats out;
  if (runs.empty() || runs.front().timeline.step <= 0) return out;
  const RunTimeline& first = runs.front().timeline;
  out.step = first.step;
  out.replications = static_cast<int>(runs.size());
  for (const RunResult& run : runs) out.end = std::max(out.end, run.timeline.end);

  for (size_t w = 0; w < first.workloads.size(); ++w) {
    std::vector<const WorkloadTimeline*> series;
    for (const RunResult& run : runs)
      if (w < run.timeline.workloads.size()) series.push_back(&run.timeline.workloads[w]);
    WorkloadTimelineStats ws;
    ws.name = first.workloads[w].name;
    ws.namespace_ = first.workloads[w].namespace_;
    ws.desired = first.workloads[w].desired;
    ws.available_fraction =
        Over(series, [](const WorkloadTimeline& x) { return x.available_fraction; });
    ws.below_desired_s = Over(series, [](const WorkloadTimeline& x) {
      return static_cast<double>(x.below_desired_ns) / kNanosPerSecond;
    });
    ws.unavailable_s = Over(series, [](const WorkloadTimeline& x) {
      return static_cast<double>(x.unavailable_ns) / kNanosPerSecond;
    });
    ws.points = PointsOver(series, PointStats);
    out.workloads.push_back(std::move(ws));
  }

  std::map<std::pair<std::string, int>, std::vector<const CardTimeline*>> by_card;
  for (const RunResult& run : runs)
    for (const CardTimeline& c : run.timeline.cards) by_card[{c.node, c.index}].push_back(&c);
  for (const CardTimeline& c : first.cards) {
    CardTimelineStats cs;
    cs.node = c.node;
    cs.index = c.index;
    cs.gpu = c.gpu;
    cs.points = PointsOver(by_card[{c.node, c.index}], CardPointStats);
    out.cards.push_back(std::move(cs));
  }
  for (size_t p = 0; p < first.pools.size(); ++p) {
    std::vector<const PoolTimeline*> series;
    for (const RunResult& run : runs)
      if (p < run.timeline.pools.size()) series.push_back(&run.timeline.pools[p]);
    PoolTimelineStats ps;
    ps.name = first.pools[p].name;
    ps.points = PointsOver(series, PoolPointStats);
    out.pools.push_back(std::move(ps));
  }
  return out;
}

void PriceTimeline(const std::vector<PoolResult>& pools, TimelineStats& timeline) {
  for (PoolTimelineStats& series : timeline.pools) {
    for (const PoolResult& pool : pools) {
      if (pool.name != series.name || pool.currency.empty() || !(pool.node_hours > 0)) continue;
      const double per_node_hour = pool.cost / pool.node_hours;
      series.currency = pool.currency;
      for (PoolTimelinePointStats& p : series.points) {
        p.cost_per_hour = {p.nodes_mean.mean * per_node_hour,
                           p.nodes_mean.half_width * per_node_hour};
        p.priced = true;
      }
    }
  }
}

}  // namespace knobsim
