// Plan: capacity planning with the simulator (`knobsim plan`, docs/plan.md). For every cell of a
// grid — traffic level × GPU type × POLICY × placement × pricing — the smallest node count per
// GPU node pool at which every workload meets its SLO with the stated confidence, what it costs,
// and which workload binds.
//
// How one cell is simulated at n nodes (PlanScenario): every GPU pool gets the cell's GPU type
// (gpus_per_node kept), n nodes, the placement and at most `density` pods per card (label
// ack.node.gpu.max-pod); the cluster gets the POLICY. Each sharing workload's gpu-mem quota is
// what its memory needs (weights + concurrency × activation + CUDA context) rounded up to units
// of the cell's card; under POLICY 3 a workload without gpu-core gets floor(100 / density) and the
// pool offers gpu-core (core_mem). The pool's cards hold nodes × cards × density pods; they are
// split over the pool's workloads by ReplicaSplit. Traffic is scaled by the level; spot pricing
// makes the pool's nodes spot nodes (interruption rate and replacement delay from the prices).
//
// Pools that no workload shares are sized independently, each its own n (simulated apart: their
// workloads cannot meet); pools whose workloads overlap are sized together, one n for all.
//
// "Meets" (MeetsSlo): for every workload, the one-sided upper confidence bound (Student t at the
// plan's confidence, R - 1 degrees of freedom) of the mean over R replications of the SLO
// percentile latency is at most the SLO latency, the same bound of the error ratio is at most the
// error budget, and no pod is left Pending. Replications run through RunSet, so replication r has
// the same seed at every size and in every cell (common random numbers), and the answer does not
// depend on the thread count.
//
// Parallelism: several cells are searched at once, each on a planning thread of its own, and
// every size's replications go to one shared queue of worker threads (sim/job_pool.h), so the
// unit of parallel work is a (cell, size, replication) run and no barrier per size or per cell
// idles a worker while any cell has a run to make.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/io/price_reader.h"
#include "sim/plan/capacity_search.h"
#include "sim/run_set.h"
#include "sim/scenario.h"
#include "sim/shard.h"

