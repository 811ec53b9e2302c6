// PriceNodePools: node-hours times the monthly price / 730, the pool's instance_type first, then
// its GPU shape; spot pools at the spot price; what the book cannot price is named.
#include "sim/io/pool_costs.h"

#include <doctest/doctest.h>

#include <string>

namespace knobsim {
namespace {

const char* kBook = R"(currency: USD
date: 2026-09-24
source: test
instances:
  - {instance_type: gpu.small, gpu_type: A10, gpus: 1, on_demand: 730, spot: 146,
     spot_interruptions_per_hour: 0.1}
  - {instance_type: gpu.big, gpu_type: A10, gpus: 1, on_demand: 1460}
  - {instance_type: cpu.std, gpu_type: T4, gpus: 1, on_demand: 73}
  - {instance_type: spot.only, gpu_type: T4, gpus: 1, spot: 50, spot_interruptions_per_hour: 0.1}
)";

NodePool Pool(std::string name, std::string gpu, std::string instance = "") {
  NodePool p;
  p.name = std::move(name);
  p.gpu_type = std::move(gpu);
  p.gpus_per_node = p.gpu_type.empty() ? 0 : 1;
  p.instance_type = std::move(instance);
  return p;
}

TEST_CASE("pool costs: node-hours at the instance's monthly price over 730 hours") {
  Expected<PriceBook> book = ReadPriceString(kBook, "prices.yaml");
  REQUIRE(book.ok());
  Scenario s;
  s.node_pools = {Pool("by-shape", "A10"), Pool("by-name", "A10", "gpu.big"), Pool("spot", "A10"),
                  Pool("cpu", ""),         Pool("cpu-named", "", "cpu.std"),  Pool("l20", "L20")};
  s.node_pools[2].spot.per_node_hour = 0.1;
  RunSetResult results;
  VariantSummary v;
  for (const NodePool& p : s.node_pools) {
    PoolResult r;
    r.name = p.name;
    r.node_hours = 10;
    v.pools.push_back(r);
  }
  results.variants.push_back(v);
  const PoolPricing pricing = PriceNodePools(*book, s, &results);
  const std::vector<PoolResult>& pools = results.variants[0].pools;
  // The cheapest A10 x1 on-demand (gpu.small, 730/month = 1 an hour).
  CHECK(pools[0].instance_type == "gpu.small");
  CHECK(pools[0].pricing == "on_demand");
  CHECK(pools[0].cost == doctest::Approx(10.0));
  CHECK(pools[0].currency == "USD");
  CHECK(pools[1].instance_type == "gpu.big");  // the pool's own instance type wins
  CHECK(pools[1].cost == doctest::Approx(20.0));
  CHECK(pools[2].pricing == "spot");
  CHECK(pools[2].cost == doctest::Approx(2.0));
  CHECK(pools[3].currency.empty());  // a CPU pool without an instance type the book lists
  CHECK(pools[4].cost == doctest::Approx(1.0));
  CHECK(pools[5].currency.empty());
  REQUIRE(pricing.unpriced.size() == 2);
  CHECK(pricing.unpriced[0] == "cpu: no instance_type the price file lists");
  CHECK(pricing.unpriced[1] == "l20: no instance in the price file with 1 L20 card(s)");
}

TEST_CASE("pool costs: a spot pool's compensate_with_on_demand node-hours at the on-demand price") {
  Expected<PriceBook> book = ReadPriceString(kBook, "prices.yaml");
  REQUIRE(book.ok());
  Scenario s;
  s.node_pools = {Pool("spot", "A10"), Pool("spot-big", "A10", "gpu.big"),
                  Pool("spot-only", "T4", "spot.only")};
  for (NodePool& p : s.node_pools) {
    p.spot.per_node_hour = 0.1;
    p.spot.compensate_with_on_demand = true;
  }
  RunSetResult results;
  VariantSummary v;
  for (const NodePool& p : s.node_pools) {
    PoolResult r;
    r.name = p.name;
    r.spot = true;
    r.node_hours = 10;
    r.on_demand_node_hours = 4;  // of the 10
    v.pools.push_back(r);
  }
  results.variants.push_back(v);
  const PoolPricing pricing = PriceNodePools(*book, s, &results);
  const std::vector<PoolResult>& pools = results.variants[0].pools;
  CHECK(pools[0].pricing == "spot");
  CHECK(pools[0].cost == doctest::Approx(6 * 0.2 + 4 * 1.0));  // 146 and 730 a month over 730 h
  // gpu.big has no spot price at all: unpriced, said.
  CHECK(pools[1].currency.empty());
  // spot.only has no on-demand price for the compensating nodes: unpriced rather than guessed.
  CHECK(pools[2].currency.empty());
  REQUIRE(pricing.unpriced.size() == 2);
  CHECK(pricing.unpriced[0] == "spot-big: instance gpu.big has no spot price");
  CHECK(pricing.unpriced[1] ==
        "spot-only: instance spot.only has no on_demand price, at which the pool's "
        "compensate_with_on_demand nodes are billed");
}

}  // namespace
}  // namespace knobsim
