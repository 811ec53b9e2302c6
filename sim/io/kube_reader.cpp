#include "sim/io/kube_reader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <streambuf>
#include <string_view>
#include <tuple>
#include <utility>

#include "sim/io/quantity.h"
#include "sim/io/spelling.h"
#include "sim/io/utf8.h"
#include "sim/scheduler/card_placement.h"

namespace knobsim {
namespace {

// Labels, annotations and resources with a meaning here (semantics.md §1.1-1.3).
constexpr std::string_view kScheduleLabel = "ack.node.gpu.schedule";
constexpr std::string_view kPlacementLabel = "ack.node.gpu.placement";
constexpr std::string_view kMaxPodLabel = "ack.node.gpu.max-pod";
constexpr std::string_view kGpuNameLabel = "aliyun.accelerator/nvidia_name";
constexpr std::string_view kPodGpuCountLabel = "aliyun.com/gpu-count";
constexpr std::string_view kWholeDeviceKey = "ack.gpushare.placement";
constexpr std::string_view kTopologyGpuResource = "aliyun.com/gpu";
constexpr std::string_view kGpuCoreTflopsResource = "aliyun.com/gpu-core.tflops";
// Allocation annotations: v2 (scheduler framework), v3, v1 (extender).
constexpr std::string_view kAllocationV2 = "scheduler.framework.gpushare.allocation";
constexpr std::string_view kCoreAllocationV2 = "gpushare.alibabacloud.com/core-percentage";
constexpr std::string_view kAllocationV3 = "gpushare.alibabacloud.com/gpumemory";
constexpr std::string_view kCardIndexV1 = "ALIYUN_COM_GPU_MEM_IDX";
constexpr std::string_view kPodUnitsV1 = "ALIYUN_COM_GPU_MEM_POD";

// No card holds a million units of anything; a bigger GPU value is a unit slip (`4Gi` of
// aliyun.com/gpu-mem is 4294967296 units) and would overflow the int fields downstream.
constexpr int64_t kMaxGpuUnits = 1'000'000;
// Cards on one node: the largest real hosts have 16; more is a broken export.
constexpr int64_t kMaxCardsPerNode = 1024;

// ---- Small text helpers ------------------------------------------------------------------

// Appends rather than concatenates: GCC 12 warns falsely (-Wrestrict, PR 105651) on
// `"\"" + std::string(text)` at -O2; Cat below exists for the same reason.
std::string Quote(std::string_view text) {
  std::string quoted(1, '"');
  quoted.append(text);
  quoted.push_back('"');
  return quoted;
}

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

// "did you mean `X`?" for the nearest allowed value, else "use A, B or C".
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

// `x` as an integer when it is one but for floating-point noise (3.92 * 1000).
std::optional<int64_t> ExactInt(double x) {
  const double r = std::nearbyint(x);
  if (std::fabs(x - r) > 1e-9 * std::max(1.0, std::fabs(x))) return std::nullopt;
  if (!(r >= -9.2e18 && r <= 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(r);
}

// Kubernetes' Quantity.Value(): rounded up, unless integer but for noise.
std::optional<int64_t> CeilToInt(double x) {
  if (auto exact = ExactInt(x)) return exact;
  const double c = std::ceil(x);
  if (!(c >= -9.2e18 && c <= 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(c);
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// "did you mean 4?" for aliyun.com/gpu-mem written as a byte size (`4Gi`, `4G`, `4GB`): in a
// manifest the resource counts GiB units, so `4Gi` asks for 4294967296 of them. Empty otherwise.
std::string GpuMemHint(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return "";
  std::string unit;
  for (char c : text.substr(digits)) {
    unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (unit != "g" && unit != "gi" && unit != "gb" && unit != "gib") return "";
  return Cat({"ACK counts aliyun.com/gpu-mem in GiB: did you mean ", text.substr(0, digits), "?"});
}

// Resources counted in bytes; everything else but cpu counts units (kube_types.h).

// Kubernetes' IsExtendedResourceName: a qualified name outside the kubernetes.io domain.
// Those must be integers and cannot be over-committed (limits required, requests == limits).
bool IsExtendedResource(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view domain = name.substr(0, slash);
  if (domain == "kubernetes.io" || EndsWith(domain, ".kubernetes.io")) return false;
  return !name.starts_with("requests.");
}

bool IsGpuResource(std::string_view name) {
  return name == kGpuMemResource || name == kGpuCoreResource || name == kGpuCountResource ||
         name == kNvidiaGpuResource || name == kTopologyGpuResource ||
         name == kGpuCoreTflopsResource;
}

// ---- Secrets -----------------------------------------------------------------------------

// kubectl apply keeps the whole manifest in this annotation, env values included; nothing here
// needs it, so it is never stored (and, being on most objects, never warned about either).
constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsUpperOrDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}
bool IsTokenChar(char c) {  // base64url and the separators API keys use
  return IsAlnum(c) || c == '-' || c == '_';
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Length of the run of `pred` characters starting at `i`.
template <class Pred>
size_t RunAt(std::string_view s, size_t i, Pred pred) {
  size_t n = 0;
  while (i + n < s.size() && pred(s[i + n])) ++n;
  return n;
}

// A JWT anywhere: three base64url segments, the first a JSON header ("eyJ" = `{"`).
bool HasJwt(std::string_view s) {
  for (size_t at = s.find("eyJ"); at != std::string_view::npos; at = s.find("eyJ", at + 1)) {
    size_t i = at;
    int segments = 0;
    while (segments < 3) {
      const size_t n = RunAt(s, i, [](char c) { return IsAlnum(c) || c == '-' || c == '_'; });
      if (n < 8) break;
      ++segments;
      i += n;
      if (segments < 3) {
        if (i >= s.size() || s[i] != '.') break;
        ++i;
      }
    }
    if (segments == 3) return true;
  }
  return false;
}

// `prefix` starting a word (not preceded by a letter or digit) and followed by at least
// `min_tail` characters accepted by `tail`.
template <class Pred>
bool HasPrefixedToken(std::string_view s, std::string_view prefix, size_t min_tail, Pred tail) {
  for (size_t at = s.find(prefix); at != std::string_view::npos; at = s.find(prefix, at + 1)) {
    if (at > 0 && IsAlnum(s[at - 1])) continue;
    if (RunAt(s, at + prefix.size(), tail) >= min_tail) return true;
  }
  return false;
}

// `scheme://user:password@host`.
bool HasUrlPassword(std::string_view s) {
  for (size_t at = s.find("://"); at != std::string_view::npos; at = s.find("://", at + 1)) {
    const size_t start = at + 3;
    const size_t end = s.find_first_of("/@ \t\n\"'", start);
    if (end == std::string_view::npos || s[end] != '@') continue;
    if (s.substr(start, end - start).find(':') != std::string_view::npos) return true;
  }
  return false;
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (s[i] == '-')) return false;
    if (!dash && !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The whole value a base64 or hex blob: 32+ characters of the base64/base64url alphabet with a
// run of 24+ letters and digits holding both (so `cn-hangzhou-10-0-1-21`, a UUID or a long
// digit string is not one, and a sha256, an access key or a base64 key is).
bool IsBlob(std::string_view s) {
  if (s.size() < 32 || IsUuid(s)) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '+' && c != '/' && c != '=' && c != '-' && c != '_') return false;
  }
  for (size_t i = 0; i < s.size();) {
    const size_t n = RunAt(s, i, [](char c) { return IsAlnum(c) || c == '+' || c == '/'; });
    if (n >= 24) {
      const std::string_view run = s.substr(i, n);
      const bool digit = run.find_first_of("0123456789") != std::string_view::npos;
      const bool letter = std::any_of(run.begin(), run.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c));
      });
      if (digit && letter) return true;
    }
    i += n + 1;
  }
  return false;
}

bool KeyNamesSecret(std::string_view key) {
  const std::string lower = Lower(key);
  for (std::string_view word :
       {"token", "secret", "password", "passwd", "credential", "key", "auth"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool LooksLikeSecret(std::string_view key, std::string_view value) {
  const size_t first = value.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  value = value.substr(first, value.find_last_not_of(" \t\r\n") - first + 1);
  if (value == "true" || value == "false") return false;
  if (KeyNamesSecret(key)) return true;
  // Shapes published by the issuers (AWS, OpenAI/Stripe, GitHub, Slack, Google).
  if (HasJwt(value) || HasUrlPassword(value)) return true;
  if (value.find("PRIVATE KEY-----") != std::string_view::npos) return true;
  if (HasPrefixedToken(value, "AKIA", 16, IsUpperOrDigit) ||
      HasPrefixedToken(value, "ASIA", 16, IsUpperOrDigit)) {
    return true;
  }
  for (std::string_view prefix : {"sk-", "sk_", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_",
                                  "xoxb-", "xoxp-", "xoxa-", "xoxs-", "AIza", "glpat-"}) {
    if (HasPrefixedToken(value, prefix, 16, IsTokenChar)) return true;
  }
  return IsBlob(value);
}

namespace {

// ---- The document tree -------------------------------------------------------------------
//
// Every file is read into one compact tree of values before the objects are read from it:
// nodes in one array, children as index ranges, scalars as views into the text (JSON strings
// without escapes, numbers, literals) or into one buffer of decoded text. A 10 000-pod,
// 1 000-node export (90 MB of kubectl's indented JSON) reads in ~0.6 s and 200 MB this way;
// through yaml-cpp's node graph it took 10 s and 1.7 GB, which is why JSON does not go there.

enum class NodeKind : uint8_t { kNull, kScalar, kSequence, kMap };

struct TreeNode {
  NodeKind kind = NodeKind::kNull;
  bool owned = false;  // scalar text lives in Tree::strings_, not in the source text
  int32_t line = 0;    // 1-based line where the value starts; 0 = unknown
  uint32_t begin = 0;  // scalar: offset of its text; container: first slot in Tree::slots_
  uint32_t size = 0;   // scalar: length; sequence: items; map: entries (two slots: key, value)
};

// Nesting deeper than any Kubernetes object, and small enough for the recursive readers'
// stacks; deeper is an error rather than a crash.
constexpr int kMaxDepth = 512;

class Tree {
 public:
  explicit Tree(std::string_view text) : text_(text) {}

  std::string_view Scalar(const TreeNode& n) const {
    return (n.owned ? std::string_view(strings_) : text_).substr(n.begin, n.size);
  }
  const TreeNode& Item(const TreeNode& seq, size_t i) const {
    return nodes_[slots_[seq.begin + i]];
  }
  const TreeNode& Key(const TreeNode& map, size_t i) const {
    return nodes_[slots_[map.begin + 2 * i]];
  }
  const TreeNode& Value(const TreeNode& map, size_t i) const {
    return nodes_[slots_[map.begin + 2 * i + 1]];
  }
  const TreeNode& node(uint32_t i) const { return nodes_[i]; }
  const std::vector<uint32_t>& documents() const { return documents_; }

  // Building.
  void Reserve(size_t nodes) {
    nodes_.reserve(nodes);
    slots_.reserve(nodes);
  }
  uint32_t Add(NodeKind kind, int line) {
    nodes_.push_back(TreeNode{kind, false, line, 0, 0});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  uint32_t AddView(int line, size_t offset, size_t size) {
    nodes_.push_back(TreeNode{NodeKind::kScalar, false, line, static_cast<uint32_t>(offset),
                              static_cast<uint32_t>(size)});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  uint32_t AddOwned(int line, std::string_view text) {
    nodes_.push_back(TreeNode{NodeKind::kScalar, true, line, static_cast<uint32_t>(strings_.size()),
                              static_cast<uint32_t>(text.size())});
    strings_.append(text);
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  // For text decoded straight into strings(): the node of strings_[offset, offset + size).
  std::string& strings() { return strings_; }
  uint32_t AddOwnedAt(int line, size_t offset, size_t size) {
    nodes_.push_back(TreeNode{NodeKind::kScalar, true, line, static_cast<uint32_t>(offset),
                              static_cast<uint32_t>(size)});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  // Gives container `node` the children scratch[first..], and drops them from scratch.
  void SetChildren(uint32_t node, std::vector<uint32_t>& scratch, size_t first) {
    TreeNode& n = nodes_[node];
    n.begin = static_cast<uint32_t>(slots_.size());
    const size_t count = scratch.size() - first;
    n.size = static_cast<uint32_t>(n.kind == NodeKind::kMap ? count / 2 : count);
    slots_.insert(slots_.end(), scratch.begin() + static_cast<std::ptrdiff_t>(first),
                  scratch.end());
    scratch.resize(first);
  }
  void AddDocument(uint32_t root) { documents_.push_back(root); }

 private:
  std::string_view text_;
  std::vector<TreeNode> nodes_;
  std::vector<uint32_t> slots_;
  std::string strings_;
  std::vector<uint32_t> documents_;
};

// A syntax error: where and what, never the text around it (it may be a secret).
struct SyntaxFailure {
  int line = 0;
  std::string message;
  std::string hint;
};

// RFC 8259 JSON into a Tree, one document after another (`kubectl get -o json` output appended
// from several commands is still readable). Lines are counted as the text is scanned, so each
// value knows where it starts.
class JsonParser {
 public:
  JsonParser(std::string_view text, Tree& tree) : s_(text), tree_(tree) {}

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
    throw SyntaxFailure{line_, Cat({"invalid JSON: ", message}), std::move(hint)};
  }
  // What stands at the error, described without quoting the text.
  std::string Found() const {
    if (pos_ >= s_.size()) return "the end of the text";
    const char c = s_[pos_];
    if (c == '"') return "a string";
    if (c == '{') return "`{`";
    if (c == '[') return "`[`";
    if (c >= 0x21 && c < 0x7f) return Cat({"`", std::string_view(&s_[pos_], 1), "`"});
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
      Fail(Cat({"the text ends inside ", inside}), "the file may have been cut short");
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
    Fail(Cat({"expected a value, found ", Found()}),
         "strings are written in double quotes; true, false and null in lower case");
  }

  uint32_t Object(int depth) {
    if (depth > kMaxDepth) Fail(Cat({"nested more than ", std::to_string(kMaxDepth), " deep"}));
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
          Fail(Cat({"expected a key in double quotes, found ", Found()}),
               s_[pos_] == '}' ? "JSON allows no comma before `}`" : "");
        }
        scratch_.push_back(String());
        SkipSpace();
        ExpectMore("an object");
        if (s_[pos_] != ':') Fail(Cat({"expected `:` after the key, found ", Found()}));
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
        Fail(Cat({"expected `,` or `}`, found ", Found()}),
             s_[pos_] == '"' ? "a comma is probably missing before it" : "");
      }
    }
    tree_.SetChildren(node, scratch_, first);
    return node;
  }

  uint32_t Array(int depth) {
    if (depth > kMaxDepth) Fail(Cat({"nested more than ", std::to_string(kMaxDepth), " deep"}));
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
        Fail(Cat({"expected `,` or `]`, found ", Found()}),
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

  uint32_t Hex4() {
    if (pos_ + 4 > s_.size()) Fail("a \\u escape needs four hex digits");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        Fail("a \\u escape needs four hex digits");
      }
    }
    return v;
  }

  // A \u escape, joining a UTF-16 surrogate pair; a lone surrogate becomes U+FFFD, as Go's
  // encoding/json decodes it.
  uint32_t CodePoint() {
    const uint32_t hi = Hex4();
    if (hi < 0xD800 || hi > 0xDFFF) return hi;
    if (hi <= 0xDBFF && s_.substr(pos_, 2) == "\\u") {
      const size_t back = pos_;
      pos_ += 2;
      const uint32_t lo = Hex4();
      if (lo >= 0xDC00 && lo <= 0xDFFF) return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
      pos_ = back;
    }
    return 0xFFFD;
  }


  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, kept as written (the readers parse it).
  uint32_t Number() {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (s_[pos_] == '-') ++pos_;
    const size_t int_start = pos_;
    const size_t int_digits = digits();
    if (int_digits == 0 || (int_digits > 1 && s_[int_start] == '0')) Fail("invalid number");
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) Fail("invalid number");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) Fail("invalid number");
    }
    return tree_.AddView(line_, start, pos_ - start);
  }

  std::string_view s_;
  Tree& tree_;
  size_t pos_ = 0;
  int line_ = 1;
  std::vector<uint32_t> scratch_;  // children of the containers being read, innermost last
};

// Whether text that starts with `{` or `[` is meant as JSON rather than YAML flow style: the
// first thing after the opening brackets is a quoted key or string, or a closing bracket.
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

// yaml-cpp's parse events straight into the tree, without yaml-cpp's own node graph (1.6 GB
// for a 40 MB export). An alias shares its anchor's node instead of copying it, so aliases of
// aliases cannot blow the tree up; an alias inside the node it names would make a cycle, and
// is an error.
class YamlBuilder : public YAML::EventHandler {
 public:
  explicit YamlBuilder(Tree& tree) : tree_(tree) {}

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
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    Emit(tree_.AddOwned(Line(mark), value), anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Start(NodeKind::kSequence, mark, anchor);
  }
  void OnSequenceEnd() override { End(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Start(NodeKind::kMap, mark, anchor);
  }
  void OnMapEnd() override { End(); }

 private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  struct Open {
    uint32_t node;
    size_t first;  // its first child in scratch_
  };

  static int Line(const YAML::Mark& mark) { return mark.line >= 0 ? mark.line + 1 : 0; }
  void Anchor(YAML::anchor_t anchor, uint32_t node) {
    if (anchor == 0) return;  // yaml-cpp's NullAnchor
    if (anchors_.size() <= anchor) anchors_.resize(anchor + 1, kNone);
    anchors_[anchor] = node;
  }
  void Start(NodeKind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (open_.size() >= static_cast<size_t>(kMaxDepth)) {
      throw SyntaxFailure{Line(mark),
                          Cat({"nested more than ", std::to_string(kMaxDepth), " deep"}), ""};
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

  Tree& tree_;
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

// ---- Positions and failures --------------------------------------------------------------

// A value in a document: its node, its field path and the 1-based line to report (the line of
// its key, so an empty or nested value still points at the right place).
struct Field {
  const TreeNode* node = nullptr;
  std::string path;
  int line = 0;
};

int LineOf(const TreeNode& node, int fallback) {
  return node.line > 0 ? node.line : fallback;
}

std::string ChildPath(const std::string& path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string p = path;
  p.push_back('.');
  p.append(key);
  return p;
}

std::string IndexPath(const std::string& path, size_t i) {
  std::string p = path;
  p.push_back('[');
  p.append(std::to_string(i));
  p.push_back(']');
  return p;
}

// What a node holds, for "expected X, found Y". Scalars are quoted only when `reveal` is set:
// a value in a private place (an annotation) is described by its kind alone.
std::string Describe(const Tree& tree, const TreeNode& node, bool reveal = true) {
  switch (node.kind) {
    case NodeKind::kScalar:
      return reveal ? Quote(tree.Scalar(node)) : std::string("a string");
    case NodeKind::kSequence:
      return "a list";
    case NodeKind::kMap:
      return "a mapping";
    default:
      return "nothing";
  }
}

// Thrown inside this file only and caught at the top: the reader stops at the first error, and
// unwinding is the shortest way out of a deep descent.
struct Failure {
  InputError error;
};

// One parsed resource amount and where it came from.
struct ResourceEntry {
  std::string name;
  int64_t value = 0;
  std::string text;
  Field field;
};

struct ContainerResources {
  ResourceList requests;  // after defaulting missing requests to limits
  ResourceList limits;
  bool sidecar = false;  // init container with restartPolicy Always
};

using AllocationMap = std::map<int, int>;

// Reads the objects of one file into `out`.
class ObjectReader {
 public:
  ObjectReader(std::string file, const Tree& tree, KubeObjects& out)
      : file_(std::move(file)), tree_(tree), out_(out) {}

  // A document of the file: an object or a List of them.
  void ReadDocument(const TreeNode& doc);
  // The one warning about annotations dropped as secrets, if any were; after the documents.
  void WarnDroppedAnnotations();

  // Where each object was first seen ("Kind\0namespace/name"), across files, for duplicates.
  std::map<std::string, ObjectSource>* seen = nullptr;

 private:
  [[noreturn]] void Fail(const Field& f, std::string message, std::string hint = "") const {
    throw Failure{InputError{file_, f.line, f.path, std::move(message), std::move(hint)}};
  }
  void Warn(const Field& f, std::string_view text) {
    out_.warnings.push_back(Cat({file_, ":", std::to_string(f.line), ": ", f.path, ": ", text}));
  }

  // metadata of any object.
  struct Meta {
    Field field;
    Field name_field;
    std::string namespace_ = "default";
    std::string name;
    std::string uid;
    std::optional<Field> labels;
    std::optional<Field> annotations;
  };
  Meta ReadMeta(const Field& object, std::string_view kind, bool namespaced);
  std::vector<OwnerReference> ReadOwnerReferences(const Meta& meta);

  void ReadObject(const Field& object);
  NodeSpec ReadNode(const Field& object);
  PodSpec ReadPod(const Field& object);
  void ReadPodBody(const Field& spec, const std::optional<Field>& labels,
                   const std::optional<Field>& annotations, PodSpec& pod);
  // A pending pod from a workload's spec.template, owned by it (`kind`/`name`).
  void KeepTemplatePod(const Field& spec, const std::string& kind, const std::string& ns,
                       const std::string& name);
  DeploymentSpec ReadDeployment(const Field& object);
  ReplicaSetSpec ReadReplicaSet(const Field& object);
  StatefulSetSpec ReadStatefulSet(const Field& object);
  JobSpec ReadJob(const Field& object);
  PodDisruptionBudgetSpec ReadPdb(const Field& object);
  PersistentVolumeClaimSpec ReadPvc(const Field& object);
  PersistentVolumeSpec ReadPv(const Field& object);
  StorageClassSpec ReadStorageClass(const Field& object);
  ResourceQuotaSpec ReadResourceQuota(const Field& object);

  // Structure.
  void ExpectMap(const Field& f, bool reveal = true) const;
  std::optional<Field> Get(const Field& map, std::string_view key) const;
  Field Require(const Field& map, std::string_view key) const;
  std::vector<Field> Items(const Field& f, bool reveal = true) const;
  std::vector<std::pair<std::string, Field>> Entries(const Field& f, bool reveal = true) const;

  // Scalars.
  std::string String(const Field& f, bool reveal = true) const;
  int64_t Int(const Field& f, int64_t min, int64_t max) const;
  int Count(const std::optional<Field>& f, int fallback) const;  // a non-negative int32
  bool Bool(const Field& f) const;
  std::string Enum(const Field& f, std::initializer_list<std::string_view> allowed,
                   std::string_view what) const;
  Labels StringMap(const std::optional<Field>& f, bool reveal = true) const;
  Labels Annotations(const std::optional<Field>& f);
  std::vector<std::string> StringList(const std::optional<Field>& f) const;
  IntOrPercent ReadIntOrPercent(const Field& f, bool up_to_100) const;

  // Kubernetes pieces.
  std::vector<ResourceEntry> Resources(const std::optional<Field>& f);
  int64_t ResourceValue(const Field& f, const std::string& name, const std::string& text);
  ContainerResources ReadContainerResources(const Field& container, bool init);
  std::vector<NodeSelectorRequirement> ReadNodeSelectorTerm(const Field& term);
  NodeSelectorRequirement ReadNodeSelectorRequirement(const Field& f, bool match_field);
  LabelSelector ReadLabelSelector(const Field& f);
  Toleration ReadToleration(const Field& f);
  TopologySpreadConstraint ReadSpreadConstraint(const Field& f);
  Labels TemplateLabels(const Field& spec);
  int64_t Storage(const std::optional<Field>& resources);
  ResourceList QuotaList(const std::optional<Field>& f);
  Probe ReadProbe(const Field& f);
  std::string ReadPort(const Field& f) const;
  std::string ReadyStatus(const Field& status);
  void ReadContainerStatuses(const Field& statuses, PodSpec& pod);
  void ReadAllocation(const Field& annotations, PodSpec& pod);
  AllocationMap ReadAllocationJson(const Field& f, const std::string& text) const;
  void CheckDuplicate(std::string_view kind, const std::string& key, const Field& name_field) const;

  std::string file_;
  const Tree& tree_;
  KubeObjects& out_;
  // Annotations dropped by LooksLikeSecret: key -> how many, and where the first one was.
  std::map<std::string, int> dropped_;
  Field first_dropped_;
};

// ---- Structure ---------------------------------------------------------------------------

void ObjectReader::ExpectMap(const Field& f, bool reveal) const {
  if (f.node->kind != NodeKind::kMap) {
    Fail(f, Cat({"expected a mapping, found ", Describe(tree_, *f.node, reveal)}));
  }
}

std::optional<Field> ObjectReader::Get(const Field& map, std::string_view key) const {
  if (map.node->kind != NodeKind::kMap) return std::nullopt;
  // A null value reads as absent, as Go's JSON decoding of a Kubernetes object does.
  for (size_t i = 0; i < map.node->size; ++i) {
    const TreeNode& k = tree_.Key(*map.node, i);
    if (k.kind == NodeKind::kScalar && tree_.Scalar(k) == key) {
      const TreeNode& v = tree_.Value(*map.node, i);
      if (v.kind == NodeKind::kNull) return std::nullopt;
      return Field{&v, ChildPath(map.path, key), LineOf(k, map.line)};
    }
  }
  return std::nullopt;
}

Field ObjectReader::Require(const Field& map, std::string_view key) const {
  if (auto f = Get(map, key)) return *f;
  Fail(map, Cat({"missing required key ", Backquote(key)}));
}

std::vector<Field> ObjectReader::Items(const Field& f, bool reveal) const {
  if (f.node->kind != NodeKind::kSequence) {
    Fail(f, Cat({"expected a list, found ", Describe(tree_, *f.node, reveal)}));
  }
  std::vector<Field> items;
  items.reserve(f.node->size);
  for (size_t i = 0; i < f.node->size; ++i) {
    const TreeNode& item = tree_.Item(*f.node, i);
    items.push_back(Field{&item, IndexPath(f.path, i), LineOf(item, f.line)});
  }
  return items;
}

std::vector<std::pair<std::string, Field>> ObjectReader::Entries(const Field& f,
                                                                 bool reveal) const {
  ExpectMap(f, reveal);
  std::vector<std::pair<std::string, Field>> entries;
  entries.reserve(f.node->size);
  for (size_t i = 0; i < f.node->size; ++i) {
    const TreeNode& k = tree_.Key(*f.node, i);
    Field key{&k, f.path, LineOf(k, f.line)};
    if (k.kind != NodeKind::kScalar) {
      Fail(key, Cat({"keys must be strings, found ", Describe(tree_, k)}));
    }
    std::string name(tree_.Scalar(k));
    std::string path = ChildPath(f.path, name);
    entries.emplace_back(std::move(name),
                         Field{&tree_.Value(*f.node, i), std::move(path), key.line});
  }
  return entries;
}

// ---- Scalars -----------------------------------------------------------------------------

std::string ObjectReader::String(const Field& f, bool reveal) const {
  if (f.node->kind == NodeKind::kNull) return "";
  if (f.node->kind != NodeKind::kScalar) {
    Fail(f, Cat({"expected a string, found ", Describe(tree_, *f.node, reveal)}));
  }
  return std::string(tree_.Scalar(*f.node));
}

int64_t ObjectReader::Int(const Field& f, int64_t min, int64_t max) const {
  const std::string text = String(f);
  auto v = ParseInteger(text.starts_with('+') ? text.substr(1) : text);
  if (!v) Fail(f, Quote(text) + " is not a whole number");
  if (*v < min) Fail(f, Cat({text, " is less than ", std::to_string(min)}));
  if (*v > max) Fail(f, Cat({text, " is more than ", std::to_string(max)}));
  return *v;
}

int ObjectReader::Count(const std::optional<Field>& f, int fallback) const {
  if (!f) return fallback;
  return static_cast<int>(Int(*f, 0, std::numeric_limits<int32_t>::max()));
}

bool ObjectReader::Bool(const Field& f) const {
  // YAML 1.1 booleans, as sigs.k8s.io/yaml (go-yaml v2) reads a manifest for kubectl.
  const std::string text = String(f);
  for (std::string_view t :
       {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"}) {
    if (text == t) return true;
  }
  for (std::string_view t :
       {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"}) {
    if (text == t) return false;
  }
  Fail(f, Quote(text) + " is not true or false");
}

std::string ObjectReader::Enum(const Field& f, std::initializer_list<std::string_view> allowed,
                               std::string_view what) const {
  std::string value = String(f);
  for (std::string_view a : allowed) {
    if (value == a) return value;
  }
  Fail(f, Cat({Quote(value), " is not ", what}), EnumHint(value, allowed));
}

Labels ObjectReader::StringMap(const std::optional<Field>& f, bool reveal) const {
  Labels map;
  if (!f) return map;
  for (const auto& [key, value] : Entries(*f, reveal)) map[key] = String(value, reveal);
  return map;
}

Labels ObjectReader::Annotations(const std::optional<Field>& f) {
  Labels map;
  if (!f) return map;
  for (auto& [key, value] : Entries(*f, /*reveal=*/false)) {
    std::string text = String(value, /*reveal=*/false);
    if (key == kLastAppliedAnnotation) continue;
    if (LooksLikeSecret(key, text)) {
      if (dropped_.empty()) first_dropped_ = value;
      ++dropped_[key];
      continue;
    }
    map.emplace(std::move(key), std::move(text));
  }
  return map;
}

void ObjectReader::WarnDroppedAnnotations() {
  if (dropped_.empty()) return;
  int total = 0;
  std::string keys;
  for (const auto& [key, n] : dropped_) {
    total += n;
    if (!keys.empty()) keys.append(", ");
    keys.append(key);
    if (n > 1) keys.append(Cat({" (", std::to_string(n), ")"}));
  }
  Warn(first_dropped_,
       Cat({std::to_string(total),
            " annotation(s) that look like secrets were dropped, never stored or shown (the first "
            "here): ",
            keys}));
  dropped_.clear();
}

std::vector<std::string> ObjectReader::StringList(const std::optional<Field>& f) const {
  std::vector<std::string> list;
  if (!f) return list;
  for (const Field& item : Items(*f)) list.push_back(String(item));
  return list;
}

// intstr.IntOrString as the workload APIs validate it: a non-negative integer, or an integer
// percentage `NN%` (at most 100% where `up_to_100`).
IntOrPercent ObjectReader::ReadIntOrPercent(const Field& f, bool up_to_100) const {
  const std::string text = String(f);
  const bool percent = text.ends_with('%');
  const std::optional<int64_t> v =
      ParseInteger(percent ? std::string_view(text).substr(0, text.size() - 1) : text);
  if (!v) {
    Fail(f, Quote(text) + " is not a whole number or a percentage",
         "write an integer such as 1 or a percentage such as 25%");
  }
  if (*v < 0) Fail(f, Quote(text) + " is negative");
  if (percent && up_to_100 && *v > 100) Fail(f, Quote(text) + " is more than 100%");
  if (*v > std::numeric_limits<int32_t>::max()) Fail(f, Quote(text) + " is too large");
  return IntOrPercent{static_cast<int>(*v), percent};
}

void ObjectReader::CheckDuplicate(std::string_view kind, const std::string& key,
                                  const Field& name_field) const {
  if (seen == nullptr) return;
  auto [it, inserted] = seen->emplace(Cat({kind, std::string_view("\0", 1), key}),
                                      ObjectSource{file_, name_field.line});
  if (inserted) return;
  Fail(name_field,
       Cat({"duplicate ", kind, " ", Quote(key), "; it is also at ", it->second.file, ":",
            std::to_string(it->second.line)}),
       "give each object once; pass an export only once");
}

// ---- Documents and objects ---------------------------------------------------------------

void ObjectReader::ReadDocument(const TreeNode& doc) {
  ReadObject(Field{&doc, "", LineOf(doc, 0)});
}

// Reads one object of a kind this reader keeps into its vector, with its source.
template <class T, class ReadFn>
void Keep(std::vector<T>& objects, std::vector<ObjectSource>& sources, const std::string& file,
          int line, ReadFn read) {
  objects.push_back(read());
  sources.push_back(ObjectSource{file, line});
}

void ObjectReader::ReadObject(const Field& object) {
  if (object.node->kind != NodeKind::kMap) {
    Fail(object, Cat({"expected a Kubernetes object, found ", Describe(tree_, *object.node)}),
         "each document is one object with `apiVersion` and `kind`, or a `kind: List`");
  }
  const std::optional<Field> kind_field = Get(object, "kind");
  if (!kind_field) {
    Fail(object, "missing required key `kind`",
         "each object says what it is, e.g. `kind: Pod`; export with kubectl get -o yaml");
  }
  const std::string kind = String(*kind_field);
  const int line = object.line;
  if (kind == "Node") {
    Keep(out_.nodes, out_.node_sources, file_, line, [&] { return ReadNode(object); });
  } else if (kind == "Pod") {
    Keep(out_.pods, out_.pod_sources, file_, line, [&] { return ReadPod(object); });
  } else if (kind == "Deployment") {
    Keep(out_.deployments, out_.deployment_sources, file_, line,
         [&] { return ReadDeployment(object); });
  } else if (kind == "ReplicaSet") {
    Keep(out_.replica_sets, out_.replica_set_sources, file_, line,
         [&] { return ReadReplicaSet(object); });
  } else if (kind == "StatefulSet") {
    Keep(out_.stateful_sets, out_.stateful_set_sources, file_, line,
         [&] { return ReadStatefulSet(object); });
  } else if (kind == "Job") {
    Keep(out_.jobs, out_.job_sources, file_, line, [&] { return ReadJob(object); });
  } else if (kind == "PodDisruptionBudget") {
    Keep(out_.pdbs, out_.pdb_sources, file_, line, [&] { return ReadPdb(object); });
  } else if (kind == "PersistentVolumeClaim") {
    Keep(out_.pvcs, out_.pvc_sources, file_, line, [&] { return ReadPvc(object); });
  } else if (kind == "PersistentVolume") {
    Keep(out_.pvs, out_.pv_sources, file_, line, [&] { return ReadPv(object); });
  } else if (kind == "StorageClass") {
    Keep(out_.storage_classes, out_.storage_class_sources, file_, line,
         [&] { return ReadStorageClass(object); });
  } else if (kind == "ResourceQuota") {
    Keep(out_.resource_quotas, out_.resource_quota_sources, file_, line,
         [&] { return ReadResourceQuota(object); });
  } else if (kind == "List" || (EndsWith(kind, "List") && Get(object, "items"))) {
    // kubectl's envelope, and the API's typed lists (PodList, NodeList).
    if (auto items = Get(object, "items")) {
      for (const Field& item : Items(*items)) ReadObject(item);
    }
  } else if (kind.empty()) {
    Fail(*kind_field, "`kind` is empty", "e.g. `kind: Pod`");
  } else {
    ++out_.skipped_kinds[kind];
  }
}

ObjectReader::Meta ObjectReader::ReadMeta(const Field& object, std::string_view kind,
                                          bool namespaced) {
  Meta meta;
  meta.field = Require(object, "metadata");
  ExpectMap(meta.field);
  meta.name_field = Require(meta.field, "name");
  meta.name = String(meta.name_field);
  if (meta.name.empty()) Fail(meta.name_field, Cat({"empty ", Lower(kind), " name"}));
  if (namespaced) {
    if (auto ns = Get(meta.field, "namespace")) meta.namespace_ = String(*ns);
    if (meta.namespace_.empty()) meta.namespace_ = "default";
    CheckDuplicate(kind, Cat({meta.namespace_, "/", meta.name}), meta.name_field);
  } else {
    meta.namespace_.clear();
    CheckDuplicate(kind, meta.name, meta.name_field);
  }
  if (auto uid = Get(meta.field, "uid")) meta.uid = String(*uid);
  meta.labels = Get(meta.field, "labels");
  meta.annotations = Get(meta.field, "annotations");
  return meta;
}

std::vector<OwnerReference> ObjectReader::ReadOwnerReferences(const Meta& meta) {
  std::vector<OwnerReference> owners;
  const std::optional<Field> refs = Get(meta.field, "ownerReferences");
  if (!refs) return owners;
  bool has_controller = false;
  for (const Field& r : Items(*refs)) {
    ExpectMap(r);
    OwnerReference owner;
    if (auto api = Get(r, "apiVersion")) owner.api_version = String(*api);
    const Field kind = Require(r, "kind");
    owner.kind = String(kind);
    if (owner.kind.empty()) Fail(kind, "empty owner kind");
    const Field name = Require(r, "name");
    owner.name = String(name);
    if (owner.name.empty()) Fail(name, "empty owner name");
    if (auto uid = Get(r, "uid")) owner.uid = String(*uid);
    if (auto controller = Get(r, "controller")) {
      owner.controller = Bool(*controller);
      // The API server's rule (ValidateOwnerReferences): one managing controller at most.
      if (owner.controller && has_controller) {
        Fail(*controller, "a second owner reference with controller: true",
             "an object has at most one managing controller");
      }
      has_controller = has_controller || owner.controller;
    }
    owners.push_back(std::move(owner));
  }
  return owners;
}

// ---- Resources ---------------------------------------------------------------------------

int64_t ObjectReader::ResourceValue(const Field& f, const std::string& name,
                                    const std::string& text) {
  if (name == "cpu") {
    Parsed<int64_t> cpu = ParseCpuMilli(text);
    if (!cpu.ok()) Fail(f, cpu.error, cpu.hint);
    return *cpu.value;
  }
  const std::optional<double> v = ParseQuantity(text);
  if (IsByteResource(name)) {
    if (!v) {
      // ParseMemoryMib knows the usual slips (`4GB`, `4gi`) and their fixes.
      Parsed<int64_t> m = ParseMemoryMib(text);
      std::string hint = m.hint;
      if (!hint.starts_with("did you mean")) {
        hint = name + " is in bytes or a quantity such as 512Mi or 8Gi";
      }
      Fail(f, Quote(text) + " is not a quantity", hint);
    }
    if (*v < 0) Fail(f, Quote(text) + " is negative");
    const std::optional<int64_t> bytes = CeilToInt(*v);
    if (!bytes) Fail(f, Quote(text) + " is too large");
    if (EndsWith(text, "m") && *v < 1e6) {
      // Valid Kubernetes (millibytes, rounded up to bytes), and what a cluster does with it,
      // but almost always a slip for Mi.
      Warn(f, Cat({Quote(text), " is ", text.substr(0, text.size() - 1),
                   " millibytes (m means milli), counted as ", std::to_string(*bytes),
                   " byte(s); did you mean ", text.substr(0, text.size() - 1), "Mi?"}));
    }
    return *bytes;
  }
  if (!v) {
    std::string hint = name == kGpuMemResource ? GpuMemHint(text) : "";
    if (hint.empty()) hint = "write a whole number such as 1 or 8";
    Fail(f, Quote(text) + " is not a quantity", hint);
  }
  if (*v < 0) Fail(f, Quote(text) + " is negative");
  std::optional<int64_t> n = ExactInt(*v);
  if (!n && IsExtendedResource(name)) {
    Fail(f, Quote(text) + " is not a whole number",
         Cat({"extended resources such as ", name, " are integers"}));
  }
  if (!n) n = CeilToInt(*v);
  if (!n) Fail(f, Quote(text) + " is too large");
  if (IsGpuResource(name) && *n > kMaxGpuUnits) {
    std::string hint = name == kGpuMemResource ? GpuMemHint(text) : "";
    if (hint.empty()) hint = Cat({"no GPU has that many; ", name, " counts whole units"});
    Fail(f, Cat({Quote(text), " is ", std::to_string(*n), " units, too many for ", name}), hint);
  }
  return *n;
}

std::vector<ResourceEntry> ObjectReader::Resources(const std::optional<Field>& f) {
  std::vector<ResourceEntry> entries;
  if (!f) return entries;
  for (const auto& [name, value] : Entries(*f)) {
    if (name.empty()) Fail(value, "empty resource name");
    if (value.node->kind != NodeKind::kScalar) {
      Fail(value, Cat({"expected a quantity, found ", Describe(tree_, *value.node)}),
           "write resources as name: quantity, e.g. cpu: 500m");
    }
    const std::string text(tree_.Scalar(*value.node));
    entries.push_back(ResourceEntry{name, ResourceValue(value, name, text), text, value});
  }
  return entries;
}

ContainerResources ObjectReader::ReadContainerResources(const Field& container, bool init) {
  ContainerResources out;
  if (init) {
    if (auto policy = Get(container, "restartPolicy")) {
      out.sidecar = Enum(*policy, {"Always"}, "a container restart policy") == "Always";
    }
  }
  std::optional<Field> resources = Get(container, "resources");
  if (!resources) return out;
  ExpectMap(*resources);
  const std::vector<ResourceEntry> requests = Resources(Get(*resources, "requests"));
  const std::vector<ResourceEntry> limits = Resources(Get(*resources, "limits"));
  for (const ResourceEntry& l : limits) out.limits[l.name] = l.value;
  for (const ResourceEntry& r : requests) {
    auto limit = std::find_if(limits.begin(), limits.end(),
                              [&](const ResourceEntry& l) { return l.name == r.name; });
    // The API server's validation (ValidateResourceRequirements), so a hand-written pending
    // pod means here what the cluster would accept.
    if (IsExtendedResource(r.name) && limit == limits.end()) {
      Fail(r.field, r.name + " is requested without a limit",
           "extended resources need resources.limits, equal to the request");
    }
    if (limit != limits.end()) {
      if (IsExtendedResource(r.name) && r.value != limit->value) {
        Fail(r.field, Cat({Quote(r.text), " differs from the limit ", Quote(limit->text)}),
             "extended resources cannot be over-committed: requests must equal limits");
      }
      if (r.value > limit->value) {
        Fail(r.field, Cat({Quote(r.text), " is more than the limit ", Quote(limit->text)}),
             "a request must not exceed its limit");
      }
    }
    out.requests[r.name] = r.value;
  }
  // Defaulting: a resource with only a limit is requested at the limit.
  for (const ResourceEntry& l : limits) out.requests.emplace(l.name, l.value);
  return out;
}

// ---- Selectors, tolerations, spread ------------------------------------------------------

NodeSelectorRequirement ObjectReader::ReadNodeSelectorRequirement(const Field& f,
                                                                  bool match_field) {
  ExpectMap(f);
  NodeSelectorRequirement r;
  const Field key = Require(f, "key");
  r.key = String(key);
  const Field op = Require(f, "operator");
  if (match_field) {
    // Only metadata.name is a node field selector (validation.go validateNodeFieldSelector).
    if (r.key != "metadata.name") {
      Fail(key, Quote(r.key) + " is not a node field", "matchFields supports only metadata.name");
    }
    r.op = Enum(op, {"In", "NotIn"}, "a node field selector operator");
  } else {
    if (r.key.empty()) Fail(key, "empty label key");
    r.op =
        Enum(op, {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}, "a node selector operator");
  }
  const std::optional<Field> values_field = Get(f, "values");
  r.values = StringList(values_field);
  const Field& at = values_field ? *values_field : op;
  if (match_field && r.values.size() != 1) {
    Fail(at, "matchFields needs exactly one value", "give the node name, e.g. values: [node-1]");
  }
  if ((r.op == "In" || r.op == "NotIn") && r.values.empty()) {
    Fail(at, Cat({"operator ", r.op, " needs values"}));
  }
  if ((r.op == "Exists" || r.op == "DoesNotExist") && !r.values.empty()) {
    Fail(at, Cat({"operator ", r.op, " takes no values"}));
  }
  if (r.op == "Gt" || r.op == "Lt") {
    if (r.values.size() != 1) Fail(at, Cat({"operator ", r.op, " needs exactly one value"}));
    // Go's strconv.ParseInt, as upstream reads it: an optional sign, digits.
    const std::string& v = r.values[0];
    if (!ParseInteger(v.starts_with('+') ? std::string_view(v).substr(1) : std::string_view(v))) {
      Fail(at, Cat({Quote(r.values[0]), " is not a whole number"}),
           Cat({r.op, " compares the label as an integer"}));
    }
  }
  return r;
}

std::vector<NodeSelectorRequirement> ObjectReader::ReadNodeSelectorTerm(const Field& term) {
  ExpectMap(term);
  std::vector<NodeSelectorRequirement> requirements;
  if (auto exprs = Get(term, "matchExpressions")) {
    for (const Field& e : Items(*exprs)) {
      requirements.push_back(ReadNodeSelectorRequirement(e, false));
    }
  }
  // matchFields become requirements on the key "metadata.name", which the NodeAffinity filter
  // matches against the node's name (kube_reader.h).
  if (auto fields = Get(term, "matchFields")) {
    for (const Field& e : Items(*fields)) {
      requirements.push_back(ReadNodeSelectorRequirement(e, true));
    }
  }
  return requirements;
}

LabelSelector ObjectReader::ReadLabelSelector(const Field& f) {
  ExpectMap(f);
  LabelSelector s;
  s.match_labels = StringMap(Get(f, "matchLabels"));
  if (auto exprs = Get(f, "matchExpressions")) {
    for (const Field& e : Items(*exprs)) {
      ExpectMap(e);
      LabelSelectorRequirement r;
      r.key = String(Require(e, "key"));
      const Field op = Require(e, "operator");
      r.op = Enum(op, {"In", "NotIn", "Exists", "DoesNotExist"}, "a label selector operator");
      const std::optional<Field> values = Get(e, "values");
      r.values = StringList(values);
      const Field& at = values ? *values : op;
      if ((r.op == "In" || r.op == "NotIn") && r.values.empty()) {
        Fail(at, Cat({"operator ", r.op, " needs values"}));
      }
      if ((r.op == "Exists" || r.op == "DoesNotExist") && !r.values.empty()) {
        Fail(at, Cat({"operator ", r.op, " takes no values"}));
      }
      s.match_expressions.push_back(std::move(r));
    }
  }
  return s;
}

Toleration ObjectReader::ReadToleration(const Field& f) {
  ExpectMap(f);
  Toleration t;
  if (auto key = Get(f, "key")) t.key = String(*key);
  std::optional<Field> op = Get(f, "operator");
  if (op) {
    t.op = Enum(*op, {"Equal", "Exists", ""}, "a toleration operator");
    if (t.op.empty()) t.op = "Equal";  // upstream: an empty operator means Equal
  }
  std::optional<Field> value = Get(f, "value");
  if (value) t.value = String(*value);
  if (auto effect = Get(f, "effect")) {
    t.effect = Enum(*effect, {"NoSchedule", "PreferNoSchedule", "NoExecute", ""}, "a taint effect");
  }
  if (auto seconds = Get(f, "tolerationSeconds")) {
    t.toleration_seconds =
        Int(*seconds, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  }
  // The API server's rules (validateTolerations).
  if (t.op == "Exists" && !t.value.empty()) {
    Fail(*value, "a toleration with operator Exists takes no value");
  }
  if (t.key.empty() && t.op != "Exists") {
    Fail(op ? *op : f, "a toleration without key needs operator Exists",
         "operator: Exists with no key tolerates every taint");
  }
  return t;
}

TopologySpreadConstraint ObjectReader::ReadSpreadConstraint(const Field& f) {
  ExpectMap(f);
  TopologySpreadConstraint c;
  c.max_skew = static_cast<int>(Int(Require(f, "maxSkew"), 1, std::numeric_limits<int>::max()));
  const Field key = Require(f, "topologyKey");
  c.topology_key = String(key);
  if (c.topology_key.empty()) Fail(key, "empty topologyKey");
  c.when_unsatisfiable = Enum(Require(f, "whenUnsatisfiable"), {"DoNotSchedule", "ScheduleAnyway"},
                              "a whenUnsatisfiable value");
  if (auto selector = Get(f, "labelSelector")) {
    c.label_selector = ReadLabelSelector(*selector);
  } else {
    // Upstream turns a nil selector into labels.Nothing(): the constraint counts no pod.
    c.label_selector.match_expressions.push_back(LabelSelectorRequirement{"", "In", {}});
  }
  c.match_label_keys = StringList(Get(f, "matchLabelKeys"));
  if (auto min_domains = Get(f, "minDomains")) {
    c.min_domains = static_cast<int>(Int(*min_domains, 1, std::numeric_limits<int>::max()));
    if (c.when_unsatisfiable != "DoNotSchedule") {
      Fail(*min_domains, "minDomains needs whenUnsatisfiable DoNotSchedule");
    }
  }
  if (auto policy = Get(f, "nodeAffinityPolicy")) {
    c.node_affinity_policy = Enum(*policy, {"Honor", "Ignore"}, "a node inclusion policy");
  }
  if (auto policy = Get(f, "nodeTaintsPolicy")) {
    c.node_taints_policy = Enum(*policy, {"Honor", "Ignore"}, "a node inclusion policy");
  }
  return c;
}

// ---- ACK allocation annotations (semantics.md §1.3) ----------------------------------------

// {"<container>": {"<card>": units}} with units as a number, an "<allocated>/<total>" string or
// a list of device ids (the "countable" form; units = its length). Card -> units over
// containers. The value is parsed but never quoted back whole: it is ours to read, not to echo.
AllocationMap ObjectReader::ReadAllocationJson(const Field& f, const std::string& text) const {
  const char* kShape = "expected JSON such as {\"0\":{\"1\":4}}: container -> card -> units";
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) Fail(f, "is not valid JSON", kShape);
  if (!json.is_object()) Fail(f, "is not an ACK allocation", kShape);
  AllocationMap cards;
  for (const auto& [container, per_card] : json.items()) {
    if (!per_card.is_object()) {
      Fail(f, Cat({"container ", Quote(container), " has no card map"}), kShape);
    }
    for (const auto& [card_text, units_json] : per_card.items()) {
      const std::optional<int64_t> card = ParseInteger(card_text);
      if (!card || *card < 0 || *card >= kMaxCardsPerNode) {
        Fail(f, Cat({"card ", Quote(card_text), " is not a card index"}), kShape);
      }
      std::optional<int64_t> units;
      if (units_json.is_number_integer() || units_json.is_number_unsigned()) {
        units = units_json.get<int64_t>();
      } else if (units_json.is_string()) {
        const std::string s = units_json.get<std::string>();
        units = ParseInteger(s.substr(0, s.find('/')));
      } else if (units_json.is_array()) {
        units = static_cast<int64_t>(units_json.size());
      }
      if (!units || *units < 0 || *units > kMaxGpuUnits) {
        Fail(f,
             Cat({"card ", card_text, " of container ", Quote(container),
                  " has no whole number of units"}),
             kShape);
      }
      cards[static_cast<int>(*card)] += static_cast<int>(*units);
    }
  }
  return cards;
}

void ObjectReader::ReadAllocation(const Field& annotations, PodSpec& pod) {
  // ACK's cache rebuild reads the framework's annotations first (v2, then the v3 name, which
  // we assume carries the same JSON: ACKP declares it parser-compatible), then the extender's
  // (v1). An empty v2/v3 allocation falls through to v1.
  for (std::string_view key : {kAllocationV2, kAllocationV3}) {
    if (auto f = Get(annotations, key)) {
      pod.allocated_mem = ReadAllocationJson(*f, String(*f, false));
      if (!pod.allocated_mem.empty()) break;
    }
  }
  if (auto f = Get(annotations, kCoreAllocationV2)) {
    pod.allocated_core = ReadAllocationJson(*f, String(*f, false));
  }
  if (!pod.allocated_mem.empty() || !pod.allocated_core.empty()) return;
  if (auto idx = Get(annotations, kCardIndexV1)) {
    const std::string text = String(*idx);
    const std::optional<int64_t> card = ParseInteger(text);
    if (!card || *card < 0 || *card >= kMaxCardsPerNode) {
      Fail(*idx, Quote(text) + " is not a card index", "the extender writes one card index");
    }
    // Without ALIYUN_COM_GPU_MEM_POD the pod's own request is what the extender would write.
    int64_t units = pod.gpu_mem;
    if (auto pod_units = Get(annotations, kPodUnitsV1)) units = Int(*pod_units, 0, kMaxGpuUnits);
    pod.allocated_mem[static_cast<int>(*card)] = static_cast<int>(units);
  }
}

// ---- Node --------------------------------------------------------------------------------

NodeSpec ObjectReader::ReadNode(const Field& object) {
  NodeSpec node;
  const Meta meta = ReadMeta(object, "Node", /*namespaced=*/false);
  node.name = meta.name;
  const std::optional<Field>& labels = meta.labels;
  node.labels = StringMap(labels);
  node.annotations = Annotations(meta.annotations);

  if (auto spec = Get(object, "spec")) {
    ExpectMap(*spec);
    if (auto taints = Get(*spec, "taints")) {
      for (const Field& t : Items(*taints)) {
        ExpectMap(t);
        Taint taint;
        const Field key = Require(t, "key");
        taint.key = String(key);
        if (taint.key.empty()) Fail(key, "empty taint key");
        if (auto value = Get(t, "value")) taint.value = String(*value);
        taint.effect = Enum(Require(t, "effect"), {"NoSchedule", "PreferNoSchedule", "NoExecute"},
                            "a taint effect");
        node.taints.push_back(std::move(taint));
      }
    }
    if (auto unschedulable = Get(*spec, "unschedulable")) node.unschedulable = Bool(*unschedulable);
  }

  std::vector<ResourceEntry> capacity;
  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    capacity = Resources(Get(*status, "capacity"));
    for (const ResourceEntry& e : capacity) node.capacity[e.name] = e.value;
    const std::optional<Field> allocatable = Get(*status, "allocatable");
    for (const ResourceEntry& e : Resources(allocatable)) node.allocatable[e.name] = e.value;
    // The kubelet always reports allocatable; a hand-written node without it offers capacity.
    if (!allocatable) node.allocatable = node.capacity;
    if (auto images = Get(*status, "images")) {
      for (const Field& i : Items(*images)) {
        ExpectMap(i);
        ContainerImage image;
        image.names = StringList(Get(i, "names"));
        if (auto size = Get(i, "sizeBytes")) {
          image.size_bytes = Int(*size, 0, std::numeric_limits<int64_t>::max());
        }
        node.images.push_back(std::move(image));
      }
    }
    node.ready_status = ReadyStatus(*status);
    if (auto info = Get(*status, "nodeInfo")) {
      ExpectMap(*info);
      if (auto version = Get(*info, "kubeletVersion")) node.kubelet_version = String(*version);
    }
  }

  // GPU side (semantics.md §1.1-1.2), from status.capacity as ACK's plugin reads it.
  auto label = [&](std::string_view key) -> std::string {
    auto it = node.labels.find(std::string(key));
    return it == node.labels.end() ? std::string() : it->second;
  };
  auto cap = [&](std::string_view resource) -> const ResourceEntry* {
    for (const ResourceEntry& e : capacity) {
      if (e.name == resource) return &e;
    }
    return nullptr;
  };
  auto cap_value = [&](std::string_view resource) -> int64_t {
    const ResourceEntry* e = cap(resource);
    return e == nullptr ? 0 : e->value;
  };
  node.gpu_schedule = label(kScheduleLabel);
  if (node.gpu_schedule.empty()) {
    // Pre-node-pool labels, as ACK's migration maps them.
    if (label("cgpu") == "true") {
      node.gpu_schedule = "cgpu";
    } else if (label("gpushare") == "true") {
      node.gpu_schedule = "share";
    } else {
      node.gpu_schedule = "default";
    }
  }
  const int64_t share_cards = cap_value(kGpuCountResource);
  const ResourceEntry* cards_entry = cap(kGpuCountResource);
  if (share_cards == 0) {
    cards_entry =
        cap_value(kNvidiaGpuResource) > 0 ? cap(kNvidiaGpuResource) : cap(kTopologyGpuResource);
  }
  const int64_t cards = cards_entry == nullptr ? 0 : cards_entry->value;
  if (cards > kMaxCardsPerNode) {
    Fail(cards_entry->field,
         Cat({std::to_string(cards), " GPUs on one node is more than knobsim models (",
              std::to_string(kMaxCardsPerNode), ")"}));
  }
  node.gpu_cards = static_cast<int>(cards);
  if (share_cards > 0) {
    node.card_mem_units = static_cast<int>(cap_value(kGpuMemResource) / share_cards);
    node.card_core_percent = static_cast<int>(cap_value(kGpuCoreResource) / share_cards);
  } else if (const ResourceEntry* mem = cap(kGpuMemResource); mem != nullptr && mem->value > 0) {
    Warn(mem->field,
         "aliyun.com/gpu-mem without aliyun.com/gpu-count: ACK sees no card to share here");
  }
  node.gpu_model = label(kGpuNameLabel);
  node.placement = label(kPlacementLabel);
  if (auto p = NormalizePlacement(node.placement)) node.placement = *p;
  if (labels) {
    if (auto max_pod = Get(*labels, kMaxPodLabel)) {
      node.max_pods_per_card = static_cast<int>(Int(*max_pod, 0, 1'000'000));
    }
  }
  return node;
}

// ---- Pod ---------------------------------------------------------------------------------

// Upstream's PodRequests (component-helpers resource.PodRequests): regular containers sum;
// restartable (sidecar) init containers add to that sum and to every later init container;
// the pod takes the larger of the two per resource, plus overhead. `defaults` fills a
// container's missing resource (the NonMissingContainerRequests option used for scoring).
ResourceList PodRequests(const std::vector<ContainerResources>& containers,
                         const std::vector<ContainerResources>& init_containers,
                         const ResourceList& overhead, const ResourceList& defaults) {
  auto with_defaults = [&](const ResourceList& r) {
    ResourceList out = r;
    for (const auto& [name, amount] : defaults) out.emplace(name, amount);
    return out;
  };
  auto add = [](ResourceList& to, const ResourceList& r) {
    for (const auto& [name, amount] : r) to[name] += amount;
  };
  auto max_into = [](ResourceList& to, const ResourceList& r) {
    for (const auto& [name, amount] : r) {
      auto [it, inserted] = to.emplace(name, amount);
      if (!inserted) it->second = std::max(it->second, amount);
    }
  };
  ResourceList requests;
  for (const ContainerResources& c : containers) add(requests, with_defaults(c.requests));
  ResourceList sidecars;
  ResourceList init_max;
  for (const ContainerResources& c : init_containers) {
    ResourceList r = with_defaults(c.requests);
    if (c.sidecar) {
      add(requests, r);
      add(sidecars, r);
      r = sidecars;
    } else {
      add(r, sidecars);
    }
    max_into(init_max, r);
  }
  max_into(requests, init_max);
  add(requests, overhead);
  return requests;
}

PodSpec ObjectReader::ReadPod(const Field& object) {
  PodSpec pod;
  const Meta meta = ReadMeta(object, "Pod", /*namespaced=*/true);
  pod.name = meta.name;
  pod.namespace_ = meta.namespace_;
  pod.uid = meta.uid;
  const std::optional<Field>& labels = meta.labels;
  pod.labels = StringMap(labels);
  const std::optional<Field>& annotations = meta.annotations;
  pod.annotations = Annotations(annotations);
  pod.owner_references = ReadOwnerReferences(meta);
  pod.terminating = Get(meta.field, "deletionTimestamp").has_value();

  const Field spec = Require(object, "spec");
  ExpectMap(spec);
  ReadPodBody(spec, labels, annotations, pod);

  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    if (auto phase = Get(*status, "phase")) {
      pod.phase =
          Enum(*phase, {"Pending", "Running", "Succeeded", "Failed", "Unknown"}, "a pod phase");
    }
    pod.ready_status = ReadyStatus(*status);
    if (auto statuses = Get(*status, "containerStatuses")) ReadContainerStatuses(*statuses, pod);
  }
  return pod;
}

// The pod spec proper, shared by pods and the pod templates of workload manifests.
void ObjectReader::ReadPodBody(const Field& spec, const std::optional<Field>& labels,
                              const std::optional<Field>& annotations, PodSpec& pod) {
  if (auto node_name = Get(spec, "nodeName")) pod.node_name = String(*node_name);
  if (auto priority = Get(spec, "priority")) {
    pod.priority = static_cast<int>(
        Int(*priority, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
  }
  if (auto class_name = Get(spec, "priorityClassName"); class_name && !Get(spec, "priority")) {
    // The Priority admission plugin copies the class's value into spec.priority; an exported
    // pod always has it. A hand-written one may not: the two built-in classes are known, any
    // other class is an object we do not read.
    const std::string name = String(*class_name);
    if (name == "system-node-critical") {
      pod.priority = 2000001000;
    } else if (name == "system-cluster-critical") {
      pod.priority = 2000000000;
    } else {
      Warn(*class_name, Cat({"priority class ", Quote(name),
                             " without spec.priority; the priority reads as 0 (give "
                             "spec.priority the class's value)"}));
    }
  }
  if (auto policy = Get(spec, "preemptionPolicy")) {
    pod.preemption_policy = Enum(*policy, {"PreemptLowerPriority", "Never"}, "a preemption policy");
  }
  pod.node_selector = StringMap(Get(spec, "nodeSelector"));
  if (auto affinity = Get(spec, "affinity")) {
    ExpectMap(*affinity);
    if (auto node_affinity = Get(*affinity, "nodeAffinity")) {
      ExpectMap(*node_affinity);
      if (auto required = Get(*node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
        ExpectMap(*required);
        const Field terms = Require(*required, "nodeSelectorTerms");
        for (const Field& term : Items(terms)) {
          pod.node_affinity.required_terms.push_back(ReadNodeSelectorTerm(term));
        }
        if (pod.node_affinity.required_terms.empty()) {
          Fail(terms, "no nodeSelectorTerms", "give at least one term, or drop the required part");
        }
      }
      if (auto preferred = Get(*node_affinity, "preferredDuringSchedulingIgnoredDuringExecution")) {
        for (const Field& p : Items(*preferred)) {
          ExpectMap(p);
          NodeAffinity::Preferred pref;
          pref.weight = static_cast<int>(Int(Require(p, "weight"), 1, 100));
          pref.expressions = ReadNodeSelectorTerm(Require(p, "preference"));
          pod.node_affinity.preferred.push_back(std::move(pref));
        }
      }
    }
    for (std::string_view kind : {"podAffinity", "podAntiAffinity"}) {
      if (auto f = Get(*affinity, kind)) {
        Warn(*f, "inter-pod affinity is not modelled yet; the scheduler ignores it");
      }
    }
  }
  if (pod.node_name.empty()) {
    // Things that change whether or by whom a pending pod is scheduled, which we do not model.
    if (auto gates = Get(spec, "schedulingGates")) {
      Warn(*gates, "scheduling gates are not modelled; the pod is scheduled as if ungated");
    }
    if (auto scheduler = Get(spec, "schedulerName")) {
      if (const std::string name = String(*scheduler); name != "default-scheduler") {
        Warn(*scheduler, Cat({"scheduler ", Quote(name),
                              " places this pod in the cluster; knobsim applies kube-scheduler's "
                              "rules"}));
      }
    }
  }
  if (auto tolerations = Get(spec, "tolerations")) {
    for (const Field& t : Items(*tolerations)) pod.tolerations.push_back(ReadToleration(t));
  }
  if (auto constraints = Get(spec, "topologySpreadConstraints")) {
    for (const Field& c : Items(*constraints)) {
      pod.topology_spread.push_back(ReadSpreadConstraint(c));
    }
  }
  ResourceList overhead;
  for (const ResourceEntry& e : Resources(Get(spec, "overhead"))) overhead[e.name] = e.value;

  // Containers: requests for the scheduler, limits for ACK (semantics.md §1.1: ACK reads
  // limits of spec.containers only).
  std::vector<ContainerResources> containers;
  std::vector<ContainerResources> init_containers;
  const Field containers_field = Require(spec, "containers");
  const std::vector<Field> container_items = Items(containers_field);
  if (container_items.empty()) Fail(containers_field, "a pod needs at least one container");
  if (auto init = Get(spec, "initContainers")) {
    for (const Field& c : Items(*init)) {
      ExpectMap(c);
      init_containers.push_back(ReadContainerResources(c, /*init=*/true));
      if (auto image = Get(c, "image")) pod.images.push_back(String(*image));
    }
  }
  for (const Field& c : container_items) {
    ExpectMap(c);
    containers.push_back(ReadContainerResources(c, /*init=*/false));
    ContainerInfo info;
    if (auto container_name = Get(c, "name")) info.name = String(*container_name);
    if (auto image = Get(c, "image")) {
      info.image = String(*image);
      pod.images.push_back(info.image);
      // `@` appears in an image reference only before a digest (`name@sha256:…`).
      info.image_digest = info.image.find('@') != std::string::npos;
    }
    for (const auto& [key, probe] :
         {std::pair{"readinessProbe", &info.readiness}, std::pair{"livenessProbe", &info.liveness},
          std::pair{"startupProbe", &info.startup}}) {
      if (auto f = Get(c, key)) *probe = ReadProbe(*f);
    }
    pod.containers.push_back(std::move(info));
    const ResourceList& limits = containers.back().limits;
    ContainerGpu gpu;
    if (auto it = limits.find(kGpuMemResource); it != limits.end()) {
      gpu.gpu_mem = static_cast<int>(it->second);
    }
    if (auto it = limits.find(kGpuCoreResource); it != limits.end()) {
      gpu.gpu_core = static_cast<int>(it->second);
    }
    pod.container_gpus.push_back(gpu);
    pod.gpu_mem += gpu.gpu_mem;
    pod.gpu_core += gpu.gpu_core;
  }
  pod.num_containers = static_cast<int>(containers.size());
  if (auto volumes = Get(spec, "volumes")) {
    for (const Field& v : Items(*volumes)) {
      ExpectMap(v);
      if (auto claim = Get(v, "persistentVolumeClaim")) {
        ExpectMap(*claim);
        const Field claim_name = Require(*claim, "claimName");
        pod.pvc_claims.push_back(String(claim_name));
        if (pod.pvc_claims.back().empty()) Fail(claim_name, "empty claimName");
      } else if (Get(v, "ephemeral")) {
        // A generic ephemeral volume: its controller names the claim `<pod>-<volume>`.
        pod.pvc_claims.push_back(Cat({pod.name, "-", String(Require(v, "name"))}));
      }
    }
  }
  pod.requests = PodRequests(containers, init_containers, overhead, {});
  // Scoring's non-zero requests: 100m cpu and 200Mi memory for a container that sets none.
  const ResourceList nonzero = PodRequests(containers, init_containers, overhead,
                                           {{"cpu", 100}, {"memory", int64_t{200} << 20}});
  pod.nonzero_cpu_milli = nonzero.at("cpu");
  pod.nonzero_memory_bytes = nonzero.at("memory");
  if (auto it = pod.requests.find(kNvidiaGpuResource); it != pod.requests.end()) {
    pod.whole_gpus = static_cast<int>(it->second);
  }

  if (labels) {
    if (auto count = Get(*labels, kPodGpuCountLabel)) {
      pod.gpu_count = static_cast<int>(Int(*count, 1, kMaxCardsPerNode));
    }
  }
  auto whole_device = [&](const Labels& map) {
    auto it = map.find(std::string(kWholeDeviceKey));
    return it != map.end() && it->second == "require-whole-device";
  };
  pod.require_whole_device = whole_device(pod.labels) || whole_device(pod.annotations);
  if (annotations) ReadAllocation(*annotations, pod);
}

// ---- Probes and status -------------------------------------------------------------------

// A probe (semantics.md §5.3). What may hold a credential is never read: HTTP headers, the
// arguments of an exec command, a path's query string; what is kept is checked once more with
// LooksLikeSecret and left empty if it looks like one.
Probe ObjectReader::ReadProbe(const Field& f) {
  ExpectMap(f);
  Probe probe;
  std::optional<Field> handler;
  std::string_view handler_key;
  for (const auto& [key, kind] : {std::pair{std::string_view("exec"), ProbeKind::kExec},
                                  std::pair{std::string_view("httpGet"), ProbeKind::kHttpGet},
                                  std::pair{std::string_view("tcpSocket"), ProbeKind::kTcpSocket},
                                  std::pair{std::string_view("grpc"), ProbeKind::kGrpc}}) {
    std::optional<Field> h = Get(f, key);
    if (!h) continue;
    if (handler) {
      Fail(*h, Cat({"a probe has one handler, and ", Backquote(handler_key), " is already given"}),
           "keep one of exec, httpGet, tcpSocket and grpc");
    }
    handler = std::move(h);
    handler_key = key;
    probe.kind = kind;
  }
  if (!handler) Fail(f, "a probe needs a handler", "give one of exec, httpGet, tcpSocket and grpc");
  ExpectMap(*handler, /*reveal=*/false);
  switch (probe.kind) {
    case ProbeKind::kExec:
      if (auto command = Get(*handler, "command")) {
        const std::vector<Field> words = Items(*command, /*reveal=*/false);
        if (!words.empty()) {
          // The program alone: up to the first blank (a whole shell line in one word), without
          // its directory.
          const std::string first = String(words[0], /*reveal=*/false);
          std::string_view program(first);
          program = program.substr(0, program.find_first_of(" \t\n"));
          program = program.substr(program.find_last_of('/') + 1);
          if (!LooksLikeSecret("", program)) probe.exec_command = std::string(program);
        }
      }
      break;
    case ProbeKind::kHttpGet:
      probe.port = ReadPort(Require(*handler, "port"));
      if (auto path = Get(*handler, "path")) {
        std::string text = String(*path, /*reveal=*/false);
        text.resize(std::min(text.size(), text.find('?')));
        if (!LooksLikeSecret("", text)) probe.http_path = std::move(text);
      }
      break;
    case ProbeKind::kTcpSocket:
      probe.port = ReadPort(Require(*handler, "port"));
      break;
    case ProbeKind::kGrpc:
      probe.port = std::to_string(Int(Require(*handler, "port"), 1, 65535));
      if (auto service = Get(*handler, "service")) probe.grpc_service = String(*service);
      break;
    case ProbeKind::kNone:
      break;
  }
  // Validation's minimums (validateProbe): only the initial delay may be 0.
  for (const auto& [key, min, out] :
       {std::tuple{"initialDelaySeconds", 0, &probe.initial_delay_seconds},
        std::tuple{"periodSeconds", 1, &probe.period_seconds},
        std::tuple{"timeoutSeconds", 1, &probe.timeout_seconds},
        std::tuple{"successThreshold", 1, &probe.success_threshold},
        std::tuple{"failureThreshold", 1, &probe.failure_threshold}}) {
    if (auto t = Get(f, key))
      *out = static_cast<int>(Int(*t, min, std::numeric_limits<int32_t>::max()));
  }
  return probe;
}

// A probe's port: a number 1-65535 or the name of a container port (an IANA service name, at
// most 15 characters).
std::string ObjectReader::ReadPort(const Field& f) const {
  const std::string text = String(f);
  if (text.empty()) Fail(f, "empty port", "give a port number or the name of a container port");
  if (std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::to_string(Int(f, 1, 65535));
  }
  if (text.size() > 15) {
    Fail(f, Quote(text) + " is not a port number or name", "a port name has at most 15 characters");
  }
  return text;
}

// The status of condition Ready in status.conditions; empty when it is not reported.
std::string ObjectReader::ReadyStatus(const Field& status) {
  const std::optional<Field> conditions = Get(status, "conditions");
  if (!conditions) return "";
  for (const Field& c : Items(*conditions)) {
    ExpectMap(c);
    const std::optional<Field> type = Get(c, "type");
    if (!type || String(*type) != "Ready") continue;
    return Enum(Require(c, "status"), {"True", "False", "Unknown"}, "a condition status");
  }
  return "";
}

// status.containerStatuses onto the containers of the same name: readiness, restarts and the
// reasons (never the messages, which quote logs and commands).
void ObjectReader::ReadContainerStatuses(const Field& statuses, PodSpec& pod) {
  for (const Field& s : Items(statuses)) {
    ExpectMap(s);
    const std::string name = String(Require(s, "name"));
    auto it = std::find_if(pod.containers.begin(), pod.containers.end(),
                           [&](const ContainerInfo& c) { return c.name == name; });
    if (it == pod.containers.end()) continue;  // not a regular container of the spec
    if (auto ready = Get(s, "ready")) it->ready = Bool(*ready);
    it->restart_count = Count(Get(s, "restartCount"), 0);
    auto reason = [&](std::string_view state_key, std::string_view state) -> std::string {
      const std::optional<Field> states = Get(s, state_key);
      if (!states) return "";
      ExpectMap(*states);
      const std::optional<Field> one = Get(*states, state);
      if (!one) return "";
      ExpectMap(*one);
      const std::optional<Field> r = Get(*one, "reason");
      return r ? String(*r) : "";
    };
    it->waiting_reason = reason("state", "waiting");
    it->terminated_reason = reason("state", "terminated");
    it->last_terminated_reason = reason("lastState", "terminated");
  }
}

// ---- Workloads, budgets, storage, quotas (semantics.md §5.4) -----------------------------

Labels ObjectReader::TemplateLabels(const Field& spec) {
  const std::optional<Field> pod_template = Get(spec, "template");
  if (!pod_template) return {};
  ExpectMap(*pod_template);
  const std::optional<Field> meta = Get(*pod_template, "metadata");
  if (!meta) return {};
  ExpectMap(*meta);
  return StringMap(Get(*meta, "labels"));
}

// A config repository holds the manifests, not the pods they make: the template, read like a
// pod, named after its owner and bound nowhere, stands for them (cluster_import uses it only
// for owners without pods in the input).
void ObjectReader::KeepTemplatePod(const Field& spec, const std::string& kind,
                                   const std::string& ns, const std::string& name) {
  const std::optional<Field> pod_template = Get(spec, "template");
  if (!pod_template) return;
  ExpectMap(*pod_template);
  const std::optional<Field> pod_spec = Get(*pod_template, "spec");
  if (!pod_spec) return;
  ExpectMap(*pod_spec);
  std::optional<Field> labels, annotations;
  if (const std::optional<Field> meta = Get(*pod_template, "metadata")) {
    ExpectMap(*meta);
    labels = Get(*meta, "labels");
    annotations = Get(*meta, "annotations");
  }
  PodSpec pod;
  pod.name = name;
  pod.namespace_ = ns;
  pod.labels = StringMap(labels);
  pod.annotations = Annotations(annotations);
  pod.owner_references.push_back(OwnerReference{"apps/v1", kind, name, "", true});
  ReadPodBody(*pod_spec, labels, annotations, pod);
  pod.phase = "Pending";
  out_.template_pods.push_back(std::move(pod));
  out_.template_pod_sources.push_back(ObjectSource{file_, pod_template->line});
}

DeploymentSpec ObjectReader::ReadDeployment(const Field& object) {
  DeploymentSpec d;
  const Meta meta = ReadMeta(object, "Deployment", /*namespaced=*/true);
  d.namespace_ = meta.namespace_;
  d.name = meta.name;
  d.uid = meta.uid;
  const Field spec = Require(object, "spec");
  ExpectMap(spec);
  d.replicas = Count(Get(spec, "replicas"), 1);
  d.selector = ReadLabelSelector(Require(spec, "selector"));
  d.template_labels = TemplateLabels(spec);
  KeepTemplatePod(spec, "Deployment", d.namespace_, d.name);
  if (auto strategy = Get(spec, "strategy")) {
    ExpectMap(*strategy);
    if (auto type = Get(*strategy, "type")) {
      d.strategy = Enum(*type, {"RollingUpdate", "Recreate"}, "a deployment strategy");
    }
    if (auto rolling = Get(*strategy, "rollingUpdate")) {
      ExpectMap(*rolling);
      // The API server's rules (ValidateDeploymentStrategy, ValidateRollingUpdateDeployment).
      if (d.strategy == "Recreate") {
        Fail(*rolling, "rollingUpdate is given with strategy type Recreate",
             "drop rollingUpdate, or use type RollingUpdate");
      }
      const std::optional<Field> surge = Get(*rolling, "maxSurge");
      const std::optional<Field> unavailable = Get(*rolling, "maxUnavailable");
      if (surge) d.max_surge = ReadIntOrPercent(*surge, /*up_to_100=*/false);
      if (unavailable) d.max_unavailable = ReadIntOrPercent(*unavailable, /*up_to_100=*/true);
      if (d.max_surge.value == 0 && d.max_unavailable.value == 0) {
        Fail(unavailable ? *unavailable : *surge, "maxUnavailable and maxSurge are both 0",
             "a rollout could neither add nor remove a pod; raise one of them");
      }
    }
  }
  d.min_ready_seconds = Count(Get(spec, "minReadySeconds"), 0);
  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    d.status_replicas = Count(Get(*status, "replicas"), 0);
    d.ready_replicas = Count(Get(*status, "readyReplicas"), 0);
    d.available_replicas = Count(Get(*status, "availableReplicas"), 0);
  }
  return d;
}

ReplicaSetSpec ObjectReader::ReadReplicaSet(const Field& object) {
  ReplicaSetSpec rs;
  const Meta meta = ReadMeta(object, "ReplicaSet", /*namespaced=*/true);
  rs.namespace_ = meta.namespace_;
  rs.name = meta.name;
  rs.uid = meta.uid;
  rs.labels = StringMap(meta.labels);
  rs.owner_references = ReadOwnerReferences(meta);
  if (auto spec = Get(object, "spec")) {
    ExpectMap(*spec);
    rs.replicas = Count(Get(*spec, "replicas"), 1);
  }
  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    rs.status_replicas = Count(Get(*status, "replicas"), 0);
    rs.ready_replicas = Count(Get(*status, "readyReplicas"), 0);
  }
  return rs;
}

StatefulSetSpec ObjectReader::ReadStatefulSet(const Field& object) {
  StatefulSetSpec sts;
  const Meta meta = ReadMeta(object, "StatefulSet", /*namespaced=*/true);
  sts.namespace_ = meta.namespace_;
  sts.name = meta.name;
  sts.uid = meta.uid;
  const Field spec = Require(object, "spec");
  ExpectMap(spec);
  sts.replicas = Count(Get(spec, "replicas"), 1);
  sts.selector = ReadLabelSelector(Require(spec, "selector"));
  sts.template_labels = TemplateLabels(spec);
  KeepTemplatePod(spec, "StatefulSet", sts.namespace_, sts.name);
  if (auto templates = Get(spec, "volumeClaimTemplates")) {
    for (const Field& t : Items(*templates)) {
      ExpectMap(t);
      const Field t_meta = Require(t, "metadata");
      ExpectMap(t_meta);
      const Field name = Require(t_meta, "name");
      sts.volume_claim_templates.push_back(String(name));
      if (sts.volume_claim_templates.back().empty()) Fail(name, "empty claim template name");
    }
  }
  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    sts.status_replicas = Count(Get(*status, "replicas"), 0);
    sts.ready_replicas = Count(Get(*status, "readyReplicas"), 0);
  }
  return sts;
}

JobSpec ObjectReader::ReadJob(const Field& object) {
  JobSpec job;
  const Meta meta = ReadMeta(object, "Job", /*namespaced=*/true);
  job.namespace_ = meta.namespace_;
  job.name = meta.name;
  job.uid = meta.uid;
  job.owner_references = ReadOwnerReferences(meta);
  return job;
}

PodDisruptionBudgetSpec ObjectReader::ReadPdb(const Field& object) {
  PodDisruptionBudgetSpec pdb;
  const Meta meta = ReadMeta(object, "PodDisruptionBudget", /*namespaced=*/true);
  pdb.namespace_ = meta.namespace_;
  pdb.name = meta.name;
  pdb.uid = meta.uid;
  const std::optional<Field> api_version = Get(object, "apiVersion");
  const bool beta = api_version && String(*api_version) == "policy/v1beta1";
  if (auto spec = Get(object, "spec")) {
    ExpectMap(*spec);
    const std::optional<Field> min = Get(*spec, "minAvailable");
    const std::optional<Field> max = Get(*spec, "maxUnavailable");
    if (min) pdb.min_available = ReadIntOrPercent(*min, /*up_to_100=*/true);
    if (max) pdb.max_unavailable = ReadIntOrPercent(*max, /*up_to_100=*/true);
    // ValidatePodDisruptionBudgetSpec: "minAvailable and maxUnavailable cannot be both set".
    if (min && max) {
      Fail(max->line >= min->line ? *max : *min, "minAvailable and maxUnavailable are both set",
           "a PodDisruptionBudget takes one of them");
    }
    if (auto selector = Get(*spec, "selector")) {
      pdb.selector = ReadLabelSelector(*selector);
      // policy/v1beta1 read an empty selector as matching no pod (policy/v1 changed that).
      if (beta && pdb.selector->match_labels.empty() && pdb.selector->match_expressions.empty()) {
        pdb.selector.reset();
      }
    }
    if (auto policy = Get(*spec, "unhealthyPodEvictionPolicy")) {
      pdb.unhealthy_pod_eviction_policy =
          Enum(*policy, {"IfHealthyBudget", "AlwaysAllow"}, "an unhealthy pod eviction policy");
    }
  }
  // policy/v1beta1's defaulting (SetDefaults_PodDisruptionBudgetSpec): minAvailable 1 when
  // neither is given. policy/v1 has no default.
  if (beta && !pdb.min_available && !pdb.max_unavailable)
    pdb.min_available = IntOrPercent{1, false};
  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    PodDisruptionBudgetSpec::Status s;
    s.current_healthy = Count(Get(*status, "currentHealthy"), 0);
    s.desired_healthy = Count(Get(*status, "desiredHealthy"), 0);
    s.disruptions_allowed = Count(Get(*status, "disruptionsAllowed"), 0);
    s.expected_pods = Count(Get(*status, "expectedPods"), 0);
    pdb.status = s;
  }
  return pdb;
}

// The bytes of `storage` in a resource map (a claim's requests, a volume's capacity).
int64_t ObjectReader::Storage(const std::optional<Field>& resources) {
  for (const ResourceEntry& e : Resources(resources)) {
    if (e.name == "storage") return e.value;
  }
  return 0;
}

PersistentVolumeClaimSpec ObjectReader::ReadPvc(const Field& object) {
  PersistentVolumeClaimSpec pvc;
  const Meta meta = ReadMeta(object, "PersistentVolumeClaim", /*namespaced=*/true);
  pvc.namespace_ = meta.namespace_;
  pvc.name = meta.name;
  pvc.uid = meta.uid;
  if (auto spec = Get(object, "spec")) {
    ExpectMap(*spec);
    if (auto volume = Get(*spec, "volumeName")) pvc.volume_name = String(*volume);
    if (auto sc = Get(*spec, "storageClassName")) pvc.storage_class_name = String(*sc);
    if (auto resources = Get(*spec, "resources")) {
      ExpectMap(*resources);
      pvc.requested_bytes = Storage(Get(*resources, "requests"));
    }
  }
  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    if (auto phase = Get(*status, "phase")) {
      pvc.phase = Enum(*phase, {"Pending", "Bound", "Lost"}, "a claim phase");
    }
  }
  return pvc;
}

PersistentVolumeSpec ObjectReader::ReadPv(const Field& object) {
  PersistentVolumeSpec pv;
  const Meta meta = ReadMeta(object, "PersistentVolume", /*namespaced=*/false);
  pv.name = meta.name;
  pv.uid = meta.uid;
  if (auto spec = Get(object, "spec")) {
    ExpectMap(*spec);
    if (auto policy = Get(*spec, "persistentVolumeReclaimPolicy")) {
      pv.reclaim_policy = Enum(*policy, {"Retain", "Delete", "Recycle"}, "a reclaim policy");
    }
    if (auto sc = Get(*spec, "storageClassName")) pv.storage_class_name = String(*sc);
    if (auto claim = Get(*spec, "claimRef")) {
      ExpectMap(*claim);
      if (auto ns = Get(*claim, "namespace")) pv.claim_namespace = String(*ns);
      if (auto name = Get(*claim, "name")) pv.claim_name = String(*name);
    }
    pv.capacity_bytes = Storage(Get(*spec, "capacity"));
  }
  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    if (auto phase = Get(*status, "phase")) {
      pv.phase =
          Enum(*phase, {"Pending", "Available", "Bound", "Released", "Failed"}, "a volume phase");
    }
  }
  return pv;
}

StorageClassSpec ObjectReader::ReadStorageClass(const Field& object) {
  StorageClassSpec sc;
  const Meta meta = ReadMeta(object, "StorageClass", /*namespaced=*/false);
  sc.name = meta.name;
  // A StorageClass has no spec: its fields sit beside metadata.
  sc.provisioner = String(Require(object, "provisioner"));
  if (auto policy = Get(object, "reclaimPolicy")) {
    sc.reclaim_policy = Enum(*policy, {"Delete", "Retain"}, "a StorageClass reclaim policy");
  }
  if (auto mode = Get(object, "volumeBindingMode")) {
    sc.volume_binding_mode =
        Enum(*mode, {"Immediate", "WaitForFirstConsumer"}, "a volume binding mode");
  }
  if (meta.annotations) {
    ExpectMap(*meta.annotations, /*reveal=*/false);
    for (std::string_view key : {"storageclass.kubernetes.io/is-default-class",
                                 "storageclass.beta.kubernetes.io/is-default-class"}) {
      if (auto is_default = Get(*meta.annotations, key)) {
        sc.is_default = sc.is_default || String(*is_default, /*reveal=*/false) == "true";
      }
    }
  }
  return sc;
}

// The resource a quota key counts, for its units: `requests.cpu` and `limits.cpu` count cpu,
// `gold.storageclass.storage.k8s.io/requests.storage` counts storage; other keys (`pods`,
// `count/deployments.apps`) count objects.

ResourceList ObjectReader::QuotaList(const std::optional<Field>& f) {
  ResourceList list;
  if (!f) return list;
  for (const auto& [key, value] : Entries(*f)) {
    if (key.empty()) Fail(value, "empty resource name");
    if (value.node->kind != NodeKind::kScalar) {
      Fail(value, Cat({"expected a quantity, found ", Describe(tree_, *value.node)}),
           "write quota amounts as name: quantity, e.g. requests.cpu: \"64\"");
    }
    list[key] = ResourceValue(value, std::string(QuotaResourceName(key)), std::string(tree_.Scalar(*value.node)));
  }
  return list;
}

ResourceQuotaSpec ObjectReader::ReadResourceQuota(const Field& object) {
  ResourceQuotaSpec quota;
  const Meta meta = ReadMeta(object, "ResourceQuota", /*namespaced=*/true);
  quota.namespace_ = meta.namespace_;
  quota.name = meta.name;
  quota.uid = meta.uid;
  if (auto spec = Get(object, "spec")) {
    ExpectMap(*spec);
    quota.hard = QuotaList(Get(*spec, "hard"));
  }
  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    quota.used = QuotaList(Get(*status, "used"));
  }
  return quota;
}

// ---- Files -------------------------------------------------------------------------------

// yaml-cpp's message plus, for the commonest cause, what to do about it.
InputError SyntaxError(const std::string& file, const std::string& text, const YAML::Mark& mark,
                       const std::string& message) {
  InputError e{file, mark.line >= 0 ? mark.line + 1 : 0, "", Cat({"invalid YAML: ", message}), ""};
  std::istringstream lines(text);
  std::string line;
  for (int i = 0; i <= mark.line && std::getline(lines, line); ++i) {
  }
  if (mark.line >= 0 && line.find('\t') != std::string::npos) {
    e.hint = "indent with spaces; YAML does not allow tabs";
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    e.message = Cat({"invalid JSON: ", message});
  }
  return e;
}

// The text as a tree: JSON by our parser, anything else by yaml-cpp's.
std::optional<InputError> Parse(const std::string& text, const std::string& file, Tree& tree) {
  // The tree's 32-bit offsets reach any byte of the text, and decoded text is never longer.
  if (text.size() >= std::numeric_limits<uint32_t>::max()) {
    return InputError{file, 0, "", "the file is larger than 4 GiB",
                      "split the export by namespace"};
  }
  try {
    if (LooksLikeJson(text)) {
      JsonParser(text, tree).Parse();
      return std::nullopt;
    }
    TextBuffer buffer(text);
    std::istream stream(&buffer);
    YAML::Parser parser(stream);
    YamlBuilder builder(tree);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const SyntaxFailure& f) {
    return InputError{file, f.line, "", f.message, f.hint};
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own guard; its message says "bad file"
    return InputError{file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                      "invalid YAML: nested too deep", "no Kubernetes object nests this far"};
  } catch (const YAML::Exception& e) {
    return SyntaxError(file, text, e.mark, e.msg);
  }
  return std::nullopt;
}

struct Loader {
  KubeObjects objects;
  std::map<std::string, ObjectSource> seen;

  std::optional<InputError> Read(const std::string& text, const std::string& file) {
    Tree tree(text);
    if (auto error = Parse(text, file, tree)) return error;
    const bool empty =
        std::all_of(tree.documents().begin(), tree.documents().end(),
                    [&](uint32_t d) { return tree.node(d).kind == NodeKind::kNull; });
    if (empty) {
      return InputError{file, 0, "", "the file holds no Kubernetes objects",
                        "expected the output of kubectl get -o yaml or -o json"};
    }
    ObjectReader reader(file, tree, objects);
    reader.seen = &seen;
    try {
      for (uint32_t doc : tree.documents()) {
        if (tree.node(doc).kind != NodeKind::kNull) reader.ReadDocument(tree.node(doc));
      }
    } catch (const Failure& f) {
      return f.error;
    }
    reader.WarnDroppedAnnotations();
    return std::nullopt;
  }

  std::optional<InputError> ReadFile(const std::string& path) {
    if (path == "-") {
      std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
      return Read(text, "<stdin>");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return InputError{path, 0, "", std::string("cannot read the file: ") + std::strerror(errno),
                        ""};
    }
    // One read into one string: a 90 MB export is not copied through a stream buffer.
    std::string text;
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size > 0) {
      text.resize(static_cast<size_t>(size));
      in.seekg(0, std::ios::beg);
      in.read(text.data(), size);
    } else {  // a pipe or a special file: no size known beforehand
      in.clear();
      in.seekg(0, std::ios::beg);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (in.bad()) return InputError{path, 0, "", "cannot read the file", ""};
    return Read(text, path);
  }
};

}  // namespace

Expected<KubeObjects> ReadKubeString(const std::string& text, const std::string& file_name) {
  Loader loader;
  if (auto error = loader.Read(text, file_name)) return *error;
  return std::move(loader.objects);
}

Expected<KubeObjects> ReadKubeFile(const std::string& path) {
  return ReadKubeFiles({path});
}

Expected<KubeObjects> ReadKubeFiles(const std::vector<std::string>& paths) {
  Loader loader;
  for (const std::string& path : paths) {
    if (auto error = loader.ReadFile(path)) return *error;
  }
  return std::move(loader.objects);
}

std::vector<PodSpec> PendingPods(const KubeObjects& objects) {
  std::vector<PodSpec> pending;
  for (const PodSpec& pod : objects.pods) {
    // The scheduler skips pods being deleted, and finished pods are never scheduled again.
    if (!pod.node_name.empty() || pod.terminating) continue;
    if (pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    pending.push_back(pod);
  }
  return pending;
}

ClusterState BuildClusterState(const KubeObjects& objects, std::vector<std::string>* warnings) {
  ClusterState cluster;
  for (const NodeSpec& node : objects.nodes) cluster.AddNode(node);
  auto warn = [&](size_t i, std::string_view text) {
    if (warnings == nullptr) return;
    const ObjectSource source =
        i < objects.pod_sources.size() ? objects.pod_sources[i] : ObjectSource{};
    warnings->push_back(Cat({source.file, ":", std::to_string(source.line), ": pod ",
                             objects.pods[i].namespace_, "/", objects.pods[i].name, ": ", text}));
  };
  for (size_t i = 0; i < objects.pods.size(); ++i) {
    const PodSpec& pod = objects.pods[i];
    if (pod.node_name.empty() || pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    const int n = cluster.FindNode(pod.node_name);
    if (n < 0) {
      warn(i, Cat({"bound to node ", Quote(pod.node_name),
                   ", which the cluster files do not hold; skipped"}));
      continue;
    }
    const int cards = static_cast<int>(cluster.node(n).cards.size());
    for (const AllocationMap* allocation : {&pod.allocated_mem, &pod.allocated_core}) {
      for (const auto& [card, units] : *allocation) {
        if (card >= cards) {
          warn(i,
               Cat({"allocated on card ", std::to_string(card), " but node ", Quote(pod.node_name),
                    " has ", std::to_string(cards), " card(s); that share is skipped"}));
        }
      }
    }
    if (pod.gpu_mem > 0 && pod.allocated_mem.empty() && cluster.node(n).spec.card_mem_units > 0) {
      warn(i,
           "requests aliyun.com/gpu-mem but carries no ACK allocation annotation; it counts "
           "on the node but on no card");
    }
    cluster.BindExisting(pod);
  }
  return cluster;
}

}  // namespace knobsim
