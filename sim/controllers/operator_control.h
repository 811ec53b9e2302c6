// OperatorControl: the ClusterControl (sim/engine/cluster_control.h) that a ClusterOperator
// drives during a run — what it lists (nodes, pods as the API server shows them) and what it
// does (cordon, delete, take a node down for its reset and bring it back, wake-ups, the end of
// the run, events). Each verb is carried out by the controllers as Kubernetes would.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/cluster_control.h"

namespace knobsim::engine {

class Simulator;

class OperatorControl final : public ClusterControl {
 public:
  explicit OperatorControl(Simulator& sim) : sim_(sim) {}

  SimTime Now() const override;
  const Scenario& scenario() const override;
  int NodeCount() const override;
  NodeView Node(int node) const override;
  std::vector<PodView> Pods() const override;
  void SetCordoned(int node, bool cordoned) override;
  void DeletePod(int pod, const std::string& why) override;
  void TakeNodeDown(int node, const std::string& why) override;
  void BringNodeUp(int node, const NodeSettings& settings) override;
  void WakeAt(SimTime at, uint64_t token) override;
  void EndRunAt(SimTime at) override;
  void Record(const std::string& kind, const std::string& pod, const std::string& message) override;

 private:
  Simulator& sim_;
};

}  // namespace knobsim::engine
