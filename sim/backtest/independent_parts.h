// Independent parts of a replay: a scenario's workloads split into groups that share no node, so
// that each group runs as a scenario of its own, on its own thread, and the runs together give
// exactly the run of the whole — the same timeline, number for number (docs/backtest.md
// "Speed").
//
//   1. PlacedAtStart: the whole's run places every replica at t = 0 — where it runs, or by the
//      scheduler, or nowhere (Pending) — before anything else happens; that placement, written
//      as the replicas' current pods, is where every pod of every part starts.
//   2. SplitIndependent: workloads with pods on the same node are one group; groups are balanced
//      into parts by their expected requests.
//   3. PartScenario: a part holds its workloads and only the nodes its pods run on (the first
//      part also the nodes no pod runs on).
//   4. PodsStayed after each part's run, MergePartTimelines over the parts of one replication.
//
// Why it is exact where SplitIndependent accepts a scenario:
//  * a placed pod starts where the whole placed it (a current pod stays where it still fits,
//    and whether it fits reads only the pods on that node, all in its group); a Pending one
//    stays Pending, since it fit no node of the whole when the whole placed it, a part's nodes
//    carry the same pods, and nothing in such a run frees room or schedules again;
//  * random streams are named per workload and pod (sim/random_stream.h), so a workload draws
//    the same arrivals, work and routing in its part as in the whole;
//  * a group's events keep their order: the other groups' events only interleave with them, and
//    nothing of one group reads the state of another (cards, pods, queues, the recorder's
//    per-workload and per-card sums).
// What could carry one group's state into another is refused: HPA and CronHPA (pods come and
// go), autoscaled or spot pools (nodes come and go), replicas not Ready at the start (they may
// be replaced). A Pending pod that a part's smaller cluster would place after all (a spread or
// affinity rule that counts other groups' pods) is caught by PodsStayed: the caller then runs
// the whole.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/results.h"
#include "sim/scenario.h"

namespace knobsim::backtest {

// The scenario with every replica's pod written as the whole's run with `seed` places it at
// t = 0: its name, node and cards, or no node when it stays Pending.
Scenario PlacedAtStart(const Scenario& whole, uint64_t seed);

struct ScenarioParts {
  // Per part, the scenario's workload indexes, ascending. Every workload is in exactly one part.
  std::vector<std::vector<int>> workloads;
  // The part whose pods run on each node that has pods; the cluster's node order.
  std::map<std::string, int> part_of_node;
  std::map<std::string, int> node_order;
};

// The workloads of a PlacedAtStart scenario in at most `max_parts` parts (each a union of
// node-disjoint groups, balanced by their expected requests); nullopt, with the reason in *why,
// when the scenario cannot be split exactly or holds a single group.
std::optional<ScenarioParts> SplitIndependent(const Scenario& placed, int max_parts,
                                              std::string* why);

// The scenario of part k: every setting of the whole, only its workloads (in their order) and
// only the nodes they run on — the first part also every node no pod runs on —, no variants.
Scenario PartScenario(const Scenario& placed, const ScenarioParts& parts, int k);

// Whether every pod of the part ended its run where it started: the same pods, each on its
// current node, the Pending ones still Pending.
bool PodsStayed(const Scenario& part, const RunResult& run);

// The whole's timeline from its parts' runs with the same seed (runs[k] ran
// PartScenario(placed, parts, k)): each workload from its part, the cards in the cluster's
// order, the node pools' (autoscaled ones: none here) from the first part.
RunTimeline MergePartTimelines(const Scenario& whole, const ScenarioParts& parts,
                               std::span<RunResult> runs);

}  // namespace knobsim::backtest
