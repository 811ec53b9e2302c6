// ReadJsonDocument: a JSON file the user gave us (a results, shard or plan document), or an
// InputError naming the file and the line where the JSON stops making sense.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "sim/input_error.h"

namespace knobsim {

// Keys keep their order (ordered_json), so a document read and written again is unchanged.
Expected<nlohmann::ordered_json> ReadJsonDocument(const std::string& path);

// The same for text already in memory; `file` names it in messages.
Expected<nlohmann::ordered_json> ParseJsonDocument(const std::string& text,
                                                   const std::string& file);

}  // namespace knobsim
