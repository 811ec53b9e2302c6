// Semantic versions as github.com/blang/semver/v4 reads and orders them, which is what Kubernetes'
// semver() uses; the CEL semver library itself (Evaluator::Semvers) is beside their definitions in
// cel_library_semver.cpp. Internal to the CEL evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace knobsim::dra::cel_internal {

struct Semver {
  uint64_t major = 0, minor = 0, patch = 0;
  std::string_view pre;    // the prerelease identifiers, dot-separated; empty for none
  std::string_view build;  // build metadata, ignored by comparisons
};

// semver.Parse: "" when `s` is a version (then *out, viewing `s`), else blang's error text.
std::string ParseSemver(std::string_view s, Semver* out);

// Version.Compare: numbers, then prerelease identifiers (numeric ones numerically and below
// alphanumeric ones; a version without prerelease is above one with); build metadata is ignored.
int CompareSemver(const Semver& a, const Semver& b);

// Kubernetes' normalizeAndParse before semver.Parse: a leading "v" dropped, leading zeroes of the
// numbers dropped, missing minor and patch added as 0 ("v1.02" -> "1.2.0").
std::string NormalizeSemver(std::string_view s, std::string* error);

}  // namespace knobsim::dra::cel_internal
