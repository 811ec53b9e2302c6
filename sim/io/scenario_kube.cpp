// `kube:`: the cluster objects the checks read (docs/semantics.md §5.4;
// scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include <charconv>

#include "sim/io/kube_scenario_fields.h"
#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim::scenario_internal {

// `1` or "25%", as intstr.IntOrString.
IntOrPercent Reader::ReadIntOrPercent(const Field& f) const {
  std::string text = Scalar(f, "an integer or a percentage");
  IntOrPercent v;
  if (!text.empty() && text.back() == '%') {
    v.percent = true;
    text.pop_back();
  }
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 0 ||
      (v.percent && n > 100)) {
    Fail(f, Quote(f.node.Scalar()) + " is not a count or a percentage",
         "write a whole number such as 1, or a percentage such as \"51%\"");
  }
  v.value = n;
  return v;
}

// `{requests.cpu: "32", limits.memory: 128Gi, pods: "50"}`: quantities by resource.
ResourceList Reader::ReadResourceAmounts(const Field& f) const {
  ResourceList list;
  for (const auto& [key, value] : Entries(f)) {
    if (key.empty()) Fail(value, "empty resource name");
    const Parsed<int64_t> amount = ParseResourceAmount(key, Scalar(value, "a quantity"));
    if (!amount.ok()) Fail(value, amount.error, amount.hint);
    list[key] = *amount.value;
  }
  return list;
}

namespace {

// The keys of one level of a kind's list, for the Section that refuses any other.
template <class T>
class KubeKeyLister {
 public:
  std::vector<std::string_view> keys;

