#include "sim/io/yaml_block.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/io/utf8.h"

namespace knobsim {
namespace {

// Thrown where the text leaves the shape this reader takes; yaml-cpp reads it instead.
struct Declined {};

// Nesting the fast path reads; deeper goes to yaml-cpp, whose guard and ours word the error.
constexpr int kMaxFastDepth = 200;
// yaml-cpp takes `key:` as a simple key only within 1024 characters of the key's start.
constexpr size_t kMaxSimpleKey = 1024;

// yaml-cpp 0.7's IsNullString: the plain scalars its parser reports as null.
bool IsNullPlain(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// The parameters of yaml-cpp's ScanScalar (scanscalar.h), as its scanner sets them per kind.
enum class Fold { kNone, kBlock, kFlow };
enum class Chomp { kClip, kStrip, kKeep };
enum class ScalarEnd { kPlain, kDoubleQuote, kSingleQuote, kEndOfText };
enum class OnDocIndicator { kNone, kBreak, kDecline };

struct ScanParams {
  ScalarEnd end = ScalarEnd::kPlain;
  bool eat_end = false;
  int indent = 0;
  bool detect_indent = false;
  char escape = 0;
  Fold fold = Fold::kNone;
  bool eat_leading_whitespace = false;
  bool trim_trailing_spaces = false;
  Chomp chomp = Chomp::kClip;
  OnDocIndicator on_doc_indicator = OnDocIndicator::kNone;
  bool tab_in_indentation_declines = false;
  bool leading_spaces = false;  // out: the scalar ended at a less indented line
};

// ScanScalar's state from line to line.
struct ScanState {
  bool found_non_empty_line = false;
  bool past_opening_break = false;
  bool empty_line = false;
  bool more_indented = false;
  int folded_newline_count = 0;
  bool folded_newline_started_more_indented = false;
  size_t last_escaped_char = std::string::npos;
};

// One scalar (or `{}` / `[]`) as scanned, before it becomes a node: a map's node must come
// before its first key's, as yaml-cpp's events order them.
struct ScalarText {
  NodeKind kind = NodeKind::kScalar;  // kMap / kSequence for an empty flow collection
  int line = 0;
  bool plain = false;
  bool view = true;  // text is s_[begin, begin + size); otherwise `owned`
  size_t begin = 0;
  size_t size = 0;
  std::string owned;
  bool ended_by_indent = false;  // the cursor already stands at the next line's content
};

class BlockReader {
 public:
  BlockReader(std::string_view text, DocumentTree& tree, int first_line)
      : s_(text), tree_(tree), line_(first_line) {}

  void Read() {
    // kubectl's YAML has a value every ~12 bytes.
    tree_.Reserve(s_.size() / 12 + 16);
    CheckEncoding();
    NextContent();
    while (pos_ < s_.size()) {
      if (AtDocumentStart()) {
        pos_ += 3;
        EndOfLine();
        NextContent();
        // An empty document: yaml-cpp's marks for it are not worth copying.
        if (pos_ >= s_.size() || AtDocumentStart()) throw Declined{};
      }
      if (Column() == 0 && (s_[pos_] == '%' || (s_[pos_] == '.' && DocIndicatorAt(pos_)))) {
        throw Declined{};
      }
      tree_.AddDocument(Node(-1, 0));
      if (pos_ < s_.size() && !AtDocumentStart()) throw Declined{};
    }
  }

 private:
  // ---- The cursor ----------------------------------------------------------------------------

  bool AtEnd(size_t at) const { return at >= s_.size(); }
  char At(size_t at) const { return at < s_.size() ? s_[at] : '\0'; }
  int Column() const { return static_cast<int>(pos_ - line_start_); }
  // The length of the line break at `at` (LF or CRLF, as yaml-cpp's Exp::Break), 0 if none.
  size_t BreakAt(size_t at) const {
    if (at >= s_.size()) return 0;
    if (s_[at] == '\n') return 1;
    return s_[at] == '\r' && at + 1 < s_.size() && s_[at + 1] == '\n' ? 2 : 0;
  }
  bool BlankAt(size_t at) const { return at < s_.size() && (s_[at] == ' ' || s_[at] == '\t'); }
  bool BlankOrBreakAt(size_t at) const { return BlankAt(at) || BreakAt(at) > 0; }
  // `:` then a blank, a break or the end: a mapping value indicator in block context.
  bool ValueIndicatorAt(size_t at) const {
    return At(at) == ':' && at < s_.size() && (AtEnd(at + 1) || BlankOrBreakAt(at + 1));
  }
  bool DashEntryAt(size_t at) const {
    return At(at) == '-' && at < s_.size() && (AtEnd(at + 1) || BlankOrBreakAt(at + 1));
  }
  // `---` or `...` then a blank, a break or the end (at column 0 by the caller's check).
  bool DocIndicatorAt(size_t at) const {
    if (at + 3 > s_.size()) return false;
    const std::string_view three = s_.substr(at, 3);
    return (three == "---" || three == "...") && (AtEnd(at + 3) || BlankOrBreakAt(at + 3));
  }
  bool AtDocumentStart() const { return Column() == 0 && At(pos_) == '-' && DocIndicatorAt(pos_); }
  void EatBreak() {
    pos_ += BreakAt(pos_);
    ++line_;
    line_start_ = pos_;
  }

  // yaml-cpp detects UTF-16 and UTF-32 by the first bytes; only UTF-8 (with or without its BOM)
  // is read here.
  void CheckEncoding() {
    for (size_t i = 0; i < 4 && i < s_.size(); ++i) {
      if (s_[i] == '\0') throw Declined{};
    }
    const auto first = static_cast<unsigned char>(At(0));
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") {
      pos_ = line_start_ = 3;
    } else if (first == 0xEF || first == 0xFE || first == 0xFF) {
      throw Declined{};
    }
  }

  // Skips blanks, comments and line breaks to the next token, or to the end of the text.
  void NextContent() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ') {
        ++pos_;
      } else if (c == '\n' || c == '\r') {
        if (BreakAt(pos_) == 0) throw Declined{};
        EatBreak();
      } else if (c == '#') {
        SkipComment();
      } else if (c == '\t') {
        throw Declined{};
      } else {
        return;
      }
    }
  }
  void SkipComment() {
    const size_t end = s_.find('\n', pos_);
    pos_ = end == std::string_view::npos ? s_.size() : end;
    if (pos_ > 0 && s_[pos_ - 1] == '\r' && pos_ < s_.size()) --pos_;
  }
  // After a token: nothing but blanks and a comment up to the line break, which is eaten.
  void EndOfLine() {
    while (At(pos_) == ' ') ++pos_;
    if (At(pos_) == '#' && pos_ < s_.size()) SkipComment();
    if (AtEnd(pos_)) return;
    if (BreakAt(pos_) == 0) throw Declined{};
    EatBreak();
  }
  void SkipSpaces() {
    while (At(pos_) == ' ') ++pos_;
    if (At(pos_) == '\t') throw Declined{};
  }

  // ---- Nodes: each returns with the cursor at the next token (or the end) ----------------

  // The node whose first character is under the cursor, inside a block collection at
  // `parent_indent` (-1 at the root).
  uint32_t Node(int parent_indent, int depth) {
    if (depth > kMaxFastDepth) throw Declined{};
    const int column = Column();
    if (DashEntryAt(pos_)) return Sequence(column, /*indentless=*/false, depth + 1);
    ScalarText text = Scalar(parent_indent);
    if (KeyFollows(text)) return Mapping(std::move(text), column, depth + 1);
    const uint32_t node = Emit(text);
    FinishToken(text);
    return node;
  }

  // Whether `text` is a mapping's key: a one-line scalar followed by `:` on its line.
  bool KeyFollows(const ScalarText& text) {
    if (text.kind != NodeKind::kScalar || text.ended_by_indent || line_ != text.line) return false;
    const size_t save = pos_;
    SkipSpaces();
    if (!ValueIndicatorAt(pos_)) {
      pos_ = save;
      return false;
    }
    if (pos_ - KeyStart(text) > kMaxSimpleKey) throw Declined{};
    return true;
  }
  size_t KeyStart(const ScalarText& text) const {
    return text.view ? text.begin - (text.plain ? 0 : 1) : key_start_;
  }

  uint32_t Mapping(ScalarText key, int column, int depth) {
    const uint32_t map = tree_.Add(NodeKind::kMap, key.line);
    const size_t first = scratch_.size();
    while (true) {
      scratch_.push_back(Emit(key));
      ++pos_;  // the `:`
      scratch_.push_back(ValueAfterIndicator(column, depth));
      if (AtEnd(pos_) || Column() < column || AtDocumentStart()) break;
      if (Column() > column || DashEntryAt(pos_)) throw Declined{};
      if (Column() == 0 && DocIndicatorAt(pos_)) break;
      key = Scalar(column);
      if (!KeyFollows(key)) throw Declined{};
    }
    tree_.SetChildren(map, scratch_, first);
    return map;
  }

  // The value after `key:` of a mapping at `column`: on the same line, below it (more
  // indented, or an indentless sequence at the key's column), or empty.
  uint32_t ValueAfterIndicator(int column, int depth) {
    SkipSpaces();
    if (AtEnd(pos_) || At(pos_) == '#' || BreakAt(pos_) > 0) {
      EndOfLine();
      NextContent();
      if (!AtEnd(pos_) && Column() > column) return Node(column, depth);
      if (!AtEnd(pos_) && Column() == column && DashEntryAt(pos_)) {
        return Sequence(column, /*indentless=*/true, depth + 1);
      }
      return tree_.Add(NodeKind::kNull, line_);  // yaml-cpp marks it at the next token
    }
    if (DashEntryAt(pos_)) throw Declined{};
    ScalarText text = Scalar(column);
    if (KeyFollows(text)) throw Declined{};  // `a: b: c`
    const uint32_t node = Emit(text);
    FinishToken(text);
    return node;
  }

  uint32_t Sequence(int column, bool indentless, int depth) {
    if (depth > kMaxFastDepth) throw Declined{};
    const uint32_t seq = tree_.Add(NodeKind::kSequence, line_);
    const size_t first = scratch_.size();
    while (true) {
      ++pos_;  // the `-`
      SkipSpaces();
      if (AtEnd(pos_) || At(pos_) == '#' || BreakAt(pos_) > 0) {
        EndOfLine();
        NextContent();
        scratch_.push_back(!AtEnd(pos_) && Column() > column ? Node(column, depth)
                                                             : tree_.Add(NodeKind::kNull, line_));
      } else {
        scratch_.push_back(Node(column, depth));
      }
      if (AtEnd(pos_) || Column() < column) break;
      if (Column() > column) throw Declined{};
      if (DashEntryAt(pos_)) continue;
      if (indentless || AtDocumentStart()) break;  // the next key, or the next document
      throw Declined{};
    }
    tree_.SetChildren(seq, scratch_, first);
    return seq;
  }

  uint32_t Emit(const ScalarText& text) {
    if (text.kind != NodeKind::kScalar) {
      const uint32_t node = tree_.Add(text.kind, text.line);
      tree_.SetChildren(node, scratch_, scratch_.size());
      return node;
    }
    if (text.view) {
      if (text.plain && IsNullPlain(s_.substr(text.begin, text.size))) {
        return tree_.Add(NodeKind::kNull, text.line);
      }
      return tree_.AddView(text.line, text.begin, text.size);
    }
    if (text.plain && IsNullPlain(text.owned)) return tree_.Add(NodeKind::kNull, text.line);
    return tree_.AddOwned(text.line, text.owned);
  }

  void FinishToken(const ScalarText& text) {
    if (!text.ended_by_indent) EndOfLine();
    NextContent();
  }

  // ---- Scalars ---------------------------------------------------------------------------

  ScalarText Scalar(int parent_indent) {
    const char c = At(pos_);
    if (c == '"' || c == '\'') return Quoted(c);
    if (c == '|' || c == '>') return BlockScalar(parent_indent);
    if ((c == '{' && At(pos_ + 1) == '}') || (c == '[' && At(pos_ + 1) == ']')) {
      ScalarText empty;
      empty.kind = c == '{' ? NodeKind::kMap : NodeKind::kSequence;
      empty.line = line_;
      pos_ += 2;
      return empty;
    }
    // yaml-cpp's Exp::PlainScalar: no indicator first, and `-?:` only before a non-blank.
    static constexpr std::string_view kNotPlain = ",[]{}#&*!|>'\"%@`";
    if (AtEnd(pos_) || kNotPlain.find(c) != std::string_view::npos || BlankOrBreakAt(pos_) ||
        ((c == '-' || c == '?' || c == ':') && (AtEnd(pos_ + 1) || BlankOrBreakAt(pos_ + 1)))) {
      throw Declined{};
    }
    return Plain(parent_indent);
  }

  // A plain scalar: one line read as a view of the text; anything longer through the port.
  ScalarText Plain(int parent_indent) {
    ScalarText text;
    text.plain = true;
    text.line = line_;
    text.begin = pos_;
    const int indent = parent_indent + 1;
    size_t i = pos_;
    size_t last = pos_;  // past the last non-blank
    while (i < s_.size()) {
      const char c = s_[i];
      if (c == ':' && (i + 1 == s_.size() || s_[i + 1] == ' ' || s_[i + 1] == '\n' ||
                       s_[i + 1] == '\r' || s_[i + 1] == '\t')) {
        break;
      }
      if (c == ' ') {
        if (At(i + 1) == '#') break;
        ++i;
        continue;
      }
      if (static_cast<unsigned char>(c) < 0x20) break;
      ++i;
      last = i;
    }
    if (i < s_.size() && s_[i] != ':' && s_[i] != ' ') {
      // A line break: one line unless the next is a continuation, then yaml-cpp's rules.
      const size_t br = BreakAt(i);
      if (br == 0 || !NextLineEndsPlain(i + br, indent)) return Ported(PlainParams(indent), text);
    }
    text.size = last - text.begin;
    pos_ = i;
    return text;
  }
  // Whether the line at `at` ends a plain scalar before it (no continuation, no empty line).
  bool NextLineEndsPlain(size_t at, int indent) const {
    size_t k = at;
    while (k < s_.size() && s_[k] == ' ') ++k;
    if (k >= s_.size()) return false;
    const char d = s_[k];
    if (d == '\n' || d == '\r' || d == '\t') return false;
    const int column = static_cast<int>(k - at);
    return column < indent || (column == 0 && d == '#');
  }
  static ScanParams PlainParams(int indent) {
    ScanParams p;
    p.end = ScalarEnd::kPlain;
    p.indent = indent;
    p.fold = Fold::kFlow;
    p.eat_leading_whitespace = true;
    p.trim_trailing_spaces = true;
    p.chomp = Chomp::kStrip;
    p.on_doc_indicator = OnDocIndicator::kBreak;
    p.tab_in_indentation_declines = true;
    return p;
  }

  // A quoted scalar: one line without escapes read as a view; anything else through the port.
  ScalarText Quoted(char quote) {
    ScalarText text;
    text.line = line_;
    text.begin = pos_ + 1;
    for (size_t i = pos_ + 1; i < s_.size(); ++i) {
      const char c = s_[i];
      if (c == quote) {
        if (quote == '\'' && At(i + 1) == '\'') break;
        text.size = i - text.begin;
        pos_ = i + 1;
        return text;
      }
      if (c == '\\' && quote == '"') break;
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') break;
    }
    ScanParams p;
    p.end = quote == '"' ? ScalarEnd::kDoubleQuote : ScalarEnd::kSingleQuote;
    p.eat_end = true;
    p.escape = quote == '"' ? '\\' : '\'';
    p.fold = Fold::kFlow;
    p.eat_leading_whitespace = true;
    p.chomp = Chomp::kClip;
    p.on_doc_indicator = OnDocIndicator::kDecline;
    key_start_ = pos_;
    ++pos_;  // the opening quote
    return Ported(p, text);
  }

  // `|` or `>`, its chomping indicator (an indentation indicator is declined), the lines below.
  ScalarText BlockScalar(int parent_indent) {
    ScalarText text;
    text.line = line_;
    ScanParams p;
    p.end = ScalarEnd::kEndOfText;
    p.fold = s_[pos_] == '>' ? Fold::kBlock : Fold::kNone;
    ++pos_;
    if (At(pos_) == '+' || At(pos_) == '-')
      p.chomp = s_[pos_++] == '+' ? Chomp::kKeep : Chomp::kStrip;
    if (At(pos_) >= '0' && At(pos_) <= '9') throw Declined{};
    SkipSpaces();
    if (At(pos_) == '#') SkipComment();
    if (!AtEnd(pos_) && BreakAt(pos_) == 0) throw Declined{};
    p.indent = 1 + std::max(parent_indent, 0);
    p.detect_indent = true;
    p.tab_in_indentation_declines = true;
    return Ported(p, text);
  }

  ScalarText Ported(ScanParams p, ScalarText& text) {
    if (text.plain) {
      pos_ = text.begin;
      key_start_ = text.begin;
    }
    text.view = false;
    text.owned = ScanScalar(p);
    // Ended at a less indented line, or before `---` at the start of one.
    text.ended_by_indent = p.leading_spaces || Column() == 0;
    return std::move(text);
  }

  // yaml-cpp 0.7's ScanScalar (src/scanscalar.cpp) over this text, step for step: the same
  // three phases per line (scan to the break, eat it, eat the indentation), the same folding,
  // trimming and chomping, so its quirks read the same here.
  std::string ScanScalar(ScanParams& p);
  void FoldBreak(const ScanParams& p, ScanState& st, bool escaped_newline,
                 std::string& scalar) const;
  static void TrimAndChomp(const ScanParams& p, size_t last_escaped_char, std::string& scalar);
  int EndMatch(const ScanParams& p) const;
  void AppendEscape(std::string& out, char escape);
  uint32_t HexEscape(int digits);

  std::string_view s_;
  DocumentTree& tree_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
  size_t key_start_ = 0;           // where the last ported scalar began (its key length)
  std::vector<uint32_t> scratch_;  // children of the containers being read, innermost last
};

