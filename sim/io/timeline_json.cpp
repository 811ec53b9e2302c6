#include "sim/io/timeline_json.h"

#include <nlohmann/json.hpp>

#include "sim/io/json_fields.h"
#include "sim/io/result_fields.h"

namespace knobsim {

nlohmann::ordered_json TimelineToJson(const RunTimeline& timeline) {
  return WriteFields<DocumentNumbers>(timeline);
}

}  // namespace knobsim
