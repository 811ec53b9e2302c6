#include "sim/io/kube_reader.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "sim/io/quantity.h"
#include "sim/io/spelling.h"

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
bool IsByteResource(std::string_view name) {
  return name == "memory" || name == "ephemeral-storage" || name == "storage" ||
         name.starts_with("hugepages-");
}

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

// ---- Positions and failures --------------------------------------------------------------

// A value in a document: its node, its field path and the 1-based line to report (the line of
// its key, so an empty or nested value still points at the right place).
struct Field {
  YAML::Node node;
  std::string path;
  int line = 0;
};

int LineOf(const YAML::Node& node, int fallback) {
  const int line = node.Mark().line;
  return line >= 0 ? line + 1 : fallback;
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
std::string Describe(const YAML::Node& node, bool reveal = true) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return reveal ? Quote(node.Scalar()) : std::string("a string");
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

bool Absent(const YAML::Node& node) {
  return !node.IsDefined() || node.IsNull();
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
  ObjectReader(std::string file, KubeObjects& out) : file_(std::move(file)), out_(out) {}

  // A document of the file: an object or a List of them.
  void ReadDocument(const YAML::Node& doc);

  // Where each Node and Pod was first seen, across files, for duplicate reports.
  std::map<std::string, ObjectSource>* node_seen = nullptr;
  std::map<std::string, ObjectSource>* pod_seen = nullptr;

 private:
  [[noreturn]] void Fail(const Field& f, std::string message, std::string hint = "") const {
    throw Failure{InputError{file_, f.line, f.path, std::move(message), std::move(hint)}};
  }
  void Warn(const Field& f, std::string_view text) {
    out_.warnings.push_back(Cat({file_, ":", std::to_string(f.line), ": ", f.path, ": ", text}));
  }

  void ReadObject(const Field& object);
  NodeSpec ReadNode(const Field& object);
  PodSpec ReadPod(const Field& object);

  // Structure.
  void ExpectMap(const Field& f, bool reveal = true) const;
  std::optional<Field> Get(const Field& map, std::string_view key) const;
  Field Require(const Field& map, std::string_view key) const;
  std::vector<Field> Items(const Field& f) const;
  std::vector<std::pair<std::string, Field>> Entries(const Field& f, bool reveal = true) const;

  // Scalars.
  std::string String(const Field& f, bool reveal = true) const;
  int64_t Int(const Field& f, int64_t min, int64_t max) const;
  bool Bool(const Field& f) const;
  std::string Enum(const Field& f, std::initializer_list<std::string_view> allowed,
                   std::string_view what) const;
  Labels StringMap(const std::optional<Field>& f, bool reveal = true) const;
  std::vector<std::string> StringList(const std::optional<Field>& f) const;

  // Kubernetes pieces.
  std::vector<ResourceEntry> Resources(const std::optional<Field>& f);
  int64_t ResourceValue(const Field& f, const std::string& name, const std::string& text);
  ContainerResources ReadContainerResources(const Field& container, bool init);
  std::vector<NodeSelectorRequirement> ReadNodeSelectorTerm(const Field& term);
  NodeSelectorRequirement ReadNodeSelectorRequirement(const Field& f, bool match_field);
  LabelSelector ReadLabelSelector(const Field& f);
  Toleration ReadToleration(const Field& f);
  TopologySpreadConstraint ReadSpreadConstraint(const Field& f);
  void ReadAllocation(const Field& annotations, PodSpec& pod);
  AllocationMap ReadAllocationJson(const Field& f, const std::string& text) const;
  void CheckDuplicate(std::map<std::string, ObjectSource>* seen, const std::string& key,
                      std::string_view kind, const Field& name_field) const;

  std::string file_;
  KubeObjects& out_;
};

// ---- Structure ---------------------------------------------------------------------------

void ObjectReader::ExpectMap(const Field& f, bool reveal) const {
  if (!f.node.IsMap()) Fail(f, Cat({"expected a mapping, found ", Describe(f.node, reveal)}));
}

std::optional<Field> ObjectReader::Get(const Field& map, std::string_view key) const {
  // A null value reads as absent, as Go's JSON decoding of a Kubernetes object does.
  for (auto it = map.node.begin(); it != map.node.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      if (Absent(it->second)) return std::nullopt;
      return Field{it->second, ChildPath(map.path, key), LineOf(it->first, map.line)};
    }
  }
  return std::nullopt;
}