int BlockReader::EndMatch(const ScanParams& p) const {
  switch (p.end) {
    case ScalarEnd::kPlain: {  // Exp::ScanScalarEnd: `:` + blank/break/end, or blank/break + `#`
      if (ValueIndicatorAt(pos_)) return 1;
      if (BlankAt(pos_) && At(pos_ + 1) == '#') return 2;
      const size_t br = BreakAt(pos_);
      return br > 0 && At(pos_ + br) == '#' ? static_cast<int>(br) + 1 : -1;
    }
    case ScalarEnd::kDoubleQuote:
      return At(pos_) == '"' && !AtEnd(pos_) ? 1 : -1;
    case ScalarEnd::kSingleQuote:
      return At(pos_) == '\'' && !AtEnd(pos_) && At(pos_ + 1) != '\'' ? 1 : -1;
    case ScalarEnd::kEndOfText:
      return AtEnd(pos_) ? 0 : -1;
  }
  return -1;
}

std::string BlockReader::ScanScalar(ScanParams& p) {
  ScanState st;
  st.past_opening_break = p.fold == Fold::kFlow;
  std::string scalar;
  p.leading_spaces = false;

  while (!AtEnd(pos_)) {
    // Phase 1: scan to the line break.
    size_t last_non_whitespace = scalar.size();
    bool escaped_newline = false;
    while (EndMatch(p) < 0 && BreakAt(pos_) == 0) {
      if (AtEnd(pos_)) break;
      if (Column() == 0 && DocIndicatorAt(pos_)) {
        if (p.on_doc_indicator == OnDocIndicator::kBreak) break;
        if (p.on_doc_indicator == OnDocIndicator::kDecline) throw Declined{};
      }
      st.found_non_empty_line = true;
      st.past_opening_break = true;
      if (p.escape == '\\' && At(pos_) == '\\' && BreakAt(pos_ + 1) > 0) {
        ++pos_;
        last_non_whitespace = st.last_escaped_char = scalar.size();
        escaped_newline = true;
        break;
      }
      if (p.escape != 0 && At(pos_) == p.escape) {
        AppendEscape(scalar, p.escape);
        last_non_whitespace = st.last_escaped_char = scalar.size();
        continue;
      }
      const char ch = s_[pos_++];
      // yaml-cpp keeps control characters (and ends the text at 0x04); declined here.
      if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t') throw Declined{};
      scalar += ch;
      if (ch != ' ' && ch != '\t') last_non_whitespace = scalar.size();
    }
    if (AtEnd(pos_)) {
      if (p.eat_end) throw Declined{};  // the text ends inside quotes: yaml-cpp words it
      break;
    }
    if (p.on_doc_indicator == OnDocIndicator::kBreak && Column() == 0 && DocIndicatorAt(pos_)) {
      break;
    }
    if (const int n = EndMatch(p); n >= 0) {
      if (p.eat_end) pos_ += static_cast<size_t>(n);
      break;
    }
    if (p.fold == Fold::kFlow) scalar.erase(last_non_whitespace);

    // Phase 2: eat the line break.
    EatBreak();

    // Phase 3: the indentation, then (where asked) the rest of the leading blanks.
    while (At(pos_) == ' ' &&
           (Column() < p.indent || (p.detect_indent && !st.found_non_empty_line)) &&
           EndMatch(p) < 0) {
      ++pos_;
    }
    if (p.detect_indent && !st.found_non_empty_line) p.indent = std::max(p.indent, Column());
    while (BlankAt(pos_)) {
      if (At(pos_) == '\t' && Column() < p.indent && p.tab_in_indentation_declines) {
        throw Declined{};
      }
      if (!p.eat_leading_whitespace || EndMatch(p) >= 0) break;
      ++pos_;
    }
    if (At(pos_) == '\r' && BreakAt(pos_) == 0) throw Declined{};
    FoldBreak(p, st, escaped_newline, scalar);
    if (!st.empty_line && Column() < p.indent) {
      p.leading_spaces = true;
      break;
    }
  }
  TrimAndChomp(p, st.last_escaped_char, scalar);
  return scalar;
}

