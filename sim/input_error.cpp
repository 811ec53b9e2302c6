#include "sim/input_error.h"

#include <fmt/format.h>

namespace knobsim {

std::string InputError::ToString() const {
  // fmt rather than std::string operator+: GCC 12 warns falsely (-Wrestrict, PR 105651) there.
  return fmt::format("{}{}: {}{}{}", file.empty() ? "<input>" : file,
                     line > 0 ? fmt::format(":{}", line) : std::string(),
                     path.empty() ? std::string() : path + ": ", message,
                     hint.empty() ? std::string() : "; " + hint);
}

}  // namespace knobsim
