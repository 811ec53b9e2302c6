// Semantic versions as blang/semver reads and orders them (cel_semver.h), and Kubernetes' semver
// library over them (cel_eval.h).
#include "sim/scheduler/dra/cel_semver.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel_eval.h"
#include "sim/text.h"

namespace knobsim::dra::cel_internal {
namespace {

bool AllDigits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool AllAlphanumeric(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  });
}

// strconv.ParseUint(s, 10, 64) for a string of digits only; its error text when it fails.
std::string ParseSemverNumber(std::string_view s, uint64_t* out) {
  if (s.empty()) return "strconv.ParseUint: parsing \"\": invalid syntax";
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
    return fmt::format("strconv.ParseUint: parsing {}: value out of range", Quote(s));
  }
  return "";
}

}  // namespace

std::string ParseSemver(std::string_view s, Semver* out) {
  if (s.empty()) return "Version string empty";
  const size_t dot1 = s.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : s.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return "No Major.Minor.Patch elements found";
  const auto number = [](std::string_view part, const char* what, const char* capital,
                         uint64_t* v) -> std::string {
    if (!AllDigits(part)) {
      return fmt::format("Invalid character(s) found in {} number {}", what, Quote(part));
    }
    if (part.size() > 1 && part[0] == '0') {
      return fmt::format("{} number must not contain leading zeroes {}", capital, Quote(part));
    }
    return ParseSemverNumber(part, v);
  };
  // Each dot-separated identifier of a prerelease or of build metadata.
  const auto identifiers = [](std::string_view list, const auto& check) -> std::string {
    for (size_t start = 0;;) {
      const size_t dot = list.find('.', start);
      if (std::string e =
              check(list.substr(start, dot == std::string_view::npos ? dot : dot - start));
          !e.empty()) {
        return e;
      }
      if (dot == std::string_view::npos) return "";
      start = dot + 1;
    }
  };
  Semver v;
  if (std::string e = number(s.substr(0, dot1), "major", "Major", &v.major); !e.empty()) return e;
  if (std::string e = number(s.substr(dot1 + 1, dot2 - dot1 - 1), "minor", "Minor", &v.minor);
      !e.empty()) {
    return e;
  }
  std::string_view patch = s.substr(dot2 + 1);
  bool has_pre = false, has_build = false;
  if (const size_t plus = patch.find('+'); plus != std::string_view::npos) {
    has_build = true;
    v.build = patch.substr(plus + 1);
    patch = patch.substr(0, plus);
  }
  if (const size_t dash = patch.find('-'); dash != std::string_view::npos) {
    has_pre = true;
    v.pre = patch.substr(dash + 1);
    patch = patch.substr(0, dash);
  }
  if (std::string e = number(patch, "patch", "Patch", &v.patch); !e.empty()) return e;
  if (has_pre) {
    std::string e = identifiers(v.pre, [](std::string_view id) -> std::string {
      if (id.empty()) return "Prerelease is empty";
      if (AllDigits(id)) {
        if (id.size() > 1 && id[0] == '0') {
          return fmt::format("Numeric PreRelease version must not contain leading zeroes {}",
                             Quote(id));
        }
        uint64_t ignored;
        return ParseSemverNumber(id, &ignored);
      }
      if (!AllAlphanumeric(id)) {
        return fmt::format("Invalid character(s) found in prerelease {}", Quote(id));
      }
      return "";
    });
    if (!e.empty()) return e;
  }
  if (has_build) {
    std::string e = identifiers(v.build, [](std::string_view id) -> std::string {
      if (id.empty()) return "Build meta data is empty";
      if (!AllAlphanumeric(id)) {
        return fmt::format("Invalid character(s) found in build meta data {}", Quote(id));
      }
      return "";
    });
    if (!e.empty()) return e;
  }
  *out = v;
  return "";
}

