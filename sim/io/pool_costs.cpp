#include "sim/io/pool_costs.h"

#include <optional>

namespace knobsim {

namespace {

constexpr double kHoursPerMonth = 730;  // the price file's month (docs/prices.md)

struct PoolPrice {
  const InstancePrice* instance = nullptr;
  std::string pricing;
  std::optional<double> monthly;
  std::string why;  // when not priced
};

PoolPrice PriceOf(const PriceBook& book, const NodePool& pool) {
  PoolPrice out;
  for (const InstancePrice& i : book.instances)
    if (!pool.instance_type.empty() && i.instance_type == pool.instance_type) out.instance = &i;
  if (out.instance == nullptr && !pool.gpu_type.empty())
    out.instance = book.Find(pool.gpu_type, pool.gpus_per_node);
  if (out.instance == nullptr) {
    out.why = pool.gpu_type.empty()
                  ? "no instance_type the price file lists"
                  : "no instance in the price file with " + std::to_string(pool.gpus_per_node) +
                        " " + pool.gpu_type + " card(s)";
    return out;
  }
  const bool spot = pool.spot.per_node_hour > 0;
  out.pricing = spot ? "spot" : "on_demand";
  out.monthly = spot ? out.instance->spot : out.instance->on_demand;
  if (!out.monthly) {
    out.why = "instance " + out.instance->instance_type + " has no " + out.pricing + " price";
  } else if (spot && pool.spot.compensate_with_on_demand && !out.instance->on_demand) {
    out.monthly.reset();
    out.why = "instance " + out.instance->instance_type +
              " has no on_demand price, at which the pool's compensate_with_on_demand nodes are "
              "billed";
  }
  return out;
}

}  // namespace

PoolPricing PriceNodePools(const PriceBook& prices, const Scenario& scenario,
                           RunSetResult* results) {
  PoolPricing out;
  for (const NodePool& pool : scenario.node_pools) {
    const PoolPrice price = PriceOf(prices, pool);
    if (!price.monthly) {
      out.unpriced.push_back(pool.name + ": " + price.why);
      continue;
    }
    for (VariantSummary& v : results->variants) {
      for (PoolResult& r : v.pools) {
        if (r.name != pool.name) continue;
        r.currency = prices.currency;
        r.instance_type = price.instance->instance_type;
        r.pricing = price.pricing;
        // A spot pool's pay-as-you-go nodes (compensate_with_on_demand) at the on-demand price.
        const double on_demand_hours = r.spot ? r.on_demand_node_hours : 0;
        r.cost = (r.node_hours - on_demand_hours) * *price.monthly / kHoursPerMonth;
        if (on_demand_hours > 0)
          r.cost += on_demand_hours * *price.instance->on_demand / kHoursPerMonth;
      }
    }
  }
  return out;
}

}  // namespace knobsim
