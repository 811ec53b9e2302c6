// Reads a price file (YAML, documented key by key in docs/prices.md) into a PriceBook: what one
// node of each instance type costs per month on-demand, as a spot instance and reserved, in one
// currency, as read on one date from one source.
//
// `knobsim plan` prices the node counts it finds with it; a spot option also takes the
// instance's interruption rate and the book's replacement delay into the simulation
// (NodePool::spot). Prices change and differ by region and account, so a book always says where
// its numbers come from and when; `example: true` marks illustrative numbers, which reports
// must show as such.
//
// Strict like the scenario reader: unknown keys (with a did-you-mean hint), negative or
// non-numeric prices, a spot price without an interruption rate, an instance without any price
// and a duplicate instance type are all errors naming the file, line and field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/event_queue.h"
#include "sim/input_error.h"

namespace knobsim {

struct InstancePrice {
  std::string instance_type;        // e.g. ecs.gn7i-c8g1.2xlarge
  std::string gpu_type;             // GPU catalog name (A10, L20, A100-40G, ...)
  int gpus = 0;                     // cards per node
  int64_t cpu_milli = 0;            // allocatable-ish cpu of the instance (0 = not given)
  int64_t memory_mib = 0;           // (0 = not given)
  std::optional<double> on_demand;  // per node per month, in the file's currency
  std::optional<double> spot;
  std::optional<double> reserved;          // e.g. 1-year reserved, monthly equivalent
  double spot_interruptions_per_hour = 0;  // per node; required when spot is given
  int line = 0;                            // where it was read (for messages)
};

struct PriceBook {
  std::string file, currency, date, source;  // date: when the prices were read (YYYY-MM-DD)
  bool example = false;                      // `example: true`: numbers are illustrative
  SimTime spot_replace_after = 180 * kNanosPerSecond;  // reclaim -> replacement Ready
  std::vector<InstancePrice> instances;
  // The instance with exactly `gpus` cards of `gpu_type` (names compare ignoring case, as the
  // GPU catalog's do); the cheapest on-demand one if several (an instance with an on-demand
  // price before one without; file order breaks ties); nullptr when none.
  const InstancePrice* Find(std::string_view gpu_type, int gpus) const;
};

// Reads the price file at `path`; errors name `path` as given.
Expected<PriceBook> ReadPriceFile(const std::string& path);

// Reads a price book from YAML text; `file_name` is what errors and PriceBook::file call it.
Expected<PriceBook> ReadPriceString(const std::string& yaml, const std::string& file_name);

}  // namespace knobsim
