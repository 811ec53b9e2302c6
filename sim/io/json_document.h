// The one JSON reading rule of every document knobsim reads back (results, plan and shard
// documents; docs/results.md "Reading a document back"):
//
// - ReadJsonDocument / ParseJsonDocument: the file as a tree, or an InputError naming the file
//   and the line where the JSON stops making sense — a number JSON can write but a double cannot
//   hold (1e400) included, never the library's own exception text.
// - JsonField: a value inside that tree and its field path ("variants[0].workloads[2].errors"),
//   with typed getters that accept exactly one JSON type each (a string "5000" is not a number,
//   2.5 is not an integer, an integer outside the field's range is refused) and throw
//   JsonFieldError naming the path and the value found.
// - CheckJson / ReadJson run a reader over the whole document and turn the first JsonFieldError
//   into an InputError with the line of the field (JsonLineOf), so that every reader words its
//   messages alike: "base.json:12: variants[0].workloads[0].latency_ms.p99: "x" is not a number".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"

namespace knobsim {

struct JsonDocument {
  std::string file;  // as the user named it, for messages
  std::string text;  // the bytes as read: lines of errors found after parsing are looked up here
  nlohmann::ordered_json root;  // keys in the file's order: written again, it is unchanged
};

Expected<JsonDocument> ReadJsonDocument(const std::string& path);

// The same for text already in memory; `file` names it in messages.
Expected<JsonDocument> ParseJsonDocument(std::string text, const std::string& file);

// The 1-based line of the value at `path` (written as JsonField writes paths: keys joined by
// ".", elements as "[i]") in the JSON `text`: of the key for a member, of the value's first
// character for an element. When the path is not all there, the line of its deepest part that
// is (a missing member: its object's); 0 when `text` is not an object or array at all.
int JsonLineOf(std::string_view text, std::string_view path);

// `error` with its line looked up in `doc` (when it names a path and no line yet).
InputError WithJsonLine(InputError error, const JsonDocument& doc);

// Why a JsonField getter refused a value; CheckJson and ReadJson return it.
struct JsonFieldError {
  InputError error;
};

class JsonField {
 public:
  using Json = nlohmann::ordered_json;

  // `value` at `path` ("" for the root) of the document read from `file`. Both referenced, not
  // copied: the field lives no longer than its document.
  JsonField(const Json& value, std::string path, const std::string& file)
      : value_(&value), path_(std::move(path)), file_(&file) {}
  static JsonField Root(const JsonDocument& doc) { return {doc.root, "", doc.file}; }

  const Json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return *file_; }
  bool is_null() const { return value_->is_null(); }

  // The member `key` of this object: refused when this is not an object or the key is absent.
  JsonField At(std::string_view key) const;
  // The member when present (this must be an object), nullopt when absent.
  std::optional<JsonField> Find(std::string_view key) const;
  // The elements of this array, in order, each with its path.
  std::vector<JsonField> Items() const;
  // The members of this object, in order, with their keys.
  std::vector<std::pair<std::string, JsonField>> Members() const;

  // This value as one type, or JsonFieldError. Numbers are finite (the parser refused the rest).
  void Object() const;
  std::string String() const;
  bool Bool() const;
  double Number() const;  // an integer or a decimal
  int64_t Integer(int64_t lo = std::numeric_limits<int64_t>::min(),
                  int64_t hi = std::numeric_limits<int64_t>::max()) const;
  uint64_t Unsigned() const;  // any integer >= 0, up to 2^64 - 1
  // null (JSON's "unknown", docs/results.md) as nullopt, else the type above.
  std::optional<std::string> StringOrNull() const;
  std::optional<double> NumberOrNull() const;

  // Throws JsonFieldError at this field: "<shown value> <what>" is the usual message.
  [[noreturn]] void Fail(const std::string& message, const std::string& hint = "") const;
  // The value as a message shows it: compact JSON, cut to a few dozen characters.
  std::string Shown() const;

 private:
  std::string Child(std::string_view key) const;

  const Json* value_;
  std::string path_;
  const std::string* file_;
};

// Runs `check(JsonField::Root(doc))`: ok, or its first JsonFieldError with the field's line.
template <class F>
Status CheckJson(const JsonDocument& doc, F check) {
  try {
    check(JsonField::Root(doc));
    return Status::Ok();
  } catch (const JsonFieldError& bad) {
    return WithJsonLine(bad.error, doc);
  }
}

// The same for a reader that makes a value.
template <class T, class F>
Expected<T> ReadJson(const JsonDocument& doc, F read) {
  try {
    return read(JsonField::Root(doc));
  } catch (const JsonFieldError& bad) {
    return WithJsonLine(bad.error, doc);
  }
}

}  // namespace knobsim
