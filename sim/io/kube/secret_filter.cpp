#include "sim/io/kube/secret_filter.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "sim/io/kube/kube_text.h"

namespace knobsim {
namespace {

using kube::Lower;

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsUpperOrDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}
bool IsTokenChar(char c) {  // base64url and the separators API keys use
  return IsAlnum(c) || c == '-' || c == '_';
}

// Length of the run of `pred` characters starting at `i`.
template <class Pred>
size_t RunAt(std::string_view s, size_t i, Pred pred) {
  size_t n = 0;
  while (i + n < s.size() && pred(s[i + n])) ++n;
  return n;
}

// A JWT anywhere: three base64url segments, the first a JSON header ("eyJ" = `{"`).
bool HasJwt(std::string_view s) {
  for (size_t at = s.find("eyJ"); at != std::string_view::npos; at = s.find("eyJ", at + 1)) {
    size_t i = at;
    int segments = 0;
    while (segments < 3) {
      const size_t n = RunAt(s, i, [](char c) { return IsAlnum(c) || c == '-' || c == '_'; });
      if (n < 8) break;
      ++segments;
      i += n;
      if (segments < 3) {
        if (i >= s.size() || s[i] != '.') break;
        ++i;
      }
    }
    if (segments == 3) return true;
  }
  return false;
}

// `prefix` starting a word (not preceded by a letter or digit) and followed by at least
// `min_tail` characters accepted by `tail`.
template <class Pred>
bool HasPrefixedToken(std::string_view s, std::string_view prefix, size_t min_tail, Pred tail) {
  for (size_t at = s.find(prefix); at != std::string_view::npos; at = s.find(prefix, at + 1)) {
    if (at > 0 && IsAlnum(s[at - 1])) continue;
    if (RunAt(s, at + prefix.size(), tail) >= min_tail) return true;
  }
  return false;
}

// `scheme://user:password@host`.
bool HasUrlPassword(std::string_view s) {
  for (size_t at = s.find("://"); at != std::string_view::npos; at = s.find("://", at + 1)) {
    const size_t start = at + 3;
    const size_t end = s.find_first_of("/@ \t\n\"'", start);
    if (end == std::string_view::npos || s[end] != '@') continue;
    if (s.substr(start, end - start).find(':') != std::string_view::npos) return true;
  }
  return false;
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (s[i] == '-')) return false;
    if (!dash && !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The whole value a base64 or hex blob: 32+ characters of the base64/base64url alphabet with a
// run of 24+ letters and digits holding both (so `cn-hangzhou-10-0-1-21`, a UUID or a long
// digit string is not one, and a sha256, an access key or a base64 key is).
bool IsBlob(std::string_view s) {
  if (s.size() < 32 || IsUuid(s)) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '+' && c != '/' && c != '=' && c != '-' && c != '_') return false;
  }
  for (size_t i = 0; i < s.size();) {
    const size_t n = RunAt(s, i, [](char c) { return IsAlnum(c) || c == '+' || c == '/'; });
    if (n >= 24) {
      const std::string_view run = s.substr(i, n);
      const bool digit = run.find_first_of("0123456789") != std::string_view::npos;
      const bool letter = std::any_of(run.begin(), run.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c));
      });
      if (digit && letter) return true;
    }
    i += n + 1;
  }
  return false;
}

bool KeyNamesSecret(std::string_view key) {
  const std::string lower = Lower(key);
  for (std::string_view word :
       {"token", "secret", "password", "passwd", "credential", "key", "auth"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool LooksLikeSecret(std::string_view key, std::string_view value) {
  const size_t first = value.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  value = value.substr(first, value.find_last_not_of(" \t\r\n") - first + 1);
  if (value == "true" || value == "false") return false;
  if (KeyNamesSecret(key)) return true;
  // Shapes published by the issuers (AWS, OpenAI/Stripe, GitHub, Slack, Google).
  if (HasJwt(value) || HasUrlPassword(value)) return true;
  if (value.find("PRIVATE KEY-----") != std::string_view::npos) return true;
  if (HasPrefixedToken(value, "AKIA", 16, IsUpperOrDigit) ||
      HasPrefixedToken(value, "ASIA", 16, IsUpperOrDigit)) {
    return true;
  }
  for (std::string_view prefix : {"sk-", "sk_", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_",
                                  "xoxb-", "xoxp-", "xoxa-", "xoxs-", "AIza", "glpat-"}) {
    if (HasPrefixedToken(value, prefix, 16, IsTokenChar)) return true;
  }
  return IsBlob(value);
}

}  // namespace knobsim
