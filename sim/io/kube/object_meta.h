// The object level of the Kubernetes export reader: ObjectReader, the state of reading one
// file (the objects read so far, duplicates across files, annotations dropped as secrets), and
// the metadata block every kind shares (name, namespace, uid, labels, annotations, owner
// references), read by one function for all of them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/kube/fields.h"
#include "sim/kube_objects.h"

namespace knobsim::kube {

class ObjectReader : public FieldReader {
 public:
  // `seen` holds where each object was first read ("Kind\0namespace/name"), across the files of
  // one read; null skips the duplicate check.
  ObjectReader(std::string file, const DocumentTree& tree, KubeObjects& out,
               std::map<std::string, ObjectSource>* seen)
      : FieldReader(std::move(file), tree, out.warnings), out_(out), seen_(seen) {}

  KubeObjects& out() { return out_; }

  // An error when an object of `kind` with `key` ("namespace/name", or "name") was read before.
  void CheckDuplicate(std::string_view kind, const std::string& key, const Field& name_field) const;

  // metadata.annotations without kubectl's last-applied-configuration and without what
  // LooksLikeSecret flags; the latter are tallied for WarnDroppedAnnotations.
  Labels Annotations(const std::optional<Field>& f);
  // The one warning about annotations dropped as secrets, if any were; after the documents.
  void WarnDroppedAnnotations();

 private:
  KubeObjects& out_;
  std::map<std::string, ObjectSource>* seen_;
  // Annotations dropped by LooksLikeSecret: key -> how many, and where the first one was.
  std::map<std::string, int> dropped_;
  Field first_dropped_;
};

// An object's metadata: the values every kind keeps, and the fields for kind-specific reads.
struct ObjectMeta {
  Field field;
  Field name_field;
  std::string namespace_ = "default";  // empty for cluster-scoped kinds
  std::string name;
  std::string uid;
  std::optional<Field> labels;
  std::optional<Field> annotations;
};

// metadata of `object`: a name (required, not empty), the namespace (absent or empty =
// "default") when `namespaced`, the uid; a duplicate of an earlier object is an error.
ObjectMeta ReadObjectMetaFields(ObjectReader& r, const Field& object, std::string_view kind,
                                bool namespaced);

// metadata.ownerReferences; at most one with controller: true, as the API server validates.
std::vector<OwnerReference> ReadOwnerReferences(ObjectReader& r, const ObjectMeta& meta);

// Reads the metadata of `object` into the fields `out` has of name, namespace_, uid, labels,
// annotations and owner_references, in that order (which decides the error a broken object
// reports first). A kind is namespaced exactly when its type has namespace_.
template <class T>
ObjectMeta ReadObjectMeta(ObjectReader& r, const Field& object, std::string_view kind, T& out) {
  constexpr bool kNamespaced = requires(T & t) {
    t.namespace_;
  };
  ObjectMeta meta = ReadObjectMetaFields(r, object, kind, kNamespaced);
  out.name = meta.name;
  if constexpr (kNamespaced) out.namespace_ = meta.namespace_;
  if constexpr (requires(T & t) { t.uid; }) out.uid = meta.uid;
  if constexpr (requires(T & t) { t.labels; }) out.labels = r.StringMap(meta.labels);
  if constexpr (requires(T & t) { t.annotations; })
    out.annotations = r.Annotations(meta.annotations);
  if constexpr (requires(T & t) { t.owner_references; }) {
    out.owner_references = ReadOwnerReferences(r, meta);
  }
  return meta;
}

// The status of condition Ready in `status`.conditions; empty when it is not reported.
std::string ReadyStatus(FieldReader& r, const Field& status);

}  // namespace knobsim::kube
