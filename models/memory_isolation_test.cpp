#include "models/memory_isolation.h"

#include <doctest/doctest.h>

namespace knobsim {

TEST_CASE("the visible quota is floor(physical MiB x quota / card units), as ACK docs show") {
  // CSK "Monitor and isolate GPU resources": a V100 of 16130 MiB, 15 units.
  CHECK(VisibleQuotaMib(16130, 4, 15) == 4301);
  CHECK(VisibleQuotaMib(16130, 2, 15) == 2150);
  CHECK(VisibleQuotaMib(16130, 15, 15) == 16130);
  CHECK(VisibleQuotaMib(23028, 11, 22) == 11514);
  CHECK(VisibleQuotaMib(15360, 1, 15) == 1024);
}

TEST_CASE("the visible quota is a fraction of the physical card, not the quota in GiB") {
  // A unit is 1/card_units of the card, slightly more than 1 GiB when NVML's figure is not a
  // GiB multiple: 4 units on a V100 show 4301 MiB, 4 on an A10 4186 MiB.
  CHECK(VisibleQuotaMib(16130, 4, 15) > 4 * 1024);
  CHECK(VisibleQuotaMib(23028, 4, 22) == 4186);
  CHECK(VisibleQuotaMib(15360, 4, 15) == 4 * 1024);  // T4: exactly 1 GiB per unit
}

TEST_CASE("the visible quota is never larger than the card and 0 for no units") {
  CHECK(VisibleQuotaMib(16130, 20, 15) == 16130);
  CHECK(VisibleQuotaMib(16130, 0, 15) == 0);
  CHECK(VisibleQuotaMib(16130, 4, 0) == 0);
  CHECK(VisibleQuotaMib(0, 4, 15) == 0);
}

TEST_CASE("the visible quota stays exact on the largest cards") {
  CHECK(VisibleQuotaMib(143771, 139, 140) == 142744);  // 143771 * 139 / 140 = 142744.06
}

namespace {
AllocationCheck Hard(int64_t pod_used, int64_t pod_quota, int64_t card_used, int64_t physical) {
  return {MemoryIsolation::kHard, pod_used, pod_quota, card_used, physical};
}
AllocationCheck Soft(int64_t pod_used, int64_t pod_quota, int64_t card_used, int64_t physical) {
  return {MemoryIsolation::kSoft, pod_used, pod_quota, card_used, physical};
}
}  // namespace

TEST_CASE("hard isolation admits an allocation that ends exactly at the quota") {
  CHECK(AllocationFits(Hard(4000, 4301, 8000, 16130), 301));
}

TEST_CASE("hard isolation refuses an allocation one MiB beyond the quota") {
  CHECK_FALSE(AllocationFits(Hard(4000, 4301, 8000, 16130), 302));
}

TEST_CASE("hard isolation refuses a model larger than the visible card, whatever is free") {
  // The incident: a 4 GiB pod whose model needs 4.5 GiB on an otherwise empty V100.
  CHECK_FALSE(AllocationFits(Hard(0, 4301, 0, 16130), 4608));
}

TEST_CASE("hard isolation also needs the card's physical memory") {
  CHECK_FALSE(AllocationFits(Hard(0, 4301, 15000, 16130), 2000));
  CHECK(AllocationFits(Hard(0, 4301, 14130, 16130), 2000));  // ends exactly at physical
}

TEST_CASE("soft isolation lets a pod burst over its quota while the card has room") {
  CHECK(AllocationFits(Soft(2000, 2150, 2000, 16130), 13000));
}

TEST_CASE("soft isolation fails a small pod because a big neighbour filled the card") {
  // CSK labels doc: a 2 GiB pod using 15 GiB makes the other pods on the card fail.
  const int64_t neighbour = 15360;
  AllocationCheck small = Soft(/*pod_used=*/0, /*pod_quota=*/2150, neighbour, 16130);
  CHECK_FALSE(AllocationFits(small, 1024));  // well within its own quota
  CHECK(AllocationFits(small, 770));         // ends exactly at physical
  CHECK_FALSE(AllocationFits(small, 771));
}

TEST_CASE("a zero-byte allocation always fits") {
  CHECK(AllocationFits(Hard(4301, 4301, 16130, 16130), 0));
  CHECK(AllocationFits(Soft(0, 0, 16130, 16130), 0));
}

}  // namespace knobsim
