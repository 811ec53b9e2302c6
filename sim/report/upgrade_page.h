// The report sections of an upgrade rehearsal (`knobsim upgrade --json`, a knobsim.results/v1
// document whose variants carry `upgrade` and `timeline`, docs/results.md), shown after the
// results page's own: a summary of the variants, then per variant the node timeline as a
// Gantt chart (draining, drains given up, node down for its reset, back; PDB-blocked evictions
// marked), available pods per workload over time against what each wants, errors by cause
// over time, p99 over time, and the blocked drains with their 429 cause.
//
// The Gantt chart is drawn here with svg_chart's helpers and conventions (class "chart", drawn
// elements class "mark", every text escaped); the line charts are svg_chart's XYChart.
#pragma once

#include <string>

#include "sim/report/html_parts.h"

namespace knobsim::report {

// Whether any variant of `doc` carries an `upgrade` object.
bool HasUpgradeSections(const Json& doc);

// The sections for `doc` (HTML for inside <main>); "" when HasUpgradeSections is false.
// Missing or null fields leave gaps, never an error.
std::string UpgradePageSections(const Json& doc);

}  // namespace knobsim::report
