#include "sim/scheduler/fgd/plugins.h"

#include <doctest/doctest.h>

#include "sim/scheduler/fgd/milli_view.h"
#include "sim/scheduler/fgd/worked_example.h"

namespace knobsim::fgd {
namespace {

TEST_CASE("BestFit's plugin normalises min-max; the others leave scores alone") {
  const testing::WorkedExample ex;
  PolicyScorePlugin bestfit(PolicyKind::kBestFit, ex.types);
  std::vector<int64_t> scores = {88, 84, 86};
  const int nodes[] = {0, 1, 2};
  bestfit.Normalize(nodes, scores);
  CHECK(scores == std::vector<int64_t>{100, 0, 50});
  PolicyScorePlugin fgd(PolicyKind::kFgd, ex.types);
  scores = {53, 48, 48};
  fgd.Normalize(nodes, scores);
  CHECK(scores == std::vector<int64_t>{53, 48, 48});
  CHECK(fgd.Name() == "06-FGD");
}

}  // namespace
}  // namespace knobsim::fgd
