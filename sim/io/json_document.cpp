#include "sim/io/json_document.h"

#include <algorithm>
#include <variant>

#include "sim/text.h"

namespace knobsim {

namespace {

using Json = nlohmann::ordered_json;

int LineAt(std::string_view text, size_t byte) {
  byte = std::min(byte, text.size());
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

// The library's tree builder, but a parse error is kept with its position instead of thrown:
// an out-of-range number (406) is thrown by the library without one.
class PositionedDomParser : public nlohmann::detail::json_sax_dom_parser<Json> {
 public:
  explicit PositionedDomParser(Json& root)
      : nlohmann::detail::json_sax_dom_parser<Json>(root, /*allow_exceptions=*/false) {}

  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    failed = true;
    byte = position;
    last_token = token;
    overflow = e.id == 406;
    message = e.what();
    return false;
  }

  bool failed = false;
  bool overflow = false;
  std::size_t byte = 0;
  std::string last_token;
  std::string message;
};

// The library's message without its "[json.exception.parse_error.101] parse error at line 3,
// column 5: " prefix: the line is the InputError's own, and the id means nothing to a user.
std::string PlainMessage(std::string what) {
  if (const size_t colon = what.find(": "); colon != std::string::npos && what.starts_with("["))
    what = what.substr(colon + 2);
  return what;
}

// A field path as its parts: a key, or an element index.
using PathPart = std::variant<std::string, size_t>;

std::vector<PathPart> SplitPath(std::string_view path) {
  std::vector<PathPart> parts;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
    } else if (path[i] == '[') {
      size_t index = 0;
      for (++i; i < path.size() && path[i] >= '0' && path[i] <= '9'; ++i)
        index = index * 10 + static_cast<size_t>(path[i] - '0');
      if (i < path.size() && path[i] == ']') ++i;
      parts.emplace_back(index);
    } else {
      const size_t end = std::min(path.find_first_of(".[", i), path.size());
      parts.emplace_back(std::string(path.substr(i, end - i)));
      i = end;
    }
  }
  return parts;
}

// A scanner over JSON already known to be valid (it parsed): it only skips and compares.
class ValidJsonScanner {
 public:
  explicit ValidJsonScanner(std::string_view text) : t_(text) {}

  size_t SkipSpace(size_t at) const {
    while (at < t_.size() && (t_[at] == ' ' || t_[at] == '\t' || t_[at] == '\n' || t_[at] == '\r'))
      ++at;
    return at;
  }
  // Past the string that opens at `at` (a '"').
  size_t SkipString(size_t at) const {
    for (++at; at < t_.size(); ++at) {
      if (t_[at] == '\\') {
        ++at;
      } else if (t_[at] == '"') {
        return at + 1;
      }
    }
    return t_.size();
  }
  // Past the value that starts at `at`.
  size_t SkipValue(size_t at) const {
    if (at >= t_.size()) return at;
    if (t_[at] == '"') return SkipString(at);
    if (t_[at] != '{' && t_[at] != '[') {
      while (at < t_.size() && std::string_view(",]} \t\r\n").find(t_[at]) == std::string::npos)
        ++at;
      return at;
    }
    int depth = 0;
    while (at < t_.size()) {
      const char c = t_[at];
      if (c == '"') {
        at = SkipString(at);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return at + 1;
      ++at;
    }
    return at;
  }
  // The string that opens at `at`, decoded.
  std::string StringAt(size_t at) const {
    const std::string_view raw = t_.substr(at, SkipString(at) - at);
    if (raw.find('\\') == std::string_view::npos) return std::string(raw.substr(1, raw.size() - 2));
    const Json decoded = Json::parse(raw, nullptr, /*allow_exceptions=*/false);
    return decoded.is_string() ? decoded.get<std::string>() : std::string();
  }
  char At(size_t at) const { return at < t_.size() ? t_[at] : '\0'; }

  // Where the member `key` of the object at `at` starts (its key), or npos.
  size_t FindMember(size_t at, const std::string& key) const {
    if (At(at) != '{') return std::string::npos;
    at = SkipSpace(at + 1);
    while (At(at) == '"') {
      const size_t key_at = at;
      const bool match = StringAt(at) == key;
      at = SkipSpace(SkipString(at));
      if (At(at) != ':') return std::string::npos;
      if (match) return key_at;
      at = SkipSpace(SkipValue(SkipSpace(at + 1)));
      if (At(at) != ',') return std::string::npos;
      at = SkipSpace(at + 1);
    }
    return std::string::npos;
  }
  // Where the member's value starts, given where its key does.
  size_t ValueOfMember(size_t key_at) const {
    const size_t colon = SkipSpace(SkipString(key_at));
    return SkipSpace(colon + 1);
  }
  // Where element `index` of the array at `at` starts, or npos.
  size_t FindElement(size_t at, size_t index) const {
    if (At(at) != '[') return std::string::npos;
    at = SkipSpace(at + 1);
    for (size_t i = 0; At(at) != ']' && at < t_.size(); ++i) {
      if (i == index) return at;
      at = SkipSpace(SkipValue(at));
      if (At(at) != ',') return std::string::npos;
      at = SkipSpace(at + 1);
    }
    return std::string::npos;
  }

 private:
  std::string_view t_;
};

}  // namespace

