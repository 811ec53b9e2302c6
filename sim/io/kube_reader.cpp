// The dispatcher of the Kubernetes export reader: files into document trees
// (sim/io/document_tree.h), documents into objects by kind (sim/io/kube/kinds.h), and the
// duplicate check across files.
#include "sim/io/kube_reader.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include <sys/stat.h>

#include <fstream>

#include "sim/io/document_tree.h"
#include "sim/io/json_stream.h"
#include "sim/io/kube/device_configs.h"
#include "sim/io/kube/kinds.h"
#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/object_meta.h"
#include "sim/io/yaml_stream.h"
#include "sim/text.h"

namespace knobsim {
namespace {

using kube::Field;
using kube::ObjectReader;

// One document (or an item of a List): an object of a kind read here into its vector with
// where it was read, a List's items in turn, any other kind counted and skipped.
void ReadObject(ObjectReader& r, const Field& object) {
  if (object.node->kind != NodeKind::kMap) {
    r.Fail(object, kube::Cat({"expected a Kubernetes object, found ", r.Describe(*object.node)}),
           "each document is one object with `apiVersion` and `kind`, or a `kind: List`");
  }
  const std::optional<Field> kind_field = r.Get(object, "kind");
  if (!kind_field) {
    r.Fail(object, "missing required key `kind`",
           "each object says what it is, e.g. `kind: Pod`; export with kubectl get -o yaml");
  }
  const std::string kind = r.String(*kind_field);
  KubeObjects& out = r.out();
  auto keep = [&](auto& objects, std::vector<ObjectSource>& sources, auto read) {
    objects.push_back(read(r, object));
    sources.push_back(ObjectSource{r.file(), object.line});
  };
  if (kind == "Node") {
    keep(out.nodes, out.node_sources, kube::ReadNode);
  } else if (kind == "Pod") {
    keep(out.pods, out.pod_sources, kube::ReadPod);
  } else if (kind == "Deployment") {
    keep(out.deployments, out.deployment_sources, kube::ReadDeployment);
  } else if (kind == "ReplicaSet") {
    keep(out.replica_sets, out.replica_set_sources, kube::ReadReplicaSet);
  } else if (kind == "StatefulSet") {
    keep(out.stateful_sets, out.stateful_set_sources, kube::ReadStatefulSet);
  } else if (kind == "DaemonSet") {
    kube::ReadDaemonSet(r, object);
  } else if (kind == "Job") {
    keep(out.jobs, out.job_sources, kube::ReadJob);
  } else if (kind == "PodDisruptionBudget") {
    keep(out.pdbs, out.pdb_sources, kube::ReadPdb);
  } else if (kind == "PersistentVolumeClaim") {
    keep(out.pvcs, out.pvc_sources, kube::ReadPvc);
  } else if (kind == "PersistentVolume") {
    keep(out.pvs, out.pv_sources, kube::ReadPv);
  } else if (kind == "StorageClass") {
    keep(out.storage_classes, out.storage_class_sources, kube::ReadStorageClass);
  } else if (kind == "ResourceQuota") {
    keep(out.resource_quotas, out.resource_quota_sources, kube::ReadResourceQuota);
  } else if (kind == "Namespace") {
    keep(out.namespaces, out.namespace_sources, kube::ReadNamespace);
  } else if (kind == "PriorityClass") {
    keep(out.priority_classes, out.priority_class_sources, kube::ReadPriorityClass);
  } else if (kind == "HorizontalPodAutoscaler") {
    keep(out.hpas, out.hpa_sources, kube::ReadHorizontalPodAutoscaler);
  } else if (kind == "CronHorizontalPodAutoscaler") {
    keep(out.cron_hpas, out.cron_hpa_sources, kube::ReadCronHorizontalPodAutoscaler);
  } else if (kind == "ResourceSlice") {
    keep(out.resource_slices, out.resource_slice_sources, kube::ReadResourceSlice);
  } else if (kind == "DeviceClass") {
    keep(out.device_classes, out.device_class_sources, kube::ReadDeviceClass);
  } else if (kind == "ResourceClaim") {
    keep(out.resource_claims, out.resource_claim_sources, kube::ReadResourceClaim);
  } else if (kind == "ResourceClaimTemplate") {
    keep(out.resource_claim_templates, out.resource_claim_template_sources,
         kube::ReadResourceClaimTemplate);
  } else if (kind == "ConfigMap") {
    kube::ReadConfigMap(r, object);
  } else if (kind == "ClusterPolicy") {
    kube::ReadClusterPolicy(r, object);
  } else if (kind == "List" || (kube::EndsWith(kind, "List") && r.Get(object, "items"))) {
    // kubectl's envelope, and the API's typed lists (PodList, NodeList).
    if (auto items = r.Get(object, "items")) {
      for (const Field& item : r.Items(*items)) ReadObject(r, item);
    }
  } else if (kind.empty()) {
    r.Fail(*kind_field, "`kind` is empty", "e.g. `kind: Pod`");
  } else {
    ++out.skipped_kinds[kind];
  }
}

struct Loader {
  KubeObjects objects;
  std::map<std::string, ObjectSource> seen;
  size_t stream_above = kMaxInputBytes;

