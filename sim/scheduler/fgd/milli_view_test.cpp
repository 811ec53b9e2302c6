#include "sim/scheduler/fgd/milli_view.h"

#include <doctest/doctest.h>

namespace knobsim::fgd {

TEST_CASE("milli of units rounds half to even, so used and free still add up to a card") {
  // 1000/16 = 62.5 per unit: 1 unit → 62 (even), 15 units → 938 (937.5 → even 938).
  CHECK(MilliOfUnits(1, 16) == 62);
  CHECK(MilliOfUnits(15, 16) == 938);
  CHECK(MilliOfUnits(1, 16) + MilliOfUnits(15, 16) == 1000);
  CHECK(MilliOfUnits(11, 22) == 500);
  CHECK(MilliOfUnits(40, 44) == 909);
  CHECK(MilliOfUnits(30, 22) == 1000);  // clamped
  CHECK(MilliOfUnits(3, 0) == 0);
}

TEST_CASE("a request fits in milli exactly when it fits in units, on every card below 1000 units") {
  for (int total = 1; total < 200; ++total) {
    for (int used = 0; used <= total; ++used) {
      for (int ask = 1; ask <= total; ++ask) {
        const bool units_fit = used + ask <= total;
        const int free_milli = CardFreeMilli(used, total, false, false, used > 0);
        const bool milli_fit = std::max(1, MilliOfUnits(ask, total)) <= free_milli;
        if (units_fit != milli_fit) {
          CAPTURE(total);
          CAPTURE(used);
          CAPTURE(ask);
          FAIL_CHECK("fit differs");
        }
      }
    }
  }
}

TEST_CASE("a card is seen full when held whole, at its pod limit, or (exclusive) occupied") {
  CHECK(CardFreeMilli(0, 22, true, false, true) == 0);
  CHECK(CardFreeMilli(5, 22, false, true, true) == 0);
  CHECK(CardFreeMilli(0, 0, false, false, true) == 0);
  CHECK(CardFreeMilli(0, 0, false, false, false) == 1000);
  CHECK(CardFreeMilli(22, 22, false, false, true) == 0);
}

TEST_CASE("pods as the policies see them on a node's cards") {
  const TargetPod share{2000, 8192, 12, 2, 0};
  const PodRequest on22 = RequestOnCards(share, 22);
  CHECK(on22.num_gpu == 2);
  CHECK(on22.milli == 273);  // 6 of 22 units per card
  CHECK(on22.cpu == 2000);
  const PodRequest exclusive = RequestOnCards(share, 0);
  CHECK(exclusive.models == 0);  // gpu-mem on an exclusive node: no access
  const PodRequest whole = RequestOnCards(TargetPod{1000, 1024, 0, 1, 4}, 0);
  CHECK(whole.num_gpu == 4);
  CHECK(whole.milli == 1000);
  const PodRequest cpu = RequestOnCards(TargetPod{500, 1024, 0, 1, 0}, 22);
  CHECK(cpu.num_gpu == 0);
  CHECK_FALSE(cpu.wants_gpu());
}

}  // namespace knobsim::fgd
