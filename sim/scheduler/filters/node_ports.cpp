// NodePorts: a pod asking for a host port does not fit a node where a bound pod already holds
// the same protocol and port on an overlapping address (docs/semantics.md §3.10; upstream
// pkg/scheduler/framework/plugins/nodeports/node_ports.go and framework.HostPortInfo).
//
// Two ports overlap when protocol and port agree and either binds every address (0.0.0.0, also
// an empty hostIP) or both name the same address. Only spec.containers count, on both sides, as
// upstream's getContainerPorts and NodeInfo.UsedPorts read them; the pod's own ports are not
// checked against each other. A pod without host ports skips the plugin (PreFilter Skip).
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

constexpr std::string_view kBindAll = "0.0.0.0";

bool Overlap(const HostPort& want, const HostPort& used) {
  return want.port == used.port && want.protocol == used.protocol &&
         (want.host_ip == kBindAll || used.host_ip == kBindAll || want.host_ip == used.host_ip);
}

class NodePortsFilter final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "NodePorts"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState&) override {
    skipped_ = pod.host_ports.empty();
    return PluginStatus::Success();
  }
  bool Skipped() const override { return skipped_; }

  PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    if (pod.host_ports.empty()) return PluginStatus::Success();
    for (const int bound : cluster.node(node).pods) {
      for (const HostPort& used : cluster.pod(bound).host_ports) {
        for (const HostPort& want : pod.host_ports) {
          // Unschedulable, not unresolvable: evicting the holder frees the port.
          if (Overlap(want, used)) {
            return PluginStatus::Unschedulable(
                "node(s) didn't have free ports for the requested pod ports");
          }
        }
      }
    }
    return PluginStatus::Success();
  }

 private:
  bool skipped_ = true;
};

}  // namespace

std::unique_ptr<FilterPlugin> NewNodePortsFilter() {
  return std::make_unique<NodePortsFilter>();
}

}  // namespace knobsim
