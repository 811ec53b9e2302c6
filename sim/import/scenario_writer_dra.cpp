// The `dra:` values the scenario writer puts on DRA pools and workloads (scenario_writer.h).
#include <string>
#include <vector>

#include "sim/import/scenario_writer.h"
#include "sim/mig_layout.h"
#include "sim/text.h"

namespace knobsim {

std::string DraPoolValue(const NodePool& pool) {
  if (pool.dra.driver == DraDriver::kHamiCore) return "{driver: hami}";
  if (pool.dra.dynamic_mig) return "{dynamic_mig: true}";
  if (const auto& shared = pool.dra.shared_memory) {
    std::string d = "{shared_memory: {";
    if (shared->default_mib > 0) d += "default: " + ScenarioMemory(shared->default_mib) + ", ";
    return d + "min: " + ScenarioMemory(shared->min_mib) +
           ", step: " + ScenarioMemory(shared->step_mib) + "}}";
  }
  if (pool.mig.enabled()) return "{mig: " + YamlScalar(MigLayoutString(pool.mig.instances)) + "}";
  return "true";
}

std::string DraAskValue(const DraAsk& a) {
  std::string d = "{gpus: " + std::to_string(a.gpus) + (a.shared ? ", shared: true" : "");
  if (!a.mig_profile.empty()) d += ", mig_profile: " + YamlScalar(a.mig_profile);
  if (a.driver == DraDriver::kHamiCore) d += ", driver: hami";
  if (a.driver == DraDriver::kNvidia && a.memory_mib) d += ", driver: nvidia";  // not implied
  if (a.memory_mib) d += ", memory: " + ScenarioMemory(*a.memory_mib);
  if (a.cores) d += ", cores: " + std::to_string(*a.cores);
  if (a.shared && a.sharing == DeviceSharingStrategy::kMps) {
    std::vector<std::string> mps;
    if (a.mps_active_thread_percentage > 0)
      mps.push_back("active_thread_percentage: " + std::to_string(a.mps_active_thread_percentage));
    if (a.mps_pinned_memory_mib > 0)
      mps.push_back("pinned_memory: " + ScenarioMemory(a.mps_pinned_memory_mib));
    d += ", sharing: mps";
    if (!mps.empty()) d.append(", mps: {").append(Join(mps, ", ")).append("}");
  }
  return d + "}";
}

}  // namespace knobsim
