#include "sim/io/yaml_fields.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>
#include <utility>

#include "sim/io/spelling.h"
#include "sim/io/yaml_tags.h"
#include "sim/text.h"

namespace knobsim {
int LineOf(const YAML::Node& node, int fallback) {
  const int line = node.Mark().line;
  return line >= 0 ? line + 1 : fallback;
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return Quote(node.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

// Appends rather than concatenates: GCC 12 warns falsely (-Wrestrict, PR 105651) on
// `"\"" + std::string(text)` at -O3.

std::string MessageNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// ---- Failures --------------------------------------------------------------------------------

void YamlFieldReader::Fail(const Field& f, std::string message, std::string hint) const {
  throw Failure{InputError{file_, f.line, f.path, std::move(message), std::move(hint)}};
}

void YamlFieldReader::FailNotOneOf(const Field& f, const std::string& text, std::string_view what,
                                   const std::vector<std::string>& names) const {
  Fail(f, Quote(text) + " is not a valid " + std::string(what),
       SuggestName(text, names, "use one of"));
}

std::string YamlFieldReader::OneOf(const Field& f, std::string_view what,
                                   std::span<const std::string_view> names) const {
  std::string text = Scalar(f, "a " + std::string(what));
  if (std::find(names.begin(), names.end(), text) != names.end()) return text;
  FailNotOneOf(f, text, what, std::vector<std::string>(names.begin(), names.end()));
}

InputError YamlFieldReader::Surprise(const std::string& file, const YAML::Exception& e) {
  return InputError{file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "invalid YAML: " + e.msg, ""};
}

// ---- Collections -----------------------------------------------------------------------------

std::vector<std::pair<std::string, Field>> YamlFieldReader::Entries(const Field& f) const {
  if (!f.node.IsMap()) Fail(f, "expected a mapping, found " + Describe(f.node));
  std::vector<std::pair<std::string, Field>> entries;
  for (const auto& kv : f.node) {
    const int line = LineOf(kv.first, f.line);
    if (!kv.first.IsScalar()) {
      Fail(Field{kv.first, f.path, line},
           "keys must be plain strings, found " + Describe(kv.first));
    }
    const std::string key = kv.first.Scalar();
    Field value{kv.second, f.path.empty() ? key : f.path + "." + key, line};
    for (const auto& [seen, unused] : entries) {
      if (seen == key) Fail(value, "duplicate key", "each key may appear once in a mapping");
    }
    entries.emplace_back(key, std::move(value));
  }
  return entries;
}

std::vector<Field> YamlFieldReader::Items(const Field& f) const {
  if (!f.node.IsSequence()) {
    Fail(f, "expected a list, found " + Describe(f.node),
         f.node.IsMap() ? "start each list item with `- `" : "");
  }
  std::vector<Field> items;
  for (size_t i = 0; i < f.node.size(); ++i) {
    const YAML::Node item = f.node[i];
    items.push_back(Field{item, f.path + "[" + std::to_string(i) + "]", LineOf(item, f.line)});
  }
  return items;
}

std::map<std::string, std::string> YamlFieldReader::StringMap(const Field& f) const {
  std::map<std::string, std::string> map;
  for (const auto& [key, value] : Entries(f)) {
    map[key] = value.node.IsNull() ? "" : Scalar(value, "a string");
  }
  return map;
}

std::vector<std::string> YamlFieldReader::StringList(const Field& f) const {
  std::vector<std::string> out;
  for (const Field& item : Items(f)) out.push_back(NonEmptyString(item));
  return out;
}

Field YamlFieldReader::EntryOf(const Field& map, std::string_view key) const {
  for (auto& [k, value] : Entries(map)) {
    if (k == key) return value;
  }
  return map;
}

YamlFieldReader::Section::Section(const YamlFieldReader& reader, const Field& field,
                                  std::span<const std::string_view> known)
    : reader_(reader), field_(field), entries_(reader.Entries(field)) {
  for (const auto& [key, value] : entries_) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::vector<std::string> names(known.begin(), known.end());
    std::string hint = key == "<<" ? "YAML merge keys (<<) are not supported"
                                   : SuggestName(key, names, "known keys:");
    reader_.Fail(value, "unknown key", hint);
  }
}

std::optional<Field> YamlFieldReader::Section::Get(std::string_view key) const {
  for (const auto& [k, value] : entries_) {
    if (k == key) return value;
  }
  return std::nullopt;
}

Field YamlFieldReader::Section::Require(std::string_view key) const {
  if (auto f = Get(key)) return *f;
  reader_.Fail(field_, "missing required key `" + std::string(key) + "`");
}

// ---- Scalars ---------------------------------------------------------------------------------

std::string YamlFieldReader::Scalar(const Field& f, std::string_view what) const {
  if (!f.node.IsScalar()) {
    Fail(f, "expected " + std::string(what) + ", found " + Describe(f.node));
  }
  return f.node.Scalar();
}

std::string YamlFieldReader::NonEmptyString(const Field& f) const {
  std::string s = String(f);
  if (s.empty()) Fail(f, "must not be empty");
  return s;
}

bool YamlFieldReader::Bool(const Field& f) const {
  return Enum<bool>(f, "true or false", {{"true", true}, {"false", false}});
}

int64_t YamlFieldReader::Integer(const Field& f, int64_t lo, int64_t hi,
                                 std::string_view hint) const {
  const std::string text = Scalar(f, "a whole number");
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    Fail(f, Quote(text) + " is not a whole number", std::string(hint));
  }
  // Bounds that are only there to fit an int read as "too large", not as a range to aim for.
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  const std::string range = " is not in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (v < lo) {
    Fail(f,
         text + (lo == 0         ? " is negative"
                 : hi >= kIntMax ? " is less than " + std::to_string(lo)
                                 : range),
         std::string(hint));
  }
  if (v > hi) Fail(f, text + (hi >= kIntMax ? " is too large" : range), std::string(hint));
  return v;
}

