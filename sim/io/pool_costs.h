// What the node pools of a run cost: each pool's node-hours (PoolResult::node_hours) priced from
// a price file (sim/io/price_reader.h, docs/prices.md) at the instance's monthly price / 730 h.
// The instance is the pool's `instance_type` when the file lists it, else the file's instance
// for the pool's GPU type and cards per node (PriceBook::Find); a CPU-only pool needs its
// instance_type listed. A spot pool (`spot:`) takes the spot price, every other pool the
// on-demand one (a spot pool's compensate_with_on_demand nodes too). A pool the file cannot price
// stays unpriced and is named in `unpriced`.
#pragma once

#include <string>
#include <vector>

#include "sim/io/price_reader.h"
#include "sim/run_set.h"
#include "sim/scenario.h"

namespace knobsim {

struct PoolPricing {
  std::vector<std::string> unpriced;  // "pool: why", once per pool
};

// Prices every variant's pools (matched to `scenario`'s pools by name).
PoolPricing PriceNodePools(const PriceBook& prices, const Scenario& scenario,
                           RunSetResult* results);

}  // namespace knobsim
