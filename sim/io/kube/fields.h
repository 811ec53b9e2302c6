// The field machinery of the Kubernetes export reader: a value of the document tree with its
// field path (`items[3].spec.containers[0].resources.limits.cpu`) and the line to report, and
// FieldReader, whose helpers turn a field into a value or stop the read at the first bad one
// with an InputError naming the file, the line and the path.
//
// The helpers throw Failure, because unwinding is the shortest way out of a deep descent; the
// reader's edge (kube_reader.cpp) catches it, so nothing leaves sim/io as an exception.
// Privacy: a helper given `reveal = false` describes a wrong value by its kind alone ("a
// string"), never quoting it (annotations, probe commands).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/input_error.h"
#include "sim/io/document_tree.h"
#include "sim/kube_types.h"

namespace knobsim::kube {

// A value in a document: its node, its field path and the 1-based line to report (the line of
// its key, so an empty or nested value still points at the right place).
struct Field {
  const TreeNode* node = nullptr;
  std::string path;
  int line = 0;
};

// What FieldReader::Fail throws: the reader stops at the first error.
struct Failure {
  InputError error;
};

// The node's line, or `fallback` when it has none.
int LineOf(const TreeNode& node, int fallback);

// Reads the fields of one file of an export; failures and warnings name that file.
class FieldReader {
 public:
  // Warnings go to `warnings` as "file:line: field: text".
  FieldReader(std::string file, const DocumentTree& tree, std::vector<std::string>& warnings)
      : file_(std::move(file)), tree_(&tree), warnings_(warnings) {}

  const std::string& file() const { return file_; }
  const DocumentTree& tree() const { return *tree_; }
  // The next part of the same file (a streamed export, sim/io/json_stream.h): fields read from
  // now on are of `tree`'s nodes.
  void SetTree(const DocumentTree& tree) { tree_ = &tree; }

  [[noreturn]] void Fail(const Field& f, std::string message, std::string hint = "") const;
  void Warn(const Field& f, std::string_view text);

  // What a node holds, for "expected X, found Y": a scalar in quotes when `reveal`, else by
  // its kind alone.
  std::string Describe(const TreeNode& node, bool reveal = true) const;

  // Structure. A null value reads as absent, as Go's JSON decoding of a Kubernetes object does.
  void ExpectMap(const Field& f, bool reveal = true) const;
  std::optional<Field> Get(const Field& map, std::string_view key) const;
  Field Require(const Field& map, std::string_view key) const;
  std::vector<Field> Items(const Field& f, bool reveal = true) const;
  std::vector<std::pair<std::string, Field>> Entries(const Field& f, bool reveal = true) const;

  // Scalars.
  std::string String(const Field& f, bool reveal = true) const;
  int64_t Int(const Field& f, int64_t min, int64_t max) const;
  int Count(const std::optional<Field>& f, int fallback) const;  // a non-negative int32
  bool Bool(const Field& f) const;  // YAML 1.1 booleans, as kubectl reads a manifest
  std::string Enum(const Field& f, std::initializer_list<std::string_view> allowed,
                   std::string_view what) const;
  Labels StringMap(const std::optional<Field>& f, bool reveal = true) const;
  std::vector<std::string> StringList(const std::optional<Field>& f) const;
  // intstr.IntOrString as the workload APIs validate it: a non-negative integer, or an integer
  // percentage `NN%` (at most 100% where `up_to_100`).
  IntOrPercent ReadIntOrPercent(const Field& f, bool up_to_100) const;

 private:
  std::string file_;
  const DocumentTree* tree_;
  std::vector<std::string>& warnings_;
};

}  // namespace knobsim::kube
