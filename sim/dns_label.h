// IsDnsLabel: the rule Kubernetes checks object names by (a DNS-1123 label), for the readers
// that refuse a name and the importer that makes one.
#pragma once

#include <string_view>

namespace knobsim {

// 1 to 63 of a-z, 0-9 and '-', beginning and ending with a letter or a digit.
inline bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace knobsim
