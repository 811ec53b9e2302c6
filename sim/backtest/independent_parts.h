// Independent parts of a replay: a scenario's workloads split into groups that share no card, so
// that each group runs as a scenario of its own, on its own thread, and the runs together give
// exactly the run of the whole — the same timeline, number for number (docs/backtest.md
// "Speed").
//
//   1. PlacedAtStart: the whole's run places every replica at t = 0 — where it runs, or by the
//      scheduler, or nowhere (Pending) — before anything else happens; that placement, written
//      as the replicas' current pods with their cards, is where every pod of every part starts.
//   2. SplitIndependent: workloads with pods on the same card are one group; groups are balanced
//      into parts by their expected requests.
//   3. PartScenario: a part holds its workloads, the nodes they run on (the first part also the
//      nodes no pod runs on), and every other pod on those nodes as a resident: the same pod on
//      the same cards, serving no traffic.
//   4. PodsStayed after each part's run, KeepOwnCards, and MergePartTimelines over the parts of
//      one replication.
//
// Why it is exact where SplitIndependent accepts a scenario:
//  * a pod starts where the whole placed it: a current pod on its cards stays there when it
//    still fits, which reads only the pods on those cards (its group's) and the node's pod count
//    (the residents keep it); a Pending pod stays Pending, since the nodes of its part carry
//    the same pods as in the whole, and nothing in such a run frees room or schedules again;
//  * a card's sharing, memory and completions read only the pods on it, all of one group (a
//    resident sits on other cards);
//  * random streams are named per workload and pod (sim/random_stream.h), so a workload draws
//    the same arrivals, work and routing in its part as in the whole;
//  * a group's events keep their order: the other groups' events only interleave with them.
// What could carry one group's state into another is refused: HPA and CronHPA (pods come and
// go), autoscaled or spot pools (nodes come and go), replicas not Ready at the start (they may
// be replaced). A Pending pod that a part's smaller cluster would place after all (a spread or
// affinity rule that counts pods of nodes outside the part) is caught by PodsStayed: the caller
// then runs the whole.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
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
  // Per part, its nodes (names, the cluster's order), and the first part holding each node.
  std::vector<std::vector<std::string>> nodes;
  std::map<std::string, int> first_part_of_node;
  // The part whose pods run on each card (node, index) that has pods; the cluster's node order.
  std::map<std::pair<std::string, int>, int> part_of_card;
  std::map<std::string, int> node_order;
};

// The workloads of a PlacedAtStart scenario in at most `max_parts` parts (each a union of
// card-disjoint groups, balanced by their expected requests); nullopt, with the reason in *why,
// when the scenario cannot be split exactly or holds a single group.
std::optional<ScenarioParts> SplitIndependent(const Scenario& placed, int max_parts,
                                              std::string* why);

// The scenario of part k: every setting of the whole, no variants, its nodes, its workloads (in
// their order) and after them the residents: each other workload with pods on those nodes,
// holding only those pods, with no traffic.
Scenario PartScenario(const Scenario& placed, const ScenarioParts& parts, int k);

// Whether every pod of the part ended its run where it started: the same pods, each on its
// current node, the Pending ones still Pending.
bool PodsStayed(const Scenario& part, const RunResult& run);

// Keeps in part k's timeline only the cards it speaks for: the cards of its pods, and the idle
// cards of the nodes whose first part it is.
void KeepOwnCards(const ScenarioParts& parts, int k, RunTimeline& timeline);

// The whole's timeline from its parts' runs with the same seed (runs[k] ran
// PartScenario(placed, parts, k), then KeepOwnCards): each workload from its part, the cards in
// the cluster's order, the node pools' (autoscaled ones: none here) from the first part.
RunTimeline MergePartTimelines(const Scenario& whole, const ScenarioParts& parts,
                               std::span<RunResult> runs);

}  // namespace knobsim::backtest
