// The field lists of the run results (sim/results.h) and their summaries (sim/run_set.h): each
// JSON object of the results document (docs/results.md) and of the shard document
// (docs/sharding.md) is listed here once, in its key order, and the writers and the reader of
// sim/io/json_fields.h walk these lists. Adding a field to a result is one line here.
//
// Where one list serves two structs (ErrorCounts and ErrorStats, LatencySummary and LatencyStats,
// CardResult and CardStats) the two have the same fields, one a value and the other its mean over
// replications. WorkloadResult (shard) and WorkloadStats (results document) keep one list each:
// their documents order the keys differently.
#pragma once

#include <string>

#include "sim/io/json_fields.h"
#include "sim/results.h"
#include "sim/run_set.h"
#include "sim/scenario.h"
#include "sim/timeline_stats.h"

namespace knobsim {

template <class V, class E>
requires FieldsOf<E, ErrorCounts, ErrorStats>
void Fields(V& v, E& e) {
  v.Count("oom", e.oom);
  v.Count("fake_ready", e.fake_ready);
  v.Count("timeout", e.timeout);
  v.Count("no_replica", e.no_replica);
  v.Count("interrupted", e.interrupted);
}

// Latency is over successes only: with none (`known` false) there is none to report (null in
// the results document, not 0 ms).
template <class V, class L>
requires FieldsOf<L, LatencySummary, LatencyStats>
void Fields(V& v, L& l, bool known) {
  v.Real("mean", l.mean, known);
  v.Real("p50", l.p50, known);
  v.Real("p90", l.p90, known);
  v.Real("p99", l.p99, known);
  v.Real("p999", l.p999, known);
}

template <class V, class S>
requires FieldsOf<S, Slo>
void Fields(V& v, S& s) {
  v.Real("percentile", s.percentile);
  v.Time("latency", s.latency, TimeUnit::kMillis, s.latency > 0);
  v.Real("error_budget", s.error_budget);
}

template <class V, class L>
requires FieldsOf<L, ClosedLoopResult>
void Fields(V& v, L& l) {
  const bool known = l.steps_per_s > 0;
  v.Count("steps_done", l.steps_done);
  v.Time("completed_at", l.completed_at, TimeUnit::kSeconds, l.completed_at >= 0);
  v.Real("steps_per_s", l.steps_per_s, known);
  v.Real("step_ms_mean", l.step_ms_mean, known);
  v.Real("solo_step_ms", l.solo_step_ms, known);
  v.Real("slowdown", l.slowdown, known);
}

// The results document's closed_loop object (docs/results.md).
template <class V, class L>
requires FieldsOf<L, ClosedLoopStats>
void Fields(V& v, L& l) {
  const bool known = l.stepping_replications > 0;
  v.Count("steps_done", l.steps_done);
  v.Real("completion_s", l.completion_s, l.completed_replications > 0);
  v.Real("steps_per_s", l.steps_per_s, known);
  v.Real("step_ms_mean", l.step_ms_mean, known);
  v.Real("solo_step_ms", l.solo_step_ms, known);
  v.Real("slowdown", l.slowdown, known);
  v.Replicated([&] {
    v.Count("completed_replications", l.completed_replications);
    v.Count("stepping_replications", l.stepping_replications);
  });
}

template <class V, class W>
requires FieldsOf<W, WorkloadResult>
void Fields(V& v, W& w) {
  const bool any = w.completed > 0;
  v.Text("name", w.name);
  v.Text("namespace", w.namespace_);
  v.Count("requests", w.requests);
  v.Count("completed", w.completed);
  v.Object("errors", w.errors);
  v.Object("latency_ms", w.latency_ms, any);
  v.Real("throughput_rps", w.throughput_rps);
  v.Bool("slo_met", w.slo_met);
  v.Real("slo_latency_ms", w.slo_latency_ms, any);
  v.Real("error_ratio", w.error_ratio);
  v.Count("in_system_end", w.in_system_end);
  v.Count("in_system_overdue", w.in_system_overdue);
  v.Real("in_system_oldest_ms", w.in_system_oldest_ms);
  v.Real("in_system_mean", w.in_system_mean);
  v.Real("measured_s", w.measured_s);
  v.Real("time_in_system_mean_ms", w.time_in_system_mean_ms);
  v.Real("queue_wait_ms_mean", w.queue_wait_ms_mean, any);
  v.Real("queue_wait_ms_p99", w.queue_wait_ms_p99, any);
  v.Real("service_ms_mean", w.service_ms_mean, any);
  v.Histogram("histogram", w.histogram);
  v.Partial(w.closed_loop, [&] {
    v.Bool("closed_loop", w.closed_loop);
    v.Object("loop", w.loop);
  });
}

// The results document's workload; RunSet's summary of the replications (sim/run_set.h).
template <class V, class W>
requires FieldsOf<W, WorkloadStats>
void Fields(V& v, W& w) {
  const bool any = w.latency_replications > 0;
  v.Text("name", w.name);
  v.Text("namespace", w.namespace_);
  v.Derived("id", w.namespace_ + "/" + w.name);  // how whatif knobs and imports name a workload
  v.Count("requests", w.requests);
  v.Count("completed", w.completed);
  v.Object("errors", w.errors);
  v.Object("latency_ms", w.latency_ms, any);
  v.Real("throughput_rps", w.throughput_rps);
  v.Bool("slo_met", w.slo_met);
  v.Count("in_system_end", w.in_system_end);
  v.Real("in_system_mean", w.in_system_mean);
  v.Real("measured_s", w.measured_s);
  v.Real("time_in_system_mean_ms", w.time_in_system_mean_ms);
  // Extras beyond the contract.
  v.Real("error_ratio", w.error_ratio);
  v.Real("slo_latency_ms", w.slo_latency_ms, any);
  v.Object("slo", w.slo);
  v.Real("queue_wait_ms_mean", w.queue_wait_ms_mean, any);
  v.Real("queue_wait_ms_p99", w.queue_wait_ms_p99, any);
  v.Real("service_ms_mean", w.service_ms_mean, any);
  v.Count("in_system_overdue", w.in_system_overdue);
  v.Real("in_system_oldest_ms", w.in_system_oldest_ms);
  v.Replicated([&] {
    v.Count("slo_met_replications", w.slo_met_replications);
    v.Count("latency_met_replications", w.latency_met_replications);
    v.Count("errors_met_replications", w.errors_met_replications);
    v.Count("backlog_met_replications", w.backlog_met_replications);
  });
  v.Partial(w.closed_loop, [&] { v.Object("closed_loop", w.loop); });
}

template <class V, class C>
requires FieldsOf<C, CardResult, CardStats>
void Fields(V& v, C& c) {
  v.Text("node", c.node);
  v.Count("index", c.index);
  v.Text("gpu", c.gpu);
  v.Real("busy", c.busy);
  v.Real("effective", c.effective);
  v.Real("switch_overhead", c.switch_overhead);
  v.Real("waste", c.waste);
  v.Count("memory_physical_mib", c.memory_physical_mib);
  v.Count("memory_quota_mib", c.memory_quota_mib);
  v.Real("memory_used_mib", c.memory_used_mib);
  v.Count("memory_peak_mib", c.memory_peak_mib);
  v.Strings("pods", c.pods);
}

template <class V, class P>
requires FieldsOf<P, PodResult>
void Fields(V& v, P& p) {
  v.Text("namespace", p.namespace_);
  v.Text("name", p.name);
  v.Text("workload", p.workload);
  v.Text("node", p.node, !p.node.empty());  // null: not placed (Pending)
  v.Indexes("cards", p.cards);
  v.Text("state", p.state);
  v.Count("restarts", p.restarts);
  v.Partial(p.cards.size() > 1, [&] {  // the link between a multi-card pod's cards
    v.Real("bottleneck_gbps", p.bottleneck_gbps);
    v.Real("throughput_factor", p.throughput_factor);
  });
  v.Text("message", p.message);
}

template <class V, class E>
requires FieldsOf<E, ClusterEvent>
void Fields(V& v, E& e) {
  v.Time("time", e.time);
  v.Text("kind", e.kind);
  v.Text("pod", e.pod);
  v.Text("message", e.message);
}

template <class V, class C>
requires FieldsOf<C, ClusterResult>
void Fields(V& v, C& c) {
  v.Count("gpu_mem_allocated_units", c.gpu_mem_allocated_units);
  v.Count("gpu_mem_total_units", c.gpu_mem_total_units);
  v.Real("allocation_ratio", c.allocation_ratio);
  v.Count("pending_pods", c.pending_pods);
  v.Count("fake_ready_pods", c.fake_ready_pods);
  v.Count("preempted_pods", c.preempted_pods);
  v.Count("request_oom_errors", c.request_oom_errors);
  v.Array("events", c.events);
}

template <class V, class P>
requires FieldsOf<P, PoolResult>
void Fields(V& v, P& p) {
  v.Text("name", p.name);
  v.Bool("autoscaled", p.autoscaled);
  v.Real("nodes_start", p.nodes_start);
  v.Real("nodes_end", p.nodes_end);
  v.Real("nodes_min", p.nodes_min);
  v.Real("nodes_max", p.nodes_max);
  v.Real("nodes_mean", p.nodes_mean);
  v.Real("node_hours", p.node_hours);
  v.Real("nodes_added", p.nodes_added);
  v.Real("nodes_removed", p.nodes_removed);
  v.Partial(p.spot, [&] {  // spot pools only
    v.Bool("spot", p.spot);
    v.Real("nodes_reclaimed", p.nodes_reclaimed);
    v.Real("failed_scale_ups", p.failed_scale_ups);
    v.Real("on_demand_node_hours", p.on_demand_node_hours);
  });
  const bool priced = !p.currency.empty();
  v.Text("currency", p.currency, priced);
  v.Text("instance_type", p.instance_type, priced);
  v.Text("pricing", p.pricing, priced);
  v.Real("cost", p.cost, priced);
}

template <class V, class N>
requires FieldsOf<N, NodeFragmentation>
void Fields(V& v, N& n) {
  v.Text("node", n.node);
  v.Real("idle_milli", n.idle_milli);
  v.Real("fragmented_milli", n.fragmented_milli);
}

template <class V, class F>
requires FieldsOf<F, FragmentationResult>
void Fields(V& v, F& f) {
  v.Real("gpu_milli_total", f.gpu_milli_total);
  v.Real("idle_milli", f.idle_milli);
  v.Real("fragmented_milli", f.fragmented_milli);
  v.Real("frag_ratio", f.frag_ratio);
  v.Array("nodes", f.nodes);
}

// The timeline section (sim/timeline_stats.h): values are means over the replications (with one,
// the values themselves). A step without a success in any replication has null latency.
template <class V, class P>
requires FieldsOf<P, TimelinePointStats>
void Fields(V& v, P& p) {
  const bool any = p.latency_replications > 0;
  v.Time("t", p.start);
  v.Count("arrivals", p.arrivals);
  v.Count("completed", p.completed);
  v.Group("errors", [&](auto& e) {
    e.Count("oom", p.oom);
    e.Count("fake_ready", p.fake_ready);
    e.Count("timeout", p.timeout);
    e.Count("no_replica", p.no_replica);
    e.Count("interrupted", p.interrupted);
  });
  v.Group("latency_ms", [&](auto& l) {
    l.Real("mean", p.latency_mean_ms, any);
    l.Real("p50", p.latency_p50_ms, any);
    l.Real("p99", p.latency_p99_ms, any);
  });
  v.Real("queue_wait_ms_mean", p.queue_wait_mean_ms, any);
  v.Real("service_ms_mean", p.service_mean_ms, any);
  v.Real("available_mean", p.available_mean);
  v.Count("available_min", p.available_min);
  v.Real("ready_mean", p.ready_mean);
  v.Real("desired_mean", p.desired_mean);
  v.Real("pending_mean", p.pending_mean);
  v.Count("pending_max", p.pending_max);
}

// A workload's timeline without its points (sim/io/timeline_json.cpp writes them).
template <class V, class W>
requires FieldsOf<W, WorkloadTimelineStats>
void Fields(V& v, W& w) {
  v.Derived("id", w.namespace_ + "/" + w.name);
  v.Text("name", w.name);
  v.Text("namespace", w.namespace_);
  v.Count("desired", w.desired);
  v.Real("available_fraction", w.available_fraction);
  v.Real("below_desired_s", w.below_desired_s);
  v.Real("unavailable_s", w.unavailable_s);
}

template <class V, class P>
requires FieldsOf<P, CardTimelinePointStats>
void Fields(V& v, P& p) {
  v.Time("t", p.start);
  v.Real("busy", p.busy);
  v.Real("effective", p.effective);
  v.Real("memory_used_mib", p.memory_used_mib);
  v.Real("memory_peak_mib", p.memory_peak_mib);
}

template <class V, class C>
requires FieldsOf<C, CardTimelineStats>
void Fields(V& v, C& c) {
  v.Derived("id", c.node + "/" + std::to_string(c.index));
  v.Text("node", c.node);
  v.Count("index", c.index);
  v.Text("gpu", c.gpu);
}

template <class V, class P>
requires FieldsOf<P, PoolTimelinePointStats>
void Fields(V& v, P& p) {
  v.Time("t", p.start);
  v.Real("nodes_mean", p.nodes_mean);
  v.Partial(p.priced, [&] { v.Real("cost_per_hour", p.cost_per_hour); });
}

template <class V, class P>
requires FieldsOf<P, PoolTimelineStats>
void Fields(V& v, P& p) {
  v.Text("name", p.name);
  v.Text("currency", p.currency, !p.currency.empty());
}

// A shard's run. RunResult::timeline is not carried: the commands that shard (run, replay, plan)
// never collect one; `knobsim upgrade` does not shard.
template <class V, class R>
requires FieldsOf<R, RunResult>
void Fields(V& v, R& r) {
  v.Array("workloads", r.workloads);
  v.Array("cards", r.cards);
  v.Array("pods", r.pods);
  v.Object("cluster", r.cluster);
  v.Count("events_processed", r.events_processed);
  v.Count("requests_simulated", r.requests_simulated);
  v.Object("fragmentation", r.fragmentation);
  v.Time("end", r.end);
  v.Array("node_pools", r.pools);
}

}  // namespace knobsim
