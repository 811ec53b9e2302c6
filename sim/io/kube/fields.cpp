#include "sim/io/kube/fields.h"

#include <cstdint>
#include <limits>

#include "sim/io/kube/kube_text.h"

namespace knobsim::kube {
namespace {

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
}  // namespace

int LineOf(const TreeNode& node, int fallback) {
  return node.line > 0 ? node.line : fallback;
}

void FieldReader::Fail(const Field& f, std::string message, std::string hint) const {
  throw Failure{InputError{file_, f.line, f.path, std::move(message), std::move(hint)}};
}

void FieldReader::Warn(const Field& f, std::string_view text) {
  warnings_.push_back(Cat({file_, ":", std::to_string(f.line), ": ", f.path, ": ", text}));
}

std::string FieldReader::Describe(const TreeNode& node, bool reveal) const {
  switch (node.kind) {
    case NodeKind::kScalar:
      return reveal ? Quote(tree_->Scalar(node)) : std::string("a string");
    case NodeKind::kSequence:
      return "a list";
    case NodeKind::kMap:
      return "a mapping";
    default:
      return "nothing";
  }
}

// ---- Structure ---------------------------------------------------------------------------

void FieldReader::ExpectMap(const Field& f, bool reveal) const {
  if (f.node->kind != NodeKind::kMap) {
    Fail(f, Cat({"expected a mapping, found ", Describe(*f.node, reveal)}));
  }
}

std::optional<Field> FieldReader::Get(const Field& map, std::string_view key) const {
  if (map.node->kind != NodeKind::kMap) return std::nullopt;
  // A null value reads as absent, as Go's JSON decoding of a Kubernetes object does.
  for (size_t i = 0; i < map.node->size; ++i) {
    const TreeNode& k = tree_->Key(*map.node, i);
    if (k.kind == NodeKind::kScalar && tree_->Scalar(k) == key) {
      const TreeNode& v = tree_->Value(*map.node, i);
      if (v.kind == NodeKind::kNull) return std::nullopt;
      return Field{&v, ChildPath(map.path, key), LineOf(k, map.line)};
    }
  }
  return std::nullopt;
}

Field FieldReader::Require(const Field& map, std::string_view key) const {
  if (auto f = Get(map, key)) return *f;
  Fail(map, Cat({"missing required key ", Backquote(key)}));
}

std::vector<Field> FieldReader::Items(const Field& f, bool reveal) const {
  if (f.node->kind != NodeKind::kSequence) {
    Fail(f, Cat({"expected a list, found ", Describe(*f.node, reveal)}));
  }
  std::vector<Field> items;
  items.reserve(f.node->size);
  for (size_t i = 0; i < f.node->size; ++i) {
    const TreeNode& item = tree_->Item(*f.node, i);
    items.push_back(Field{&item, IndexPath(f.path, i), LineOf(item, f.line)});
  }
  return items;
}

std::vector<std::pair<std::string, Field>> FieldReader::Entries(const Field& f, bool reveal) const {
  ExpectMap(f, reveal);
  std::vector<std::pair<std::string, Field>> entries;
  entries.reserve(f.node->size);
  for (size_t i = 0; i < f.node->size; ++i) {
    const TreeNode& k = tree_->Key(*f.node, i);
    Field key{&k, f.path, LineOf(k, f.line)};
    if (k.kind != NodeKind::kScalar) {
      Fail(key, Cat({"keys must be strings, found ", Describe(k)}));
    }
    std::string name(tree_->Scalar(k));
    std::string path = ChildPath(f.path, name);
    entries.emplace_back(std::move(name),
                         Field{&tree_->Value(*f.node, i), std::move(path), key.line});
  }
  return entries;
}

// ---- Scalars -----------------------------------------------------------------------------

std::string FieldReader::String(const Field& f, bool reveal) const {
  if (f.node->kind == NodeKind::kNull) return "";
  if (f.node->kind != NodeKind::kScalar) {
    Fail(f, Cat({"expected a string, found ", Describe(*f.node, reveal)}));
  }
  return std::string(tree_->Scalar(*f.node));
}

int64_t FieldReader::Int(const Field& f, int64_t min, int64_t max) const {
  const std::string text = String(f);
  auto v = ParseInteger(text.starts_with('+') ? text.substr(1) : text);
  if (!v) Fail(f, Quote(text) + " is not a whole number");
  if (*v < min) Fail(f, Cat({text, " is less than ", std::to_string(min)}));
  if (*v > max) Fail(f, Cat({text, " is more than ", std::to_string(max)}));
  return *v;
}

int FieldReader::Count(const std::optional<Field>& f, int fallback) const {
  if (!f) return fallback;
  return static_cast<int>(Int(*f, 0, std::numeric_limits<int32_t>::max()));
}

bool FieldReader::Bool(const Field& f) const {
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

std::string FieldReader::Enum(const Field& f, std::initializer_list<std::string_view> allowed,
                              std::string_view what) const {
  std::string value = String(f);
  for (std::string_view a : allowed) {
    if (value == a) return value;
  }
  Fail(f, Cat({Quote(value), " is not ", what}), EnumHint(value, allowed));
}

Labels FieldReader::StringMap(const std::optional<Field>& f, bool reveal) const {
  Labels map;
  if (!f) return map;
  for (const auto& [key, value] : Entries(*f, reveal)) map[key] = String(value, reveal);
  return map;
}

std::vector<std::string> FieldReader::StringList(const std::optional<Field>& f) const {
  std::vector<std::string> list;
  if (!f) return list;
  for (const Field& item : Items(*f)) list.push_back(String(item));
  return list;
}

// intstr.IntOrString as the workload APIs validate it: a non-negative integer, or an integer
// percentage `NN%` (at most 100% where `up_to_100`).
IntOrPercent FieldReader::ReadIntOrPercent(const Field& f, bool up_to_100) const {
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

}  // namespace knobsim::kube
