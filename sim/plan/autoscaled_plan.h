// Autoscaled pools in a plan (docs/plan.md "Autoscaled pools"). The plan sizes every group as a
// fixed deployment first (its pools at n nodes, its workloads at the replicas the split gives,
// no autoscaler). A group with a pool that has `autoscaling:` and a workload with an `hpa:` is
// then also planned elastic: its autoscaled pools between a floor and the fixed size, each HPA
// workload between a floor of replicas and its fixed replicas, the floor searched for the
// smallest that still meets every SLO through the run's traffic. Without an HPA nothing lets the
// pool shrink, and the group stays fixed.
#pragma once

#include "sim/plan/pool_groups.h"
#include "sim/scenario.h"

namespace knobsim {

// Whether `group` of `original` is planned elastic: one of its pools autoscales and one of its
// workloads has an HPA.
bool ElasticGroup(const Scenario& original, const PoolGroup& group);

// `fixed` — the plan's scenario of `group` at `max_nodes` nodes (its pools and workloads in the
// group's order, replicas as the plan split them, no autoscaler) — with the group's autoscaled
// pools in [floor, max_nodes] (starting at `floor`, their provisioning and priority kept) and
// each HPA workload in [max(its HPA's min, ⌈replicas × floor / max_nodes⌉), replicas], starting
// at that floor. At floor = max_nodes it is the fixed deployment.
Scenario ElasticScenario(const Scenario& original, const PoolGroup& group, Scenario fixed,
                         int floor, int max_nodes);

}  // namespace knobsim
