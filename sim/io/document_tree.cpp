#include "sim/io/document_tree.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <istream>
#include <limits>
#include <optional>
#include <sstream>
#include <streambuf>
#include <unordered_map>
#include <utility>

#include "sim/io/json_lexing.h"
#include "sim/io/utf8.h"
#include "sim/io/yaml_block.h"
#include "sim/io/yaml_tags.h"

namespace knobsim {
namespace {

// A syntax error: where and what, never the text around it (it may be a secret).
struct SyntaxFailure {
  int line = 0;
  std::string message;
  std::string hint;
};

// RFC 8259 JSON into a DocumentTree, one document after another (`kubectl get -o json` output
// appended from several commands is still readable). Lines are counted as the text is scanned, so
// each value knows where it starts.
class JsonParser {
 public:
  JsonParser(std::string_view text, DocumentTree& tree, int first_line)
      : s_(text), tree_(tree), line_(first_line) {}

  void Parse() {
    // kubectl's JSON has a value every ~18 bytes; a small over-reservation saves the copies.
    tree_.Reserve(s_.size() / 16 + 16);
    SkipBom();
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size()) break;
      tree_.AddDocument(Value(0));
    }
  }

 private:
  [[noreturn]] void Fail(std::string message, std::string hint = "") const {
    throw SyntaxFailure{line_, fmt::format("invalid JSON: {}", message), std::move(hint)};
  }
  // What stands at the error, described without quoting the text.
  std::string Found() const {
    if (pos_ >= s_.size()) return "the end of the text";
    const char c = s_[pos_];
    if (c == '"') return "a string";
    if (c == '{') return "`{`";
    if (c == '[') return "`[`";
    if (c >= 0x21 && c < 0x7f) return fmt::format("`{}`", s_[pos_]);
    return "an unexpected byte";
  }
  void SkipBom() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }
  void SkipSpace() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++pos_;
    }
  }
  void ExpectMore(std::string_view inside) const {
    if (pos_ >= s_.size()) {
      Fail(fmt::format("the text ends inside {}", inside), "the file may have been cut short");
    }
  }

  uint32_t Value(int depth) {
    SkipSpace();
    ExpectMore("a value");
    const char c = s_[pos_];
    if (c == '{') return Object(depth + 1);
    if (c == '[') return Array(depth + 1);
    if (c == '"') return String();
    if (c == '-' || (c >= '0' && c <= '9')) return Number();
    for (std::string_view literal : {"true", "false", "null"}) {
      if (s_.substr(pos_, literal.size()) == literal) {
        const size_t at = pos_;
        pos_ += literal.size();
        if (literal == "null") return tree_.Add(NodeKind::kNull, line_);
        return tree_.AddView(line_, at, literal.size());
      }
    }
    Fail(fmt::format("expected a value, found {}", Found()),
         "strings are written in double quotes; true, false and null in lower case");
  }

  uint32_t Object(int depth) {
    if (depth > kMaxDocumentDepth) Fail(fmt::format("nested more than {} deep", kMaxDocumentDepth));
    const uint32_t node = tree_.Add(NodeKind::kMap, line_);
    ++pos_;
    const size_t first = scratch_.size();
    SkipSpace();
    ExpectMore("an object");
    if (s_[pos_] == '}') {
      ++pos_;
    } else {
      while (true) {
        SkipSpace();
        ExpectMore("an object");
        if (s_[pos_] != '"') {
          Fail(fmt::format("expected a key in double quotes, found {}", Found()),
               s_[pos_] == '}' ? "JSON allows no comma before `}`" : "");
        }
        scratch_.push_back(String());
        SkipSpace();
        ExpectMore("an object");
        if (s_[pos_] != ':') Fail(fmt::format("expected `:` after the key, found {}", Found()));
        ++pos_;
        scratch_.push_back(Value(depth));
        SkipSpace();
        ExpectMore("an object");
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] == '}') {
          ++pos_;
          break;
        }
        Fail(fmt::format("expected `,` or `}}`, found {}", Found()),
             s_[pos_] == '"' ? "a comma is probably missing before it" : "");
      }
    }
    tree_.SetChildren(node, scratch_, first);
    return node;
  }

  uint32_t Array(int depth) {
    if (depth > kMaxDocumentDepth) Fail(fmt::format("nested more than {} deep", kMaxDocumentDepth));
    const uint32_t node = tree_.Add(NodeKind::kSequence, line_);
    ++pos_;
    const size_t first = scratch_.size();
    SkipSpace();
    ExpectMore("a list");
    if (s_[pos_] == ']') {
      ++pos_;
    } else {
      while (true) {
        SkipSpace();
        ExpectMore("a list");
        if (s_[pos_] == ']') Fail("expected a value, found `]`", "JSON allows no comma before `]`");
        scratch_.push_back(Value(depth));
        SkipSpace();
        ExpectMore("a list");
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] == ']') {
          ++pos_;
          break;
        }
        Fail(fmt::format("expected `,` or `]`, found {}", Found()),
             s_[pos_] == '"' || s_[pos_] == '{' ? "a comma is probably missing before it" : "");
      }
    }
    tree_.SetChildren(node, scratch_, first);
    return node;
  }

  uint32_t String() {
    ++pos_;  // the opening quote
    const size_t start = pos_;
    // The common case: no escape, a view into the text.
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return tree_.AddView(line_, start, pos_ - 1 - start);
      }
      if (c == '\\') break;
      if (static_cast<unsigned char>(c) < 0x20) BadControl(c);
      ++pos_;
    }
    ExpectMore("a string");
    // Escapes: decode into the tree's own buffer.
    std::string& out = tree_.strings();
    const size_t begin = out.size();
    out.append(s_.substr(start, pos_ - start));
    while (true) {
      ExpectMore("a string");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        break;
      }
      if (static_cast<unsigned char>(c) < 0x20) BadControl(c);
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      ++pos_;
      ExpectMore("a string");
      const char e = s_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u':
          AppendUtf8(out, CodePoint());
          break;
        default:
          Fail("an unknown escape in a string", "escape a backslash as \\\\");
      }
    }
    return tree_.AddOwnedAt(line_, begin, out.size() - begin);
  }

  [[noreturn]] void BadControl(char c) const {
    if (c == '\n')
      Fail("a line break inside a string", "JSON strings cannot span lines; write \\n");
    Fail("a control character inside a string", "escape it, e.g. \\t or \\u0001");
  }

  // A \u escape (json_lexing.h), the cursor past `\u`.
  uint32_t CodePoint() {
    uint32_t code_point = 0;
    if (!ReadJsonCodePoint(s_, pos_, code_point)) Fail("a \\u escape needs four hex digits");
    return code_point;
  }

  // A number (json_lexing.h), kept as written (the readers parse it). A leading zero followed
  // by a digit (`01`) is no JSON number.
  uint32_t Number() {
    const size_t start = pos_;
    const JsonNumberScan scan = ScanJsonNumber(s_, pos_);
    pos_ = scan.end;
    if (scan.error != JsonNumberError::kNone ||
        (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')) {
      Fail("invalid number");
    }
    return tree_.AddView(line_, start, pos_ - start);
  }

  std::string_view s_;
  DocumentTree& tree_;
  size_t pos_ = 0;
  int line_ = 1;
  std::vector<uint32_t> scratch_;  // children of the containers being read, innermost last
};

