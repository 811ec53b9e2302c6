#include "sim/plan/plan.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>

#include "models/memory_isolation.h"
#include "sim/plan/autoscaled_plan.h"
#include "sim/plan/plan_evaluation.h"
#include "sim/plan/pool_groups.h"
#include "sim/replication_stats.h"
#include "sim/scheduler/card_placement.h"
#include "sim/slo_check.h"
#include "sim/text.h"
#include "sim/traffic.h"

namespace knobsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A closed-loop job's workers are the job's own, not a share of the serving load.
bool IsFixed(const Workload& w) {
  if (w.closed_loop) return true;
  auto it = w.labels.find(kPlanReplicasLabel);
  return it != w.labels.end() && it->second == "fixed";
}

// Pod slots one replica takes: its whole cards, or the cards a multi-card share spans.
int SlotsPerReplica(const Workload& w) {
  return w.whole_gpus > 0 ? w.whole_gpus : std::max(1, w.gpu_count);
}

std::string Id(const Workload& w) {
  return w.namespace_ + "/" + w.name;
}

// The grid cell's choices that decide what is simulated.
struct Cell {
  int ordinal = 0;
  double traffic = 1;
  const GpuType* gpu = nullptr;
  int policy = 5;
  std::string placement;
  std::string pricing;
};

const InstancePrice* InstanceFor(const PlanOptions& o, const GpuType& gpu, int gpus) {
  return o.prices == nullptr ? nullptr : o.prices->Find(gpu.name, gpus);
}

std::optional<double> PriceOf(const InstancePrice& p, const std::string& kind) {
  if (kind == "spot") return p.spot;
  if (kind == "reserved") return p.reserved;
  return p.on_demand;
}

// Whether the cell's POLICY makes sharing pools offer gpu-core (core_mem): POLICY 3 is the
// percentage policy, and a percentage is what it reads.
bool UsesCores(const Cell& cell, const NodePool& pool) {
  if (pool.schedule == GpuSchedule::kCoreMem) return true;
  return cell.policy == 3 && pool.schedule == GpuSchedule::kCgpu;
}

// The largest density a shared group allows at this cell, or a reason why not even 1.
struct DensityLimit {
  int max = 0;
  std::string reason;
};

DensityLimit GroupDensityLimit(const Scenario& s, const PoolGroup& g, const Cell& cell,
                               const PlanOptions& o) {
  if (g.whole) return {1, ""};
  const int units = CardMemoryUnits(cell.gpu->memory_mib);
  int limit = o.max_density;
  for (int w : g.workloads) {
    const Workload& wl = s.workloads[w];
    const int need = NeededUnitsPerCard(wl, *cell.gpu);
    if (need > units) {
      return {0, Id(wl) + " needs " + std::to_string(need) + " GiB per card, " + cell.gpu->name +
                     " has " + std::to_string(units)};
    }
    limit = std::min(limit, units / need);
    if (wl.gpu_core > 0 && UsesCores(cell, s.node_pools[g.pools.front()])) {
      limit = std::min(limit, 100 / wl.gpu_core);
    }
  }
  if (cell.policy == 0 && s.cluster.max_inst > 0) limit = std::min(limit, s.cluster.max_inst);
  // A node must hold the pods its cards take: cpu, memory and pod count per node.
  for (int p : g.pools) {
    const NodePool& pool = s.node_pools[p];
    int64_t cpu = pool.cpu_milli, mem = pool.memory_mib;
    if (const InstancePrice* inst = InstanceFor(o, *cell.gpu, pool.gpus_per_node)) {
      if (inst->cpu_milli > 0) cpu = inst->cpu_milli;
      if (inst->memory_mib > 0) mem = inst->memory_mib;
    }
    for (int w : g.workloads) {
      const Workload& wl = s.workloads[w];
      const int64_t per_card = pool.gpus_per_node;
      if (wl.cpu_milli > 0) limit = std::min<int64_t>(limit, cpu / (per_card * wl.cpu_milli));
      if (wl.memory_mib > 0) limit = std::min<int64_t>(limit, mem / (per_card * wl.memory_mib));
    }
    limit = std::min(limit, pool.pods / std::max(1, pool.gpus_per_node));
  }
  if (limit < 1) {
    return {0, "a " + s.node_pools[g.pools.front()].name +
                   " node cannot hold one pod per card (cpu, memory, pods, gpu-core or max_inst)"};
  }
  return {limit, ""};
}

