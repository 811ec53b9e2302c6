#include "sim/quantity.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "sim/text.h"

namespace knobsim {
namespace {

template <class T>
Parsed<T> Value(T value) {
  Parsed<T> p;
  p.value = value;
  return p;
}

template <class T>
Parsed<T> Error(std::string error, std::string hint = "") {
  Parsed<T> p;
  p.error = std::move(error);
  p.hint = std::move(hint);
  return p;
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// The whole of `text` as a finite number (`1.5`, `-2`, `1e3`), or nothing.
std::optional<double> ParseNumber(std::string_view text) {
  if (text.empty() || text.front() == '+') return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

// Length of the number at the start of `text`: digits with at most one '.'; 0 when none.
size_t NumberPrefix(std::string_view text) {
  size_t i = 0;
  bool dot = false;
  int digits = 0;
  while (i < text.size() && (IsDigit(text[i]) || (text[i] == '.' && !dot))) {
    if (text[i] == '.') {
      dot = true;
    } else {
      ++digits;
    }
    ++i;
  }
  return digits > 0 ? i : 0;
}

// `x` as an integer, rounded up unless it is an integer but for floating-point noise
// (3.92 * 1000 is 3920.0000000000005, and means 3920).
std::optional<int64_t> CeilToInt(double x) {
  const double r = std::nearbyint(x);
  x = std::fabs(x - r) <= 1e-9 * std::max(1.0, std::fabs(x)) ? r : std::ceil(x);
  if (!(x >= -9.2e18 && x <= 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(x);
}

// `x` as an integer when it is one (to floating-point noise).
std::optional<int64_t> ExactInt(double x) {
  const double r = std::nearbyint(x);
  if (std::fabs(x - r) > 1e-9 * std::max(1.0, std::fabs(x))) return std::nullopt;
  if (!(r >= -9.2e18 && r <= 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(r);
}

struct QuantityParts {
  double number = 0;        // signed, before the suffix
  std::string_view suffix;  // "", "m", "Gi", "e3", ...
  double multiplier = 1;
  bool binary = false;  // Ki .. Ei
};

struct Suffix {
  std::string_view name;
  double multiplier;
  bool binary;
};

constexpr Suffix kSuffixes[] = {
    {"", 1, false},       {"n", 1e-9, false},   {"u", 1e-6, false},   {"m", 1e-3, false},
    {"k", 1e3, false},    {"M", 1e6, false},    {"G", 1e9, false},    {"T", 1e12, false},
    {"P", 1e15, false},   {"E", 1e18, false},   {"Ki", 0x1p10, true}, {"Mi", 0x1p20, true},
    {"Gi", 0x1p30, true}, {"Ti", 0x1p40, true}, {"Pi", 0x1p50, true}, {"Ei", 0x1p60, true},
};

// Splits a quantity by the grammar of k8s.io/apimachinery resource.Quantity.
std::optional<QuantityParts> SplitQuantity(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  const size_t len = NumberPrefix(text.substr(i));
  if (len == 0) return std::nullopt;
  QuantityParts q;
  std::string number(text.substr(i, len));
  auto v = ParseNumber(number);
  if (!v) return std::nullopt;
  q.number = text[0] == '-' ? -*v : *v;
  q.suffix = text.substr(i + len);
  for (const Suffix& s : kSuffixes) {
    if (q.suffix == s.name) {
      q.multiplier = s.multiplier;
      q.binary = s.binary;
      return q;
    }
  }
  // "1E" is exa, "1E3" an exponent.
  if (q.suffix.size() >= 2 && (q.suffix[0] == 'e' || q.suffix[0] == 'E')) {
    std::string_view e = q.suffix.substr(1);
    if (e.front() == '+') e.remove_prefix(1);
    int exponent = 0;
    auto [end, ec] = std::from_chars(e.data(), e.data() + e.size(), exponent);
    if (ec == std::errc() && end == e.data() + e.size() && std::abs(exponent) <= 300) {
      q.multiplier = std::pow(10.0, exponent);
      return q;
    }
  }
  return std::nullopt;
}

// "did you mean 4Gi?" for a byte size written with a unit name or the wrong case (`4GB`,
// `4gb`, `4GiB`, `4g`) or with a decimal suffix where GiB were meant (`4G`); empty otherwise.
std::string SuggestBinary(std::string_view text) {
  const size_t len = NumberPrefix(text);
  if (len == 0 || len == text.size()) return "";
  std::string_view rest = text.substr(len);
  const char letter = rest[0];
  if (std::string_view("kKmMgGtTpPeE").find(letter) == std::string_view::npos) return "";
  rest.remove_prefix(1);
  if (!rest.empty() && (rest[0] == 'i' || rest[0] == 'I')) rest.remove_prefix(1);
  if (!rest.empty() && (rest[0] == 'b' || rest[0] == 'B')) rest.remove_prefix(1);
  if (!rest.empty()) return "";
  const char upper = letter == 'k' ? 'K' : static_cast<char>(std::toupper(letter));
  return "did you mean " + std::string(text.substr(0, len)) + upper + "i?";
}

std::string_view DecimalByteName(std::string_view suffix) {
  if (suffix == "k") return "kilobytes";
  if (suffix == "M") return "megabytes";
  if (suffix == "G") return "gigabytes";
  if (suffix == "T") return "terabytes";
  if (suffix == "P") return "petabytes";
  if (suffix == "E") return "exabytes";
  return "";
}

}  // namespace

std::optional<double> ParseQuantity(std::string_view text) {
  auto q = SplitQuantity(text);
  if (!q) return std::nullopt;
  const double v = q->number * q->multiplier;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> ParseQuantityMilli(std::string_view text) {
  const std::optional<double> v = ParseQuantity(text);
  if (!v || std::fabs(*v) > 9.2e15) return std::nullopt;
  return CeilToInt(*v * 1000);
}

Parsed<int64_t> ParseCpuMilli(std::string_view text) {
  auto v = ParseQuantity(text);
  if (!v) {
    return Error<int64_t>(Quote(text) + " is not a quantity",
                          "cpu is in cores, e.g. 2, 1.5 or 500m");
  }
  if (*v < 0) return Error<int64_t>(Quote(text) + " is negative");
  auto milli = CeilToInt(*v * 1000);
  if (!milli) return Error<int64_t>(Quote(text) + " is too large");
  return Value(*milli);
}

Parsed<int64_t> ParseMemoryMib(std::string_view text) {
  auto q = SplitQuantity(text);
  if (q && q->suffix == "m") {
    // Kubernetes takes `128m` as 128 millibytes; nobody means that.
    return Error<int64_t>(Quote(text) + " is millibytes (m means milli)", SuggestBinary(text));
  }
  auto v = ParseQuantity(text);
  if (!v) {
    std::string hint = SuggestBinary(text);
    if (hint.empty()) hint = "memory is bytes or a quantity such as 512Mi or 8Gi";
    return Error<int64_t>(Quote(text) + " is not a quantity", hint);
  }
  if (*v < 0) return Error<int64_t>(Quote(text) + " is negative");
  auto mib = CeilToInt(*v / 0x1p20);
  if (!mib) return Error<int64_t>(Quote(text) + " is too large");
  return Value(*mib);
}

Parsed<int> ParseGpuMemUnits(std::string_view text) {
  auto q = SplitQuantity(text);
  if (!q) {
    std::string hint = SuggestBinary(text);
    if (hint.empty()) hint = "aliyun.com/gpu-mem counts GiB, e.g. 4 or 4Gi";
    return Error<int>(Quote(text) + " is not a quantity", hint);
  }
  if (q->number < 0) return Error<int>(Quote(text) + " is negative");
  if (std::string_view name = DecimalByteName(q->suffix); !name.empty()) {
    return Error<int>(Quote(text) + " is decimal " + std::string(name) + ", not GiB",
                      SuggestBinary(text));
  }
  double units = q->number * q->multiplier;
  if (q->binary) units /= 0x1p30;  // bytes to GiB; a bare number is already units
  auto n = ExactInt(units);
  if (!n) {
    if (q->binary) {
      return Error<int>(Quote(text) + " is not a whole number of GiB",
                        "aliyun.com/gpu-mem counts whole GiB");
    }
    return Error<int>(Quote(text) + " is not a whole number",
                      "extended resources such as aliyun.com/gpu-mem are integers");
  }
  if (*n > std::numeric_limits<int>::max()) return Error<int>(Quote(text) + " is too large");
  return Value(static_cast<int>(*n));
}

namespace {

struct DurationUnit {
  std::string_view name;
  int64_t nanos;
};

constexpr DurationUnit kDurationUnits[] = {
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1'000},  // U+03BC Greek mu
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
    // Not Go's, and knobsim's on purpose: metrics windows and runs are said in days and weeks
    // (`import --window 7d`), and one grammar serves every option and file. Exactly 24 h and
    // 7 d: simulated time has no calendar.
    {"d", 86'400'000'000'000},
    {"w", 604'800'000'000'000},
};

// The Go unit people usually mean by a unit name Go does not know; empty when none.
std::string_view GoUnitFor(std::string_view unit) {
  for (std::string_view u : {"min", "mins", "minute", "minutes"}) {
    if (unit == u) return "m";
  }
  for (std::string_view u : {"sec", "secs", "second", "seconds"}) {
    if (unit == u) return "s";
  }
  for (std::string_view u : {"hr", "hrs", "hour", "hours"}) {
    if (unit == u) return "h";
  }
  for (std::string_view u : {"day", "days"}) {
    if (unit == u) return "d";
  }
  for (std::string_view u : {"wk", "wks", "week", "weeks"}) {
    if (unit == u) return "w";
  }
  if (unit == "msec" || unit == "msecs") return "ms";
  if (unit == "usec" || unit == "usecs") return "us";
  if (unit == "nsec" || unit == "nsecs") return "ns";
  return "";
}

constexpr std::string_view kDurationHint = "write durations like 30s, 5m, 1h30m or 7d";

}  // namespace

// A port of Go's time.ParseDuration, so `1.5s`, `1h30m` and `250µs` mean what they mean in a
// Kubernetes manifest, with non-negativity on top.
Parsed<int64_t> ParseDuration(std::string_view text) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (text == "0" || text == "+0") return Value<int64_t>(0);
  if (text.empty()) return Error<int64_t>("empty duration", std::string(kDurationHint));
  if (text[0] == '-') {
    return Error<int64_t>(Quote(text) + " is negative", "durations here are never negative");
  }
  std::string_view s = text[0] == '+' ? text.substr(1) : text;
  if (NumberPrefix(s) == s.size() && !s.empty()) {
    return Error<int64_t>(Quote(text) + " has no unit", "add a unit, e.g. " + std::string(s) + "s");
  }
  int64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) {
      return Error<int64_t>(Quote(text) + " is not a duration", std::string(kDurationHint));
    }
    const size_t component_start = text.size() - s.size();
    int64_t v = 0;
    size_t i = 0;
    bool overflow = false;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      const int d = s[i] - '0';
      if (v > (kMax - d) / 10) {
        overflow = true;
      } else {
        v = v * 10 + d;
      }
    }
    const bool pre = i > 0;
    int64_t f = 0;
    double scale = 1;
    bool post = false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      for (; i < s.size() && IsDigit(s[i]); ++i) {
        post = true;
        if (f > (kMax - 9) / 10) continue;  // as Go: digits beyond precision are dropped
        f = f * 10 + (s[i] - '0');
        scale *= 10;
      }
    }
    if (!pre && !post) {
      return Error<int64_t>(Quote(text) + " is not a duration", std::string(kDurationHint));
    }
    size_t u = i;
    while (u < s.size() && s[u] != '.' && !IsDigit(s[u])) ++u;
    const std::string_view unit = s.substr(i, u - i);
    if (unit.empty()) {
      return Error<int64_t>(Quote(text) + " has a number without a unit",
                            std::string(kDurationHint));
    }
    int64_t unit_nanos = 0;
    for (const DurationUnit& d : kDurationUnits) {
      if (unit == d.name) unit_nanos = d.nanos;
    }
    if (unit_nanos == 0) {
      std::string hint;
      if (std::string_view go = GoUnitFor(unit); !go.empty()) {
        const size_t unit_at = component_start + i;
        hint = "did you mean " + std::string(text.substr(0, unit_at)) + std::string(go) +
               std::string(text.substr(unit_at + unit.size())) + "?";
      } else {
        hint = "units are ns, us, ms, s, m, h, d, w";
      }
      return Error<int64_t>(Quote(text) + " has an unknown unit " + Quote(unit), hint);
    }
    if (overflow || v > kMax / unit_nanos) return Error<int64_t>(Quote(text) + " is too long");
    v *= unit_nanos;
    if (f > 0) {
      v += static_cast<int64_t>(static_cast<double>(f) * (static_cast<double>(unit_nanos) / scale));
      if (v < 0) return Error<int64_t>(Quote(text) + " is too long");
    }
    if (total > kMax - v) return Error<int64_t>(Quote(text) + " is too long");
    total += v;
    s.remove_prefix(u);
  }
  return Value(total);
}

namespace {

// Seconds per unit of a rate's unit, accepting the names people write for s, min and h;
// `canonical` gets the unit to suggest. 0 when unknown.
double RateUnitSeconds(std::string_view unit, std::string_view* canonical) {
  *canonical = "";
  if (unit == "s" || unit == "sec" || unit == "second") *canonical = "s";
  if (unit == "min" || unit == "m" || unit == "minute") *canonical = "min";
  if (unit == "h" || unit == "hr" || unit == "hour") *canonical = "h";
  if (*canonical == "s") return 1;
  if (*canonical == "min") return 60;
  if (*canonical == "h") return 3600;
  return 0;
}

constexpr std::string_view kRateHint = "write rates as 20/s, 1200/min or 3/h";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

Parsed<double> ParseRate(std::string_view text) {
  if (text == "0") return Value(0.0);
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    if (ParseNumber(text)) {
      return Error<double>(Quote(text) + " has no unit",
                           "add a unit, e.g. " + std::string(text) + "/s");
    }
    // `20 per s`, `20rps`, `20 qps`: say how to write what was meant.
    std::string hint(kRateHint);
    const size_t len = NumberPrefix(text);
    if (len > 0) {
      std::string_view rest = Trim(text.substr(len));
      if (rest.substr(0, 4) == "per ") rest = Trim(rest.substr(4));
      if (rest == "rps" || rest == "qps") rest = "s";
      std::string_view canonical;
      if (RateUnitSeconds(rest, &canonical) > 0) {
        hint = "write it as " + std::string(text.substr(0, len)) + "/" + std::string(canonical);
      }
    }
    return Error<double>(Quote(text) + " is not a rate", hint);
  }
  auto number = ParseNumber(Trim(text.substr(0, slash)));
  if (!number) return Error<double>(Quote(text) + " is not a rate", std::string(kRateHint));
  if (*number < 0) return Error<double>(Quote(text) + " is negative");
  const std::string_view unit = text.substr(slash + 1);
  std::string_view canonical;
  const double seconds = RateUnitSeconds(unit, &canonical);
  if (unit != canonical) {
    std::string hint(kRateHint);
    if (!canonical.empty()) {
      hint = "did you mean " + std::string(Trim(text.substr(0, slash))) + "/" +
             std::string(canonical) + "?";
    }
    return Error<double>(Quote(text) + " has an unknown unit " + Quote(unit), hint);
  }
  return Value(*number / seconds);
}

Parsed<double> ParsePercentage(std::string_view text) {
  const std::string_view hint = "write it as 0.1% or as the fraction 0.001";
  if (!text.empty() && text.back() == '%') {
    auto v = ParseNumber(text.substr(0, text.size() - 1));
    if (!v) return Error<double>(Quote(text) + " is not a percentage", std::string(hint));
    if (*v < 0 || *v > 100) return Error<double>(Quote(text) + " is not between 0% and 100%");
    return Value(*v / 100);
  }
  auto v = ParseNumber(text);
  if (!v) return Error<double>(Quote(text) + " is not a percentage", std::string(hint));
  if (*v > 1 && *v <= 100) {
    return Error<double>(Quote(text) + " is more than 1 as a fraction",
                         "did you mean " + std::string(text) + "%?");
  }
  if (*v < 0 || *v > 1) return Error<double>(Quote(text) + " is not between 0 and 1");
  return Value(*v);
}

std::string_view QuotaResourceName(std::string_view key) {
  constexpr std::string_view kPerClass = ".storageclass.storage.k8s.io/";
  if (const size_t at = key.find(kPerClass); at != std::string_view::npos) {
    key.remove_prefix(at + kPerClass.size());
  }
  for (std::string_view prefix : {"requests.", "limits."}) {
    if (key.starts_with(prefix)) {
      key.remove_prefix(prefix.size());
      break;
    }
  }
  return key;
}

bool IsByteResource(std::string_view resource) {
  const std::string_view name = QuotaResourceName(resource);
  return name == "memory" || name == "ephemeral-storage" || name == "storage" ||
         name.starts_with("hugepages-");
}

Parsed<int64_t> ParseResourceAmount(std::string_view resource, std::string_view text) {
  const std::string_view name = QuotaResourceName(resource);
  if (name == "cpu") return ParseCpuMilli(text);
  const std::optional<double> v = ParseQuantity(text);
  if (!v) {
    Parsed<int64_t> out = Error<int64_t>(Quote(text) + " is not a quantity");
    if (IsByteResource(name)) {
      const Parsed<int64_t> m = ParseMemoryMib(text);
      out.hint = m.hint.starts_with("did you mean")
                     ? m.hint
                     : std::string(name) + " is in bytes or a quantity such as 512Mi or 8Gi";
    } else {
      out.hint = "write a number such as 8";
    }
    return out;
  }
  if (*v < 0) return Error<int64_t>(Quote(text) + " is negative");
  if (*v > 9.2e18) return Error<int64_t>(Quote(text) + " is too large");
  return Value(static_cast<int64_t>(std::ceil(*v - 1e-9)));
}

std::string FormatResourceAmount(std::string_view resource, int64_t amount) {
  const std::string_view name = QuotaResourceName(resource);
  if (name == "cpu") {
    return amount % 1000 == 0 ? std::to_string(amount / 1000) : std::to_string(amount) + "m";
  }
  if (IsByteResource(name) && amount > 0) {
    for (const auto& [shift, suffix] :
         {std::pair{50, "Pi"}, {40, "Ti"}, {30, "Gi"}, {20, "Mi"}, {10, "Ki"}}) {
      const int64_t size = int64_t{1} << shift;
      if (amount % size == 0) return std::to_string(amount / size) + suffix;
    }
  }
  return std::to_string(amount);
}

}  // namespace knobsim