  void WarnDuplicateKeys(const DocumentTree& tree, const std::string& file) {
    for (const DocumentTree::DuplicateKey& d : tree.duplicate_keys()) {
      objects.warnings.push_back(
          kube::Cat({file, ":", std::to_string(d.line), ": duplicate key ", Quote(d.key),
                     " (also at line ", std::to_string(d.first_line),
                     "): the last one is used, as kubectl's client-side decoding does; kubectl's "
                     "default strict field validation refuses the object"}));
    }
  }

  static InputError NoObjects(const std::string& file) {
    return InputError{file, 0, "", "the file holds no Kubernetes objects",
                      "expected the output of kubectl get -o yaml or -o json"};
  }

  Status Read(const std::string& text, const std::string& file) {
    DocumentTree tree(text);
    if (Status parsed = ParseDocumentTree(text, file, tree); !parsed) return parsed;
    WarnDuplicateKeys(tree, file);
    const bool empty =
        std::all_of(tree.documents().begin(), tree.documents().end(),
                    [&](uint32_t d) { return tree.node(d).kind == NodeKind::kNull; });
    if (empty) return NoObjects(file);
    ObjectReader reader(file, tree, objects, &seen);
    try {
      for (uint32_t doc : tree.documents()) {
        const TreeNode& node = tree.node(doc);
        if (node.kind != NodeKind::kNull)
          ReadObject(reader, Field{&node, "", kube::LineOf(node, 0)});
      }
    } catch (const kube::Failure& f) {
      return f.error;
    }
    reader.WarnDroppedAnnotations();
    return Status::Ok();
  }

  // An export over the input limit, a unit at a time (sim/io/json_stream.h, yaml_stream.h):
  // each item of a List as its own tree, read as the whole file's items[i] would be, then the
  // envelope, which must be a List (its items were read before its `kind`, which kubectl writes
  // after them).
  Status Stream(const std::string& path, const std::string& file, bool json) {
    const DocumentTree none("");
    ObjectReader reader(file, none, objects, &seen);
    bool any = false;
    auto read_unit = [&](const auto& unit) {
      DocumentTree tree(unit.text);
      if (Status parsed = ParseDocumentTree(unit.text, file, tree, unit.first_line); !parsed)
        return parsed;
      WarnDuplicateKeys(tree, file);
      reader.SetTree(tree);
      try {
        for (uint32_t doc : tree.documents()) {
          const TreeNode& node = tree.node(doc);
          // An empty YAML document (`---` alone) is skipped, as in a whole read; an item is not.
          if (node.kind == NodeKind::kNull && unit.item < 0) continue;
          const Field field{
              &node, unit.item >= 0 ? kube::Cat({"items[", std::to_string(unit.item), "]"}) : "",
              kube::LineOf(node, unit.first_line)};
          if (unit.envelope) CheckStreamedList(reader, field);
          ReadObject(reader, field);
          any = true;
        }
      } catch (const kube::Failure& f) {
        return Status(f.error);
      }
      return Status::Ok();
    };
    const Status streamed = json ? StreamJsonUnits(path, file, kMaxInputBytes, read_unit)
                                 : StreamYamlUnits(path, file, kMaxInputBytes, read_unit);
    if (!streamed) return streamed;
    if (!any) return NoObjects(file);
    reader.WarnDroppedAnnotations();
    return Status::Ok();
  }

  static void CheckStreamedList(ObjectReader& r, const Field& envelope) {
    const std::optional<Field> kind_field = r.Get(envelope, "kind");
    const std::string kind = kind_field ? r.String(*kind_field) : "";
    if (kind == "List" || kube::EndsWith(kind, "List")) return;
    r.Fail(kind_field ? *kind_field : envelope,
           kube::Cat({"this file is over the input limit of ", std::to_string(kMaxInputBytes >> 20),
                      " MiB, so its top-level `items` were read one by one as a List's, but the "
                      "object holding them is ",
                      kind.empty() ? std::string("of no kind") : "a " + kind}),
           "export with kubectl get -o json (a kind: List), or split the file");
  }