double YamlFieldReader::Number(const Field& f, double lo, double hi, bool lo_open, bool hi_open,
                               std::string_view hint) const {
  const std::string text = Scalar(f, "a number");
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    Fail(f, Quote(text) + " is not a number", std::string(hint));
  }
  const bool below = lo_open ? v <= lo : v < lo;
  const bool above = hi_open ? v >= hi : v > hi;
  if (below || above) {
    std::string message;
    if (std::isinf(hi)) {
      message = text + (lo_open ? " is not positive" : " is negative");
      if (lo != 0) message = text + " is less than " + MessageNumber(lo);
    } else {
      message = text + " is not in " + (lo_open ? "(" : "[") + MessageNumber(lo) + ", " +
                MessageNumber(hi) + (hi_open ? ")" : "]");
    }
    Fail(f, message, std::string(hint));
  }
  return v;
}

// ---- Loading ---------------------------------------------------------------------------------

namespace {

// yaml-cpp 0.7 never consumes a `,` where a document should start (a line that begins with
// one, outside any [...] or {...}): it answers an empty document there, and again, forever, so
// YAML::LoadAll never returns. Every real document starts past the one before it; this pass
// over the parse events finds the one that does not before LoadAll is let loose on the text.
// It also keeps where each document starts, for messages about a second one.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  // The mark of the document that starts where the one before it did.
  std::optional<YAML::Mark> stuck;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (!starts.empty() && mark.pos <= starts.back().pos) {
      stuck = mark;
      throw Stop{};
    }
    starts.push_back(mark);
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                const std::string& value) override {
    CheckTag(mark, tag, YamlShape::kScalar, value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    CheckTag(mark, tag, YamlShape::kSequence, "");
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    CheckTag(mark, tag, YamlShape::kMap, "");
  }
  void OnMapEnd() override {}

  // The first value whose tag is refused (yaml_tags.h), and why.
  std::optional<std::pair<YAML::Mark, std::string>> refused_tag;

  struct Stop {};

 private:
  void CheckTag(const YAML::Mark& mark, const std::string& tag, YamlShape shape,
                std::string_view value) {
    if (Status checked = CheckYamlTag(tag, shape, value); !checked) {
      refused_tag.emplace(mark, checked.error().message);
      throw Stop{};
    }
  }
};

// Where each document of `text` starts, and where yaml-cpp would read it forever, if it would;
// syntax errors are left to LoadAll.
DocumentStarts ScanDocuments(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts scan;
  try {
    while (parser.HandleNextDocument(scan)) {
    }
  } catch (const DocumentStarts::Stop&) {
  } catch (const YAML::Exception&) {
  }
  return scan;
}

// "a scenario", "an overlay".
std::string WithArticle(std::string_view noun) {
  const bool vowel =
      !noun.empty() && std::string_view("aeiou").find(noun[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(noun);
}

// yaml-cpp's message plus, for the commonest cause, what to do about it.
InputError SyntaxError(const std::string& file, const std::string& text, const YAML::Mark& mark,
                       const std::string& message) {
  InputError e{file, mark.line >= 0 ? mark.line + 1 : 0, "", "invalid YAML: " + message, ""};
  std::istringstream lines(text);
  std::string line;
  for (int i = 0; i <= mark.line && std::getline(lines, line); ++i) {
  }
  if (mark.line >= 0 && line.find('\t') != std::string::npos) {
    e.hint = "indent with spaces; YAML does not allow tabs";
  }
  return e;
}

}  // namespace

Expected<YAML::Node> LoadSingleYamlDocument(const std::string& text, const std::string& file,
                                            const YamlFileKind& kind) {
  const DocumentStarts scan = ScanDocuments(text);
  if (scan.stuck) {
    return InputError{file, scan.stuck->line + 1, "", "invalid YAML: a document cannot start here",
                      "a `,` outside [...] or {...}?"};
  }
  if (scan.refused_tag) {
    return InputError{file, scan.refused_tag->first.line + 1, "", scan.refused_tag->second,
                      std::string(kYamlTagHint)};
  }
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    return SyntaxError(file, text, e.mark, e.msg);
  }
  if (documents.empty() || documents[0].IsNull()) return YAML::Node();
  for (size_t i = 1; i < documents.size(); ++i) {
    if (documents[i].IsNull()) continue;
    // The scan saw every document LoadAll did: the same parser over the same text.
    const int line = kind.second_document_at_separator && i < scan.starts.size()
                         ? scan.starts[i].line + 1
                         : LineOf(documents[i], 0);
    return InputError{file, line, "",
                      "a second YAML document; " + WithArticle(kind.name) + " file holds one",
                      std::string(kind.second_document_hint)};
  }
  return documents[0];
}

}  // namespace knobsim