// What the planning threads share: the evaluations, the pool their replications run on, and
// the counts PlanOptions::progress is told (one call at a time).
struct PlanShared {
  PlanShared(const PlanOptions& o, JobPool& p) : options(o), pool(p) {}
  const PlanOptions& options;
  JobPool& pool;
  EvaluationCache cache;
  std::mutex mu;
  int cells_done = 0, cells_total = 0, sizes_simulated = 0;

  void Count(int cells, int sizes) {
    std::lock_guard<std::mutex> lock(mu);
    cells_done += cells;
    sizes_simulated += sizes;
    if (options.progress) options.progress(cells_done, cells_total, sizes_simulated);
  }
};

// Plans one cell at a time on the calling thread; the cells' own state (answers_) is its own,
// the evaluations shared.
class Planner {
 public:
  // `groups`: GroupPools(s), made once by the caller (it throws on a scenario that cannot be
  // planned, and must do so on the calling thread, not on a planning thread).
  Planner(const Scenario& s, PlanShared& shared, std::vector<PoolGroup> groups)
      : s_(s), o_(shared.options), shared_(shared), groups_(std::move(groups)) {}

  // `rank`: the cell's place in the planning order; its replications are queued at it.
  PlanOption PlanCell(const Cell& cell, int64_t rank);

 private:
  struct GroupAnswer {
    bool feasible = false;
    std::string reason;
    int nodes = 0;
    const Evaluation* at = nullptr;
  };

  Scenario GroupScenario(const PoolGroup& g, const Cell& cell, int density, int nodes,
                         const std::vector<int>& replicas) const;
  // The group at `nodes` (replicas as split there): the fixed deployment, or with a `floor` the
  // elastic one down to it (autoscaled_plan.h).
  const Evaluation& Evaluate(int group, const Cell& cell, int density, int nodes,
                             std::optional<int> floor = std::nullopt);
  // What Evaluate computes when no thread has: the group simulated at `nodes`, density `d`.
  Evaluation Simulated(const PoolGroup& g, const Cell& cell, int d, int nodes,
                       std::optional<int> floor);
  // The smallest floor of each elastic group at the chosen option that still meets, by
  // bisection (the option's own size meets: it is the fixed deployment), into best.autoscaled.
  void PlanElastic(const Cell& cell, PlanOption& best);
  // The smallest size of `group` that meets, searched up to `cap` nodes (infeasible beyond it).
  GroupAnswer Search(int group, const Cell& cell, int density, int cap,
                     std::vector<PlanSearchStep>* log);
  // The nodes whose slots give every workload of `group` one replica (its fixed ones all).
  int MinNodes(int group, int density) const;
  // Where a search starts without an answer at another density: the queueing estimate.
  int EstimatedNodes(int group, const Cell& cell, int density) const;
  // Where it starts with one: the answer at the nearest density searched in this cell.
  std::optional<int> GuessFromAnswers(int group, int density) const;
  // The most nodes `group` may take with the other groups at `nodes` for its option to tie or beat
  // `best` on cost (cards without prices); 0 when none.
  int CapToWin(size_t group, std::vector<int> nodes, const PlanOption& best,
               const Cell& cell) const;
  Status PriceProblem(const Cell& cell) const;
  // The densities a cell tries: the one asked, or 1..the most every shared group allows; none,
  // with `reason`, when a group allows none (or not the one asked).
  std::vector<int> Densities(const Cell& cell, std::string* reason) const;
  // A feasible option's workloads (in scenario order, the binding one, the worst p99 ratio) and
  // cards from its groups' evaluations `at`.
  void FillOutcome(const std::vector<const Evaluation*>& at, PlanOption& cand) const;

  const Scenario& s_;
  const PlanOptions& o_;
  PlanShared& shared_;
  std::vector<PoolGroup> groups_;
  int64_t rank_ = 0;  // of the cell being planned
  // This cell's searches by (group, density; 1 for a whole-card group): the smallest size that
  // met, or none up to `cap` (0: not searched yet).
  struct Answer {
    std::optional<int> nodes;
    int cap = 0;
    std::string reason;  // when no size met
  };
  std::map<std::pair<int, int>, Answer> answers_;
};

