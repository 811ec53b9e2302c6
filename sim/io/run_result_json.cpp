#include "sim/io/run_result_json.h"

#include <nlohmann/json.hpp>

#include "sim/io/json_fields.h"
#include "sim/io/result_fields.h"

namespace knobsim {

nlohmann::ordered_json RunResultToJson(const RunResult& r) {
  return WriteFields<ExactNumbers>(r);
}

Expected<RunResult> RunResultFromJson(const nlohmann::ordered_json& json, const std::string& file,
                                      const std::string& path) {
  return ReadFields<RunResult>(json, file, path);
}

}  // namespace knobsim
