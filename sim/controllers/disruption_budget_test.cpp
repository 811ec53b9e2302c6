#include "sim/controllers/disruption_budget.h"

#include <doctest/doctest.h>

namespace knobsim {
namespace {

IntOrPercent Pct(int v) {
  return {v, true};
}
IntOrPercent Int(int v) {
  return {v, false};
}

PodDisruptionBudgetSpec Budget(std::optional<IntOrPercent> min_available,
                               std::optional<IntOrPercent> max_unavailable) {
  PodDisruptionBudgetSpec pdb;
  pdb.namespace_ = "infra";
  pdb.name = "etcd";
  pdb.min_available = min_available;
  pdb.max_unavailable = max_unavailable;
  pdb.selector = LabelSelector{{{"app", "etcd"}}, {}};
  return pdb;
}

// `n` pods of one StatefulSet of scale `scale`, the first `ready` of them Ready.
std::vector<BudgetPod> Members(int n, int ready, int scale = -2) {
  std::vector<BudgetPod> pods;
  for (int i = 0; i < n; ++i) {
    BudgetPod p;
    p.name = "etcd-" + std::to_string(i);
    p.ready = i < ready;
    p.controller = "StatefulSet/infra/etcd";
    p.controller_scale = scale == -2 ? n : scale;
    pods.push_back(p);
  }
  return pods;
}

}  // namespace

TEST_CASE("PDB minAvailable 51% of 3 needs 2 healthy and allows 1 disruption") {
  const BudgetStatus s = ComputeBudgetStatus(Budget(Pct(51), std::nullopt), Members(3, 3));
  CHECK(s.expected_pods == 3);
  CHECK(s.desired_healthy == 2);
  CHECK(s.current_healthy == 3);
  CHECK(s.disruptions_allowed == 1);
}

TEST_CASE(
    "PDB percentages round up: maxUnavailable 51% and 50% of 3 leave 1, minAvailable 50% of 3 "
    "needs 2") {
  CHECK(ComputeBudgetStatus(Budget(std::nullopt, Pct(51)), Members(3, 3)).desired_healthy == 1);
  CHECK(ComputeBudgetStatus(Budget(std::nullopt, Pct(50)), Members(3, 3)).desired_healthy == 1);
  CHECK(ComputeBudgetStatus(Budget(Pct(50), std::nullopt), Members(3, 3)).desired_healthy == 2);
  CHECK(ComputeBudgetStatus(Budget(std::nullopt, Pct(50)), Members(3, 3)).disruptions_allowed == 2);
}

TEST_CASE("PDB etcd 51% with one member unready allows no disruption") {
  const BudgetStatus s = ComputeBudgetStatus(Budget(Pct(51), std::nullopt), Members(3, 2));
  CHECK(s.current_healthy == 2);
  CHECK(s.desired_healthy == 2);
  CHECK(s.disruptions_allowed == 0);
}

TEST_CASE("PDB percentage rules sum controller scales, not the pods that exist") {
  // Scale 5 with 3 pods alive (two Pending elsewhere): 51% of 5 = 3 needed, 3 healthy.
  const BudgetStatus s = ComputeBudgetStatus(Budget(Pct(51), std::nullopt), Members(3, 3, 5));
  CHECK(s.expected_pods == 5);
  CHECK(s.desired_healthy == 3);
  CHECK(s.disruptions_allowed == 0);
}

TEST_CASE("PDB minAvailable integer counts the matching pods as expected") {
  const BudgetStatus s = ComputeBudgetStatus(Budget(Int(2), std::nullopt), Members(3, 3, 7));
  CHECK(s.expected_pods == 3);
  CHECK(s.desired_healthy == 2);
  CHECK(s.disruptions_allowed == 1);
}

TEST_CASE("PDB counts each controller's scale once and unmanaged pods only as healthy") {
  std::vector<BudgetPod> pods = Members(2, 2, 2);
  BudgetPod bare;
  bare.name = "debug";
  bare.ready = true;
  pods.push_back(bare);
  const BudgetStatus s = ComputeBudgetStatus(Budget(std::nullopt, Int(1)), pods);
  CHECK(s.expected_pods == 2);
  CHECK(s.desired_healthy == 1);
  CHECK(s.current_healthy == 3);
  CHECK(s.disruptions_allowed == 2);
  REQUIRE(s.unmanaged_pods.size() == 1);
  CHECK(s.unmanaged_pods[0] == "debug");
}

TEST_CASE("PDB with an unknown controller fails its sync and allows nothing") {
  const BudgetStatus s = ComputeBudgetStatus(Budget(std::nullopt, Int(1)), Members(3, 3, -1));
  CHECK(s.sync_failed);
  CHECK(s.sync_error == "found no controllers for pod \"etcd-0\"");
  CHECK(s.disruptions_allowed == 0);
}

TEST_CASE("PDB does not count terminating or recently disrupted pods as healthy") {
  std::vector<BudgetPod> pods = Members(3, 3);
  pods[0].terminating = true;
  pods[1].recently_disrupted = true;
  const BudgetStatus s = ComputeBudgetStatus(Budget(Pct(51), std::nullopt), pods);
  CHECK(s.current_healthy == 1);
  CHECK(s.disruptions_allowed == 0);
}

TEST_CASE("PDB that expects no pod allows no disruption") {
  const BudgetStatus s = ComputeBudgetStatus(Budget(std::nullopt, Int(1)), {});
  CHECK(s.expected_pods == 0);
  CHECK(s.disruptions_allowed == 0);
  // minAvailable 0 over no pods: 0 healthy - 0 desired, still 0 since nothing is expected.
  CHECK(ComputeBudgetStatus(Budget(Int(0), std::nullopt), {}).disruptions_allowed == 0);
}

TEST_CASE("PDB selects pods of its namespace only; a null selector none, an empty one all") {
  PodDisruptionBudgetSpec pdb = Budget(Int(1), std::nullopt);
  CHECK(BudgetSelects(pdb, "infra", {{"app", "etcd"}, {"tier", "db"}}));
  CHECK_FALSE(BudgetSelects(pdb, "infra", {{"app", "web"}}));
  CHECK_FALSE(BudgetSelects(pdb, "ai", {{"app", "etcd"}}));
  pdb.selector = std::nullopt;
  CHECK_FALSE(BudgetSelects(pdb, "infra", {{"app", "etcd"}}));
  pdb.selector = LabelSelector{};
  CHECK(BudgetSelects(pdb, "infra", {{"app", "anything"}}));
}

TEST_CASE("Eviction: second eviction of etcd 51% of 3 gets 429 with the needs-2-has-2 cause") {
  const PodDisruptionBudgetSpec pdb = Budget(Pct(51), std::nullopt);
  std::vector<BudgetPod> pods = Members(3, 3);
  const EvictionDecision first = DecideEviction(pods[0], {{&pdb, ComputeBudgetStatus(pdb, pods)}});
  CHECK(first.outcome == EvictionOutcome::kEvicted);
  CHECK(first.http_status == 201);
  // The status recomputed right after the first eviction: etcd-0 is terminating.
  pods[0].terminating = true;
  const EvictionDecision second = DecideEviction(pods[1], {{&pdb, ComputeBudgetStatus(pdb, pods)}});
  CHECK(second.outcome == EvictionOutcome::kTooManyRequests);
  CHECK(second.http_status == 429);
  CHECK(second.message == "Cannot evict pod as it would violate the pod's disruption budget.");
  CHECK(second.cause == "The disruption budget etcd needs 2 healthy pods and has 2 currently");
}

TEST_CASE(
    "Eviction IfHealthyBudget: with one etcd member unready, the unready one goes, a Ready one "
    "waits") {
  const PodDisruptionBudgetSpec pdb = Budget(Pct(51), std::nullopt);
  const std::vector<BudgetPod> pods = Members(3, 2);  // etcd-2 unready
  const std::vector<MatchingBudget> budgets = {{&pdb, ComputeBudgetStatus(pdb, pods)}};
  const EvictionDecision unready = DecideEviction(pods[2], budgets);
  CHECK(unready.outcome == EvictionOutcome::kDeleted);
  CHECK(unready.http_status == 201);
  const EvictionDecision ready = DecideEviction(pods[0], budgets);
  CHECK(ready.outcome == EvictionOutcome::kTooManyRequests);
  CHECK(ready.cause == "The disruption budget etcd needs 2 healthy pods and has 2 currently");
}

TEST_CASE(
    "Eviction IfHealthyBudget: maxUnavailable 1 over 1 replica never evicts its unready pod") {
  const PodDisruptionBudgetSpec pdb = Budget(std::nullopt, Int(1));
  const std::vector<BudgetPod> pods = Members(1, 0);
  const BudgetStatus s = ComputeBudgetStatus(pdb, pods);
  CHECK(s.desired_healthy == 0);
  CHECK(s.current_healthy == 0);
  CHECK(s.disruptions_allowed == 0);
  const EvictionDecision d = DecideEviction(pods[0], {{&pdb, s}});
  CHECK(d.http_status == 429);
  CHECK(d.cause == "The disruption budget etcd needs 0 healthy pods and has 0 currently");
}

TEST_CASE("Eviction AlwaysAllow deletes an unready pod whatever the budget") {
  PodDisruptionBudgetSpec pdb = Budget(std::nullopt, Int(1));
  pdb.unhealthy_pod_eviction_policy = "AlwaysAllow";
  const std::vector<BudgetPod> pods = Members(1, 0);
  const EvictionDecision d = DecideEviction(pods[0], {{&pdb, ComputeBudgetStatus(pdb, pods)}});
  CHECK(d.outcome == EvictionOutcome::kDeleted);
  // A Ready pod under AlwaysAllow still needs the budget.
  std::vector<BudgetPod> one = Members(1, 1);
  PodDisruptionBudgetSpec tight = Budget(Int(1), std::nullopt);
  tight.unhealthy_pod_eviction_policy = "AlwaysAllow";
  CHECK(DecideEviction(one[0], {{&tight, ComputeBudgetStatus(tight, one)}}).http_status == 429);
}

TEST_CASE("Eviction skips the budget for Pending, finished and terminating pods") {
  const PodDisruptionBudgetSpec pdb = Budget(Int(3), std::nullopt);
  std::vector<BudgetPod> pods = Members(3, 3);
  const BudgetStatus s = ComputeBudgetStatus(pdb, pods);
  REQUIRE(s.disruptions_allowed == 0);
  for (const char* phase : {"Pending", "Succeeded", "Failed"}) {
    BudgetPod p = pods[0];
    p.phase = phase;
    CHECK(DecideEviction(p, {{&pdb, s}}).outcome == EvictionOutcome::kDeleted);
  }
  BudgetPod t = pods[0];
  t.terminating = true;
  CHECK(DecideEviction(t, {{&pdb, s}}).outcome == EvictionOutcome::kDeleted);
}

TEST_CASE("Eviction of a pod under two budgets is a 500") {
  const PodDisruptionBudgetSpec a = Budget(Int(1), std::nullopt);
  const PodDisruptionBudgetSpec b = Budget(std::nullopt, Int(1));
  const std::vector<BudgetPod> pods = Members(3, 3);
  const EvictionDecision d = DecideEviction(
      pods[0], {{&a, ComputeBudgetStatus(a, pods)}, {&b, ComputeBudgetStatus(b, pods)}});
  CHECK(d.outcome == EvictionOutcome::kMultipleBudgets);
  CHECK(d.http_status == 500);
  CHECK(d.message ==
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not "
        "support.");
  CHECK(DecideEviction(pods[0], {}).outcome == EvictionOutcome::kDeleted);
}

// Upstream's disruption controller reads the scale subresource, that is spec.replicas, which an
// HPA moves: a budget over a workload the HPA scaled from 2 to 4 expects 4 pods.
TEST_CASE("Eviction in a run: the budget expects the scale the HPA set, not the scenario's") {
  Scenario s;
  Workload w;
  w.name = "etcd";
  w.namespace_ = "infra";
  w.kind = "StatefulSet";
  w.replicas = 2;  // as written; the HPA has since scaled it to 4
  w.labels = {{"app", "etcd"}};
  s.workloads.push_back(w);
  s.kube.pdbs.push_back(Budget(Pct(75), std::nullopt));
  std::vector<PodView> pods;
  for (int i = 0; i < 4; ++i) {
    PodView v;
    v.id = i;
    v.workload = 0;
    v.namespace_ = "infra";
    v.name = "etcd-" + std::to_string(i);
    v.phase = "Running";
    v.ready = i < 3;  // one of the four not Ready
    v.controller_scale = 4;
    pods.push_back(v);
  }
  // 75 % of 4 is 3 healthy needed, 3 there: nothing may go.
  CHECK(EvaluateEviction(s, pods, pods[0]).decision.outcome == EvictionOutcome::kTooManyRequests);
  // Unknown to the caller (-1): the scenario's 2 stand in, 75 % of 2 is 2, one may go.
  for (PodView& v : pods) v.controller_scale = -1;
  CHECK(EvaluateEviction(s, pods, pods[0]).decision.outcome == EvictionOutcome::kEvicted);
}

}  // namespace knobsim