Status Planner::PriceProblem(const Cell& cell) const {
  if (o_.prices == nullptr) return Status::Ok();
  for (const PoolGroup& g : groups_) {
    for (int p : g.pools) {
      const int gpus = s_.node_pools[p].gpus_per_node;
      const InstancePrice* inst = InstanceFor(o_, *cell.gpu, gpus);
      if (inst == nullptr) {
        return Status::Failure("no instance with " + std::to_string(gpus) + " x " + cell.gpu->name +
                               " in " + o_.prices->file);
      }
      if (!PriceOf(*inst, cell.pricing)) {
        return Status::Failure("no " + cell.pricing + " price for " + inst->instance_type + " in " +
                               o_.prices->file);
      }
    }
  }
  return Status::Ok();
}

Scenario Planner::GroupScenario(const PoolGroup& g, const Cell& cell, int density, int nodes,
                                const std::vector<int>& replicas) const {
  Scenario out;
  out.name = s_.name;
  out.file = s_.file;
  out.catalog = s_.catalog;
  out.cluster = s_.cluster;
  out.cluster.policy = static_cast<SharingPolicy>(cell.policy);
  out.run = s_.run;
  const bool spot = cell.pricing == "spot";
  bool cores = false;
  for (int p : g.pools) {
    NodePool pool = s_.node_pools[p];
    pool.autoscaling.reset();  // the fixed deployment; ElasticScenario adds the autoscaler back
    pool.gpu_type = cell.gpu->name;
    pool.count = nodes;
    if (static_cast<int>(pool.nodes.size()) > nodes) pool.nodes.resize(nodes);
    pool.placement = cell.placement;
    pool.labels[kGpuPlacementLabel] = cell.placement;
    if (const InstancePrice* inst = InstanceFor(o_, *cell.gpu, pool.gpus_per_node)) {
      pool.instance_type = inst->instance_type;
      if (inst->cpu_milli > 0) pool.cpu_milli = inst->cpu_milli;
      if (inst->memory_mib > 0) pool.memory_mib = inst->memory_mib;
      if (spot) {
        pool.spot.per_node_hour = inst->spot_interruptions_per_hour;
        pool.spot.replace_after = o_.prices->spot_replace_after;
      }
    }
    if (!g.whole) {
      pool.max_pods_per_card = density;
      pool.labels[kGpuMaxPodLabel] = std::to_string(density);
      if (UsesCores(cell, pool)) {
        cores = true;
        pool.schedule = GpuSchedule::kCoreMem;
        pool.labels[kGpuScheduleLabel] = "core_mem";
      }
    }
    out.node_pools.push_back(std::move(pool));
  }
  for (size_t i = 0; i < g.workloads.size(); ++i) {
    Workload w = s_.workloads[g.workloads[i]];
    w.pods.clear();  // the plan places every replica afresh
    w.replicas = replicas[i];
    w.hpa.reset();  // the fixed deployment holds its replicas (autoscaled_plan.h)
    w.cron_hpa.reset();
    w.traffic.scale *= cell.traffic;
    if (!g.whole) {
      const int m = std::max(1, w.gpu_count);
      w.gpu_mem = NeededUnitsPerCard(w, *cell.gpu) * m;
      if (cores && w.gpu_core == 0) w.gpu_core = 100 / density;
    }
    out.workloads.push_back(std::move(w));
  }
  return out;
}

const Evaluation& Planner::Evaluate(int group, const Cell& cell, int density, int nodes,
                                    std::optional<int> floor) {
  const PoolGroup& g = groups_[group];
  const int d = g.whole ? 1 : density;
  const EvaluationCache::Key key{group,       cell.traffic,   cell.gpu->name,
                                 cell.policy, cell.placement, cell.pricing == "spot",
                                 d,           nodes,          floor.value_or(-1)};
  return shared_.cache.Get(key, [&] { return Simulated(g, cell, d, nodes, floor); });
}

