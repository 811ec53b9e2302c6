// The cards of a document as a heat map shaped like the cluster: one row per node (in the order
// the document lists them), one column per card index, coloured by busy. Used by the plan page
// (the recommended size) and the results page (one map per variant, side by side).
#pragma once

#include <limits>
#include <string>

#include "sim/report/html_parts.h"
#include "sim/report/svg_chart.h"

namespace knobsim::report {

struct CardMapStats {
  int cards = 0;  // cards drawn (a finite busy and an index in 0..63)
  double mean = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};

// `cards`: an array of {node, index, busy}. A card without a finite busy, or with an index
// outside 0..63, is left out; a node without some index leaves that cell empty.
HeatMap CardHeatMap(const Json* cards, std::string title, CardMapStats* stats = nullptr);

}  // namespace knobsim::report