// yaml-cpp's parse events straight into the tree, without yaml-cpp's own node graph (1.6 GB
// for a 40 MB export). An alias shares its anchor's node instead of copying it, so aliases of
// aliases cannot blow the tree up; an alias inside the node it names would make a cycle, and
// is an error.
class YamlBuilder : public YAML::EventHandler {
 public:
  YamlBuilder(DocumentTree& tree, int first_line) : tree_(tree), first_line_(first_line) {}

  // yaml-cpp 0.7 never consumes a `,` where a document should start (a stray `,` at the top
  // level, `- a\n,`): it reports an empty document there, and again, forever. Every real
  // document starts past the one before it, so one that does not is that token.
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (documents_ > 0 && mark.pos <= last_document_pos_) {
      throw SyntaxFailure{Line(mark), "invalid YAML: a document cannot start here",
                          "a `,` outside [...] or {...}?"};
    }
    ++documents_;
    last_document_pos_ = mark.pos;
    anchors_.clear();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Emit(tree_.Add(NodeKind::kNull, Line(mark)), anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (anchor >= anchors_.size() || anchors_[anchor] == kNone) {
      throw SyntaxFailure{Line(mark), "invalid YAML: an alias names no anchor", ""};
    }
    const uint32_t node = anchors_[anchor];
    for (const Open& o : open_) {
      if (o.node == node) {
        throw SyntaxFailure{Line(mark), "invalid YAML: an alias inside the node it names",
                            "a node cannot contain itself"};
      }
    }
    Emit(node, 0);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    CheckTag(mark, tag, YamlShape::kScalar, value);
    Emit(tree_.AddOwned(Line(mark), value), anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    CheckTag(mark, tag, YamlShape::kSequence, "");
    Start(NodeKind::kSequence, mark, anchor);
  }
  void OnSequenceEnd() override { End(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    CheckTag(mark, tag, YamlShape::kMap, "");
    Start(NodeKind::kMap, mark, anchor);
  }
  void OnMapEnd() override { End(); }

 private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  struct Open {
    uint32_t node;
    size_t first;  // its first child in scratch_
  };

  int Line(const YAML::Mark& mark) const { return mark.line >= 0 ? mark.line + first_line_ : 0; }
  void CheckTag(const YAML::Mark& mark, const std::string& tag, YamlShape shape,
                std::string_view value) const {
    if (Status checked = CheckYamlTag(tag, shape, value); !checked) {
      throw SyntaxFailure{Line(mark), checked.error().message, std::string(kYamlTagHint)};
    }
  }
  void Anchor(YAML::anchor_t anchor, uint32_t node) {
    if (anchor == 0) return;  // yaml-cpp's NullAnchor
    if (anchors_.size() <= anchor) anchors_.resize(anchor + 1, kNone);
    anchors_[anchor] = node;
  }
  void Start(NodeKind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (open_.size() >= static_cast<size_t>(kMaxDocumentDepth)) {
      throw SyntaxFailure{Line(mark), fmt::format("nested more than {} deep", kMaxDocumentDepth),
                          ""};
    }
    const uint32_t node = tree_.Add(kind, Line(mark));
    Anchor(anchor, node);
    open_.push_back(Open{node, scratch_.size()});
  }
  void End() {
    const Open o = open_.back();
    open_.pop_back();
    tree_.SetChildren(o.node, scratch_, o.first);
    Emit(o.node, 0);
  }
  void Emit(uint32_t node, YAML::anchor_t anchor) {
    Anchor(anchor, node);
    if (open_.empty()) {
      tree_.AddDocument(node);
    } else {
      scratch_.push_back(node);
    }
  }

  DocumentTree& tree_;
  int first_line_;  // the line of the text's first line (a unit of a streamed file)
  std::vector<Open> open_;
  std::vector<uint32_t> scratch_;
  std::vector<uint32_t> anchors_;  // anchor id (per document) -> node
  int documents_ = 0;
  int last_document_pos_ = 0;  // where the last document started (yaml-cpp's Mark::pos)
};

// A read-only stream over text we already hold, so yaml-cpp reads it without a copy.
class TextBuffer : public std::streambuf {
 public:
  explicit TextBuffer(const std::string& text) {
    char* begin = const_cast<char*>(text.data());  // get area only: never written
    setg(begin, begin, begin + text.size());
  }
};

// yaml-cpp's message plus, for the commonest cause, what to do about it.
InputError SyntaxError(const std::string& file, const std::string& text, const YAML::Mark& mark,
                       const std::string& message, int first_line) {
  InputError e{file, mark.line >= 0 ? mark.line + first_line : 0, "",
               fmt::format("invalid YAML: {}", message), ""};
  std::istringstream lines(text);
  std::string line;
  for (int i = 0; i <= mark.line && std::getline(lines, line); ++i) {
  }
  if (mark.line >= 0 && line.find('\t') != std::string::npos) {
    e.hint = "indent with spaces; YAML does not allow tabs";
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    e.message = fmt::format("invalid JSON: {}", message);
  }
  return e;
}

}  // namespace

void DocumentTree::DropDuplicateKeys(std::vector<uint32_t>& scratch, size_t first) {
  const size_t pairs = (scratch.size() - first) / 2;
  if (pairs < 2) return;
  // A dropped pair's key slot holds kDropped until the pairs are compacted at the end; nothing
  // is allocated for the (nearly all) maps without a duplicate and at most 8 keys.
  constexpr uint32_t kDropped = std::numeric_limits<uint32_t>::max();
  auto key_of = [&](size_t i) -> std::optional<std::string_view> {
    const uint32_t slot = scratch[first + 2 * i];
    if (slot == kDropped || nodes_[slot].kind != NodeKind::kScalar) return std::nullopt;
    return Scalar(nodes_[slot]);  // a YAML complex key is never a field: not compared
  };
  // Where each key was first seen; a linear scan for the few keys of most objects, a hash for
  // the rest (a hostile map of a million keys stays linear in its size).
  std::unordered_map<std::string_view, size_t> index;
  bool any = false;
  for (size_t i = 0; i < pairs; ++i) {
    const std::optional<std::string_view> key = key_of(i);
    if (!key) continue;
    std::optional<size_t> earlier;
    if (pairs <= 8) {
      for (size_t j = 0; j < i && !earlier; ++j) {
        if (key_of(j) == key) earlier = j;
      }
    } else if (auto [it, added] = index.try_emplace(*key, i); !added) {
      earlier = it->second;
    }
    if (!earlier) continue;
    duplicate_keys_.push_back(DuplicateKey{std::string(*key), nodes_[scratch[first + 2 * i]].line,
                                           nodes_[scratch[first + 2 * *earlier]].line});
    scratch[first + 2 * *earlier + 1] = scratch[first + 2 * i + 1];  // the last value wins
    scratch[first + 2 * i] = kDropped;
    any = true;
  }
  if (!any) return;
  size_t out = first;
  for (size_t i = 0; i < pairs; ++i) {
    if (scratch[first + 2 * i] == kDropped) continue;
    scratch[out++] = scratch[first + 2 * i];
    scratch[out++] = scratch[first + 2 * i + 1];
  }
  scratch.resize(out);
}

namespace {

class Outliner {
 public:
  Outliner(const DocumentTree& tree, OutlineDetail detail)
      : tree_(tree), full_(detail == OutlineDetail::kFull) {}