Evaluation Planner::Simulated(const PoolGroup& g, const Cell& cell, int d, int nodes,
                              std::optional<int> floor) {
  Evaluation e;
  int slots = 0;
  for (int p : g.pools) slots += nodes * s_.node_pools[p].gpus_per_node * d;
  std::vector<const Workload*> ws;
  for (int w : g.workloads) ws.push_back(&s_.workloads[w]);
  const std::optional<std::vector<int>> replicas = ReplicaSplit(ws, slots, s_.run.duration);
  if (!replicas) {
    e.why_not = std::to_string(slots) + " pod slots cannot give every workload a replica";
    return e;
  }
  Scenario scenario = GroupScenario(g, cell, d, nodes, *replicas);
  if (floor) scenario = ElasticScenario(s_, g, std::move(scenario), *floor, nodes);
  RunSetOptions run;
  run.replications = o_.replications;
  run.seed = o_.seed;
  run.pool = &shared_.pool;
  run.pool_rank = rank_;
  run.limits = o_.limits;
  // No early stop under the autoscaler: a pod Pending while its node joins is not a miss.
  if (!floor) {
    run.stop = [&](const std::vector<RunResult>& finished) {
      return CertainMiss(scenario, finished, o_.replications);
    };
  }
  const RunSetResult rs = RunSet(scenario, run);
  shared_.Count(0, 1);
  return AssessRuns(scenario, rs, o_.replications, o_.confidence, /*pending_misses=*/!floor);
}

void Planner::PlanElastic(const Cell& cell, PlanOption& best) {
  PlanAutoscaled out;
  bool any = false;
  double cost = best.monthly_cost.value_or(0.0);
  std::vector<std::pair<int, const PlanWorkload*>> ordered;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    const PoolGroup& g = groups_[gi];
    if (!ElasticGroup(s_, g)) continue;
    any = true;
    const std::string& first = s_.node_pools[g.pools.front()].name;
    int nodes = 0;
    for (const PlanPool& p : best.pools)
      if (p.name == first) nodes = p.nodes;
    const int group = static_cast<int>(gi);
    int lo = 0, hi = nodes;  // hi meets: the fixed option itself
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      const bool met = Evaluate(group, cell, best.density, nodes, mid).met;
      out.search.push_back({first, best.density, mid, met});
      if (met) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const Evaluation& at = Evaluate(group, cell, best.density, nodes, hi);
    for (size_t k = 0; k < g.pools.size(); ++k) {
      const NodePool& pool = s_.node_pools[g.pools[k]];
      if (!pool.autoscaling) continue;
      PlanAutoscaledPool ap;
      ap.name = pool.name;
      ap.min = hi;
      ap.max = nodes;
      ap.nodes_mean = at.pool_nodes_mean.at(k);
      if (const InstancePrice* inst = InstanceFor(o_, *cell.gpu, pool.gpus_per_node)) {
        const double per_node = *PriceOf(*inst, cell.pricing);
        ap.monthly_cost = per_node * ap.nodes_mean;
        cost += *ap.monthly_cost - per_node * nodes;  // instead of its fixed nodes
      }
      out.pools.push_back(std::move(ap));
    }
    for (size_t k = 0; k < g.workloads.size(); ++k)
      ordered.emplace_back(g.workloads[k], &at.workloads.at(k));
  }
  if (!any) return;
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [index, pw] : ordered) {
    out.workloads.push_back(*pw);
    out.worst_p99_ratio = std::max(out.worst_p99_ratio, SloLatencyRatio(*pw));
  }
  if (best.monthly_cost) out.monthly_cost = cost;
  best.autoscaled = std::move(out);
}

int Planner::MinNodes(int group, int density) const {
  const PoolGroup& g = groups_[group];
  const int d = g.whole ? 1 : density;
  int min_slots = 0;
  for (int w : g.workloads) {
    const Workload& wl = s_.workloads[w];
    min_slots += SlotsPerReplica(wl) * (IsFixed(wl) ? wl.replicas : 1);
  }
  int cards_per_node = 0;
  for (int p : g.pools) cards_per_node += s_.node_pools[p].gpus_per_node;
  const int per_node = std::max(1, cards_per_node * d);
  return std::max(1, (min_slots + per_node - 1) / per_node);
}

