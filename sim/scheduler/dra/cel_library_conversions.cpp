// The standard conversions (cel_eval.h), as cel-go's ConvertToType: range-checked, strings
// parsed as Go's strconv parses them.
#include "sim/scheduler/dra/cel_eval.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#include "sim/scheduler/dra/cel_text.h"

namespace knobsim::dra::cel_internal {
namespace {

Value ConversionError(const Value& x, std::string_view to) {
  return ErrorValue(fmt::format("type conversion error from '{}' to '{}'", TypeName(x), to));
}

bool ParseSigned(std::string_view t, int64_t* v) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-')) return false;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), *v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

Value ToInt(const Value& x) {
  switch (x.kind) {
    case Kind::kInt:
      return x;
    case Kind::kUint:
      if (x.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return TextView(Kind::kError, "integer overflow");
      }
      return IntValue(static_cast<int64_t>(x.u));
    case Kind::kDouble:
      if (!(x.d > -9223372036854775808.0 && x.d < 9223372036854775807.0)) {
        return TextView(Kind::kError, "integer overflow");
      }
      return IntValue(static_cast<int64_t>(x.d));
    case Kind::kString: {
      int64_t v = 0;
      if (ParseSigned(x.text, &v)) return IntValue(v);
      return ConversionError(x, "int");
    }
    default:
      return ConversionError(x, "int");
  }
}

Value ToUint(const Value& x) {
  switch (x.kind) {
    case Kind::kUint:
      return x;
    case Kind::kInt:
      if (x.i < 0) return TextView(Kind::kError, "unsigned integer overflow");
      return UintValue(static_cast<uint64_t>(x.i));
    case Kind::kDouble:
      if (!(x.d >= 0 && x.d < 18446744073709551616.0)) {
        return TextView(Kind::kError, "unsigned integer overflow");
      }
      return UintValue(static_cast<uint64_t>(x.d));
    case Kind::kString: {
      uint64_t v = 0;
      const std::string_view t = x.text;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (!t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size()) return UintValue(v);
      return ConversionError(x, "uint");
    }
    default:
      return ConversionError(x, "uint");
  }
}

Value ToDouble(const Value& x) {
  switch (x.kind) {
    case Kind::kDouble:
      return x;
    case Kind::kInt:
      return DoubleValue(static_cast<double>(x.i));
    case Kind::kUint:
      return DoubleValue(static_cast<double>(x.u));
    case Kind::kString: {
      std::string_view t = x.text;
      bool negative = false;
      if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
        negative = t[0] == '-';
        t.remove_prefix(1);
      }
      double v = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (t.empty() || t[0] == '-' || r.ec != std::errc() || r.ptr != t.data() + t.size()) {
        return ConversionError(x, "double");
      }
      return DoubleValue(negative ? -v : v);
    }
    default:
      return ConversionError(x, "double");
  }
}

Value ToString(const Value& x) {
  switch (x.kind) {
    case Kind::kString:
      return x;
    case Kind::kInt:
      return OwnedText(Kind::kString, std::to_string(x.i));
    case Kind::kUint:
      return OwnedText(Kind::kString, std::to_string(x.u));
    case Kind::kDouble:
      return OwnedText(Kind::kString, GoDouble(x.d));
    case Kind::kBool:
      return TextView(Kind::kString, x.b ? "true" : "false");
    case Kind::kBytes: {
      if (!ValidUtf8(x.text)) {
        return TextView(Kind::kError, "invalid UTF-8 in bytes, cannot convert to string");
      }
      Value v = x;
      v.kind = Kind::kString;
      return v;
    }
    default:
      return ConversionError(x, "string");
  }
}

Value ToBool(const Value& x) {
  if (x.kind == Kind::kBool) return x;
  if (x.kind == Kind::kString) {
    // strconv.ParseBool.
    static constexpr std::string_view kTrue[] = {"1", "t", "T", "TRUE", "true", "True"};
    static constexpr std::string_view kFalse[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (std::string_view t : kTrue) {
      if (x.text == t) return BoolValue(true);
    }
    for (std::string_view f : kFalse) {
      if (x.text == f) return BoolValue(false);
    }
  }
  return ConversionError(x, "bool");
}

Value ToBytes(const Value& x) {
  if (x.kind == Kind::kBytes || x.kind == Kind::kString) {
    Value v = x;
    v.kind = Kind::kBytes;
    return v;
  }
  return ConversionError(x, "bytes");
}

}  // namespace

Value Evaluator::Convert(Fn fn, const Value& x) const {
  switch (fn) {
    case Fn::kInt:
      return ToInt(x);
    case Fn::kUint:
      return ToUint(x);
    case Fn::kDouble:
      return ToDouble(x);
    case Fn::kString:
      return ToString(x);
    case Fn::kBool:
      return ToBool(x);
    case Fn::kBytes:
      return ToBytes(x);
    default:
      return NoSuchOverload();
  }
}

}  // namespace knobsim::dra::cel_internal
