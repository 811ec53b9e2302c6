#include "sim/io/kube/kube_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "sim/io/spelling.h"

namespace knobsim::kube {

std::string Backquote(std::string_view text) {
  std::string quoted(1, '`');
  quoted.append(text);
  quoted.push_back('`');
  return quoted;
}

std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

std::string EnumHint(std::string_view word, std::initializer_list<std::string_view> allowed) {
  std::string_view best;
  size_t best_distance = std::max<size_t>(1, word.size() / 3) + 1;
  std::vector<std::string_view> shown;
  for (std::string_view a : allowed) {
    if (a.empty()) continue;
    shown.push_back(a);
    const size_t d = EditDistance(word, a);
    if (d < best_distance) {
      best = a;
      best_distance = d;
    }
  }
  if (!best.empty()) return Cat({"did you mean ", Backquote(best), "?"});
  std::string hint = "use ";
  for (size_t i = 0; i < shown.size(); ++i) {
    if (i > 0) hint.append(i + 1 == shown.size() ? " or " : ", ");
    hint.append(shown[i]);
  }
  return hint;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> ExactInt(double x) {
  const double r = std::nearbyint(x);
  if (std::fabs(x - r) > 1e-9 * std::max(1.0, std::fabs(x))) return std::nullopt;
  if (!(r >= -9.2e18 && r <= 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(r);
}

std::optional<int64_t> CeilToInt(double x) {
  if (auto exact = ExactInt(x)) return exact;
  const double c = std::ceil(x);
  if (!(c >= -9.2e18 && c <= 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(c);
}

}  // namespace knobsim::kube
