// The document tree: JSON or YAML text as one compact tree of values that knows the line of
// every value, for readers that report `file:line: field: message` (the Kubernetes export
// reader, sim/io/kube/).
//
// Nodes sit in one array, children as index ranges, scalars as views into the text (JSON
// strings without escapes, numbers, literals) or into one buffer of decoded text. A 10 000-pod,
// 1 000-node export (90 MB of kubectl's indented JSON) reads in ~0.6 s and 200 MB this way;
// through yaml-cpp's node graph it took 10 s and 1.7 GB, which is why JSON does not go there.
//
// JSON (text that starts with `{` or `[` followed by a quoted string or a closing bracket) is
// read by a small position-keeping RFC 8259 parser, one document after another, so `kubectl get
// -o json` output appended from several commands is still readable. YAML in the block shape
// kubectl writes is read by a fast path (yaml_block.h, ~200 MB/s, 15x yaml-cpp) that builds
// exactly the tree yaml-cpp would; anything else it declines, and the whole text goes through
// yaml-cpp's event parser, straight into the same tree (an alias shares its anchor's node).
// Both forms read to the same tree, each with the lines of its own text. Syntax errors name the
// line and what is wrong, never the text around it (it may be a secret); YAML's are yaml-cpp's.
//
// The Prometheus reader (prom_reader.cpp) does not build a tree: it streams answers of tens of
// MB, and shares the JSON token rules of json_lexing.h instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"

namespace knobsim {

enum class NodeKind : uint8_t { kNull, kScalar, kSequence, kMap };

struct TreeNode {
  NodeKind kind = NodeKind::kNull;
  bool owned = false;  // scalar text lives in DocumentTree's own buffer, not in the source text
  int32_t line = 0;    // 1-based line where the value starts; 0 = unknown
  uint32_t begin = 0;  // scalar: offset of its text; container: first slot in the slot array
  uint32_t size = 0;   // scalar: length; sequence: items; map: entries (two slots: key, value)
};

// Nesting deeper than any Kubernetes object, and small enough for the recursive readers'
// stacks; deeper is an error rather than a crash.
constexpr int kMaxDocumentDepth = 512;

// The values of one text. Holds a view of the text: the text must outlive the tree.
class DocumentTree {
 public:
  explicit DocumentTree(std::string_view text) : text_(text) {}

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
  // The index of a container's child: slot i of a sequence is item i; of a map, 2i is key i and
  // 2i + 1 its value. Two places holding the same index are one node (a YAML alias).
  uint32_t ChildIndex(const TreeNode& container, size_t slot) const {
    return slots_[container.begin + slot];
  }
  // The root of each document, in text order.
  const std::vector<uint32_t>& documents() const { return documents_; }

  // Building (the parsers of document_tree.cpp).
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
  // Gives container `node` the children scratch[first..], and drops them from scratch. A map's
  // key given twice keeps its last value (see DuplicateKey).
  void SetChildren(uint32_t node, std::vector<uint32_t>& scratch, size_t first) {
    if (nodes_[node].kind == NodeKind::kMap) DropDuplicateKeys(scratch, first);
    TreeNode& n = nodes_[node];
    n.begin = static_cast<uint32_t>(slots_.size());
    const size_t count = scratch.size() - first;
    n.size = static_cast<uint32_t>(n.kind == NodeKind::kMap ? count / 2 : count);
    slots_.insert(slots_.end(), scratch.begin() + static_cast<std::ptrdiff_t>(first),
                  scratch.end());
    scratch.resize(first);
  }
  void AddDocument(uint32_t root) { documents_.push_back(root); }

  // Keys given twice in one map, in text order: the tree holds only the last value, as
  // kubectl's client-side decoding keeps it (YAML and JSON manifests are decoded into
  // map[string]interface{}, where a later key replaces the earlier value whole); the reader
  // warns about each, since kubectl's default strict validation refuses them.
  struct DuplicateKey {
    std::string key;
    int line = 0;        // the key that wins
    int first_line = 0;  // the one it replaces
  };
  const std::vector<DuplicateKey>& duplicate_keys() const { return duplicate_keys_; }

 private:
  void DropDuplicateKeys(std::vector<uint32_t>& scratch, size_t first);

  std::string_view text_;
  std::vector<TreeNode> nodes_;
  std::vector<uint32_t> slots_;
  std::string strings_;
  std::vector<uint32_t> documents_;
  std::vector<DuplicateKey> duplicate_keys_;
};

// Whether text that starts with `{` or `[` is meant as JSON rather than YAML flow style: the
// first thing after the opening brackets is a quoted key or string, or a closing bracket.
bool LooksLikeJson(std::string_view text);

// Reads `text` into `tree` (empty): JSON by our parser, block YAML by yaml_block.h, anything
// else by yaml-cpp's. A syntax error is an InputError naming `file` and the line, without a
// field path. Lines count from `first_line` (a unit of a larger file, sim/io/json_stream.h and
// sim/io/yaml_stream.h).
Status ParseDocumentTree(const std::string& text, const std::string& file, DocumentTree& tree,
                         int first_line = 1);

// The whole tree as text, one value a line (its line, kind and escaped scalar; a node reached
// again, as an alias, as a reference to its first place), then the duplicate keys: two trees
// are the same exactly when their outlines are. Tests compare readers by it. kContent leaves
// out the lines and node identities (an alias is shown whole), to compare YAML with JSON.
enum class OutlineDetail { kFull, kContent };
std::string TreeOutline(const DocumentTree& tree, OutlineDetail detail = OutlineDetail::kFull);

// YAML through yaml-cpp's event parser alone, without the block fast path (yaml_block.h): what
// the fast path declines goes here, and the tests hold the fast path to its tree.
Status ParseYamlWithYamlCpp(const std::string& text, const std::string& file, DocumentTree& tree,
                            int first_line = 1);

}  // namespace knobsim
