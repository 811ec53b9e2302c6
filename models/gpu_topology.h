// GpuTopology: how the cards of one node are wired — NVLink / NVSwitch, PCIe switches, CPU
// sockets — as a Boost.Graph graph whose edges carry bandwidth, and what that wiring costs a job
// spread over several cards.
//
// A multi-card job runs at the pace of its slowest link, so a card set is rated by its
// bottleneck bandwidth: the minimum, over every pair of its cards, of the widest path between
// them (the path whose narrowest link is widest). The card choice uses it to prefer a set inside
// one fast island when several sets score the same (sim/scheduler/card_placement.h), and
// MultiCardThroughputFactor turns it into a slowdown. Bandwidths are nominal GB/s per direction;
// every default is listed with its source in models/README.md §4.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace knobsim {

struct TopologyParams {
  double nvlink_gbps = 300;         // a card's NVLink to the NVSwitch or an island peer (A100)
  double nvlink_bridge_gbps = 300;  // an NVLink bridge between two PCIe cards (A100 PCIe)
  double pcie_gbps = 32;            // card <-> PCIe switch <-> CPU, PCIe Gen4 x16
  double inter_socket_gbps = 20;    // peer traffic between CPU sockets (UPI / xGMI path)
  int cards_per_pcie_switch = 2;
  int sockets = 2;
  int island_size = 4;  // nvlink-islands: cards per all-to-all NVLink island
};

enum class TopologyVertexKind { kCard, kNvSwitch, kPcieSwitch, kSocket };

class GpuTopology {
 public:
  struct Vertex {
    TopologyVertexKind kind = TopologyVertexKind::kCard;
    int index = 0;  // card number, switch number or socket number
  };
  struct Link {
    double gbps = 0;
  };
  // Cards are vertices 0..cards-1, so a card index is its vertex descriptor.
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Vertex, Link>;

  // Cards under PCIe switches (cards_per_pcie_switch each), the switches split over the CPU
  // sockets, the sockets joined to each other: a host without NVLink (T4, A10, L20 nodes).
  static GpuTopology Pcie(int cards, const TopologyParams& params = {});
  // The PCIe tree plus one NVSwitch every card reaches at nvlink_gbps: any set is one island
  // (HGX A100 / H100 8-GPU boards).
  static GpuTopology NvSwitch(int cards, const TopologyParams& params = {});
  // The PCIe tree plus all-to-all NVLink inside consecutive groups of island_size cards; islands
  // talk over PCIe.
  static GpuTopology NvlinkIslands(int cards, const TopologyParams& params = {});
  // The PCIe tree plus an NVLink bridge between cards 2k and 2k+1.
  static GpuTopology NvlinkPairs(int cards, const TopologyParams& params = {});
  // By a node's interconnect kind: "nvlink" or "nvswitch", "nvlink-islands", "nvlink-pairs",
  // "pcie". Anything else (empty included) has no known topology: nullopt.
  static bool IsKnownKind(std::string_view kind);
  static std::optional<GpuTopology> ForKind(std::string_view kind, int cards,
                                            const TopologyParams& params = {});

  int cards() const { return cards_; }
  const Graph& graph() const { return graph_; }

  // The widest-path bandwidth between two cards: the largest, over all paths, of the path's
  // narrowest link; 0 when no path joins them. Infinite for a card with itself.
  double PathBandwidth(int a, int b) const;
  // The minimum PathBandwidth over every pair of `cards`; infinite for fewer than two cards
  // (nothing to talk to), 0 when a card index is out of range.
  double BottleneckBandwidth(std::span<const int> cards) const;
  // Among candidate card sets, the position of the one with the highest bottleneck bandwidth;
  // the first on ties; -1 when there is none.
  int PreferredCardSet(std::span<const std::vector<int>> candidates) const;

 private:
  GpuTopology(Graph graph, int cards);

  Graph graph_;
  int cards_ = 0;
  std::vector<double> widest_;  // cards_ x cards_, PathBandwidth by card pair
};

// Throughput of a multi-card job relative to the same job on reference links (NVLink):
//   factor(B) = 1 / (1 + s · max(0, reference / B − 1))
// i.e. the step is compute plus a communication part that scales with 1 / bandwidth, s being the
// communication share of the step at the reference bandwidth. s is not free: it comes from the
// seed data point that a 4-card job split over two nodes (inter_node_gbps) instead of one NVLink
// island loses ~15 % (docs/design.md §1 item 6), so factor(inter_node_gbps) = inter_node_factor.
struct MultiCardThroughputParams {
  double reference_gbps = 300;      // where factor = 1: NVLink (TopologyParams::nvlink_gbps)
  double inter_node_gbps = 25;      // the network between nodes: a 200 Gb/s RDMA NIC
  double inter_node_factor = 0.85;  // docs/design.md §1 item 6: "loses ~15 % ... over two nodes"
};

// `bottleneck_gbps` from GpuTopology::BottleneckBandwidth (infinite for one card: factor 1).
// A job whose cards span nodes (`same_node` false) is held to the network: min(B, inter-node).
// A non-positive bandwidth (no path inside the node) counts as the network path too.
double MultiCardThroughputFactor(double bottleneck_gbps, bool same_node,
                                 const MultiCardThroughputParams& params = {});

}  // namespace knobsim