Field ObjectReader::Require(const Field& map, std::string_view key) const {
  if (auto f = Get(map, key)) return *f;
  Fail(map, Cat({"missing required key ", Backquote(key)}));
}

std::vector<Field> ObjectReader::Items(const Field& f) const {
  if (!f.node.IsSequence()) Fail(f, Cat({"expected a list, found ", Describe(f.node)}));
  std::vector<Field> items;
  items.reserve(f.node.size());
  size_t i = 0;
  for (auto it = f.node.begin(); it != f.node.end(); ++it, ++i) {
    items.push_back(Field{*it, IndexPath(f.path, i), LineOf(*it, f.line)});
  }
  return items;
}

std::vector<std::pair<std::string, Field>> ObjectReader::Entries(const Field& f,
                                                                 bool reveal) const {
  ExpectMap(f, reveal);
  std::vector<std::pair<std::string, Field>> entries;
  for (auto it = f.node.begin(); it != f.node.end(); ++it) {
    Field key{it->first, f.path, LineOf(it->first, f.line)};
    if (!it->first.IsScalar())
      Fail(key, Cat({"keys must be strings, found ", Describe(it->first)}));
    const std::string& name = it->first.Scalar();
    entries.emplace_back(name, Field{it->second, ChildPath(f.path, name), key.line});
  }
  return entries;
}

// ---- Scalars -----------------------------------------------------------------------------

std::string ObjectReader::String(const Field& f, bool reveal) const {
  if (Absent(f.node)) return "";
  if (!f.node.IsScalar()) Fail(f, Cat({"expected a string, found ", Describe(f.node, reveal)}));
  return f.node.Scalar();
}