  Status ReadFile(const std::string& path) {
    const std::string file = path == "-" ? "<stdin>" : path;
    if (path != "-") {
      if (const std::optional<bool> json = LargeFileIsJson(path, stream_above)) {
        return Stream(path, file, *json);
      }
    }
    // One read into one string (a 90 MB export is not copied twice), through the readers' one
    // function: pipes, the input limit and a directory's message included.
    const Expected<std::string> text = ReadFileText(path);
    if (!text) return text.error();
    return Read(*text, file);
  }

  // For a regular file larger than `above` bytes, what Stream reads: whether its text starts as
  // JSON does (else it is YAML); nullopt for any other file.
  static std::optional<bool> LargeFileIsJson(const std::string& path, size_t above) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<size_t>(st.st_size) <= above)
      return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    return LooksLikeJson(head);
  }
};

}  // namespace

Expected<KubeObjects> ReadKubeString(const std::string& text, const std::string& file_name) {
  Loader loader;
  if (Status read = loader.Read(text, file_name); !read) return read.error();
  ResolvePriorityClasses(loader.objects, {});
  ResolveDeviceConfigs(loader.objects);
  return std::move(loader.objects);
}

Expected<KubeObjects> ReadKubeFile(const std::string& path,
                                   const std::vector<PriorityClassSpec>& known_classes) {
  return ReadKubeFiles({path}, known_classes);
}

Expected<KubeObjects> ReadKubeFiles(const std::vector<std::string>& paths,
                                    const std::vector<PriorityClassSpec>& known_classes,
                                    size_t stream_above) {
  Loader loader;
  loader.stream_above = stream_above;
  for (const std::string& path : paths) {
    if (Status read = loader.ReadFile(path); !read) return read.error();
  }
  ResolvePriorityClasses(loader.objects, known_classes);
  ResolveDeviceConfigs(loader.objects);
  return std::move(loader.objects);
}

// The Priority admission plugin's part, for pods read without spec.priority: the class named
// (the built-in system classes, the objects read, then `known`), or the global default class
// when none is named; a class that is nowhere leaves priority 0 with a warning. Pods and the
// templates of workloads alike.
void ResolvePriorityClasses(KubeObjects& objects, const std::vector<PriorityClassSpec>& known) {
  std::vector<PriorityClassSpec> classes = objects.priority_classes;
  classes.insert(classes.end(), known.begin(), known.end());
  classes.push_back({"system-node-critical", 2000001000, false, "PreemptLowerPriority"});
  classes.push_back({"system-cluster-critical", 2000000000, false, "PreemptLowerPriority"});
  const PriorityClassSpec* global_default = nullptr;
  for (const PriorityClassSpec& c : classes) {
    if (c.global_default && global_default == nullptr) global_default = &c;
  }
  auto resolve = [&](PodSpec& pod, const ObjectSource& source) {
    if (!pod.priority_pending) return;
    const PriorityClassSpec* cls = nullptr;
    if (pod.priority_class_name.empty()) {
      cls = global_default;
    } else {
      for (const PriorityClassSpec& c : classes) {
        if (c.name == pod.priority_class_name) {
          cls = &c;
          break;
        }
      }
      if (cls == nullptr) {
        objects.warnings.push_back(kube::Cat(
            {source.file, ":", std::to_string(source.line), ": pod ", pod.namespace_, "/", pod.name,
             ": priority class ", Quote(pod.priority_class_name),
             " is not among the objects read and the pod has no spec.priority; its priority "
             "reads as 0 (add the PriorityClass, e.g. kubectl get priorityclasses -o yaml)"}));
      }
    }
    pod.priority_pending = false;
    if (cls == nullptr) return;
    pod.priority = cls->value;
    if (!pod.preemption_policy_given) pod.preemption_policy = cls->preemption_policy;
  };
  for (size_t i = 0; i < objects.pods.size(); ++i) resolve(objects.pods[i], objects.pod_sources[i]);
  for (size_t i = 0; i < objects.template_pods.size(); ++i) {
    resolve(objects.template_pods[i], objects.template_pod_sources[i]);
  }
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

}  // namespace knobsim
