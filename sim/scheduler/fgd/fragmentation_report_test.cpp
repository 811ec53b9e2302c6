#include "sim/scheduler/fgd/fragmentation_report.h"

#include <doctest/doctest.h>

#include <vector>

namespace knobsim {
namespace {

FragNodeInput TwoCards(int used0, int used1) {
  FragNodeInput n;
  n.name = "node-0";
  n.cpu_milli = 16000;
  n.memory_mib = 65536;
  n.card_units = 22;
  n.cards = {{used0, false}, {used1, false}};
  n.cpu_used_milli = 1000;
  return n;
}

std::vector<FragPodInput> ElevenUnitPods(int count) {
  return std::vector<FragPodInput>(count, FragPodInput{1000, 4096, 11, 1, 0});
}

}  // namespace

TEST_CASE("fragmentation: half-used card's free half fits an 11-unit pod") {
  // Card 0: 11 of 22 units = 500 milli used, 500 free; card 1: 1000 free. Typical type: 500 milli
  // on one card, CPU fits → Q3 with no card below 500 free: F = 0 (§5.2).
  const std::vector<FragNodeInput> nodes{TwoCards(11, 0)};
  const auto pods = ElevenUnitPods(3);
  const FragmentationResult r = MeasureFragmentation(nodes, pods);
  CHECK(r.gpu_milli_total == 2000);
  CHECK(r.idle_milli == 1500);
  CHECK(r.fragmented_milli == 0);
  CHECK(r.frag_ratio == 0);
  REQUIRE(r.nodes.size() == 1);
  CHECK(r.nodes[0].node == "node-0");
  CHECK(r.nodes[0].idle_milli == 1500);
}

TEST_CASE("fragmentation: a card with less free than the typical share is fragment") {
  // Card 0: round(1000·12/22) = 545 used, 455 free < 500 → booked as fragment; card 1 usable.
  const std::vector<FragNodeInput> nodes{TwoCards(12, 0)};
  const auto pods = ElevenUnitPods(2);
  const FragmentationResult r = MeasureFragmentation(nodes, pods);
  CHECK(r.idle_milli == 1455);
  CHECK(r.fragmented_milli == doctest::Approx(455));
  CHECK(r.frag_ratio == doctest::Approx(455.0 / 1455.0));
}

TEST_CASE("fragmentation: CPU-only types, whole cards and share sizes per card units") {
  // Half the pods are CPU-only: all idle GPU is fragment to them (XL), p = 0.5 each.
  std::vector<FragPodInput> pods = ElevenUnitPods(2);
  pods.push_back({500, 1024, 0, 1, 0});
  pods.push_back({500, 1024, 0, 1, 0});
  FragNodeInput whole = TwoCards(0, 0);
  whole.name = "node-1";
  whole.cards[0].whole = true;  // card 0 taken whole, card 1 free
  FragNodeInput big = TwoCards(0, 0);
  big.name = "node-2";
  big.card_units = 44;        // the 11-unit pod is 250 milli here
  big.cards = {{40, false}};  // round(1000·40/44) = 909 used, 91 free < 250
  const std::vector<FragNodeInput> nodes{whole, big};
  const FragmentationResult r = MeasureFragmentation(nodes, pods);
  REQUIRE(r.nodes.size() == 2);
  CHECK(r.nodes[0].idle_milli == 1000);
  CHECK(r.nodes[0].fragmented_milli == doctest::Approx(500));  // 0.5 × 1000 (CPU-only) + 0
  CHECK(r.nodes[1].idle_milli == 91);
  CHECK(r.nodes[1].fragmented_milli == doctest::Approx(91));  // both types: all of it
  CHECK(r.gpu_milli_total == 3000);
  CHECK(r.frag_ratio == doctest::Approx(591.0 / 1091.0));
}

TEST_CASE("fragmentation: gpu-mem pods cannot use an exclusive node's cards") {
  FragNodeInput n = TwoCards(0, 0);
  n.card_units = 0;
  const std::vector<FragNodeInput> nodes{n};
  const auto pods = ElevenUnitPods(1);
  const FragmentationResult r = MeasureFragmentation(nodes, pods);
  CHECK(r.idle_milli == 2000);
  CHECK(r.fragmented_milli == doctest::Approx(2000));
  CHECK(r.frag_ratio == doctest::Approx(1.0));
}

TEST_CASE("fragmentation: no cards, no idle GPU") {
  const FragmentationResult r = MeasureFragmentation({}, {});
  CHECK(r.gpu_milli_total == 0);
  CHECK(r.frag_ratio == 0);
  CHECK(r.nodes.empty());
}

}  // namespace knobsim