int Planner::EstimatedNodes(int group, const Cell& cell, int density) const {
  const PoolGroup& g = groups_[group];
  const int d = g.whole ? 1 : density;
  const bool cores = !g.whole && UsesCores(cell, s_.node_pools[g.pools.front()]);
  // Each workload's offered load in card-seconds per second, over the utilization at which its
  // SLO percentile still fits: a server at utilization ρ gives a request of mean work s a
  // response time of about Exp(mean s / (1 − ρ)) (M/M/1, first come or processor sharing alike),
  // whose percentile q is s · ln(1 / (1 − q)) / (1 − ρ) ≤ the SLO latency. With one workload on
  // exclusive cards, or on POLICY 3 shares, that is the closed form the plan is tested against
  // (docs/plan.md), and the estimate is the answer; elsewhere it is a guess the search corrects.
  double cards = 0;
  for (int w : g.workloads) {
    const Workload& wl = s_.workloads[w];
    Traffic t = wl.traffic;
    t.scale *= cell.traffic;
    double work_s = wl.work.mean_s / cell.gpu->speed;
    // Under POLICY 3 each of a card's d pods is its own server at its gpu-core share.
    if (cores) work_s /= std::max(1, wl.gpu_core > 0 ? wl.gpu_core : 100 / d) / 100.0;
    double load = MeanRate(t, s_.run.duration) * work_s * SlotsPerReplica(wl);
    if (cores) load /= d;
    double target = o_.target_utilization;
    if (wl.slo.latency > 0) {
      const double slo_s = static_cast<double>(wl.slo.latency) / kNanosPerSecond;
      const double tail = std::log(100.0 / (100.0 - std::min(wl.slo.percentile, 99.999)));
      target = 1.0 - tail * work_s / slo_s;
    }
    // An SLO below the bare work, or one that leaves the cards nearly idle, still gets a guess.
    cards += load / std::clamp(target, 0.05, 0.95);
  }
  int cards_per_node = 0;
  for (int p : g.pools) cards_per_node += s_.node_pools[p].gpus_per_node;
  return OfferedLoadNodes(cards, cards_per_node, 1.0);
}

std::optional<int> Planner::GuessFromAnswers(int group, int density) const {
  // The answer at the nearest density already searched in this cell (the lower on a tie). Only
  // the cell's own answers: a shard plans a cell exactly as the whole plan does.
  std::optional<int> guess;
  int nearest = 0;
  for (const auto& [key, answer] : answers_) {
    if (key.first != group || !answer.nodes) continue;
    const int distance = std::abs(key.second - density);
    if (!guess || distance < nearest) {
      guess = answer.nodes;
      nearest = distance;
    }
  }
  return guess;
}

Planner::GroupAnswer Planner::Search(int group, const Cell& cell, int density, int cap,
                                     std::vector<PlanSearchStep>* log) {
  const PoolGroup& g = groups_[group];
  const int d = g.whole ? 1 : density;
  const std::string& first_pool = s_.node_pools[g.pools.front()].name;
  // Searched before in this cell (a whole-card group at another density, or up to a cap at
  // least this one): the same answer. Searched to a lower cap without an answer: on above it.
  Answer& answer = answers_[{group, d}];
  const bool searched = answer.cap > 0;
  if (!searched || (!answer.nodes && cap > answer.cap)) {
    CapacitySearchSettings settings;
    settings.max_nodes = cap;
    settings.growth = o_.growth;
    settings.start = std::max(GuessFromAnswers(group, d).value_or(EstimatedNodes(group, cell, d)),
                              MinNodes(group, d));
    if (searched) settings.start = std::max(settings.start, answer.cap + 1);
    const CapacitySearchResult r =
        FindSmallestSize(settings, [&](int n) { return Evaluate(group, cell, density, n).met; });
    for (const SearchStep& step : r.steps) log->push_back({first_pool, d, step.nodes, step.met});
    answer.nodes = r.nodes;
    answer.cap = cap;
    answer.reason = r.reason;
  }
  GroupAnswer a;
  if (!answer.nodes || *answer.nodes > cap) {
    a.reason = first_pool + ": " + answer.reason;
    return a;
  }
  a.feasible = true;
  a.nodes = *answer.nodes;
  a.at = &Evaluate(group, cell, density, a.nodes);
  return a;
}

