// The `kube:` section of an imported scenario: one flow mapping per object, the fields of the
// kind's list in sim/io/kube_scenario_fields.h and nothing else (uids, annotations and the rest
// of the export stay out).
#include <optional>
#include <string>
#include <string_view>

#include "sim/import/scenario_writer.h"
#include "sim/import/scenario_writer_internal.h"
#include "sim/io/kube_scenario_fields.h"
#include "sim/quantity.h"

namespace knobsim::writer_internal {
namespace {

std::string IntOrPercentText(const IntOrPercent& v) {
  return v.percent ? "\"" + std::to_string(v.value) + "%\"" : std::to_string(v.value);
}

std::string Amounts(const ResourceList& list) {
  std::string out = "{";
  for (const auto& [key, amount] : list) {
    if (out.size() > 1) out += ", ";
    // Quoted: `"32"` and `"8"` stay strings, as kubectl writes them.
    out += YamlScalar(key) + ": \"" + FormatResourceAmount(key, amount) + "\"";
  }
  return out + "}";
}

// One level of a kind's list as `{key: value, ...}`, each value left out where the list's
// method says the reader defaults it.
template <class T>
class KubeFieldWriter {
 public:
  template <class Fields>
  static std::string Write(const T& object, Fields fields) {
    KubeFieldWriter writer(object);
    fields(writer);
    return "{" + writer.text_ + "}";
  }

  template <class M>
  void Namespace(M T::*m) {
    Put("namespace", YamlScalar(object_.*m));
  }
  template <class M>
  void Name(M T::*m) {
    Put("name", YamlScalar(object_.*m));
  }
  template <class M>
  void Count(std::string_view key, M T::*m) {
    Put(key, std::to_string(object_.*m));
  }
  template <class M>
  void Bool(std::string_view key, M T::*m) {
    Put(key, object_.*m ? "true" : "false");
  }
  template <class M>
  void Flag(std::string_view key, M T::*m) {
    if (object_.*m) Put(key, "true");
  }
  template <class M, class E>
  void Enum(std::string_view key, M T::*m, const E&, std::string_view) {
    Put(key, object_.*m);
  }
  template <class M, class E>
  void EnumList(std::string_view key, M T::*m, const E&, std::string_view) {
    if (!(object_.*m).empty()) Put(key, List(object_.*m));
  }
  template <class M>
  void Bytes(std::string_view key, M T::*m) {
    Put(key, FormatResourceAmount("storage", object_.*m));
  }
  template <class M>
  void String(std::string_view key, M T::*m) {
    if (!(object_.*m).empty()) Put(key, YamlScalar(object_.*m));
  }
  template <class M>
  void OptionalString(std::string_view key, M T::*m) {
    if (object_.*m) Put(key, YamlScalar(*(object_.*m)));
  }
  template <class M>
  void IntOrPercent(std::string_view key, M T::*m) {
    if (object_.*m) Put(key, IntOrPercentText(*(object_.*m)));
  }
  void Selector(std::string_view key, std::optional<LabelSelector> T::*m) {
    if (object_.*m) Put(key, writer_internal::Selector(*(object_.*m)));
  }
  void Selector(std::string_view key, LabelSelector T::*m) {
    Put(key, writer_internal::Selector(object_.*m));
  }
  template <class M>
  void Labels(std::string_view key, M T::*m) {
    if (!(object_.*m).empty()) Put(key, Map(object_.*m));
  }
  template <class M>
  void Strings(std::string_view key, M T::*m) {
    if (!(object_.*m).empty()) Put(key, List(object_.*m));
  }
  template <class M>
  void Terms(std::string_view key, M T::*m, bool) {
    if (!(object_.*m).empty()) Put(key, writer_internal::Terms(object_.*m));
  }
  template <class M>
  void Resources(std::string_view key, M T::*m) {
    if (!(object_.*m).empty()) Put(key, Amounts(object_.*m));
  }
  template <class M>
  void Claim(std::string_view key, M T::*ns, M T::*name) {
    if (!(object_.*name).empty()) Put(key, YamlScalar(object_.*ns + "/" + object_.*name));
  }
  template <class S, class Fields>
  void Object(std::string_view key, std::optional<S> T::*m, Fields fields) {
    if (object_.*m) Put(key, KubeFieldWriter<S>::Write(*(object_.*m), fields));
  }
  template <class Fields>
  void Group(std::string_view key, Fields fields) {
    Put(key, KubeFieldWriter<T>::Write(object_, fields));
  }

 private:
  explicit KubeFieldWriter(const T& object) : object_(object) {}
  void Put(std::string_view key, const std::string& value) {
    if (!text_.empty()) text_ += ", ";
    text_.append(key).append(": ").append(value);
  }

  const T& object_;
  std::string text_;
};

// What a reader of the scenario should know that the line does not say.
std::string NoteOf(const PodDisruptionBudgetSpec& p) {
  return p.selector ? "" : "no selector: matches no pod";
}
std::string NoteOf(const PersistentVolumeClaimSpec& c) {
  return c.storage_class_name ? "" : "no storage_class: the default class";
}
std::string NoteOf(const auto&) {
  return "";
}

}  // namespace

void WriteKube(Out& o, const ScenarioKube& k) {
  o.Comment(0, "Objects a run does not simulate but the checks read (`knobsim check`, `upgrade`).");
  o.Line(0, "kube:");
  ForEachKubeList([&](std::string_view key, auto list) {
    const auto& objects = k.*list;
    if (objects.empty()) return;
    using T = typename std::remove_cvref_t<decltype(objects)>::value_type;
    o.Line(2, std::string(key) + ":");
    for (const T& object : objects) {
      o.Line(
          4,
          "- " + KubeFieldWriter<T>::Write(object, [](auto& v) { KubeFields(v, KubeKind<T>{}); }),
          NoteOf(object));
    }
  });
}

}  // namespace knobsim::writer_internal
