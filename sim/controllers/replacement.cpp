#include "sim/controllers/replacement.h"

#include <string>
#include <utility>

#include "sim/controllers/endpoints.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

void CreateReplacement(Simulator& sim, int32_t old) {
  EngineState& s = sim.state;
  const int32_t w = s.pods[old].workload;
  const Workload& spec = *s.workloads[w].spec;
  PodRun fresh;
  fresh.workload = w;
  fresh.replica = s.pods[old].replica;
  fresh.name = spec.kind == "StatefulSet"
                   ? s.pods[old].name
                   : spec.name + "-r" + std::to_string(++s.workloads[w].replacements);
  const std::string replaced = s.pods[old].name;
  const int32_t p = static_cast<int32_t>(s.pods.size());
  s.pods.push_back(std::move(fresh));  // invalidates references into pods
  s.pending.push_back(p);
  PodCreated(sim, p);
  sim.recorder.PodEvent("SuccessfulCreate", p,
                        "created by its " + spec.kind + " to replace " + replaced);
}

}  // namespace knobsim::engine
