// Where the replay tests find the shared Alibaba trace: `shared/` sits beside the checkout
// (CI lays it there), so the data is ../shared/data/alibaba-gpu-v2023 from the repository root.
// The unit-test binary has no KNOBSIM_SOURCE_DIR, so the root comes from this file's path
// (absolute under CMake; relative to the repository root in a direct compile from there).
// KNOBSIM_TRACE_DIR overrides it.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace knobsim::replay::testing {

inline std::string TraceDir() {
  if (const char* dir = std::getenv("KNOBSIM_TRACE_DIR")) return std::string(dir) + "/";
#ifdef KNOBSIM_SOURCE_DIR
  std::string root = std::string(KNOBSIM_SOURCE_DIR) + "/";
#else
  const std::string here = __FILE__;  // <root>/sim/replay/test_data.h
  const size_t at = here.rfind("sim/replay/");
  std::string root = at == std::string::npos ? std::string() : here.substr(0, at);
#endif
  std::string dir = root;
  dir.append("../shared/data/alibaba-gpu-v2023/");
  return dir;
}

inline bool TraceAvailable() {
  return std::ifstream(TraceDir() + "openb_node_list_gpu_node.csv").good();
}

}  // namespace knobsim::replay::testing