// What the line break just eaten adds to the scalar, by its folding.
void BlockReader::FoldBreak(const ScanParams& p, ScanState& st, bool escaped_newline,
                            std::string& scalar) const {
  const bool next_empty_line = BreakAt(pos_) > 0;
  const bool next_more_indented = BlankAt(pos_);
  if (p.fold == Fold::kBlock && st.folded_newline_count == 0 && next_empty_line) {
    st.folded_newline_started_more_indented = st.more_indented;
  }
  if (st.past_opening_break) {
    switch (p.fold) {
      case Fold::kNone:
        scalar += '\n';
        break;
      case Fold::kBlock:
        if (!st.empty_line && !next_empty_line && !st.more_indented && !next_more_indented &&
            Column() >= p.indent) {
          scalar += ' ';
        } else if (next_empty_line) {
          ++st.folded_newline_count;
        } else {
          scalar += '\n';
        }
        if (!next_empty_line && st.folded_newline_count > 0) {
          scalar.append(static_cast<size_t>(st.folded_newline_count - 1), '\n');
          if (st.folded_newline_started_more_indented || next_more_indented ||
              !st.found_non_empty_line) {
            scalar += '\n';
          }
          st.folded_newline_count = 0;
        }
        break;
      case Fold::kFlow:
        if (next_empty_line) {
          scalar += '\n';
        } else if (!st.empty_line && !escaped_newline) {
          scalar += ' ';
        }
        break;
    }
  }
  st.empty_line = next_empty_line;
  st.more_indented = next_more_indented;
  st.past_opening_break = true;
}