int Planner::CapToWin(size_t group, std::vector<int> nodes, const PlanOption& best,
                      const Cell& cell) const {
  // PlanCell's rank: the monthly cost (0 without prices), then the cards; a tie goes on to the
  // worst ratio, which only the simulation knows, so a tie is searched.
  const double best_price = best.monthly_cost.value_or(0.0);
  int best_cards = 0;
  for (const PlanPool& p : best.pools) best_cards += p.cards;
  auto could_win = [&] {
    double price = 0;
    int cards = 0;
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      for (int p : groups_[gi].pools) {
        const NodePool& pool = s_.node_pools[p];
        cards += nodes[gi] * pool.gpus_per_node;
        if (const InstancePrice* inst = InstanceFor(o_, *cell.gpu, pool.gpus_per_node)) {
          price += *PriceOf(*inst, cell.pricing) * nodes[gi];
        }
      }
    }
    // A hair of slack, so that summing in another order never rules out a tie.
    const double slack = 1e-9 * std::max(1.0, std::abs(best_price));
    if (price < best_price - slack) return true;
    return price <= best_price + slack && cards <= best_cards;
  };
  int cap = 0;
  for (int n = 1; n <= o_.max_nodes; ++n) {
    nodes[group] = n;
    if (!could_win()) break;
    cap = n;
  }
  return cap;
}

std::vector<int> Planner::Densities(const Cell& cell, std::string* reason) const {
  int most = o_.density > 0 ? o_.density : o_.max_density;
  for (const PoolGroup& g : groups_) {
    const DensityLimit lim = GroupDensityLimit(s_, g, cell, o_);
    if (lim.max < 1) {
      *reason = lim.reason;
      return {};
    }
    if (o_.density > 0 && o_.density > lim.max) {
      *reason = "density " + std::to_string(o_.density) + " does not fit a " +
                s_.node_pools[g.pools.front()].name + " card (at most " + std::to_string(lim.max) +
                (lim.max == 1 ? " pod" : " pods") + " per card)";
      return {};
    }
    if (!g.whole) most = std::min(most, lim.max);
  }
  if (o_.density > 0) return {o_.density};
  std::vector<int> densities;
  for (int d = 1; d <= most; ++d) densities.push_back(d);
  return densities;
}

void Planner::FillOutcome(const std::vector<const Evaluation*>& at, PlanOption& cand) const {
  // Workloads back in scenario order, and the cards group by group.
  std::vector<std::pair<int, const PlanWorkload*>> ordered;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    for (size_t k = 0; k < groups_[gi].workloads.size(); ++k) {
      ordered.emplace_back(groups_[gi].workloads[k], &at[gi]->workloads[k]);
    }
    for (const PlanCard& c : at[gi]->cards) cand.cards.push_back(c);
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double worst_margin = -1;
  for (const auto& [index, pw] : ordered) {
    cand.workloads.push_back(*pw);
    if (pw->margin_ratio > worst_margin) {
      worst_margin = pw->margin_ratio;
      cand.binding_workload = pw->namespace_ + "/" + pw->name;
    }
    cand.worst_p99_ratio = std::max(cand.worst_p99_ratio, SloLatencyRatio(*pw));
  }
}

