// RE2 patterns translated to std::regex (cel_regex.h).
#include "sim/scheduler/dra/cel_regex.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <regex>
#include <string>
#include <string_view>

#include "sim/scheduler/dra/cel_limits.h"

namespace knobsim::dra::cel_internal {
namespace {

// A leading flag group, (?i) or (?m), dropped from *rest and added to *flags; false, with *error,
// for a flag std::regex cannot follow ((?s), (?U)).
bool LeadingFlags(std::string_view* rest, std::regex::flag_type* flags, std::string* error) {
  if (rest->size() >= 4 && rest->substr(0, 2) == "(?" &&
      rest->find(')') != std::string_view::npos) {
    const size_t close = rest->find(')');
    const std::string_view group = rest->substr(2, close - 2);
    if (!group.empty() && group.find_first_not_of("imsU") == std::string_view::npos) {
      for (char f : group) {
        if (f == 'i') {
          *flags |= std::regex::icase;
        } else if (f == 'm') {
          *flags |= std::regex::multiline;
        } else {
          *error = fmt::format("the RE2 flag (?{}) is not supported here", f);
          return false;
        }
      }
      rest->remove_prefix(close + 1);
    }
  }
  return true;
}

}  // namespace

std::shared_ptr<const std::regex> CompileRegex(std::string_view pattern, std::string* error) {
  std::regex::flag_type flags = std::regex::ECMAScript | std::regex_constants::__polynomial;
  std::string_view rest = pattern;
  if (!LeadingFlags(&rest, &flags, error)) return nullptr;
  std::string translated;
  translated.reserve(rest.size());
  int depth = 0, max_depth = 0;
  bool in_class = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (c == '\\' && i + 1 < rest.size()) {
      const char e = rest[i + 1];
      if (!in_class && e == 'A') {
        translated += '^';
      } else if (!in_class && e == 'z') {
        translated += '$';
      } else if (e == 'p' || e == 'P' || e == 'Q') {
        *error = fmt::format("\\{} is not supported here", e);
        return nullptr;
      } else {
        translated += c;
        translated += e;
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      translated += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      translated += c;
      if (i + 1 < rest.size() && rest[i + 1] == '^') translated += rest[++i];
      if (i + 1 < rest.size() && rest[i + 1] == ']') translated += rest[++i];
      continue;
    }
    if (c == '(') {
      max_depth = std::max(max_depth, ++depth);
      if (rest.substr(i, 4) == "(?P<" ||
          (rest.substr(i, 3) == "(?<" && rest.substr(i, 4) != "(?<=" &&
           rest.substr(i, 4) != "(?<!")) {
        const size_t close = rest.find('>', i);
        if (close == std::string_view::npos) {
          *error = "invalid named capture";
          return nullptr;
        }
        translated += '(';
        i = close;
        continue;
      }
    } else if (c == ')') {
      --depth;
    }
    translated += c;
  }
  if (max_depth > kMaxNesting) {
    *error = "the pattern nests too deeply";
    return nullptr;
  }
  try {
    return std::make_shared<const std::regex>(translated, flags);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
}

}  // namespace knobsim::dra::cel_internal
