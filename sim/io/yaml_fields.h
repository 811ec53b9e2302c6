// YAML fields: the strict reading every yaml-cpp based reader shares (the scenario file, the
// price file).
//
// A reader walks the document as `Field`s: a node with its field path (`workloads[2].gpu_mem`)
// and the line to report. YamlFieldReader's helpers turn a field into a value or stop the read
// at the first bad one with an InputError naming the file, line and field, worded the same in
// every file: `expected a mapping, found "x"`, `unknown key; did you mean `replicas`?`,
// `"4GB" is not a quantity; did you mean 4Gi?`. The helpers throw, because unwinding is the
// shortest way out of a deep descent; Catch() turns the throw back into an Expected at the
// reader's edge, so nothing crosses a module line as an exception.
//
// LoadSingleYamlDocument parses the text: yaml-cpp's syntax errors with the line (and a hint
// for tabs), the guard against yaml-cpp 0.7 reading a stray `,` forever, and one document per
// file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/input_error.h"
#include "sim/quantity.h"

namespace knobsim {

// A value in the document: its node, its field path and the 1-based line to report (the line
// of its key, so an empty value still points at the right place).
struct Field {
  YAML::Node node;
  std::string path;  // empty for the document's root
  int line = 0;
};

// The node's 1-based line, or `fallback` when yaml-cpp knows none.
int LineOf(const YAML::Node& node, int fallback);

// How messages name a value: a scalar in quotes, else "a list", "a mapping" or "nothing".
std::string Describe(const YAML::Node& node);

// A number as messages show it: an ostream's default, six significant digits (`0.5`, `1e+12`).
std::string MessageNumber(double v);

// The names a field may take and what each means, in the order messages list them.
template <class E>
using EnumTable = std::initializer_list<std::pair<std::string_view, E>>;

// Reads fields of one file; every helper fails (throws) with an InputError naming that file.
// Readers derive from it to add their own sections and values.
class YamlFieldReader {
 public:
  explicit YamlFieldReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }

  // `read()`'s value, or the first failure raised inside it.
  template <class T, class Read>
  Expected<T> Catch(Read&& read) const;

  [[noreturn]] void Fail(const Field& f, std::string message, std::string hint = "") const;

  // A mapping checked against the keys it knows: an unknown key fails with a did-you-mean
  // hint, a duplicate key fails, and YAML merge keys (`<<`) are refused.
  class Section {
   public:
    Section(const YamlFieldReader& reader, const Field& field,
            std::initializer_list<std::string_view> known)
        : Section(reader, field, std::span<const std::string_view>(known.begin(), known.size())) {}
    Section(const YamlFieldReader& reader, const Field& field,
            std::span<const std::string_view> known);
    std::optional<Field> Get(std::string_view key) const;
    Field Require(std::string_view key) const;  // fails naming the key when it is absent
    bool Has(std::string_view key) const { return Get(key).has_value(); }

   private:
    const YamlFieldReader& reader_;
    Field field_;
    std::vector<std::pair<std::string, Field>> entries_;
  };

  // Collections. Entries checks keys are plain strings given once, not which keys.
  std::vector<std::pair<std::string, Field>> Entries(const Field& f) const;
  std::vector<Field> Items(const Field& f) const;
  // A string-to-string map (labels, node selectors); an empty value is a valid label value.
  std::map<std::string, std::string> StringMap(const Field& f) const;
  std::vector<std::string> StringList(const Field& f) const;  // of non-empty strings
  // The entry `key` of the mapping `map`, or `map` itself when it has none (to point an error
  // about a derived value at its line).
  Field EntryOf(const Field& map, std::string_view key) const;

  // Scalars. `what` names the expected kind in messages ("expected a duration, found a list").
  std::string Scalar(const Field& f, std::string_view what) const;
  std::string String(const Field& f) const { return Scalar(f, "a string"); }
  std::string NonEmptyString(const Field& f) const;
  // A whole number in [lo, hi].
  int64_t Integer(const Field& f, int64_t lo, int64_t hi, std::string_view hint = "") const;
  int Int(const Field& f, int lo, int hi = std::numeric_limits<int>::max(),
          std::string_view hint = "") const {
    return static_cast<int>(Integer(f, lo, hi, hint));
  }
  // A finite number between lo and hi, each bound open or closed; hi may be INFINITY.
  double Number(const Field& f, double lo, double hi, bool lo_open, bool hi_open,
                std::string_view hint = "") const;
  // A value with a unit, read by one of the parsers of sim/quantity.h.
  template <class T>
  T Unit(const Field& f, Parsed<T> (*parse)(std::string_view), std::string_view what) const {
    Parsed<T> p = parse(Scalar(f, what));
    if (!p.ok()) Fail(f, p.error, p.hint);
    return *p.value;
  }
  int64_t Duration(const Field& f) const { return Unit(f, &ParseDuration, "a duration"); }
  // `true` or `false`, exactly.
  bool Bool(const Field& f) const;
  // One of the table's names, exactly as written; `what` names the kind ("taint effect").
  template <class E>
  E Enum(const Field& f, std::string_view what, EnumTable<E> table) const;
  // One of `names`, exactly as written, where the value is the name itself.
  std::string OneOf(const Field& f, std::string_view what,
                    std::span<const std::string_view> names) const;

 private:
  struct Failure {  // thrown by Fail, caught by Catch
    InputError error;
  };
  [[noreturn]] void FailNotOneOf(const Field& f, const std::string& text, std::string_view what,
                                 const std::vector<std::string>& names) const;
  static InputError Surprise(const std::string& file, const YAML::Exception& e);

  std::string file_;
};

// How LoadSingleYamlDocument words the errors about what a file of one kind holds.
struct YamlFileKind {
  std::string_view name;                  // "scenario": "...; a scenario file holds one"
  std::string_view second_document_hint;  // may be empty
  // A second document is reported at its `---` line rather than at its first value. The
  // scenario and price readers chose differently and their messages are pinned by tests.
  bool second_document_at_separator = false;
};

// The first YAML document of `text`; a null node when it has none (an empty file), for the
// reader to say what the file should hold. Errors name `file`: a syntax error at yaml-cpp's
// line ("invalid YAML: ..."), a document that cannot start (a line starting with `,`, which
// yaml-cpp 0.7 would otherwise read as empty documents forever), a second document with
// content (empty ones are harmless).
Expected<YAML::Node> LoadSingleYamlDocument(const std::string& text, const std::string& file,
                                            const YamlFileKind& kind);

// ---- Implementation details ----------------------------------------------------------------

template <class T, class Read>
Expected<T> YamlFieldReader::Catch(Read&& read) const {
  try {
    return read();
  } catch (const Failure& f) {
    return f.error;
  } catch (const YAML::Exception& e) {  // a yaml-cpp surprise still names the place
    return Surprise(file_, e);
  }
}

template <class E>
E YamlFieldReader::Enum(const Field& f, std::string_view what, EnumTable<E> table) const {
  const std::string text = Scalar(f, "a " + std::string(what));
  std::vector<std::string> names;
  for (const auto& [name, value] : table) {
    if (text == name) return value;
    names.emplace_back(name);
  }
  FailNotOneOf(f, text, what, names);
}

}  // namespace knobsim