PlanOption Planner::PlanCell(const Cell& cell, int64_t rank) {
  answers_.clear();
  rank_ = rank;
  PlanOption opt;
  opt.cell = cell.ordinal;
  opt.traffic = cell.traffic;
  opt.gpu_type = cell.gpu->name;
  opt.policy = cell.policy;
  opt.placement = cell.placement;
  opt.pricing = cell.pricing;
  opt.id = "x" + ShortestNumber(cell.traffic) + "/" + cell.gpu->name + "/p" +
           std::to_string(cell.policy) + "/" + cell.placement + "/" + cell.pricing;
  if (o_.prices != nullptr) opt.currency = o_.prices->currency;
  if (Status problem = PriceProblem(cell); !problem) {
    opt.reason = problem.error().message;
    return opt;
  }

  const std::vector<int> densities = Densities(cell, &opt.reason);
  if (densities.empty()) return opt;

  std::optional<PlanOption> best;
  std::string first_reason;
  std::vector<PlanSearchStep> log;
  for (int d : densities) {
    PlanOption cand = opt;
    cand.density = d;
    bool ok = true;
    double cost = 0;
    std::vector<const Evaluation*> at;
    std::vector<int> nodes;  // per group: found, or the fewest possible for those not yet searched
    for (size_t gi = 0; gi < groups_.size(); ++gi)
      nodes.push_back(MinNodes(static_cast<int>(gi), d));
    for (size_t gi = 0; gi < groups_.size() && ok; ++gi) {
      // Once an option exists, a density whose groups cannot all fit under its cost (or cards)
      // cannot win: search each group only up to the nodes that could still tie it.
      const int cap = best ? CapToWin(gi, nodes, *best, cell) : o_.max_nodes;
      if (cap < nodes[gi]) {
        ok = false;
        break;
      }
      const GroupAnswer a = Search(static_cast<int>(gi), cell, d, cap, &log);
      if (!a.feasible) {
        ok = false;
        if (!best && first_reason.empty()) first_reason = a.reason;
        break;
      }
      nodes[gi] = a.nodes;
      at.push_back(a.at);
      for (int p : groups_[gi].pools) {
        const NodePool& pool = s_.node_pools[p];
        PlanPool pp;
        pp.name = pool.name;
        pp.nodes = a.nodes;
        pp.cards = a.nodes * pool.gpus_per_node;
        if (const InstancePrice* inst = InstanceFor(o_, *cell.gpu, pool.gpus_per_node)) {
          pp.instance_type = inst->instance_type;
          pp.monthly_cost = *PriceOf(*inst, cell.pricing) * a.nodes;
          cost += *pp.monthly_cost;
        }
        cand.pools.push_back(std::move(pp));
      }
    }
    if (!ok) continue;
    cand.feasible = true;
    if (o_.prices != nullptr) cand.monthly_cost = cost;
    FillOutcome(at, cand);
    // The cheapest density wins (fewest cards without prices); then the lower worst ratio,
    // then the lower density.
    auto rank = [&](const PlanOption& x) {
      const double price = x.monthly_cost.value_or(0.0);
      int n = 0;
      for (const PlanPool& p : x.pools) n += p.cards;
      return std::make_tuple(price, n, x.worst_p99_ratio, x.density);
    };
    if (!best || rank(cand) < rank(*best)) best = std::move(cand);
  }
  if (!best) {
    opt.reason = first_reason;
    opt.search = std::move(log);
    return opt;
  }
  best->search = std::move(log);
  PlanElastic(cell, *best);
  return std::move(*best);
}

// Plans `cells` on planning threads that share one JobPool of `options.threads` workers: each
// planning thread takes the next cell in the planning order — the heaviest traffic first (a
// simulation's cost grows with its requests), then grid order — and searches it, queueing each
// size's replications on the pool at the cell's rank. Enough cells are planned at once that the
// pool always has a replication to run while any is left; a cell's answer is stored at its
// place in grid order, so the plan does not depend on which thread planned which cell. The
// first failure in grid order is rethrown once every cell has been planned.
std::vector<PlanOption> PlanCells(const Scenario& scenario, const PlanOptions& options,
                                  const std::vector<Cell>& cells,
                                  std::vector<double>* worker_busy_s) {
  const std::vector<PoolGroup> groups = GroupPools(scenario);
  const int n = static_cast<int>(cells.size());
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return cells[a].traffic > cells[b].traffic; });
  const int threads = ResolveThreads(options.threads);
  JobPool pool(threads);
  PlanShared shared(options, pool);
  shared.cells_total = n;
  std::vector<PlanOption> planned(n);
  std::vector<std::exception_ptr> failures(n);
  std::atomic<int> next{0};
  auto plan = [&] {
    Planner planner(scenario, shared, groups);
    for (int k = next++; k < n; k = next++) {
      try {
        planned[order[k]] = planner.PlanCell(cells[order[k]], k);
        shared.Count(1, 0);
      } catch (...) {
        failures[order[k]] = std::current_exception();
      }
    }
  };
  // Each planning thread mostly waits for its replications; kPlannersPerThread of them per
  // worker keep the queue full when every cell's search is between two sizes.
  constexpr int kPlannersPerThread = 3;
  const int planners = std::clamp(threads * kPlannersPerThread, 1, std::max(1, n));
  std::vector<std::thread> planning;
  for (int p = 1; p < planners; ++p) planning.emplace_back(plan);
  plan();
  for (std::thread& t : planning) t.join();
  *worker_busy_s = pool.BusySeconds();
  for (const std::exception_ptr& e : failures) {
    if (e) std::rethrow_exception(e);
  }
  return planned;
}

}  // namespace