int CompareSemver(const Semver& a, const Semver& b) {
  const auto cmp = [](uint64_t x, uint64_t y) { return x < y ? -1 : x > y ? 1 : 0; };
  if (int c = cmp(a.major, b.major)) return c;
  if (int c = cmp(a.minor, b.minor)) return c;
  if (int c = cmp(a.patch, b.patch)) return c;
  if (a.pre.empty() || b.pre.empty())
    return a.pre.empty() == b.pre.empty() ? 0 : a.pre.empty() ? 1 : -1;
  std::string_view x = a.pre, y = b.pre;
  while (true) {
    const size_t dx = x.find('.'), dy = y.find('.');
    const std::string_view ix = x.substr(0, dx), iy = y.substr(0, dy);
    const bool nx = AllDigits(ix), ny = AllDigits(iy);
    int c = 0;
    if (nx && ny) {
      uint64_t vx = 0, vy = 0;
      std::from_chars(ix.data(), ix.data() + ix.size(), vx);
      std::from_chars(iy.data(), iy.data() + iy.size(), vy);
      c = cmp(vx, vy);
    } else if (nx != ny) {
      c = nx ? -1 : 1;
    } else {
      c = ix.compare(iy) < 0 ? -1 : ix.compare(iy) > 0 ? 1 : 0;
    }
    if (c != 0) return c;
    const bool ex = dx == std::string_view::npos, ey = dy == std::string_view::npos;
    if (ex || ey) return ex == ey ? 0 : ex ? -1 : 1;
    x = x.substr(dx + 1);
    y = y.substr(dy + 1);
  }
}

std::string NormalizeSemver(std::string_view s, std::string* error) {
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  std::vector<std::string> parts;
  for (size_t start = 0; parts.size() < 3;) {
    const size_t dot = parts.size() < 2 ? s.find('.', start) : std::string_view::npos;
    parts.emplace_back(s.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (std::string& p : parts) {
    if (p.size() > 1) {
      const size_t first = p.find_first_not_of('0');
      p = first == std::string::npos ? "" : p.substr(first);
      if (p.empty() || !(p[0] >= '0' && p[0] <= '9')) p = "0" + p;
    }
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      *error = "short version cannot contain PreRelease/Build meta data";
      return "";
    }
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return parts[0] + "." + parts[1] + "." + parts[2];
}

// Kubernetes' semver library (semverlib.go) over blang/semver.
Value Evaluator::Semvers(const Node& n, const Value* a, size_t count) const {
  if (n.fn == Fn::kSemver || n.fn == Fn::kIsSemver) {
    if (a[0].kind != Kind::kString || (count > 1 && a[1].kind != Kind::kBool)) {
      return NoSuchOverload();
    }
    Value version = a[0];
    version.kind = Kind::kSemver;
    std::string error;
    if (count > 1 && a[1].b) {
      std::string normalized = NormalizeSemver(a[0].text, &error);
      if (error.empty()) version = OwnedText(Kind::kSemver, std::move(normalized));
    }
    Semver ignored;
    if (error.empty()) error = ParseSemver(version.text, &ignored);
    if (n.fn == Fn::kIsSemver) return BoolValue(error.empty());
    if (!error.empty()) return ErrorValue(std::move(error));
    return version;
  }
  if (a[0].kind != Kind::kSemver) return NoSuchOverload();
  Semver x;
  ParseSemver(a[0].text, &x);
  switch (n.fn) {
    case Fn::kMajor:
      return IntValue(static_cast<int64_t>(x.major));
    case Fn::kMinor:
      return IntValue(static_cast<int64_t>(x.minor));
    case Fn::kPatch:
      return IntValue(static_cast<int64_t>(x.patch));
    default:
      break;
  }
  if (count < 2 || a[1].kind != Kind::kSemver) return NoSuchOverload();
  Semver y;
  ParseSemver(a[1].text, &y);
  const int c = CompareSemver(x, y);
  return ComparisonValue(n.fn, c);
}

}  // namespace knobsim::dra::cel_internal
