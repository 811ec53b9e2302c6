// CheckInput: one neutral view of a cluster for `knobsim check` (cluster_checks.h), made either
// from an export (KubeObjects and, optionally, what Prometheus saw) or from a scenario. The
// checks read only this, so both paths are judged by the same rules.
//
// From an export: nodes, pods and the other objects as read; each pod's workload through its
// owners (sim/io/kube_owners.h); the readiness kind of its GPU container by the import's rule
// (ClassifyProbe); each node's memory isolation as `knobsim import` decides it (ImportCluster:
// the cGPU module, cgpu.disable.isolation, the version list, over-quota evidence); the GPU
// memory peak per pod from the metrics (PodMemoryMetrics, the import's rule); and the scenario
// the import writes, as the reader would read it (ScenarioFromImport), to simulate the
// consequence.
//
// From a scenario: the nodes of each pool (NodeSpecForPool), the replicas of each workload
// (PodSpecForWorkload) named by its `pods:` list, else <workload>-<i>, bound to the listed node
// (pods not listed have no node: the scheduler places them at run time), Running and Ready;
// images, annotations and volumes from the workload keys (a StatefulSet's claims
// `<template>-<sts>-<i>` from kube.stateful_sets); the readiness kind from `probe`; the peak GPU
// memory per card from the workload's memory model as the simulator allocates it: CUDA context
// + ⌈weights / cards⌉ + ⌈activation / cards⌉ × max_batch × concurrency (`unlimited` counted as
// 1, noted); and the kube objects from `kube:`.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/memory_isolation.h"
#include "sim/import/cluster_import.h"
#include "sim/input_error.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_metrics.h"
#include "sim/io/prom_reader.h"
#include "sim/kube_types.h"
#include "sim/scenario.h"

namespace knobsim {

struct CheckInputOptions {
  // The cGPU version's node label (or annotation) and the releases that lack memory isolation;
  // the same defaults as `knobsim import` (docs/import.md): the key is ours, the list empty.
  std::string cgpu_version_label = ImportOptions{}.cgpu_version_label;
  std::vector<std::string> cgpu_no_isolation_versions;
  // The metrics window in Unix seconds (export with metrics).
  double window_start = 0;
  double window_end = 0;
};

struct CheckNode {
  std::string name;
  std::string pool;          // the scenario's pool, or the pool the import puts the node in
  std::string gpu_type;      // catalog key; empty: CPU-only or unknown
  int64_t card_mib = 0;      // physical MiB per card; 0 when unknown
  int card_units = 0;        // aliyun.com/gpu-mem units per card
  std::string schedule;      // ack.node.gpu.schedule: default | share | cgpu | core_mem
  bool cgpu_module = false;  // schedule cgpu or core_mem: the upgrade installs the module here
  bool isolation_label_off = false;  // label cgpu.disable.isolation=true
  std::string cgpu_version;          // from the label / annotation, or the pool's cgpu_version
  MemoryIsolation isolation = MemoryIsolation::kHard;  // today
  std::string isolation_why;                           // which rule decided it
};

// The card on which a pod's peak is the largest fraction of its visible quota.
struct PodGpuMemory {
  bool known = false;
  double peak_mib = 0;
  double rest_mib = 0;    // held without requests: context + weights (model), or the window's mean
  int card = -1;          // -1: no card label (the pod's only card)
  int units = 0;          // quota units on that card
  int64_t quota_mib = 0;  // VisibleQuotaMib(card MiB, units, card units)
  std::string source;
};

struct CheckPod {
  PodSpec spec;                // as exported, or as the scenario workload makes it
  std::string workload_kind;   // Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, Pod, ...
  std::string workload;        // its name ("" for kind Pod)
  std::string workload_key;    // "Kind/ns/name"; "" for a pod without controller
  int workload_replicas = -1;  // spec.replicas when known
  IntOrPercent max_surge{25, true};  // the Deployment's rollingUpdate.maxSurge
  ReadinessKind probe = ReadinessKind::kModel;
  std::string probe_why;
  PodGpuMemory memory;

  bool Ready() const {
    return spec.phase == "Running" && spec.ready_status == "True" && !spec.terminating;
  }
  bool UsesGpu() const { return spec.gpu_mem > 0 || spec.whole_gpus > 0 || !spec.hami.empty(); }
};

struct CheckInput {
  std::string origin;  // "export" or "scenario"
  std::vector<CheckNode> nodes;
  std::vector<CheckPod> pods;
  std::vector<PodDisruptionBudgetSpec> pdbs;
  std::vector<StatefulSetSpec> stateful_sets;
  std::vector<PersistentVolumeClaimSpec> pvcs;
  std::vector<PersistentVolumeSpec> pvs;
  std::vector<StorageClassSpec> storage_classes;
  std::vector<ResourceQuotaSpec> resource_quotas;
  bool have_memory = false;   // any pod's GPU memory peak is known
  std::string memory_source;  // where the peaks come from, or why there are none
  // The scenario to simulate the consequence with, or why there is none.
  std::optional<Scenario> scenario;
  std::string scenario_error;
  std::vector<std::string> warnings;
};

// The per-pod GPU memory `knobsim import` uses: ACK's per-process metric where a pod has it,
// else DCGM_FI_DEV_FB_USED by the rule of docs/semantics.md §5.6, over [start, end].
Metrics PodMemoryMetrics(std::span<const PromResult> results, double window_start,
                         double window_end);

// `metrics` may be null (no --prom). Never fails: what cannot be used is a warning.
CheckInput CheckInputFromExport(const KubeObjects& objects, const Metrics* metrics,
                                const CheckInputOptions& options);

CheckInput CheckInputFromScenario(const Scenario& scenario, const CheckInputOptions& options);

// The smallest quota (units per card) whose visible MiB holds `peak_mib`; card_units + 1 when
// not even the whole card does.
int UnitsForPeak(double peak_mib, int64_t card_mib, int card_units);

}  // namespace knobsim
