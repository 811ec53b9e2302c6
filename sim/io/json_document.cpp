#include "sim/io/json_document.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/text.h"

namespace knobsim {

Expected<nlohmann::ordered_json> ParseJsonDocument(const std::string& text,
                                                   const std::string& file) {
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& p) {
    InputError e;
    e.file = file;
    // nlohmann counts bytes from 1 and points at the byte it could not use.
    const size_t byte = p.byte == 0 ? 0 : std::min<size_t>(p.byte - 1, text.size());
    e.line = 1 + static_cast<int>(std::count(
                     text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
    std::string what = p.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..." →
    // keep what follows the position, which the line already gives.
    if (const size_t colon = what.find(": "); colon != std::string::npos)
      what = what.substr(colon + 2);
    e.message = "invalid JSON at byte " + std::to_string(p.byte) + ": " + what;
    if (byte >= text.size()) e.hint = "the file ends early: is it complete?";
    return e;
  }
}

Expected<nlohmann::ordered_json> ReadJsonDocument(const std::string& path) {
  Expected<std::string> text = ReadFileText(path);
  // This reader has always said "cannot read file: <reason>"; the reason is ReadFileText's.
  if (!text) return ReadErrorAs(text.error(), "file");
  return ParseJsonDocument(*text, path);
}

}  // namespace knobsim