  template <class M>
  void Namespace(M T::*) {
    keys.push_back("namespace");
  }
  template <class M>
  void Name(M T::*) {
    keys.push_back("name");
  }
  template <class... A>
  void Count(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Bool(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Flag(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Enum(std::string_view key, A&&...) {
    keys.push_back(key);
  }
  template <class... A>
  void EnumList(std::string_view key, A&&...) {
    keys.push_back(key);
  }
  template <class... A>
  void Bytes(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void String(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void OptionalString(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void IntOrPercent(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Selector(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Labels(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Strings(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Terms(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Resources(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Claim(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Object(std::string_view key, A...) {
    keys.push_back(key);
  }
  template <class... A>
  void Group(std::string_view key, A...) {
    keys.push_back(key);
  }
};

template <class T, class Fields>
std::vector<std::string_view> KeysOf(Fields fields) {
  KubeKeyLister<T> lister;
  fields(lister);
  return lister.keys;
}

}  // namespace

// Reads one level of a kind's list from its mapping into `out`, in the list's order (the order
// errors are reported in).
template <class T>
class KubeFieldReader {
 public:
  template <class Fields>
  static void Read(const Reader& r, const Field& f, T& out, Fields fields) {
    const std::vector<std::string_view> keys = KeysOf<T>(fields);
    KubeFieldReader reader(r, f, out, keys);
    fields(reader);
  }

  template <class M>
  void Namespace(M T::*m) {
    if (auto v = s_.Get("namespace")) out_.*m = r_.DnsName(*v);
  }
  template <class M>
  void Name(M T::*m) {
    out_.*m = r_.NonEmptyString(s_.Require("name"));
  }
  template <class M>
  void Count(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = r_.Int(*v, 0);
  }
  template <class M>
  void Bool(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = r_.Bool(*v);
  }
  template <class M>
  void Flag(std::string_view key, M T::*m) {
    Bool(key, m);
  }
  template <class M, class E>
  void Enum(std::string_view key, M T::*m, const E& names, std::string_view what) {
    if (auto v = s_.Get(key)) out_.*m = r_.OneOf(*v, what, names);
  }
  template <class M, class E>
  void EnumList(std::string_view key, M T::*m, const E& names, std::string_view what) {
    if (auto v = s_.Get(key)) {
      for (const Field& item : r_.Items(*v)) (out_.*m).push_back(r_.OneOf(item, what, names));
    }
  }
  template <class M>
  void Bytes(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) {
      const Parsed<int64_t> bytes = ParseResourceAmount("storage", r_.Scalar(*v, "a quantity"));
      if (!bytes.ok()) r_.Fail(*v, bytes.error, bytes.hint);
      out_.*m = *bytes.value;
    }
  }
  template <class M>
  void String(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = r_.String(*v);
  }
  // Absent and null differ: absent is nullopt, null (or "") is the empty string.
  template <class M>
  void OptionalString(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = v->node.IsNull() ? "" : r_.String(*v);
  }
  template <class M>
  void IntOrPercent(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = r_.ReadIntOrPercent(*v);
  }
  template <class M>
  void Selector(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = r_.ReadLabelSelector(*v);
  }
  template <class M>
  void Labels(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = r_.StringMap(*v);
  }
  template <class M>
  void Strings(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = r_.StringList(*v);
  }
  // Terms ORed, each a list of `{key, operator, values}` ANDed, as a workload's
  // node_affinity.required; a StorageClass's allowedTopologies take only `In`.
  template <class M>
  void Terms(std::string_view key, M T::*m, bool in_only) {
    if (auto v = s_.Get(key)) {
      for (const Field& term : r_.Items(*v)) {
        (out_.*m).push_back(r_.ReadNodeSelectorTerm(term));
        for (const NodeSelectorRequirement& req : (out_.*m).back()) {
          if (in_only && req.op != "In") r_.Fail(term, "allowed topologies take only operator In");
        }
      }
    }
  }
  template <class M>
  void Resources(std::string_view key, M T::*m) {
    if (auto v = s_.Get(key)) out_.*m = r_.ReadResourceAmounts(*v);
  }
  template <class M>
  void Claim(std::string_view key, M T::*ns, M T::*name) {
    if (auto v = s_.Get(key)) {
      const std::string claim = r_.NonEmptyString(*v);
      const size_t slash = claim.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == claim.size()) {
        r_.Fail(*v, Quote(claim) + " does not name a claim",
                "write namespace/name, e.g. db/data-pg-0");
      }
      out_.*ns = claim.substr(0, slash);
      out_.*name = claim.substr(slash + 1);
    }
  }
  template <class S, class Fields>
  void Object(std::string_view key, std::optional<S> T::*m, Fields fields) {
    // A local, not optional::emplace: clang holds a nested struct with default member
    // initializers (PodDisruptionBudgetSpec::Status) not default-constructible in that check.
    if (auto v = s_.Get(key)) {
      S object;
      KubeFieldReader<S>::Read(r_, *v, object, fields);
      out_.*m = std::move(object);
    }
  }
  template <class Fields>
  void Group(std::string_view key, Fields fields) {
    if (auto v = s_.Get(key)) KubeFieldReader<T>::Read(r_, *v, out_, fields);
  }

  // The value of `key` at this level, for a check across fields.
  std::optional<Field> Get(std::string_view key) const { return s_.Get(key); }

 private:
  KubeFieldReader(const Reader& r, const Field& f, T& out, std::span<const std::string_view> keys)
      : r_(r), s_(r, f, keys), out_(out) {}

  const Reader& r_;
  Reader::Section s_;
  T& out_;
};

template <class T>
T Reader::ReadKubeObject(const Field& f) const {
  T object;
  KubeFieldReader<T>::Read(*this, f, object, [](auto& v) { KubeFields(v, KubeKind<T>{}); });
  if constexpr (std::is_same_v<T, PodDisruptionBudgetSpec>) {
    if (object.min_available && object.max_unavailable) {
      Fail(EntryOf(f, "max_unavailable"),
           "min_available and max_unavailable are mutually exclusive",
           "a PodDisruptionBudget sets one of the two");
    }
  }
  return object;
}

ScenarioKube Reader::ReadKube(const Field& f) const {
  std::vector<std::string_view> keys;
  ForEachKubeList([&](std::string_view key, auto) { keys.push_back(key); });
  Section s(*this, f, keys);
  ScenarioKube k;
  // Objects are keyed by namespace/name (or name, cluster-scoped); a repeat is a slip.
  ForEachKubeList([&](std::string_view key, auto list) {
    auto& out = k.*list;
    using T = typename std::remove_reference_t<decltype(out)>::value_type;
    const std::optional<Field> v = s.Get(key);
    if (!v) return;
    auto id = [](const T& o) {
      if constexpr (requires { o.namespace_; })
        return o.namespace_ + "/" + o.name;
      else
        return o.name;
    };
    for (const Field& item : Items(*v)) {
      T object = ReadKubeObject<T>(item);
      for (const T& other : out) {
        if (id(other) == id(object)) Fail(item, "duplicate " + Quote(id(object)));
      }
      out.push_back(std::move(object));
    }
  });
  return k;
}

}  // namespace knobsim::scenario_internal
