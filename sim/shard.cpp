#include "sim/shard.h"

#include <charconv>

#include "sim/text.h"

namespace knobsim {

Expected<Shard> ParseShard(std::string_view text) {
  const auto slash = text.find('/');
  Shard s;
  auto number = [](std::string_view t, int* out) {
    if (t.empty()) return false;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
    return ec == std::errc() && end == t.data() + t.size();
  };
  if (slash == std::string_view::npos || !number(text.substr(0, slash), &s.index) ||
      !number(text.substr(slash + 1), &s.count)) {
    return InputError{"", 0, "", Quote(std::string(text)) + " is not a shard: write i/N, e.g. 0/3",
                      ""};
  }
  if (s.count < 1 || s.index < 0 || s.index >= s.count) {
    return InputError{
        "", 0, "",
        "shard " + std::string(text) + ": i must be in 0..N-1 (0-based, as JOB_COMPLETION_INDEX)",
        ""};
  }
  return s;
}

std::string ShardText(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

}  // namespace knobsim