  std::string Outline() {
    for (uint32_t root : tree_.documents()) {
      out_ += "---\n";
      Node(root, 0);
    }
    for (const DocumentTree::DuplicateKey& d : tree_.duplicate_keys()) {
      out_ += fmt::format("duplicate {} at {} over {}\n", Escaped(d.key), d.line, d.first_line);
    }
    return std::move(out_);
  }

 private:
  static std::string Escaped(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') {
        out += fmt::format("\\x{:02x}", u);
      } else {
        out += c;
      }
    }
    return out + "\"";
  }
  void Node(uint32_t index, int depth) {
    const TreeNode& n = tree_.node(index);
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    std::string identity;
    if (full_) {
      out_ += fmt::format("{}: ", n.line);
      if (n.kind == NodeKind::kSequence || n.kind == NodeKind::kMap) {
        const auto [it, added] = seen_.try_emplace(index, seen_.size());
        if (!added) {
          out_ += fmt::format("*{}\n", it->second);
          return;
        }
        identity = fmt::format(" &{}", it->second);
      }
    }
    switch (n.kind) {
      case NodeKind::kNull:
        out_ += "null\n";
        return;
      case NodeKind::kScalar:
        out_ += Escaped(tree_.Scalar(n)) + "\n";
        return;
      case NodeKind::kSequence:
        out_ += "sequence" + identity + "\n";
        for (size_t i = 0; i < n.size; ++i) Node(tree_.ChildIndex(n, i), depth + 1);
        return;
      case NodeKind::kMap:
        out_ += "map" + identity + "\n";
        for (size_t i = 0; i < n.size; ++i) {
          Node(tree_.ChildIndex(n, 2 * i), depth + 1);
          Node(tree_.ChildIndex(n, 2 * i + 1), depth + 2);
        }
        return;
    }
  }

