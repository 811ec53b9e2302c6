// What the harnesses share: the fuzzer's bytes as text, cut into documents, and the abort that
// reports a broken promise of a reader (libFuzzer records the input as a crash).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace knobsim::fuzz {

inline std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The input cut at each NUL byte, for the harnesses that read several documents at once (two
// results documents for a diff, N shards for a merge). NUL never occurs in the text formats
// themselves, so a seed of one document is one document; at most `most` parts, the last one
// keeping any further NULs.
inline std::vector<std::string> Documents(const std::string& text, size_t most) {
  std::vector<std::string> parts;
  size_t from = 0;
  while (parts.size() + 1 < most) {
    const size_t nul = text.find('\0', from);
    if (nul == std::string::npos) break;
    parts.push_back(text.substr(from, nul - from));
    from = nul + 1;
  }
  parts.push_back(text.substr(from));
  return parts;
}

// A reader broke a promise its header makes: print why and abort, so that libFuzzer keeps the
// input as a crash.
[[noreturn]] inline void Broken(const std::string& why) {
  std::fprintf(stderr, "broken promise: %s\n", why.c_str());
  std::abort();
}

}  // namespace knobsim::fuzz