// yaml-cpp's post-processing: trailing blanks and breaks, but never an escaped character.
void BlockReader::TrimAndChomp(const ScanParams& p, size_t last_escaped_char, std::string& scalar) {
  const auto keep_escaped = [&](size_t at) {
    if (last_escaped_char != std::string::npos &&
        (at < last_escaped_char || at == std::string::npos)) {
      return last_escaped_char;
    }
    return at;
  };
  if (p.trim_trailing_spaces) {
    const size_t at = keep_escaped(scalar.find_last_not_of(" \t"));
    if (at < scalar.size()) scalar.erase(at + 1);
  }
  if (p.chomp == Chomp::kClip || p.chomp == Chomp::kStrip) {
    const size_t at = keep_escaped(scalar.find_last_not_of('\n'));
    if (at == std::string::npos) {
      scalar.clear();
    } else if (p.chomp == Chomp::kClip && at + 1 < scalar.size()) {
      scalar.erase(at + 2);
    } else if (p.chomp == Chomp::kStrip && at < scalar.size()) {
      scalar.erase(at + 1);
    }
  }
}

// yaml-cpp's Exp::Escape: `''` in single quotes, the YAML escapes after `\` in double quotes
// (`\N` and `\_` as the single bytes 0x85 and 0xA0, as yaml-cpp writes them).
void BlockReader::AppendEscape(std::string& out, char escape) {
  ++pos_;
  if (AtEnd(pos_)) throw Declined{};
  const char c = s_[pos_++];
  if (escape == '\'') {
    if (c != '\'') throw Declined{};
    out += '\'';
    return;
  }
  switch (c) {
    case '0':
      out += '\0';
      return;
    case 'a':
      out += '\x07';
      return;
    case 'b':
      out += '\x08';
      return;
    case 't':
    case '\t':
      out += '\t';
      return;
    case 'n':
      out += '\n';
      return;
    case 'v':
      out += '\x0B';
      return;
    case 'f':
      out += '\x0C';
      return;
    case 'r':
      out += '\r';
      return;
    case 'e':
      out += '\x1B';
      return;
    case ' ':
    case '"':
    case '\'':
    case '\\':
    case '/':
      out += c;
      return;
    case 'N':
      out += '\x85';
      return;
    case '_':
      out += '\xA0';
      return;
    case 'L':
      out += "\xE2\x80\xA8";
      return;
    case 'P':
      out += "\xE2\x80\xA9";
      return;
    case 'x':
      AppendUtf8(out, HexEscape(2));
      return;
    case 'u':
      AppendUtf8(out, HexEscape(4));
      return;
    case 'U':
      AppendUtf8(out, HexEscape(8));
      return;
    default:
      throw Declined{};  // yaml-cpp refuses it, with its words
  }
}

uint32_t BlockReader::HexEscape(int digits) {
  uint32_t value = 0;
  for (int i = 0; i < digits; ++i) {
    const char c = At(pos_);
    if (AtEnd(pos_) || !std::isxdigit(static_cast<unsigned char>(c))) throw Declined{};
    const int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    value = (value << 4) + static_cast<uint32_t>(digit);
    ++pos_;
  }
  if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) throw Declined{};
  return value;
}

}  // namespace

bool ReadBlockYaml(std::string_view text, DocumentTree& tree, int first_line) {
  try {
    BlockReader(text, tree, first_line).Read();
    return true;
  } catch (const Declined&) {
    return false;
  }
}

}  // namespace knobsim