  const DocumentTree& tree_;
  bool full_;
  std::string out_;
  std::unordered_map<uint32_t, size_t> seen_;  // container node -> the order it was first shown
};

}  // namespace

std::string TreeOutline(const DocumentTree& tree, OutlineDetail detail) {
  return Outliner(tree, detail).Outline();
}

bool LooksLikeJson(std::string_view text) {
  size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  i = text.find_first_not_of(" \t\r\n", i);
  if (i == std::string_view::npos || (text[i] != '{' && text[i] != '[')) return false;
  while (i < text.size() && (text[i] == '{' || text[i] == '[' || text[i] == ' ' ||
                             text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) {
    ++i;
  }
  return i < text.size() && (text[i] == '"' || text[i] == '}' || text[i] == ']');
}

// The text as a tree: JSON by our parser, block YAML by yaml_block.h, anything else by yaml-cpp.
Status ParseDocumentTree(const std::string& text, const std::string& file, DocumentTree& tree,
                         int first_line) {
  // The tree's 32-bit offsets reach any byte of the text, and decoded text is never longer.
  if (text.size() >= std::numeric_limits<uint32_t>::max()) {
    return InputError{file, 0, "", "the file is larger than 4 GiB",
                      "split the export by namespace"};
  }
  try {
    if (LooksLikeJson(text)) {
      JsonParser(text, tree, first_line).Parse();
      return Status::Ok();
    }
  } catch (const SyntaxFailure& f) {
    return InputError{file, f.line, "", f.message, f.hint};
  }
  // kubectl's block YAML by the fast path; what it declines, and every error, by yaml-cpp.
  if (ReadBlockYaml(text, tree, first_line)) return Status::Ok();
  tree = DocumentTree(text);
  return ParseYamlWithYamlCpp(text, file, tree, first_line);
}

Status ParseYamlWithYamlCpp(const std::string& text, const std::string& file, DocumentTree& tree,
                            int first_line) {
  try {
    TextBuffer buffer(text);
    std::istream stream(&buffer);
    YAML::Parser parser(stream);
    YamlBuilder builder(tree, first_line);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const SyntaxFailure& f) {
    return InputError{file, f.line, "", f.message, f.hint};
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own guard; its message says "bad file"
    return InputError{file, e.mark.line >= 0 ? e.mark.line + first_line : 0, "",
                      "invalid YAML: nested too deep", "no Kubernetes object nests this far"};
  } catch (const YAML::Exception& e) {
    return SyntaxError(file, text, e.mark, e.msg, first_line);
  }
  return Status::Ok();
}

}  // namespace knobsim
