// ResolvePlanOptions (plan.h): the plan's options checked against the scenario and completed
// from it (GPU types, POLICY and placements of its pools), and the largest cell checked against
// the run limits before any run.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/plan/plan.h"
#include "sim/plan/pool_groups.h"
#include "sim/run_limits.h"
#include "sim/scheduler/card_placement.h"
#include "sim/text.h"
#include "sim/time_slice_rules.h"

namespace knobsim {
namespace {

// The largest run the plan can simulate, checked against the limits before any runs: the
// highest traffic level, every GPU pool the search sizes at --max-nodes.
Status CheckLargestCell(const Scenario& s, const std::vector<PoolGroup>& groups,
                        const PlanOptions& o) {
  Scenario largest = s;
  const double top = *std::max_element(o.traffic.begin(), o.traffic.end());
  for (Workload& w : largest.workloads) w.traffic.scale *= top;
  for (const PoolGroup& g : groups) {
    for (int p : g.pools) largest.node_pools[p].count = o.max_nodes;
  }
  Sweep sweep;
  sweep.runs.push_back({"the largest cell (traffic x" + ShortestNumber(top) + ", --max-nodes " +
                            std::to_string(o.max_nodes) + ")",
                        &largest});
  sweep.replications = o.replications;
  return CheckRunLimits(sweep, o.limits);
}

}  // namespace

Status ResolvePlanOptions(const Scenario& s, PlanOptions* o) {
  if (o->traffic.empty()) return Status::Failure("--traffic: give at least one level");
  for (double t : o->traffic) {
    if (!(t > 0) || !std::isfinite(t))
      return Status::Failure("--traffic: " + ShortestNumber(t) + " is not a positive multiple");
  }
  for (const NodePool& pool : s.node_pools) {
    if (pool.dra.enabled)
      return Status::Failure("pool " + pool.name +
                             " hands its cards out through DRA claims: plan does not size DRA "
                             "pools yet; use knobsim whatif with pool sizes instead");
    if (pool.device_sharing.shared() || pool.mig.enabled() || pool.hami.enabled())
      return Status::Failure("pool " + pool.name +
                             (pool.mig.enabled()    ? " cuts its cards into MIG instances"
                              : pool.hami.enabled() ? " splits its cards into HAMi vGPUs"
                                                    : " shares cards by device-plugin replicas") +
                             ": plan sizes whole-card and ACK-shared pools (replica, MIG and HAMi "
                             "pools are not planned yet); use knobsim whatif with pool sizes "
                             "instead");
  }
  std::vector<PoolGroup> groups;
  try {
    groups = GroupPools(s);
  } catch (const std::invalid_argument& e) {
    return Status::Failure(e.what());
  }
  if (groups.empty())
    return Status::Failure("the scenario has no GPU workload on a GPU node pool: nothing to plan");
  if (o->gpu_types.empty()) {
    for (const PoolGroup& g : groups) {
      for (int p : g.pools) {
        const std::string& name = s.catalog.Find(s.node_pools[p].gpu_type)->name;
        if (std::find(o->gpu_types.begin(), o->gpu_types.end(), name) == o->gpu_types.end()) {
          o->gpu_types.push_back(name);
        }
      }
    }
  } else {
    for (std::string& name : o->gpu_types) {
      const GpuType* t = s.catalog.Find(name);
      if (t == nullptr) {
        std::string known;
        for (const GpuType& k : s.catalog.types()) known += (known.empty() ? "" : ", ") + k.name;
        return Status::Failure("--gpu-types: unknown GPU type \"" + name +
                               "\"; known types: " + known);
      }
      name = t->name;
    }
  }
  if (o->policies.empty()) o->policies = {static_cast<int>(s.cluster.policy)};
  for (int p : o->policies) {
    if (p < 0 || p > 5)
      return Status::Failure("--policies: " + std::to_string(p) + " is not a cGPU POLICY (0..5)");
    // Slice mode under a POLICY it does not slice would run those cards fluid: refused, as the
    // reader and whatif refuse it (sim/time_slice_rules.h).
    Scenario under = s;
    under.cluster.policy = static_cast<SharingPolicy>(p);
    if (const std::string why = TimeSliceRefusal(under); !why.empty()) {
      return Status::Failure("--policies: at POLICY " + std::to_string(p) + ", " +
                             TimeSliceRefusalMessage(why) + "; " + kTimeSliceRefusalHint);
    }
  }
  if (o->placements.empty()) {
    for (const PoolGroup& g : groups) {
      for (int p : g.pools) {
        const NodePool& pool = s.node_pools[p];
        const std::string name =
            pool.placement.empty() ? s.cluster.default_placement : pool.placement;
        if (std::find(o->placements.begin(), o->placements.end(), name) == o->placements.end()) {
          o->placements.push_back(name);
        }
      }
    }
  } else {
    for (std::string& name : o->placements) {
      const std::optional<std::string> canonical = NormalizePlacement(name);
      if (!canonical) {
        std::string known;
        for (const std::string& k : PlacementNames()) known += (known.empty() ? "" : ", ") + k;
        return Status::Failure("--placement: unknown placement \"" + name + "\"; one of " + known);
      }
      name = *canonical;
    }
  }
  if (o->pricing.empty()) o->pricing = {"on_demand"};
  for (const std::string& k : o->pricing) {
    if (std::find(std::begin(kPricingKinds), std::end(kPricingKinds), k) ==
        std::end(kPricingKinds)) {
      return Status::Failure("--pricing: \"" + k + "\" is not one of on_demand, spot, reserved");
    }
    if (k != "on_demand" && o->prices == nullptr) {
      return Status::Failure("--pricing " + k + " needs a price file (--prices FILE)");
    }
  }
  auto has_duplicates = [](auto v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) != v.end();
  };
  if (has_duplicates(o->traffic)) return Status::Failure("--traffic: a level is listed twice");
  if (has_duplicates(o->gpu_types))
    return Status::Failure("--gpu-types: a GPU type is listed twice");
  if (has_duplicates(o->policies)) return Status::Failure("--policies: a POLICY is listed twice");
  if (has_duplicates(o->placements))
    return Status::Failure("--placement: a placement is listed twice");
  if (has_duplicates(o->pricing)) return Status::Failure("--pricing: a kind is listed twice");
  if (o->density < 0)
    return Status::Failure("--density: auto or a positive number of pods per card");
  if (!(o->confidence > 0.5 && o->confidence < 1))
    return Status::Failure("--confidence must be in (0.5, 1)");
  if (o->replications < 1) return Status::Failure("--replications must be at least 1");
  if (o->max_nodes < 1) return Status::Failure("--max-nodes must be at least 1");
  if (o->max_density < 1) return Status::Failure("--max-density must be at least 1");
  if (!(o->target_utilization > 0 && o->target_utilization <= 1)) {
    return Status::Failure("the target utilization must be in (0, 1]");
  }
  if (!(o->growth > 1)) return Status::Failure("the search growth factor must be above 1");
  return CheckLargestCell(s, groups, *o);
}

}  // namespace knobsim
