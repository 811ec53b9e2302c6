#include "sim/run_set.h"

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sim/engine/simulation.h"
#include "sim/slo_check.h"
#include "sim/variant.h"

namespace knobsim {

namespace {

// A progress display that fails must not lose the runs.
void ReportProgress(const ProgressFn& progress, int done, int total) {
  if (!progress) return;
  try {
    progress(done, total);
  } catch (...) {
  }
}

// Mean and half-width of f(run) over `runs`.
template <class F>
MeanCi Over(const std::vector<const RunResult*>& runs, F f) {
  std::vector<double> values;
  values.reserve(runs.size());
  for (const RunResult* r : runs) values.push_back(static_cast<double>(f(*r)));
  if (values.empty()) return {};
  return Summarize(values);
}

ClosedLoopStats SummarizeClosedLoop(const std::vector<RunResult>& runs, size_t w) {
  std::vector<const RunResult*> all, completed, stepping;
  for (const RunResult& r : runs) {
    all.push_back(&r);
    if (r.workloads[w].loop.completed_at >= 0) completed.push_back(&r);
    if (r.workloads[w].completed > 0) stepping.push_back(&r);
  }
  auto of = [w](auto field) {
    return [w, field](const RunResult& r) { return field(r.workloads[w].loop); };
  };
  ClosedLoopStats st;
  st.steps_done = Over(all, of([](const ClosedLoopResult& x) { return x.steps_done; }));
  st.completed_replications = static_cast<int>(completed.size());
  st.completion_s = Over(completed, of([](const ClosedLoopResult& x) {
                           return static_cast<double>(x.completed_at) / kNanosPerSecond;
                         }));
  st.stepping_replications = static_cast<int>(stepping.size());
  st.steps_per_s = Over(stepping, of([](const ClosedLoopResult& x) { return x.steps_per_s; }));
  st.step_ms_mean = Over(stepping, of([](const ClosedLoopResult& x) { return x.step_ms_mean; }));
  st.solo_step_ms = Over(stepping, of([](const ClosedLoopResult& x) { return x.solo_step_ms; }));
  st.slowdown = Over(stepping, of([](const ClosedLoopResult& x) { return x.slowdown; }));
  return st;
}

WorkloadStats SummarizeWorkload(const std::vector<RunResult>& runs, size_t w, const Scenario& s) {
  std::vector<const RunResult*> all;
  std::vector<const RunResult*> with_successes;  // a percentile of no request is not 0 ms
  for (const RunResult& r : runs) {
    all.push_back(&r);
    if (r.workloads[w].completed > 0) with_successes.push_back(&r);
  }
  auto of = [w](auto field) {
    return [w, field](const RunResult& r) { return field(r.workloads[w]); };
  };
  WorkloadStats st;
  st.name = runs.front().workloads[w].name;
  st.namespace_ = runs.front().workloads[w].namespace_;
  st.requests = Over(all, of([](const WorkloadResult& x) { return x.requests; }));
  st.completed = Over(all, of([](const WorkloadResult& x) { return x.completed; }));
  st.errors.oom = Over(all, of([](const WorkloadResult& x) { return x.errors.oom; }));
  st.errors.fake_ready = Over(all, of([](const WorkloadResult& x) { return x.errors.fake_ready; }));
  st.errors.timeout = Over(all, of([](const WorkloadResult& x) { return x.errors.timeout; }));
  st.errors.no_replica = Over(all, of([](const WorkloadResult& x) { return x.errors.no_replica; }));
  st.errors.interrupted =
      Over(all, of([](const WorkloadResult& x) { return x.errors.interrupted; }));
  st.latency_replications = static_cast<int>(with_successes.size());
  const auto& ok = with_successes;
  st.latency_ms.mean = Over(ok, of([](const WorkloadResult& x) { return x.latency_ms.mean; }));
  st.latency_ms.p50 = Over(ok, of([](const WorkloadResult& x) { return x.latency_ms.p50; }));
  st.latency_ms.p90 = Over(ok, of([](const WorkloadResult& x) { return x.latency_ms.p90; }));
  st.latency_ms.p99 = Over(ok, of([](const WorkloadResult& x) { return x.latency_ms.p99; }));
  st.latency_ms.p999 = Over(ok, of([](const WorkloadResult& x) { return x.latency_ms.p999; }));
  st.throughput_rps = Over(all, of([](const WorkloadResult& x) { return x.throughput_rps; }));
  st.error_ratio = Over(all, of([](const WorkloadResult& x) { return x.error_ratio; }));
  st.slo_latency_ms = Over(ok, of([](const WorkloadResult& x) { return x.slo_latency_ms; }));
  st.queue_wait_ms_mean =
      Over(ok, of([](const WorkloadResult& x) { return x.queue_wait_ms_mean; }));
  st.queue_wait_ms_p99 = Over(ok, of([](const WorkloadResult& x) { return x.queue_wait_ms_p99; }));
  st.service_ms_mean = Over(ok, of([](const WorkloadResult& x) { return x.service_ms_mean; }));
  for (const Workload& wl : s.workloads) {
    if (wl.name == st.name) st.slo = wl.slo;
  }
  for (const RunResult& r : runs) {
    // slo_met as the run recorded it (a merged shard's word included); the rules recomputed
    // from the same fields say which of them it missed.
    st.slo_met_replications += r.workloads[w].slo_met ? 1 : 0;
    const SloCheck check = CheckSlo(r.workloads[w], st.slo);
    st.latency_met_replications += check.latency_met ? 1 : 0;
    st.errors_met_replications += check.errors_met ? 1 : 0;
    st.backlog_met_replications += check.backlog_met ? 1 : 0;
    st.nothing_left_replications += check.nothing_left ? 1 : 0;
  }
  st.slo_met = st.slo_met_replications == static_cast<int>(runs.size());
  st.in_system_end = Over(all, of([](const WorkloadResult& x) { return x.in_system_end; }));
  st.in_system_overdue = Over(all, of([](const WorkloadResult& x) { return x.in_system_overdue; }));
  st.in_system_oldest_ms =
      Over(all, of([](const WorkloadResult& x) { return x.in_system_oldest_ms; }));
  st.in_system_mean = Over(all, of([](const WorkloadResult& x) { return x.in_system_mean; }));
  st.measured_s = Over(all, of([](const WorkloadResult& x) { return x.measured_s; }));
  st.time_in_system_mean_ms =
      Over(all, of([](const WorkloadResult& x) { return x.time_in_system_mean_ms; }));
  if (runs.front().workloads[w].closed_loop) st.loop = SummarizeClosedLoop(runs, w);
  st.closed_loop = runs.front().workloads[w].closed_loop;
  return st;
}

// Cards are matched by (node, index) rather than position: a replication that happens to list
// them differently must not mix two cards' numbers.
std::vector<CardStats> SummarizeCards(const std::vector<RunResult>& runs) {
  std::vector<CardStats> out;
  for (const CardResult& first : runs.front().cards) {
    std::vector<const CardResult*> same;
    for (const RunResult& r : runs) {
      for (const CardResult& c : r.cards) {
        if (c.node == first.node && c.index == first.index) {
          same.push_back(&c);
          break;
        }
      }
    }
    auto over = [&same](auto field) {
      std::vector<double> v;
      for (const CardResult* c : same) v.push_back(static_cast<double>(field(*c)));
      return Summarize(v);
    };
    CardStats cs;
    cs.node = first.node;
    cs.index = first.index;
    cs.gpu = first.gpu;
    cs.busy = over([](const CardResult& c) { return c.busy; });
    cs.effective = over([](const CardResult& c) { return c.effective; });
    cs.switch_overhead = over([](const CardResult& c) { return c.switch_overhead; });
    cs.waste = over([](const CardResult& c) { return c.waste; });
    cs.memory_physical_mib = first.memory_physical_mib;
    cs.memory_quota_mib = over([](const CardResult& c) { return c.memory_quota_mib; });
    cs.memory_used_mib = over([](const CardResult& c) { return c.memory_used_mib; });
    cs.memory_peak_mib = over([](const CardResult& c) { return c.memory_peak_mib; });
    cs.pods = first.pods;
    out.push_back(std::move(cs));
  }
  return out;
}

// Each pool's values averaged over the replications (every run has the scenario's pools).
std::vector<PoolResult> MeanPools(const std::vector<RunResult>& runs) {
  std::vector<PoolResult> out = runs.front().pools;
  const double n = static_cast<double>(runs.size());
  for (size_t p = 0; p < out.size(); ++p) {
    PoolResult& m = out[p];
    m.nodes_start = m.nodes_end = m.nodes_min = m.nodes_max = m.nodes_mean = m.node_hours = 0;
    m.nodes_added = m.nodes_removed = 0;
    m.nodes_reclaimed = m.failed_scale_ups = m.on_demand_node_hours = 0;
    for (const RunResult& r : runs) {
      const PoolResult& x = r.pools[p];
      m.nodes_start += x.nodes_start / n;
      m.nodes_end += x.nodes_end / n;
      m.nodes_min += x.nodes_min / n;
      m.nodes_max += x.nodes_max / n;
      m.nodes_mean += x.nodes_mean / n;
      m.node_hours += x.node_hours / n;
      m.nodes_added += x.nodes_added / n;
      m.nodes_removed += x.nodes_removed / n;
      m.nodes_reclaimed += x.nodes_reclaimed / n;
      m.failed_scale_ups += x.failed_scale_ups / n;
      m.on_demand_node_hours += x.on_demand_node_hours / n;
    }
  }
  return out;
}

}  // namespace

const Variant* FindVariant(const Scenario& scenario, std::string_view name) {
  for (const Variant& v : scenario.variants) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

VariantSummary SummarizeVariant(std::string name, std::string description, const Scenario& resolved,
                                std::vector<RunResult> runs) {
  if (runs.empty()) throw std::invalid_argument("SummarizeVariant: no runs");
  for (const RunResult& r : runs) {
    if (r.workloads.size() != runs.front().workloads.size()) {
      throw std::logic_error("replications of variant " + name + " disagree on the workloads");
    }
  }
  VariantSummary v;
  v.name = std::move(name);
  v.description = std::move(description);
  v.replications = static_cast<int>(runs.size());
  for (size_t w = 0; w < runs.front().workloads.size(); ++w) {
    v.workloads.push_back(SummarizeWorkload(runs, w, resolved));
  }
  v.cards = SummarizeCards(runs);
  v.pods = runs.front().pods;
  v.cluster = runs.front().cluster;
  v.fragmentation = runs.front().fragmentation;
  v.pools = MeanPools(runs);
  v.runs = std::move(runs);
  return v;
}

std::vector<std::string> PendingPods(const VariantSummary& v) {
  std::vector<std::string> out;
  for (const RunResult& r : v.runs) {
    for (const PodResult& p : r.pods) {
      if (p.state != "Pending") continue;
      std::string id = p.namespace_ + "/" + p.name;
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(std::move(id));
    }
  }
  return out;
}

int ResolveThreads(int threads) {
#ifdef _OPENMP
  if (threads <= 0) threads = omp_get_max_threads();
#endif
  return std::max(1, threads);
}

std::vector<double> RunJobs(int count, int threads, const std::function<void(int job)>& job,
                            const ProgressFn& progress) {
  std::vector<std::exception_ptr> failures(std::max(0, count));
  int done = 0;
  threads = std::clamp(ResolveThreads(threads), 1, std::max(1, count));
  std::vector<double> busy(threads, 0.0);  // each written by its own thread only

  // Nothing may escape an OpenMP region: each job's exception is kept at its index.
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic) num_threads(threads)
#endif
  for (int j = 0; j < count; ++j) {
    const double start = ThreadCpuSeconds();
    try {
      job(j);
    } catch (...) {
      failures[j] = std::current_exception();
    }
#ifdef _OPENMP
    const int self = omp_get_thread_num();
#else
    const int self = 0;
#endif
    busy[self] += ThreadCpuSeconds() - start;
#ifdef _OPENMP
#pragma omp critical(knobsim_run_set_progress)
#endif
    ReportProgress(progress, ++done, count);
  }
  (void)threads;  // unused without OpenMP

  for (const std::exception_ptr& e : failures) {
    if (e) std::rethrow_exception(e);
  }
  return busy;
}

namespace {

// The resolved scenario of one variant of a run set; each is simulated R times.
struct Planned {
  std::string name, description;
  Scenario scenario;
};

// The base and then every variant of options.variants, resolved (repeats and "base" skipped);
// an unknown name throws when `refuse_unknown`, else is skipped.
std::vector<Planned> PlanVariants(const Scenario& scenario, const RunSetOptions& options,
                                  bool refuse_unknown) {
  std::vector<Planned> plan;
  plan.push_back({std::string(kBaseVariant), "the scenario as written", scenario});
  for (const std::string& name : options.variants) {
    if (name == kBaseVariant) continue;
    bool seen = false;
    for (const Planned& p : plan) seen = seen || p.name == name;
    if (seen) continue;
    const Variant* v = FindVariant(scenario, name);
    if (v == nullptr) {
      if (refuse_unknown) throw std::invalid_argument("unknown variant: " + name);
      continue;
    }
    plan.push_back({v->name, v->description, ApplyVariant(scenario, *v)});
  }
  for (Planned& p : plan) {
    p.scenario.run.seed = options.seed;
    p.scenario.run.replications = options.replications;
  }
  return plan;
}

Status CheckPlanned(const std::vector<Planned>& plan, const RunSetOptions& options) {
  Sweep sweep;
  for (const Planned& p : plan) sweep.runs.push_back({"variant " + p.name, &p.scenario});
  sweep.replications = options.replications;
  sweep.timeline_step = options.timeline_step;
  return CheckRunLimits(sweep, options.limits);
}

// The jobs of `plan` (job = variant × reps + replication) in the order they start: variants by
// estimated events, heaviest first.
std::vector<int> LongestFirst(const std::vector<Planned>& plan, int reps,
                              const RunSetOptions& options) {
  std::vector<double> events;
  for (const Planned& p : plan) {
    Sweep one;
    one.runs.push_back({p.name, &p.scenario});
    one.timeline_step = options.timeline_step;
    events.push_back(EstimatedEvents(one));
  }
  std::vector<int> variants(plan.size());
  for (size_t v = 0; v < plan.size(); ++v) variants[v] = static_cast<int>(v);
  std::stable_sort(variants.begin(), variants.end(),
                   [&](int a, int b) { return events[a] > events[b]; });
  std::vector<int> order;
  for (int v : variants) {
    for (int r = 0; r < reps; ++r) order.push_back(v * reps + r);
  }
  return order;
}

// Sequential stopping (RunSetOptions::stop) on the set's pool, or on one of its own: the
// replications finished before `stop` said true, moved to the front of `results` in replication
// order; returns how many.
int RunStopping(const RunSetOptions& options, int reps, const std::function<void(int)>& run_job,
                std::vector<RunResult>& results) {
  std::optional<JobPool> own;
  JobPool* pool = options.pool;
  if (pool == nullptr) pool = &own.emplace(std::min(ResolveThreads(options.threads), reps));
  std::vector<RunResult> finished;  // in finishing order
  std::vector<int> replication;     // of each
  pool->Run(reps, options.pool_rank, run_job, [&](int r) {
    finished.push_back(std::move(results[r]));
    replication.push_back(r);
    ReportProgress(options.progress, static_cast<int>(finished.size()), reps);
    return static_cast<int>(finished.size()) < reps && options.stop(finished);
  });
  std::vector<size_t> by_replication(finished.size());
  for (size_t i = 0; i < by_replication.size(); ++i) by_replication[i] = i;
  std::sort(by_replication.begin(), by_replication.end(),
            [&](size_t a, size_t b) { return replication[a] < replication[b]; });
  for (size_t i = 0; i < by_replication.size(); ++i)
    results[i] = std::move(finished[by_replication[i]]);
  results.resize(finished.size());
  return static_cast<int>(finished.size());
}

}  // namespace

Status CheckRunSetLimits(const Scenario& scenario, const RunSetOptions& options) {
  return CheckPlanned(PlanVariants(scenario, options, false), options);
}

RunSetResult RunSet(const Scenario& scenario, const RunSetOptions& options) {
  if (options.replications < 1) throw std::invalid_argument("replications must be at least 1");
  const std::vector<Planned> plan = PlanVariants(scenario, options, true);
  if (Status s = CheckPlanned(plan, options); !s) throw std::invalid_argument(s.ToString());

  int reps = options.replications;
  const int total = static_cast<int>(plan.size()) * reps;
  std::vector<RunResult> results(total);
  const SimulateFn simulate =
      options.simulate
          ? options.simulate
          : SimulateFn([step = options.timeline_step](const Scenario& s, uint64_t seed) {
              RunOptions run;
              run.timeline_step = step;
              return Simulate(s, seed, run);
            });
  // Longest first: the variants by estimated events, the heaviest started first so that the
  // last jobs are short (a stable order, ties in the variants' order). Only the schedule.
  const std::vector<int> order = LongestFirst(plan, reps, options);
  const auto run_job = [&](int k) {
    const int job = order[k];
    results[job] = simulate(plan[job / reps].scenario, ReplicationSeed(options.seed, job % reps));
  };
  std::vector<double> busy;
  if (options.stop) {
    if (plan.size() != 1) throw std::invalid_argument("sequential stopping runs no variants");
    reps = RunStopping(options, reps, run_job, results);
  } else if (options.pool != nullptr) {
    int done = 0;
    options.pool->Run(total, options.pool_rank, run_job, [&](int) {
      ReportProgress(options.progress, ++done, total);
      return false;
    });
  } else {
    busy = RunJobs(total, options.threads, run_job, options.progress);
  }

  RunSetResult out;
  out.scenario = scenario.name;
  out.seed = options.seed;
  out.replications = reps;
  out.duration = scenario.run.duration;
  out.warmup = scenario.run.warmup;
  out.worker_busy_s = std::move(busy);
  for (size_t v = 0; v < plan.size(); ++v) {
    std::vector<RunResult> runs(std::make_move_iterator(results.begin() + v * reps),
                                std::make_move_iterator(results.begin() + (v + 1) * reps));
    out.variants.push_back(
        SummarizeVariant(plan[v].name, plan[v].description, plan[v].scenario, std::move(runs)));
  }
  return out;
}

}  // namespace knobsim
