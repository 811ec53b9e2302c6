#include "sim/input_error.h"

namespace knobsim {

std::string InputError::ToString() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) s += ":" + std::to_string(line);
  s += ": ";
  if (!path.empty()) s += path + ": ";
  s += message;
  if (!hint.empty()) s += "; " + hint;
  return s;
}

}  // namespace knobsim