int NeededUnitsPerCard(const Workload& w, const GpuType& gpu) {
  const int m = std::max(1, w.gpu_count);
  const int64_t weights = (w.memory.weights_mib + m - 1) / m;
  const int64_t activation = (w.memory.activation_mib + m - 1) / m;
  const int64_t context = w.memory.context_mib.value_or(gpu.context_mib);
  const int64_t in_flight =
      static_cast<int64_t>(std::max(1, w.concurrency)) * std::max(1, w.batching.max_batch);
  const int64_t need = weights + context + in_flight * activation;
  const int units = CardMemoryUnits(gpu.memory_mib);
  int u = 1;
  while (u <= units && VisibleQuotaMib(gpu.memory_mib, u, units) < need) ++u;
  if (u > units) {
    // More than the card: say how much, in GiB units, for the message.
    u = static_cast<int>((need + 1023) / 1024);
  }
  if (w.concurrency == 0) u = std::max(u, w.gpu_mem / m);
  return u;
}

std::optional<std::vector<int>> ReplicaSplit(const std::vector<const Workload*>& workloads,
                                             int slots, SimTime duration) {
  const size_t n = workloads.size();
  std::vector<int> replicas(n, 0);
  std::vector<double> load(n, 0);
  int left = slots;
  double total = 0;
  size_t free_count = 0;
  for (size_t i = 0; i < n; ++i) {
    const Workload& w = *workloads[i];
    const int c = SlotsPerReplica(w);
    replicas[i] = IsFixed(w) ? w.replicas : 1;
    left -= c * replicas[i];
    if (!IsFixed(w)) {
      load[i] = MeanRate(w.traffic, duration) * w.work.mean_s * c;
      total += load[i];
      ++free_count;
    }
  }
  if (left < 0) return std::nullopt;
  if (free_count == 0 || left == 0) return replicas;
  // Shares in replicas of each workload; equal shares when no workload has traffic.
  std::vector<double> share(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (IsFixed(*workloads[i])) continue;
    const double part = total > 0 ? load[i] / total : 1.0 / static_cast<double>(free_count);
    share[i] = left * part / SlotsPerReplica(*workloads[i]);
  }
  int rest = left;
  for (size_t i = 0; i < n; ++i) {
    if (IsFixed(*workloads[i])) continue;
    const int whole = static_cast<int>(std::floor(share[i] + 1e-9));
    replicas[i] += whole;
    rest -= whole * SlotsPerReplica(*workloads[i]);
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) {
    if (!IsFixed(*workloads[i])) order.push_back(i);
  }
  auto remainder = [&](size_t i) { return share[i] - std::floor(share[i] + 1e-9); };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder(a) > remainder(b); });
  for (size_t i : order) {
    const int c = SlotsPerReplica(*workloads[i]);
    if (c <= rest) {
      ++replicas[i];
      rest -= c;
    }
  }
  return replicas;
}

PlanResult RunPlan(const Scenario& scenario, const PlanOptions& options) {
  PlanResult out;
  out.scenario = scenario.name;
  out.options = options;
  out.duration = scenario.run.duration;
  out.warmup = scenario.run.warmup;
  std::vector<Cell> cells;  // the owned cells, in grid order
  int ordinal = 0;
  for (double t : options.traffic) {
    for (const std::string& gpu : options.gpu_types) {
      for (int policy : options.policies) {
        for (const std::string& placement : options.placements) {
          for (const std::string& pricing : options.pricing) {
            const int cell = ordinal++;
            if (!options.shard.Owns(cell)) continue;
            Cell c;
            c.ordinal = cell;
            c.traffic = t;
            c.gpu = scenario.catalog.Find(gpu);
            c.policy = policy;
            c.placement = placement;
            c.pricing = pricing;
            if (c.gpu == nullptr) throw std::invalid_argument("unknown GPU type " + gpu);
            cells.push_back(std::move(c));
          }
        }
      }
    }
  }
  out.cells = ordinal;
  out.options_planned = PlanCells(scenario, options, cells, &out.worker_busy_s);
  return out;
}

}  // namespace knobsim
