// CEL's string functions (cel_eval.h): the standard contains / startsWith / endsWith, ext.Strings
// (cel-go ext/strings.go, version 2), where indices count code points, and the regular
// expressions of matches() and Kubernetes' find() / findAll() (cel_regex.h).
#include "sim/scheduler/dra/cel_eval.h"

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel_regex.h"
#include "sim/scheduler/dra/cel_text.h"

namespace knobsim::dra::cel_internal {
namespace {

bool Is(const Value* a, size_t count, size_t k, Kind kind) {
  return k < count && a[k].kind == kind;
}

Value OutOfRange(int64_t i) {
  return ErrorValue(fmt::format("index out of range: {}", i));
}

// A part of the string `s`, sharing its storage.
Value Part(const Value& s, std::string_view sub) {
  Value v = s;
  v.text = sub;
  return v;
}

Value CharAt(const Value* a, size_t count) {
  const std::string_view s = a[0].text;
  if (!Is(a, count, 1, Kind::kInt)) return NoSuchOverload();
  const std::u32string runes = Runes(s);
  const int64_t i = a[1].i;
  if (i < 0 || static_cast<uint64_t>(i) > runes.size()) return OutOfRange(i);
  if (static_cast<size_t>(i) == runes.size()) return TextView(Kind::kString, "");
  return OwnedText(Kind::kString, FromRunes(runes.substr(static_cast<size_t>(i), 1)));
}

Value IndexOf(Fn fn, const Value* a, size_t count) {
  const std::string_view s = a[0].text;
  if (!Is(a, count, 1, Kind::kString) || (count > 2 && !Is(a, count, 2, Kind::kInt)))
    return NoSuchOverload();
  const std::u32string runes = Runes(s), sub = Runes(a[1].text);
  const int64_t size = static_cast<int64_t>(runes.size());
  const int64_t width = static_cast<int64_t>(sub.size());
  const bool last = fn == Fn::kLastIndexOf;
  int64_t offset = count > 2 ? a[2].i : last ? size - 1 : 0;
  if (last && count <= 2) {
    if (sub.empty()) return IntValue(size);
    if (s.size() < a[1].text.size()) return IntValue(-1);
  }
  if (offset < 0) return OutOfRange(offset);
  if (sub.empty()) return IntValue(offset > size ? size : offset);
  if (offset >= size) return IntValue(-1);
  const auto at = [&](int64_t i) {
    return runes.compare(static_cast<size_t>(i), sub.size(), sub) == 0;
  };
  if (!last) {
    for (int64_t i = offset; i < size - (width - 1); ++i) {
      if (at(i)) return IntValue(i);
    }
    return IntValue(-1);
  }
  if (offset > size - width) offset = size - width;
  for (int64_t i = offset; i >= 0; --i) {
    if (at(i)) return IntValue(i);
  }
  return IntValue(-1);
}

Value Substring(const Value* a, size_t count) {
  const std::string_view s = a[0].text;
  if (!Is(a, count, 1, Kind::kInt) || (count > 2 && !Is(a, count, 2, Kind::kInt)))
    return NoSuchOverload();
  const int64_t size = static_cast<int64_t>(RuneCount(s));
  const int64_t start = a[1].i;
  const int64_t end = count > 2 ? a[2].i : size;
  if (count > 2 && start > end) {
    return ErrorValue(fmt::format("invalid substring range. start: {}, end: {}", start, end));
  }
  if (start < 0 || start > size) return OutOfRange(start);
  if (end < 0 || end > size) return OutOfRange(end);
  size_t from = 0, to = 0;
  for (int64_t k = 0; k < end; ++k) {
    if (k == start) from = to;
    DecodeUtf8(s, &to);
  }
  if (start == end) from = to;
  return Part(a[0], s.substr(from, to - from));
}

Value Trim(const Value* a) {
  const std::string_view s = a[0].text;
  size_t from = 0, to = s.size();
  while (from < to) {
    size_t next = from;
    if (!IsUnicodeSpace(DecodeUtf8(s, &next))) break;
    from = next;
  }
  while (to > from) {
    size_t start = to - 1;
    while (start > from && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    size_t next = start;
    if (!IsUnicodeSpace(DecodeUtf8(s, &next)) || next != to) break;
    to = start;
  }
  return Part(a[0], s.substr(from, to - from));
}

}  // namespace

Value Evaluator::Strings(const Node& n, const Value* a, size_t count) {
  if (n.fn == Fn::kJoin) return Join(a, count);
  if (!Is(a, count, 0, Kind::kString)) return NoSuchOverload();
  const std::string_view s = a[0].text;
  switch (n.fn) {
    case Fn::kContains:
    case Fn::kStartsWith:
    case Fn::kEndsWith: {
      if (!Is(a, count, 1, Kind::kString)) return NoSuchOverload();
      const std::string_view t = a[1].text;
      if (n.fn == Fn::kContains) return BoolValue(s.find(t) != std::string_view::npos);
      if (n.fn == Fn::kStartsWith) return BoolValue(s.substr(0, t.size()) == t);
      return BoolValue(s.size() >= t.size() && s.substr(s.size() - t.size()) == t);
    }
    case Fn::kCharAt:
      return CharAt(a, count);
    case Fn::kIndexOf:
    case Fn::kLastIndexOf:
      return IndexOf(n.fn, a, count);
    case Fn::kLowerAscii:
    case Fn::kUpperAscii:
      return ChangeCase(n.fn, s);
    case Fn::kReplace:
      return Replace(a, count);
    case Fn::kSplit:
      return Split(a, count);
    case Fn::kSubstring:
      return Substring(a, count);
    case Fn::kTrim:
      return Trim(a);
    default:
      return NoSuchOverload();
  }
}

Value Evaluator::Join(const Value* a, size_t count) {
  if (!Is(a, count, 0, Kind::kList) || (count > 1 && !Is(a, count, 1, Kind::kString)))
    return NoSuchOverload();
  const std::string_view separator = count > 1 ? a[1].text : std::string_view();
  std::string out;
  for (size_t i = 0, size = ListSize(a[0]); i < size; ++i) {
    const Value item = ListAt(a[0], i);
    if (item.kind != Kind::kString) {
      return ErrorValue(fmt::format("join: invalid input: {}", KeyText(item)));
    }
    if (i > 0) out.append(separator);
    out.append(item.text);
    Allocate(item.text.size() + separator.size());
  }
  return OwnedText(Kind::kString, std::move(out));
}

Value Evaluator::ChangeCase(Fn fn, std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (fn == Fn::kLowerAscii && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (fn == Fn::kUpperAscii && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  Allocate(out.size());
  return OwnedText(Kind::kString, std::move(out));
}

// strings.Replace(s, old, new, n), n < 0 for all.
Value Evaluator::Replace(const Value* a, size_t count) {
  const std::string_view s = a[0].text;
  if (!Is(a, count, 1, Kind::kString) || !Is(a, count, 2, Kind::kString) ||
      (count > 3 && !Is(a, count, 3, Kind::kInt))) {
    return NoSuchOverload();
  }
  const std::string_view old = a[1].text, with = a[2].text;
  int64_t limit = count > 3 ? a[3].i : -1;
  if (old == with || limit == 0) return a[0];
  int64_t found = 0;
  if (old.empty()) {
    found = static_cast<int64_t>(RuneCount(s)) + 1;
  } else {
    for (size_t at = s.find(old); at != std::string_view::npos; at = s.find(old, at + old.size())) {
      ++found;
    }
  }
  if (found == 0) return a[0];
  if (limit < 0 || found < limit) limit = found;
  Allocate(s.size() + static_cast<size_t>(limit) * with.size());
  std::string out;
  size_t start = 0;
  for (int64_t i = 0; i < limit; ++i) {
    size_t j = start;
    if (old.empty()) {
      if (i > 0) DecodeUtf8(s, &j);
    } else {
      j = s.find(old, start);
    }
    out.append(s.substr(start, j - start)).append(with);
    start = j + old.size();
  }
  out.append(s.substr(start));
  return OwnedText(Kind::kString, std::move(out));
}

// strings.SplitN(s, sep, n), n < 0 for all.
Value Evaluator::Split(const Value* a, size_t count) {
  const std::string_view s = a[0].text;
  if (!Is(a, count, 1, Kind::kString) || (count > 2 && !Is(a, count, 2, Kind::kInt)))
    return NoSuchOverload();
  const std::string_view sep = a[1].text;
  int64_t limit = count > 2 ? a[2].i : -1;
  std::vector<Value> out;
  if (limit == 0) return OwnedList(std::move(out));
  if (sep.empty()) {
    const int64_t runes = static_cast<int64_t>(RuneCount(s));
    if (limit < 0 || limit > runes) limit = runes;
    size_t i = 0;
    for (int64_t k = 0; k < limit - 1; ++k) {
      const size_t at = i;
      DecodeUtf8(s, &i);
      out.push_back(Part(a[0], s.substr(at, i - at)));
    }
    if (limit > 0) out.push_back(Part(a[0], s.substr(i)));
  } else {
    size_t start = 0;
    while (limit < 0 || static_cast<int64_t>(out.size()) < limit - 1) {
      const size_t at = s.find(sep, start);
      if (at == std::string_view::npos) break;
      out.push_back(Part(a[0], s.substr(start, at - start)));
      start = at + sep.size();
    }
    out.push_back(Part(a[0], s.substr(start)));
  }
  Allocate(out.size() * sizeof(Value));
  return OwnedList(std::move(out));
}

std::shared_ptr<const std::regex> Evaluator::Regex(const Node& n, const Value& pattern,
                                                   Value* error) const {
  if (n.regex != nullptr) return n.regex;
  std::string what;
  auto re = CompileRegex(pattern.text, &what);
  if (re == nullptr) *error = ErrorValue(fmt::format("error parsing regexp: {}", what));
  return re;
}

Value Evaluator::Regexes(const Node& n, const Value* a, size_t count) {
  if (!Is(a, count, 0, Kind::kString) || !Is(a, count, 1, Kind::kString)) return NoSuchOverload();
  Value error;
  const auto re = Regex(n, a[1], &error);
  if (re == nullptr) return error;
  const char* begin = a[0].text.data();
  const char* end = begin + a[0].text.size();
  try {
    if (n.fn == Fn::kMatches) return BoolValue(std::regex_search(begin, end, *re));
    if (n.fn == Fn::kFind) {
      std::cmatch m;
      Value found = a[0];
      found.text = std::regex_search(begin, end, m, *re)
                       ? a[0].text.substr(static_cast<size_t>(m.position(0)),
                                          static_cast<size_t>(m.length(0)))
                       : std::string_view();
      return found;
    }
    int64_t limit = -1;
    if (count > 2) {
      if (!Is(a, count, 2, Kind::kInt)) return NoSuchOverload();
      limit = a[2].i;
    }
    std::vector<Value> out;
    for (std::cregex_iterator it(begin, end, *re), last; it != last && limit != 0; ++it) {
      if (limit > 0 && static_cast<int64_t>(out.size()) >= limit) break;
      Value item = a[0];
      item.text = a[0].text.substr(static_cast<size_t>(it->position(0)),
                                   static_cast<size_t>(it->length(0)));
      out.push_back(std::move(item));
      Allocate(sizeof(Value));
    }
    return OwnedList(std::move(out));
  } catch (const std::regex_error& e) {
    return ErrorValue(fmt::format("regular expression failed: {}", e.what()));
  }
}

}  // namespace knobsim::dra::cel_internal
