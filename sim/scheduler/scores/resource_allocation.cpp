#include "sim/scheduler/scores/resource_allocation.h"

#include <string>

namespace knobsim {
namespace {

const std::string kCpu = "cpu";
const std::string kMemory = "memory";

int64_t Amount(const ResourceList& list, const std::string& name) {
  const auto it = list.find(name);
  return it == list.end() ? 0 : it->second;
}

}  // namespace

CpuMemory CpuMemoryOf(const ResourceList& list) {
  return {Amount(list, kCpu), Amount(list, kMemory)};
}

}  // namespace knobsim
