// Shared by the tests of the Kubernetes export reader (sim/io/kube_reader_test.cpp,
// sim/io/document_tree_test.cpp, sim/io/kube_snapshot_test.cpp, sim/io/kube/*_test.cpp): the
// fixtures of testdata/kube/, reading helpers, and Dump, every string and number a KubeObjects
// holds as text. Test code only.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/io/kube_reader.h"

namespace knobsim::kube_test_support {

// The fixtures sit in sim/io/testdata/kube/. Under CMake __FILE__ is absolute; a
// direct compile from the repository root gives a relative path that works from there.
inline std::string KubeDataDir() {
#ifdef KNOBSIM_SOURCE_DIR
  return std::string(KNOBSIM_SOURCE_DIR) + "/sim/io/testdata/kube/";
#else
  const std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "../testdata/kube/";  // from sim/io/kube/
#endif
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline const NodeSpec& NodeNamed(const KubeObjects& objects, const std::string& name) {
  auto it = std::find_if(objects.nodes.begin(), objects.nodes.end(),
                         [&](const NodeSpec& n) { return n.name == name; });
  REQUIRE(it != objects.nodes.end());
  return *it;
}

inline const PodSpec& PodNamed(const KubeObjects& objects, const std::string& name) {
  auto it = std::find_if(objects.pods.begin(), objects.pods.end(),
                         [&](const PodSpec& p) { return p.name == name; });
  REQUIRE(it != objects.pods.end());
  return *it;
}

inline KubeObjects MustRead(const std::string& text) {
  Expected<KubeObjects> read = ReadKubeString(text, "test.yaml");
  if (!read.ok()) FAIL(read.error().ToString());
  return std::move(read.value());
}

inline PodSpec OnePod(const std::string& text) {
  KubeObjects objects = MustRead(text);
  REQUIRE(objects.pods.size() == 1);
  return objects.pods[0];
}

inline std::string ErrorOf(const std::string& text, const std::string& file = "bad.yaml") {
  Expected<KubeObjects> read = ReadKubeString(text, file);
  REQUIRE_FALSE(read.ok());
  return read.error().ToString();
}

inline constexpr int64_t kKi = 1024;
inline constexpr int64_t kMi = 1024 * 1024;
inline constexpr int64_t kGi = 1024 * 1024 * 1024;

inline const KubeObjects& Cluster() {
  static const KubeObjects cluster = [] {
    Expected<KubeObjects> read = ReadKubeFiles({KubeDataDir() + "ack-cluster.json"});
    if (!read.ok()) FAIL(read.error().ToString());
    return read.value();
  }();
  return cluster;
}

inline const KubeObjects& Pending() {
  static const KubeObjects pending = [] {
    Expected<KubeObjects> read = ReadKubeFile(KubeDataDir() + "pending-pods.yaml");
    if (!read.ok()) FAIL(read.error().ToString());
    return read.value();
  }();
  return pending;
}

// Each one a realistic mistake; the whole message is the contract with the user.
struct BadInput {
  const char* text;
  const char* message;
};

// ---- Everything a KubeObjects holds, as text -----------------------------------------------
//
// For the privacy checks (a planted secret must appear nowhere) and the JSON-YAML equivalence.
// Every string and number of every object is written out; sources are left out (they differ
// between the two forms of one export by design). A field added to kube_types.h belongs here.

inline std::string ProbeText(const Probe& p) {
  std::ostringstream out;
  out << static_cast<int>(p.kind) << " port=" << p.port << " path=" << p.http_path
      << " grpc=" << p.grpc_service << " exec=" << p.exec_command << " " << p.initial_delay_seconds
      << "/" << p.period_seconds << "/" << p.timeout_seconds << "/" << p.success_threshold << "/"
      << p.failure_threshold;
  return out.str();
}

inline void DumpMap(std::ostringstream& out, const char* what,
                    const std::map<std::string, std::string>& m) {
  out << " " << what << "{";
  for (const auto& [k, v] : m) out << k << "=" << v << ";";
  out << "}";
}

inline void DumpResources(std::ostringstream& out, const char* what, const ResourceList& r) {
  out << " " << what << "{";
  for (const auto& [k, v] : r) out << k << "=" << v << ";";
  out << "}";
}

inline void DumpSelector(std::ostringstream& out, const LabelSelector& s) {
  DumpMap(out, "matchLabels", s.match_labels);
  for (const LabelSelectorRequirement& r : s.match_expressions) {
    out << " expr " << r.key << " " << r.op;
    for (const std::string& v : r.values) out << " " << v;
  }
}

inline void DumpOwners(std::ostringstream& out, const std::vector<OwnerReference>& owners) {
  for (const OwnerReference& o : owners) {
    out << " owner " << o.api_version << " " << o.kind << " " << o.name << " " << o.uid << " "
        << o.controller;
  }
}

inline std::string IntOrPercentText(const std::optional<IntOrPercent>& v) {
  if (!v) return "-";
  return std::to_string(v->value) + (v->percent ? "%" : "");
}

inline void DumpPod(std::ostringstream& out, const PodSpec& p) {
  out << "pod " << p.namespace_ << "/" << p.name << " " << p.uid;
  DumpMap(out, "labels", p.labels);
  DumpMap(out, "annotations", p.annotations);
  DumpResources(out, "requests", p.requests);
  out << " " << p.nonzero_cpu_milli << " " << p.nonzero_memory_bytes << " " << p.num_containers;
  for (const std::string& i : p.images) out << " image " << i;
  DumpMap(out, "nodeSelector", p.node_selector);
  for (const auto& term : p.node_affinity.required_terms) {
    for (const NodeSelectorRequirement& r : term) {
      out << " req " << r.key << " " << r.op;
      for (const std::string& v : r.values) out << " " << v;
    }
  }
  for (const NodeAffinity::Preferred& pref : p.node_affinity.preferred) {
    out << " pref " << pref.weight;
    for (const NodeSelectorRequirement& r : pref.expressions) {
      out << " " << r.key << " " << r.op;
      for (const std::string& v : r.values) out << " " << v;
    }
  }
  for (const Toleration& t : p.tolerations) {
    out << " tol " << t.key << " " << t.op << " " << t.value << " " << t.effect << " "
        << t.toleration_seconds.value_or(-1);
  }
  for (const TopologySpreadConstraint& c : p.topology_spread) {
    out << " spread " << c.max_skew << " " << c.topology_key << " " << c.when_unsatisfiable << " "
        << c.min_domains.value_or(-1) << " " << c.node_affinity_policy << " "
        << c.node_taints_policy;
    DumpSelector(out, c.label_selector);
    for (const std::string& k : c.match_label_keys) out << " " << k;
  }
  out << " " << p.priority << " " << p.preemption_policy << " " << p.node_name << " " << p.phase
      << " " << p.terminating << " gpu " << p.gpu_mem << " " << p.gpu_core << " " << p.gpu_count
      << " " << p.whole_gpus << " " << p.require_whole_device;
  for (const ContainerGpu& g : p.container_gpus) out << " cg " << g.gpu_mem << "/" << g.gpu_core;
  for (const auto& [card, units] : p.allocated_mem) out << " mem " << card << ":" << units;
  for (const auto& [card, units] : p.allocated_core) out << " core " << card << ":" << units;
  DumpOwners(out, p.owner_references);
  for (const ContainerInfo& c : p.containers) {
    out << " container " << c.name << " " << c.image << " " << c.image_digest << " ["
        << ProbeText(c.readiness) << "] [" << ProbeText(c.liveness) << "] [" << ProbeText(c.startup)
        << "] " << c.ready << " " << c.restart_count << " " << c.waiting_reason << " "
        << c.terminated_reason << " " << c.last_terminated_reason;
  }
  for (const std::string& claim : p.pvc_claims) out << " claim " << claim;
  out << " ready " << p.ready_status << "\n";
}

inline std::string Dump(const KubeObjects& o) {
  std::ostringstream out;
  for (const NodeSpec& n : o.nodes) {
    out << "node " << n.name;
    DumpMap(out, "labels", n.labels);
    DumpMap(out, "annotations", n.annotations);
    for (const Taint& t : n.taints) out << " taint " << t.key << "=" << t.value << ":" << t.effect;
    DumpResources(out, "capacity", n.capacity);
    DumpResources(out, "allocatable", n.allocatable);
    for (const ContainerImage& i : n.images) {
      for (const std::string& name : i.names) out << " image " << name;
      out << " " << i.size_bytes;
    }
    out << " " << n.unschedulable << " " << n.gpu_model << " " << n.gpu_cards << " "
        << n.card_mem_units << " " << n.card_core_percent << " " << n.gpu_schedule << " "
        << n.placement << " " << n.max_pods_per_card << " " << n.interconnect << " "
        << n.ready_status << " " << n.kubelet_version << "\n";
  }
  for (const PodSpec& p : o.pods) DumpPod(out, p);
  for (const DeploymentSpec& d : o.deployments) {
    out << "deployment " << d.namespace_ << "/" << d.name << " " << d.uid << " " << d.replicas;
    DumpSelector(out, d.selector);
    DumpMap(out, "template", d.template_labels);
    out << " " << d.strategy << " " << IntOrPercentText(d.max_surge) << " "
        << IntOrPercentText(d.max_unavailable) << " " << d.min_ready_seconds << " "
        << d.status_replicas << " " << d.ready_replicas << " " << d.available_replicas << "\n";
  }
  for (const ReplicaSetSpec& r : o.replica_sets) {
    out << "replicaset " << r.namespace_ << "/" << r.name << " " << r.uid;
    DumpMap(out, "labels", r.labels);
    DumpOwners(out, r.owner_references);
    out << " " << r.replicas << " " << r.status_replicas << " " << r.ready_replicas << "\n";
  }
  for (const StatefulSetSpec& s : o.stateful_sets) {
    out << "statefulset " << s.namespace_ << "/" << s.name << " " << s.uid << " " << s.replicas;
    DumpSelector(out, s.selector);
    DumpMap(out, "template", s.template_labels);
    for (const std::string& t : s.volume_claim_templates) out << " vct " << t;
    out << " " << s.status_replicas << " " << s.ready_replicas << "\n";
  }
  for (const JobSpec& j : o.jobs) {
    out << "job " << j.namespace_ << "/" << j.name << " " << j.uid;
    DumpOwners(out, j.owner_references);
    out << "\n";
  }
  for (const PodDisruptionBudgetSpec& b : o.pdbs) {
    out << "pdb " << b.namespace_ << "/" << b.name << " " << b.uid << " "
        << IntOrPercentText(b.min_available) << " " << IntOrPercentText(b.max_unavailable);
    if (b.selector) {
      DumpSelector(out, *b.selector);
    } else {
      out << " no selector";
    }
    out << " " << b.unhealthy_pod_eviction_policy;
    if (b.status) {
      out << " status " << b.status->current_healthy << " " << b.status->desired_healthy << " "
          << b.status->disruptions_allowed << " " << b.status->expected_pods;
    }
    out << "\n";
  }
  for (const PersistentVolumeClaimSpec& c : o.pvcs) {
    out << "pvc " << c.namespace_ << "/" << c.name << " " << c.uid << " " << c.volume_name << " "
        << c.storage_class_name.value_or("<unset>") << " " << c.requested_bytes << " " << c.phase
        << "\n";
  }
  for (const PersistentVolumeSpec& v : o.pvs) {
    out << "pv " << v.name << " " << v.uid << " " << v.reclaim_policy << " " << v.storage_class_name
        << " " << v.claim_namespace << "/" << v.claim_name << " " << v.capacity_bytes << " "
        << v.phase << "\n";
  }
  for (const StorageClassSpec& s : o.storage_classes) {
    out << "storageclass " << s.name << " " << s.provisioner << " " << s.reclaim_policy << " "
        << s.volume_binding_mode << " " << s.is_default << "\n";
  }
  for (const ResourceQuotaSpec& q : o.resource_quotas) {
    out << "quota " << q.namespace_ << "/" << q.name << " " << q.uid;
    DumpResources(out, "hard", q.hard);
    DumpResources(out, "used", q.used);
    out << "\n";
  }
  for (const auto& [kind, n] : o.skipped_kinds) out << "skipped " << kind << " " << n << "\n";
  return out.str();
}

// Warnings without their "file:line: " start.
inline std::vector<std::string> WarningTexts(const KubeObjects& objects) {
  std::vector<std::string> texts;
  for (const std::string& w : objects.warnings) {
    const size_t colon = w.find(": ");
    texts.push_back(colon == std::string::npos ? w : w.substr(colon + 2));
  }
  return texts;
}

// ---- The full export: workloads, budgets, storage, quotas ----------------------------------

inline const KubeObjects& Export() {
  static const KubeObjects objects = [] {
    Expected<KubeObjects> read = ReadKubeFile(KubeDataDir() + "export.json");
    if (!read.ok()) FAIL(read.error().ToString());
    return read.value();
  }();
  return objects;
}

template <class T>
inline const T& Named(const std::vector<T>& objects, const std::string& name) {
  auto it =
      std::find_if(objects.begin(), objects.end(), [&](const T& o) { return o.name == name; });
  REQUIRE(it != objects.end());
  return *it;
}

}  // namespace knobsim::kube_test_support
