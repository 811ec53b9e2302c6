// The results table: a run set side by side for people — one column per variant, base first.
//
// Sections, the summary first: what ran and one "what changed vs base" line per variant; then
// per workload (requests, completed, errors by cause, error %, p50/p99, throughput, SLO),
// cluster (allocation, pending and fake-Ready pods), per card (busy / effective / waste %,
// memory quota vs used / peak), and pods that are not Running with their reason. With
// replications every number is the mean, followed by
// ±the 95 % half-width. Columns that do not fit in `width` continue in a second block that
// repeats the base column, so the table stays readable in 100-140 columns.
//
// Returns text; the command line prints it (nothing in sim/ prints).
#pragma once

#include <string>

#include "sim/run_set.h"

namespace knobsim {

struct TableOptions {
  int width = 132;    // terminal columns to fit in
  int max_pods = 12;  // pods listed per variant in "pods not Running" before "… and N more"
};

// The summary first: what ran (scenario, seed, replications, the variants) and, with more than
// one variant, what changed against the base, each in a sentence.
std::string ResultsSummary(const RunSetResult& results, const TableOptions& options = {});
// Then the numbers: the workloads, cluster and cards grid, and the pods not Running.
std::string ResultsDetails(const RunSetResult& results, const TableOptions& options = {});
// Both, with a blank line between (what `knobsim run` prints).
std::string ResultsTable(const RunSetResult& results, const TableOptions& options = {});

// The "what changed vs base" sentence for one variant, e.g.
// "5 FakeReady pods (base 0), errors 0.0% → 62.5%, SLO met 8/8 → 3/8".
std::string ChangeSummary(const VariantSummary& base, const VariantSummary& variant);

}  // namespace knobsim
