// RandomStream: a seeded random stream per named entity, for common random numbers.
//
// A stream is derived from the run seed and a name ("workload/ocr/work", "workload/ocr/route",
// "pod/ocr-0"), so two variants of a scenario draw the same numbers for the same entity even
// when they add replicas or move pods: arrivals and work per request are drawn from workload
// streams, routing from its own stream, pod start-up from per-pod streams (docs/design.md §3.1).
// The generator is xoshiro256** seeded through splitmix64 from a 64-bit FNV-1a hash of the name.
#pragma once

#include <cstdint>
#include <string_view>

namespace knobsim {

class RandomStream {
 public:
  RandomStream() : RandomStream(0, "") {}
  RandomStream(uint64_t run_seed, std::string_view name);

  uint64_t NextU64();
  double Uniform01();               // in [0, 1), 53 bits
  double UniformOpen01();           // in (0, 1)
  uint64_t Below(uint64_t n);       // uniform integer in [0, n), unbiased
  double Exponential(double mean);  // mean > 0
  double Normal();                  // standard normal
  double LogNormal(double mean,
                   double cv);  // the lognormal with this mean and coefficient of variation
  double Gamma(double shape, double scale);  // shape > 0

 private:
  uint64_t s_[4];
};

// 64-bit FNV-1a, the name hash used to derive streams; exposed for tests.
uint64_t HashName(std::string_view name);

}  // namespace knobsim
