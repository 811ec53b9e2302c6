// The scenario reader's insides, shared by its files and by nothing else (include
// sim/io/scenario_reader.h to read a scenario).
//
// One Reader walks the whole file; its sections live in one file each, by idea:
//   scenario_reader.cpp      the document: sections in dependency order, `run:`, the entry points
//   scenario_cluster.cpp     `gpu_types:` and `cluster:` (the interference model file)
//   scenario_node_pools.cpp  `node_pools:`, their labels and what the reader derives from them
//   scenario_scheduling.cpp  a pod's scheduling rules: selectors, affinities, tolerations, spread
//   scenario_workloads.cpp   `workloads:`: identity, current pods, resources, startup, serving
//   scenario_traffic.cpp     a workload's `traffic:`, `work:` and `slo:`
//   scenario_autoscaling.cpp `hpa:`, `cron_hpa:`, a pool's `autoscaling:` and their controllers
//   scenario_variants.cpp    `variants:`, checked against the pools and workloads they name
//   scenario_kube.cpp        `kube:`, the cluster objects the checks read
//
// Every Read* fails (throws, sim/io/yaml_fields.h) at the first bad value, so the order in which
// a function reads its keys is the order in which errors are reported: keep it when moving code.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/io/yaml_fields.h"
#include "sim/scenario.h"

namespace knobsim::scenario_internal {

// A duration as messages show it, in its largest whole unit: `90s`, `2h`, `1500ms`.
std::string FormatDuration(SimTime ns);

// The scenario's sections on top of the shared field helpers (sim/io/yaml_fields.h).
class Reader : public YamlFieldReader {
 public:
  explicit Reader(std::string file) : YamlFieldReader(std::move(file)) {}

  Scenario Read(const YAML::Node& root) const;

 private:
  // Values of the scenario only (scenario_reader.cpp).
  std::string Placement(const Field& f) const;
  std::string DnsName(const Field& f) const;
  std::string Beside(const std::string& path) const;
  RunSettings ReadRun(const Field& f) const;

  // The cluster (scenario_cluster.cpp).
  void ReadGpuTypes(const Field& f, GpuCatalog& catalog) const;
  ClusterKnobs ReadCluster(const Field& f) const;
  SharingPolicy ReadPolicy(const Field& f) const;
  int ReadMaxInst(const Field& f) const;
  std::shared_ptr<const InterferenceSetup> ReadInterferenceSetup(const Field& f) const;
  // cluster.time_slice (and a variant's): `{quantum, switch_cost}`, or `off` where `allow_off`.
  TimeSliceKnobs ReadTimeSlice(const Field& f, bool allow_off) const;
  // Slice mode shares only cards of native time-slicing and POLICY 0: fails at `f` when the
  // scenario (a variant applied) has cards of another kind or a co-location model.
  void CheckTimeSlice(const Scenario& sc, const Field& f) const;

  // Node pools (scenario_node_pools.cpp).
  NodePool ReadNodePool(const Field& f, const GpuCatalog& catalog) const;
  std::vector<PoolNode> ReadPoolNodes(const Field& f) const;
  void ReadPoolGpu(const Section& s, const GpuCatalog& catalog, NodePool& p) const;
  void ReadPoolSharing(const Section& s, NodePool& p) const;
  void ReadDeviceSharing(const Field& f, NodePool& p) const;
  void ReadMig(const Field& f, NodePool& p) const;
  void ReadHamiPool(const Field& f, NodePool& p) const;
  void ReadDraPool(const Field& f, NodePool& p) const;
  DraAsk ReadDraAsk(const Field& f) const;
  HamiAsk ReadHamiAsk(const Field& f) const;
  void RefuseAckSharingLabels(const Field& f, const NodePool& p, std::string_view key) const;
  Taint ReadTaint(const Field& f) const;

  // A pod's scheduling rules (scenario_scheduling.cpp).
  NodeAffinity ReadNodeAffinity(const Field& f) const;
  std::vector<NodeSelectorRequirement> ReadNodeSelectorTerm(const Field& f) const;
  Toleration ReadToleration(const Field& f) const;
  HostPort ReadHostPort(const Field& f) const;
  TopologySpreadConstraint ReadSpread(const Field& f, const Labels& own_labels) const;
  std::vector<TopologySpreadConstraint> ReadSpreadList(const Field& f, const Labels& own) const;
  LabelSelector ReadLabelSelector(const Field& f) const;
  PodAffinity ReadPodAffinity(const Field& f, const Labels& own) const;
  void CheckValues(const Field& f, std::string_view op, const std::vector<std::string>& values,
                   bool numeric_ops) const;

