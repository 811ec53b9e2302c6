// The charts of a variant's timeline (the `timeline` object of a results document,
// docs/results.md, written by `knobsim upgrade` and by `knobsim run|whatif --timeline`):
// available pods over what each workload wants, failed requests by cause, p99 per step. Drawn
// with svg_chart's XYChart; missing or null fields leave gaps, never an error.
#pragma once

#include <string>

#include "sim/report/html_parts.h"

namespace knobsim::report {

// The three charts as <figure>s with their captions, titled after `variant`.
std::string TimelineFigures(const std::string& variant, const Json& timeline);

// A section per variant of `doc` that carries a `timeline` and no `upgrade` (those are the
// upgrade sections' to show); "" when there is none.
std::string TimelineSections(const Json& doc);

}  // namespace knobsim::report