int64_t ObjectReader::Int(const Field& f, int64_t min, int64_t max) const {
  const std::string text = String(f);
  auto v = ParseInteger(text.starts_with('+') ? text.substr(1) : text);
  if (!v) Fail(f, Quote(text) + " is not a whole number");
  if (*v < min) Fail(f, Cat({text, " is less than ", std::to_string(min)}));
  if (*v > max) Fail(f, Cat({text, " is more than ", std::to_string(max)}));
  return *v;
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

std::vector<std::string> ObjectReader::StringList(const std::optional<Field>& f) const {
  std::vector<std::string> list;
  if (!f) return list;
  for (const Field& item : Items(*f)) list.push_back(String(item));
  return list;
}

void ObjectReader::CheckDuplicate(std::map<std::string, ObjectSource>* seen, const std::string& key,
                                  std::string_view kind, const Field& name_field) const {
  if (seen == nullptr) return;
  auto [it, inserted] = seen->emplace(key, ObjectSource{file_, name_field.line});
  if (inserted) return;
  Fail(name_field,
       Cat({"duplicate ", kind, " ", Quote(key), "; it is also at ", it->second.file, ":",
            std::to_string(it->second.line)}),
       "give each object once; pass an export only once");
}

// ---- Documents and objects ---------------------------------------------------------------

void ObjectReader::ReadDocument(const YAML::Node& doc) {
  ReadObject(Field{doc, "", LineOf(doc, 0)});
}

void ObjectReader::ReadObject(const Field& object) {
  if (!object.node.IsMap()) {
    Fail(object, Cat({"expected a Kubernetes object, found ", Describe(object.node)}),
         "each document is one object with `apiVersion` and `kind`, or a `kind: List`");
  }
  const std::optional<Field> kind_field = Get(object, "kind");
  if (!kind_field) {
    Fail(object, "missing required key `kind`",
         "each object says what it is, e.g. `kind: Pod`; export with kubectl get -o yaml");
  }
  const std::string kind = String(*kind_field);
  if (kind == "Node") {
    out_.nodes.push_back(ReadNode(object));
    out_.node_sources.push_back(ObjectSource{file_, object.line});
  } else if (kind == "Pod") {
    out_.pods.push_back(ReadPod(object));
    out_.pod_sources.push_back(ObjectSource{file_, object.line});
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
    if (!value.node.IsScalar()) {
      Fail(value, Cat({"expected a quantity, found ", Describe(value.node)}),
           "write resources as name: quantity, e.g. cpu: 500m");
    }
    const std::string text = value.node.Scalar();
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
  const Field meta = Require(object, "metadata");
  ExpectMap(meta);
  const Field name = Require(meta, "name");
  node.name = String(name);
  if (node.name.empty()) Fail(name, "empty node name");
  CheckDuplicate(node_seen, node.name, "Node", name);
  const std::optional<Field> labels = Get(meta, "labels");
  node.labels = StringMap(labels);
  node.annotations = StringMap(Get(meta, "annotations"), /*reveal=*/false);

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
  if (node.placement == "ack-binpack") node.placement = "binpack";
  if (node.placement == "ack-spread") node.placement = "spread";
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
  const Field meta = Require(object, "metadata");
  ExpectMap(meta);
  const Field name = Require(meta, "name");
  pod.name = String(name);
  if (pod.name.empty()) Fail(name, "empty pod name");
  if (auto ns = Get(meta, "namespace")) pod.namespace_ = String(*ns);
  if (pod.namespace_.empty()) pod.namespace_ = "default";
  CheckDuplicate(pod_seen, Cat({pod.namespace_, "/", pod.name}), "Pod", name);
  const std::optional<Field> labels = Get(meta, "labels");
  pod.labels = StringMap(labels);
  const std::optional<Field> annotations = Get(meta, "annotations");
  pod.annotations = StringMap(annotations, /*reveal=*/false);
  pod.terminating = Get(meta, "deletionTimestamp").has_value();

  const Field spec = Require(object, "spec");
  ExpectMap(spec);
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
    if (auto image = Get(c, "image")) pod.images.push_back(String(*image));
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

  if (auto status = Get(object, "status")) {
    ExpectMap(*status);
    if (auto phase = Get(*status, "phase")) {
      pod.phase =
          Enum(*phase, {"Pending", "Running", "Succeeded", "Failed", "Unknown"}, "a pod phase");
    }
  }
  return pod;
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

struct Loader {
  KubeObjects objects;
  std::map<std::string, ObjectSource> node_seen;
  std::map<std::string, ObjectSource> pod_seen;

  std::optional<InputError> Read(const std::string& text, const std::string& file) {
    std::vector<YAML::Node> documents;
    try {
      documents = YAML::LoadAll(text);
    } catch (const YAML::Exception& e) {
      return SyntaxError(file, text, e.mark, e.msg);
    }
    const bool empty = std::all_of(documents.begin(), documents.end(),
                                   [](const YAML::Node& d) { return Absent(d); });
    if (empty) {
      return InputError{file, 0, "", "the file holds no Kubernetes objects",
                        "expected the output of kubectl get -o yaml or -o json"};
    }
    ObjectReader reader(file, objects);
    reader.node_seen = &node_seen;
    reader.pod_seen = &pod_seen;
    try {
      for (const YAML::Node& doc : documents) {
        if (!Absent(doc)) reader.ReadDocument(doc);
      }
    } catch (const Failure& f) {
      return f.error;
    } catch (const YAML::Exception& e) {  // a yaml-cpp surprise still names the place
      return SyntaxError(file, text, e.mark, e.msg);
    }
    return std::nullopt;
  }

  std::optional<InputError> ReadFile(const std::string& path) {
    std::ostringstream text;
    if (path == "-") {
      text << std::cin.rdbuf();
      return Read(text.str(), "<stdin>");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return InputError{path, 0, "", std::string("cannot read the file: ") + std::strerror(errno),
                        ""};
    }
    text << in.rdbuf();
    if (in.bad()) return InputError{path, 0, "", "cannot read the file", ""};
    return Read(text.str(), path);
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