  // Workloads (scenario_workloads.cpp), each step reading its keys of the workload's section.
  Workload ReadWorkload(const Field& f) const;
  std::vector<CurrentPod> ReadCurrentPods(const Field& f, int replicas) const;
  void ReadPodMetadata(const Section& s, Workload& w) const;
  void ReadSchedulingRules(const Section& s, Workload& w) const;
  void ReadWorkloadAutoscalers(const Section& s, Workload& w) const;
  void ReadClosedLoop(const Field& f, const Section& s, Workload& w) const;
  void ReadResources(const Section& s, Workload& w) const;
  void ReadStartup(const Section& s, Workload& w) const;
  void ReadServing(const Section& s, Workload& w) const;
  void ReadWorkloadInterference(const Section& s, const Field& f, Workload& w) const;
  JobProfile ReadInterferenceProfile(const Field& f) const;
  GpuProfile ReadGpuProfile(const Field& f) const;
  void CheckGpuMemSplit(const Field& f, int gpu_mem, int gpu_count) const;

  // A workload's requests (scenario_traffic.cpp).
  Traffic ReadTraffic(const Field& f, const std::vector<CurrentPod>& pods) const;
  IntervalCounts ReadCounts(const Field& f, const std::vector<CurrentPod>& pods) const;
  WorkModel ReadWork(const Field& f) const;
  Slo ReadSlo(const Field& f) const;

  // Autoscalers and their controllers (scenario_autoscaling.cpp).
  HpaSpec ReadHpa(const Field& f, const Workload& w) const;
  HpaMetric ReadHpaMetric(const Field& item) const;
  HpaScalingRules ReadHpaRules(const Field& f) const;
  HpaControllerSettings ReadHpaController(const Field& f) const;
  CronHpaSpec ReadCronHpa(const Field& f, const Workload& w) const;
  CronSchedule ReadCronSchedule(const Field& f) const;
  CronHpaControllerSettings ReadCronHpaController(const Field& f) const;
  void ReadPoolSpot(const Field& f, bool autoscaled, SpotInterruptions& spot) const;
  PoolAutoscaling ReadPoolAutoscaling(const Field& f, NodePool& pool,
                                      const std::optional<Field>& count) const;
  ClusterAutoscalerSettings ReadClusterAutoscaler(const Field& f) const;

  // Variants (scenario_variants.cpp), each step reading its knobs of the variant's section.
  Variant ReadVariant(const Field& f, const Scenario& sc) const;
  void ReadVariantClusterKnobs(const Section& s, const Scenario& sc, Variant& v) const;
  void ReadVariantPoolSharing(const Section& s, const Scenario& sc, Variant& v) const;
  void ReadVariantWorkloadKnobs(const Section& s, const Scenario& sc, Variant& v) const;
  void ReadVariantAutoscalerKnobs(const Section& s, const Scenario& sc, Variant& v) const;
  void ReadVariantPoolSizes(const Section& s, const Scenario& sc, Variant& v) const;
  // The entries of a per-name knob, each key one of `names` or "*"; `kind` names them in errors.
  std::vector<std::pair<std::string, Field>> KnobEntries(const Field& map,
                                                         const std::vector<std::string>& names,
                                                         std::string kind) const;

  // The `kube:` section, cluster objects the checks read (scenario_kube.cpp), each kind walked
  // by KubeFieldReader over its list in sim/io/kube_scenario_fields.h.
  ScenarioKube ReadKube(const Field& f) const;
  template <class T>
  friend class KubeFieldReader;
  template <class T>
  T ReadKubeObject(const Field& f) const;
  IntOrPercent ReadIntOrPercent(const Field& f) const;
  ResourceList ReadResourceAmounts(const Field& f) const;

  // The nodes of every pool, once the pools are read (current pods refer to them): each pool's
  // named nodes, and its default names <pool>-<ordinal> (PoolNodeName) past them as a range, so
  // that a pool of a hundred million nodes costs nothing here (the run limits refuse it later,
  // with the reason, docs/limits.md).
  struct DefaultNodeNames {
    std::string pool;
    int from = 0, to = 0;  // ordinals [from, to)
  };
  mutable std::set<std::string> named_nodes_;
  mutable std::vector<DefaultNodeNames> default_nodes_;
  void KnowNodesOf(const NodePool& pool) const;
  bool KnownNode(const std::string& name) const;
  // Every node name, sorted, for a "did you mean" hint; at most kMostHintedNodes of them.
  std::vector<std::string> HintedNodeNames() const;
  // cluster.interference, once the cluster is read (workloads name its jobs).
  mutable std::shared_ptr<const InterferenceSetup> interference_;
  // The cluster-autoscaler's --max-node-provision-time, read before the pools: a pool's
  // provisioning delay must stay within it.
  mutable SimTime max_node_provision_time_ = ClusterAutoscalerSettings{}.max_node_provision_time;
};

}  // namespace knobsim::scenario_internal
