#include "sim/io/kube/object_meta.h"

#include <algorithm>
#include <utility>

#include "sim/dns_label.h"
#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/secret_filter.h"

namespace knobsim::kube {

Labels ObjectReader::Annotations(const std::optional<Field>& f) {
  Labels map;
  if (!f) return map;
  for (auto& [key, value] : Entries(*f, /*reveal=*/false)) {
    std::string text = String(value, /*reveal=*/false);
    if (key == kLastAppliedAnnotation) continue;
    if (LooksLikeSecret(key, text)) {
      if (dropped_.empty())
        first_dropped_ = {nullptr, value.path, value.line};  // outlives its tree
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

void ObjectReader::CheckDuplicate(std::string_view kind, const std::string& key,
                                  const Field& name_field) const {
  if (seen_ == nullptr) return;
  auto [it, inserted] = seen_->emplace(Cat({kind, std::string_view("\0", 1), key}),
                                       ObjectSource{file(), name_field.line});
  if (inserted) return;
  Fail(name_field,
       Cat({"duplicate ", kind, " ", Quote(key), "; it is also at ", it->second.file, ":",
            std::to_string(it->second.line)}),
       "give each object once; pass an export only once");
}

ObjectMeta ReadObjectMetaFields(ObjectReader& r, const Field& object, std::string_view kind,
                                bool namespaced) {
  ObjectMeta meta;
  meta.field = r.Require(object, "metadata");
  r.ExpectMap(meta.field);
  meta.name_field = r.Require(meta.field, "name");
  meta.name = r.String(meta.name_field);
  if (meta.name.empty()) r.Fail(meta.name_field, Cat({"empty ", Lower(kind), " name"}));
  // The API server never stores such a name (every kind's is a DNS-1123 label, subdomain or
  // path segment); one in an export is damage, and would reach names, comments and messages.
  const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  if (std::any_of(meta.name.begin(), meta.name.end(), control)) {
    r.Fail(meta.name_field, Cat({"a ", Lower(kind), " name holds a control character"}),
           "Kubernetes names are DNS-1123 names: lower-case letters, digits, '-' and '.'");
  }
  if (namespaced) {
    if (auto ns = r.Get(meta.field, "namespace")) {
      meta.namespace_ = r.String(*ns);
      // ValidateNamespaceName (k8s.io/apimachinery/pkg/api/validation): a DNS-1123 label.
      if (!meta.namespace_.empty() && !IsDnsLabel(meta.namespace_)) {
        r.Fail(*ns, "is not a namespace name",
               "Kubernetes namespaces are DNS-1123 labels: 1 to 63 lower-case letters, digits "
               "and '-', starting and ending with a letter or digit");
      }
    }
    if (meta.namespace_.empty()) meta.namespace_ = "default";
    r.CheckDuplicate(kind, Cat({meta.namespace_, "/", meta.name}), meta.name_field);
  } else {
    meta.namespace_.clear();
    r.CheckDuplicate(kind, meta.name, meta.name_field);
  }
  if (auto uid = r.Get(meta.field, "uid")) meta.uid = r.String(*uid);
  meta.labels = r.Get(meta.field, "labels");
  meta.annotations = r.Get(meta.field, "annotations");
  return meta;
}

std::vector<OwnerReference> ReadOwnerReferences(ObjectReader& r, const ObjectMeta& meta) {
  std::vector<OwnerReference> owners;
  const std::optional<Field> refs = r.Get(meta.field, "ownerReferences");
  if (!refs) return owners;
  bool has_controller = false;
  for (const Field& ref : r.Items(*refs)) {
    r.ExpectMap(ref);
    OwnerReference owner;
    if (auto api = r.Get(ref, "apiVersion")) owner.api_version = r.String(*api);
    const Field kind = r.Require(ref, "kind");
    owner.kind = r.String(kind);
    if (owner.kind.empty()) r.Fail(kind, "empty owner kind");
    const Field name = r.Require(ref, "name");
    owner.name = r.String(name);
    if (owner.name.empty()) r.Fail(name, "empty owner name");
    if (auto uid = r.Get(ref, "uid")) owner.uid = r.String(*uid);
    if (auto controller = r.Get(ref, "controller")) {
      owner.controller = r.Bool(*controller);
      // The API server's rule (ValidateOwnerReferences): one managing controller at most.
      if (owner.controller && has_controller) {
        r.Fail(*controller, "a second owner reference with controller: true",
               "an object has at most one managing controller");
      }
      has_controller = has_controller || owner.controller;
    }
    owners.push_back(std::move(owner));
  }
  return owners;
}

std::string ReadyStatus(FieldReader& r, const Field& status) {
  const std::optional<Field> conditions = r.Get(status, "conditions");
  if (!conditions) return "";
  for (const Field& c : r.Items(*conditions)) {
    r.ExpectMap(c);
    const std::optional<Field> type = r.Get(c, "type");
    if (!type || r.String(*type) != "Ready") continue;
    return r.Enum(r.Require(c, "status"), {"True", "False", "Unknown"}, "a condition status");
  }
  return "";
}

}  // namespace knobsim::kube
