// Verdict: what a what-if variant means for the services, in a few lines under the results
// table — which workloads miss their SLO and by how much, which pods go Pending and why, which
// pods would be fake Ready or hit CUDA OOMs — each compared with the base, because the question
// a what-if answers is "what does this change break that works today?".
//
// Built from the run set's summaries only (sim/run_set.h), so `knobsim whatif` and a notebook
// reading the same results agree. Numbers are means over the replications; pods are those of
// replication 0, as in the results table.
#pragma once

#include <string>
#include <vector>

#include "sim/run_set.h"

namespace knobsim {

// Compared with the base: a problem the base does not have, or one it already has.
enum class Change { kNew, kAlready };

// A workload that missed its SLO in at least one replication, with each rule of
// sim/slo_check.h judged as the table counts it: a rule is missed when some replication missed
// it (latency_met_replications < replications ...), and the numbers are the table's means.
struct SloMiss {
  std::string workload;  // namespace/name
  Change change = Change::kNew;
  int replications = 1;
  int slo_met_replications = 0;
  double percentile = 99;
  double latency_ms = 0;        // the SLO percentile's value (mean over replications)
  double target_ms = 0;         // 0 = no latency objective
  bool latency_missed = false;  // includes "no request completed"
  int latency_met_replications = 0;
  bool no_success = false;  // no replication completed a request
  double error_ratio = 0;
  double error_budget = 0;
  bool errors_missed = false;
  int errors_met_replications = 0;
  // The backlog rule: requests unanswered at the end (means over replications).
  bool backlog_missed = false;
  int backlog_met_replications = 0;
  bool nothing_left = false;  // in every replication no request left the system
  double unanswered = 0;      // in_system_end
  double overdue = 0;         // in_system_overdue
  double overdue_age_ms = 0;  // OverdueAge(slo)
  double allowance = 0;       // BacklogAllowance(slo, requests)
  double oldest_ms = 0;       // in_system_oldest_ms
};

struct PodProblem {
  std::string pod;  // namespace/name
  std::string workload;
  std::string message;  // FailedScheduling text, or why it is not serving
  Change change = Change::kNew;
};

struct OomProblem {
  std::string workload;     // namespace/name
  double request_ooms = 0;  // CUDA OOM request errors (mean over replications)
  double fake_ready_errors = 0;
  int load_ooms = 0;  // LoadOOM events (replication 0): models that never loaded
  Change change = Change::kNew;
};

struct Verdict {
  std::string variant;
  int workloads = 0;
  std::vector<SloMiss> slo_misses;
  std::vector<PodProblem> pending;      // state Pending
  std::vector<PodProblem> fake_ready;   // state FakeReady: Ready, but the model is not loaded
  std::vector<PodProblem> not_serving;  // Unready, CrashLoopBackOff, Starting
  std::vector<OomProblem> ooms;         // workloads with CUDA OOMs (load or request)
  // Workloads with requests and no latency objective (an import without --latency-metric):
  // only their errors and the requests left unanswered are judged, and the verdict says so.
  std::vector<std::string> errors_only;  // namespace/name

  // A workload misses its SLO here and meets it in the base: what --fail-on-slo fails on.
  bool NewSloMiss() const;
};

// The verdict on `variant`, compared with `base` (pass the base itself for the base's own).
Verdict JudgeVariant(const VariantSummary& base, const VariantSummary& variant);

// The verdict as a headline and one line per finding — what the command line prints and the
// results document carries (`verdict`, docs/results.md), so pages and notebooks show the same.
struct VerdictLine {
  std::string kind;    // SLO, Pending, FakeReady, NotServing, OOM, ErrorsOnly
  std::string text;    // "default/caption-vlm: errors 100.0% > budget 1.0% (newly missing; ...)"
                       // With replications, each reason says in how many the rule was met.
  bool is_new = true;  // a problem the base does not have
};
struct VerdictLines {
  std::string headline;  // "4 of 8 workloads miss their SLO (4 newly)"
  bool clean = true;     // no SLO miss, no Pending, fake-Ready, not-serving or OOM pod
                         // (an ErrorsOnly line is a caveat, not a problem)
  std::vector<VerdictLine> lines;
};
VerdictLines LinesOf(const Verdict& verdict, int max_pods = 12);

// The verdict as a few lines of text, e.g.
//   VERDICT isolation=hard: 4 of 8 workloads miss their SLO (4 newly)
//     SLO  default/caption-vlm  errors 100.0% > budget 1.0% (newly missing; base meets it)
//     FakeReady  default/caption-vlm-0: model load failed: CUDA OOM ... (new)
// `max_pods` bounds each pod list ("… and N more").
std::string VerdictText(const Verdict& verdict, int max_pods = 12);

}  // namespace knobsim
