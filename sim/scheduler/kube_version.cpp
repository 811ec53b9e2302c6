// KubeVersion::Parse: the --kube-version setting, "1.<minor>" with an optional "v" in front, an
// optional patch number, and an optional "+dra" / "-dra" for DRA-enabled clusters (whose
// FailedScheduling text carries "no new claims to deallocate, "; docs/semantics.md §3.7).
#include <cctype>
#include <charconv>
#include <string>

#include "sim/scheduler/framework.h"

namespace knobsim {
namespace {

// Reads a run of digits (no sign, no leading "+") from the front of `text`.
bool TakeNumber(std::string_view& text, int& out) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 4) return false;
  std::from_chars(text.data(), text.data() + digits, out);
  text.remove_prefix(digits);
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Only a message: the caller names the option or field the text came from.
InputError Bad(std::string_view text) {
  std::string msg = "bad Kubernetes version \"";
  msg.append(text).append(
      "\": expected 1.<minor> with an optional v and patch, and +dra for a DRA-enabled "
      "cluster, e.g. 1.28, v1.35.2 or 1.35+dra");
  return InputError{"", 0, "", std::move(msg), ""};
}

}  // namespace

Expected<KubeVersion> KubeVersion::Parse(std::string_view text) {
  std::string_view rest = text;
  if (!rest.empty() && (rest.front() == 'v' || rest.front() == 'V')) rest.remove_prefix(1);
  int major = 0, minor = 0, patch = 0;
  if (!TakeNumber(rest, major) || major != 1) return Bad(text);
  if (rest.empty() || rest.front() != '.') return Bad(text);
  rest.remove_prefix(1);
  if (!TakeNumber(rest, minor)) return Bad(text);
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    if (!TakeNumber(rest, patch)) return Bad(text);
  }
  KubeVersion version;
  version.minor = minor;
  version.dra = false;
  if (!rest.empty()) {
    if ((rest.front() != '+' && rest.front() != '-') || !EqualsIgnoreCase(rest.substr(1), "dra"))
      return Bad(text);
    version.dra = true;
  }
  return version;
}

}  // namespace knobsim
