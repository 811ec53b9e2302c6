#include "sim/report/card_map.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace knobsim::report {

HeatMap CardHeatMap(const Json* cards, std::string title, CardMapStats* stats) {
  HeatMap map;
  map.title = std::move(title);
  map.x_label = "card";
  map.y_label = "node";
  std::map<std::string, size_t> row_of;
  int max_index = -1;
  for (const Json& c : Items(cards)) {
    const std::string node = Text(Get(c, "node"));
    if (row_of.emplace(node, map.rows.size()).second) map.rows.push_back(node);
    const double index = Number(Get(c, "index"));
    if (std::isfinite(index) && index >= 0 && index < 64)
      max_index = std::max(max_index, static_cast<int>(index));
  }
  for (int i = 0; i <= max_index; ++i) map.columns.push_back("card " + std::to_string(i));
  map.values.assign(map.rows.size(), std::vector<double>(map.columns.size(), NAN));
  double sum = 0, most = -1;
  int n = 0;
  for (const Json& c : Items(cards)) {
    const double index = Number(Get(c, "index")), busy = Number(Get(c, "busy"));
    if (!std::isfinite(index) || index < 0 || index > max_index || !std::isfinite(busy)) continue;
    map.values[row_of[Text(Get(c, "node"))]][static_cast<size_t>(index)] = busy;
    sum += busy, most = std::max(most, busy), ++n;
  }
  if (stats != nullptr) {
    stats->cards = n;
    if (n > 0) stats->mean = sum / n, stats->max = most;
  }
  return map;
}

}  // namespace knobsim::report
