// Simulate (sim/engine/simulation.h): one Simulator (sim/engine/simulator.h) per run.
#include "sim/engine/simulation.h"

#include "sim/engine/simulator.h"

namespace knobsim {

RunResult Simulate(const Scenario& scenario, uint64_t seed) {
  return Simulate(scenario, seed, RunOptions{});
}

RunResult Simulate(const Scenario& scenario, uint64_t seed, const RunOptions& options) {
  engine::Simulator simulator(scenario, seed, options);
  return simulator.Run();
}

}  // namespace knobsim