Expected<JsonDocument> ParseJsonDocument(std::string text, const std::string& file) {
  JsonDocument doc;
  doc.file = file;
  PositionedDomParser parser(doc.root);
  Json::sax_parse(text, &parser, nlohmann::detail::input_format_t::json, /*strict=*/true);
  if (parser.failed) {
    InputError e;
    e.file = file;
    // The library counts bytes from 1 and points at the byte it could not use.
    const size_t byte = parser.byte == 0 ? 0 : std::min<size_t>(parser.byte - 1, text.size());
    e.line = LineAt(text, byte);
    if (parser.overflow) {
      e.message = Quote(parser.last_token) + " is out of range for a number";
      e.hint = "JSON numbers knobsim reads are doubles: at most about 1.8e308 in size";
      return e;
    }
    e.message =
        "invalid JSON at byte " + std::to_string(parser.byte) + ": " + PlainMessage(parser.message);
    if (byte >= text.size()) e.hint = "the file ends early: is it complete?";
    return e;
  }
  doc.text = std::move(text);
  return doc;
}

Expected<JsonDocument> ReadJsonDocument(const std::string& path) {
  Expected<std::string> text = ReadFileText(path);
  // This reader has always said "cannot read file: <reason>"; the reason is ReadFileText's.
  if (!text) return ReadErrorAs(text.error(), "file");
  return ParseJsonDocument(std::move(*text), path);
}

int JsonLineOf(std::string_view text, std::string_view path) {
  const ValidJsonScanner scan(text);
  size_t at = scan.SkipSpace(0);
  if (scan.At(at) != '{' && scan.At(at) != '[') return 0;
  int line = LineAt(text, at);
  for (const PathPart& part : SplitPath(path)) {
    if (const auto* key = std::get_if<std::string>(&part)) {
      const size_t key_at = scan.FindMember(at, *key);
      if (key_at == std::string::npos) break;
      line = LineAt(text, key_at);
      at = scan.ValueOfMember(key_at);
    } else {
      const size_t element = scan.FindElement(at, std::get<size_t>(part));
      if (element == std::string::npos) break;
      line = LineAt(text, element);
      at = element;
    }
  }
  return line;
}

InputError WithJsonLine(InputError error, const JsonDocument& doc) {
  if (error.line == 0 && !error.path.empty() && error.file == doc.file)
    error.line = JsonLineOf(doc.text, error.path);
  return error;
}

std::string JsonField::Child(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void JsonField::Fail(const std::string& message, const std::string& hint) const {
  InputError e;
  e.file = *file_;
  e.path = path_;
  e.message = message;
  e.hint = hint;
  throw JsonFieldError{std::move(e)};
}

std::string JsonField::Shown() const {
  constexpr size_t kLongest = 40;
  std::string s = value_->dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > kLongest) s = s.substr(0, kLongest) + "…";
  return s;
}

void JsonField::Object() const {
  if (!value_->is_object()) Fail(Shown() + " is not an object");
}

JsonField JsonField::At(std::string_view key) const {
  Object();
  const auto it = value_->find(key);
  if (it == value_->end()) {
    JsonField missing(*value_, Child(key), *file_);
    missing.Fail("is missing");
  }
  return {*it, Child(key), *file_};
}

std::optional<JsonField> JsonField::Find(std::string_view key) const {
  Object();
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonField(*it, Child(key), *file_);
}

std::vector<JsonField> JsonField::Items() const {
  if (!value_->is_array()) Fail(Shown() + " is not an array");
  std::vector<JsonField> items;
  items.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i)
    items.emplace_back((*value_)[i], path_ + "[" + std::to_string(i) + "]", *file_);
  return items;
}

std::vector<std::pair<std::string, JsonField>> JsonField::Members() const {
  Object();
  std::vector<std::pair<std::string, JsonField>> members;
  for (auto it = value_->begin(); it != value_->end(); ++it)
    members.emplace_back(it.key(), JsonField(it.value(), Child(it.key()), *file_));
  return members;
}

std::string JsonField::String() const {
  if (!value_->is_string()) Fail(Shown() + " is not a string");
  return value_->get<std::string>();
}

bool JsonField::Bool() const {
  if (!value_->is_boolean()) Fail(Shown() + " is not true or false");
  return value_->get<bool>();
}

double JsonField::Number() const {
  if (!value_->is_number()) Fail(Shown() + " is not a number");
  return value_->get<double>();
}

int64_t JsonField::Integer(int64_t lo, int64_t hi) const {
  if (!value_->is_number_integer()) Fail(Shown() + " is not an integer");
  const bool too_large = value_->is_number_unsigned() &&
                         value_->get<uint64_t>() > static_cast<uint64_t>(hi < 0 ? 0 : hi);
  const int64_t x = too_large ? hi : value_->get<int64_t>();
  if (too_large || x < lo || x > hi) {
    Fail(Shown() + " is out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  }
  return x;
}

uint64_t JsonField::Unsigned() const {
  const bool ok =
      value_->is_number_unsigned() || (value_->is_number_integer() && value_->get<int64_t>() >= 0);
  if (!ok) Fail(Shown() + " is not a non-negative integer");
  return value_->get<uint64_t>();
}

std::optional<std::string> JsonField::StringOrNull() const {
  if (is_null()) return std::nullopt;
  if (!value_->is_string()) Fail(Shown() + " is neither a string nor null");
  return value_->get<std::string>();
}

std::optional<double> JsonField::NumberOrNull() const {
  if (is_null()) return std::nullopt;
  if (!value_->is_number()) Fail(Shown() + " is neither a number nor null");
  return value_->get<double>();
}

}  // namespace knobsim