namespace knobsim {

// The label that pins a workload's replicas in a plan (docs/plan.md): `plan.knobsim.io/replicas:
// fixed` keeps the scenario's `replicas`; the other workloads share the remaining slots.
inline constexpr const char* kPlanReplicasLabel = "plan.knobsim.io/replicas";

// Pricing kinds, in the order a grid lists them.
inline constexpr const char* kPricingKinds[] = {"on_demand", "spot", "reserved"};

struct PlanOptions {
  std::vector<double> traffic = {1, 1.5, 2};  // multiples of the scenario's traffic
  std::vector<std::string> gpu_types;         // catalog names; empty = the scenario's own
  std::vector<int> policies;                  // 0..5; empty = the scenario's POLICY
  std::vector<std::string> placements;        // empty = the scenario's (first GPU pool's)
  int density = 0;                            // pods per card; 0 = auto
  std::vector<std::string> pricing = {"on_demand"};
  const PriceBook* prices = nullptr;  // nullptr: no costs (cheapest = fewest cards)
  double confidence = 0.95;           // one-sided, for the SLO bounds
  // R = 5 by default: the fewest replications whose t quantile (2.13 at 95 %, 4 degrees of
  // freedom) no longer dominates the bound; fewer make the bound wide, more cost time linearly.
  int replications = 5;
  uint64_t seed = 1;
  // Worker threads of the plan's one JobPool (0 = the OpenMP default): every cell's replications
  // run on them, several cells searched at once (RunPlan); the plan does not depend on it.
  int threads = 0;
  int max_nodes = 256;              // per pool; beyond it a cell is infeasible
  int max_density = 8;              // `auto` tries 1..min(this, what memory allows)
  // The utilization the search's starting estimate assumes for a workload without a latency
  // objective (one with an objective gets the M/M/1 utilization that meets it; docs/plan.md).
  double target_utilization = 0.7;
  double growth = 2.0;  // the factor between the search's successive steps
  Shard shard;                      // only the cells this shard owns are planned
  RunLimits limits;                 // of every run (sim/run_limits.h); ResolvePlanOptions checks
                                    // the largest cell against them
  // After each simulated size and each planned cell, from a planning thread, one call at a time:
  // the cells done of those this shard owns, and the sizes simulated so far (may be empty).
  std::function<void(int cells_done, int cells_total, int sizes_simulated)> progress;
};

// A workload at the chosen size of a cell, over the replications.
struct PlanWorkload {
  std::string name, namespace_;
  int replicas = 0;
  Slo slo;
  int latency_replications = 0;           // replications with at least one success
  MeanCi p50_ms, p99_ms, slo_latency_ms;  // slo_latency_ms: the SLO percentile's latency
  double slo_latency_bound_ms = 0;        // its one-sided upper bound (infinite without successes)
  MeanCi error_ratio;
  double error_ratio_bound = 0;
  int slo_met_replications = 0;
  // The backlog rule (sim/slo_check.h): the upper bound of the overdue requests at the end per
  // request, against the fraction the objective allows (BacklogAllowance per request).
  double overdue_ratio_bound = 0;
  bool slo_met = false;     // every bound within the objective
  double margin_ratio = 0;  // max(latency bound / SLO latency, error bound / budget)
};

struct PlanCard {
  std::string node;
  int index = 0;
  std::string gpu;
  double busy = 0, effective = 0, headroom = 0;
};

struct PlanPool {
  std::string name, instance_type;
  int nodes = 0, cards = 0;
  std::optional<double> monthly_cost;
};

struct PlanSearchStep {
  std::string pool;  // the first pool of the group searched
  int density = 0;
  int nodes = 0;
  bool met = false;
};

// An autoscaled pool at a plan option (docs/plan.md "Autoscaled pools"): the cluster-autoscaler
// keeps it in [min, max] nodes; max is the option's fixed size.
struct PlanAutoscaledPool {
  std::string name;
  int min = 0, max = 0;
  double nodes_mean = 0;               // time-average over the run, mean over the replications
  std::optional<double> monthly_cost;  // nodes_mean × the instance's monthly price
};

// The cheapest autoscaled configuration of a feasible option: each group with an autoscaled pool
// and an HPA workload gets the smallest floor (pool min, and each HPA's min replicas in
// proportion) that still meets every SLO through the scenario's traffic, its max the option's
// nodes and replicas.
struct PlanAutoscaled {
  std::vector<PlanAutoscaledPool> pools;  // the autoscaled pools of the option, in its order
  std::optional<double> monthly_cost;     // the whole option, these pools at their mean size
  double worst_p99_ratio = 0;             // of the autoscaled groups' workloads
  std::vector<PlanWorkload> workloads;    // of the autoscaled groups, at the chosen floor
  std::vector<PlanSearchStep> search;     // floors tried (`nodes` is the floor)
};

// One grid cell.
struct PlanOption {
  int cell = 0;  // grid ordinal (traffic, gpu_type, policy, placement, pricing)
  std::string id;
  double traffic = 1;
  std::string gpu_type;
  int policy = 5;
  std::string placement;
  std::string pricing;
  int density = 0;  // chosen (0 when infeasible under auto)
  bool feasible = false;
  std::string reason;  // when infeasible
  std::vector<PlanPool> pools;
  std::optional<double> monthly_cost;
  std::string currency;
  std::string binding_workload;  // namespace/name
  double worst_p99_ratio = 0;    // max of SLO percentile latency (mean) / SLO latency
  std::vector<PlanWorkload> workloads;
  std::vector<PlanCard> cards;
  std::vector<PlanSearchStep> search;
  std::optional<PlanAutoscaled> autoscaled;  // feasible options with an autoscaled group
};

struct PlanResult {
  std::string scenario;
  PlanOptions options;  // as resolved (defaults filled in)
  SimTime duration = 0, warmup = 0;
  int cells = 0;                            // grid size (all shards)
  std::vector<PlanOption> options_planned;  // the owned cells, in grid order
  // Each worker's busy seconds (JobPool::BusySeconds): the load balance, for benchmarks; the
  // plan document leaves it out.
  std::vector<double> worker_busy_s;
};

// Fills the defaults of `options` from `scenario` and checks them; a failure (only a message)
// when they cannot be used (an unknown GPU type, a policy out of range, spot without prices, ...).
Status ResolvePlanOptions(const Scenario& scenario, PlanOptions* options);

// Plans every owned cell. `options` must be resolved. Throws std::invalid_argument when the
// scenario cannot be planned (a GPU workload no GPU pool can take, a pool mixing whole-card and
// shared workloads).
PlanResult RunPlan(const Scenario& scenario, const PlanOptions& options);

// ---- Pieces, exposed for tests -------------------------------------------------------------

// The gpu-mem units (of a card of `gpu`) a workload's pod needs on each of its cards: the
// smallest u whose visible quota holds weights + concurrency × activation + context (all split
// over gpu_count cards), at least 1. With unlimited concurrency one request's activation is
// counted and the scenario's own quota, when larger, is kept.
int NeededUnitsPerCard(const Workload& w, const GpuType& gpu);

// Replicas from `slots` pod slots (cards × density; a whole-card or multi-card replica takes
// whole_gpus or gpu_count slots): workloads labelled fixed keep theirs; every other workload gets
// one, and the remaining slots go in proportion to offered load (λ · E[work]) by largest
// remainder (ties to the earlier workload). Empty when the slots cannot give each one replica.
std::optional<std::vector<int>> ReplicaSplit(const std::vector<const Workload*>& workloads,
                                             int slots, SimTime duration);

// The one-sided upper confidence bound of the mean of `values`: mean + t(c, R-1) · s / √R
// (the mean itself with one value; +infinity with none).
double UpperBound(const std::vector<double>& values, double confidence);

// Whether the first replications of a size (`finished`, of the `replications` the plan asks for)
// already decide that it misses, whatever the others give: a pod left Pending, a workload whose
// requests all failed, or a workload whose latencies, error ratios or overdue ratios sum to more
// than R times the objective (each bound is at least the mean of its R values, and none is
// negative). The planner stops such a size there (sequential stopping, RunSetOptions::stop). It
// is exact: it never stops a size that all R replications would meet, so the plan is the same,
// only cheaper.
bool CertainMiss(const Scenario& scenario, const std::vector<RunResult>& finished,
                 int replications);

}  // namespace knobsim
