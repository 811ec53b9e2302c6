#include "models/gpu_topology.h"

#include <algorithm>
#include <boost/graph/kruskal_min_spanning_tree.hpp>
#include <boost/property_map/transform_value_property_map.hpp>
#include <iterator>
#include <limits>
#include <utility>

namespace knobsim {
namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();

using Graph = GpuTopology::Graph;

int AddVertex(Graph& g, TopologyVertexKind kind, int index) {
  // add_vertex(g) then the bundle: add_vertex(property, g) trips GCC 12's false
  // -Wuninitialized inside Boost's named_graph under the sanitizers.
  const auto v = boost::add_vertex(g);
  g[v] = GpuTopology::Vertex{kind, index};
  return static_cast<int>(v);
}

void AddLink(Graph& g, int a, int b, double gbps) {
  boost::add_edge(static_cast<Graph::vertex_descriptor>(a),
                  static_cast<Graph::vertex_descriptor>(b), GpuTopology::Link{gbps}, g);
}

// Cards 0..n-1 first (so a card index is its vertex), then the PCIe switches, then the sockets.
// Switches go to sockets in contiguous halves, as boards wire them (cards 0-3 on socket 0 of an
// 8-card, two-socket host); sockets are joined pairwise.
Graph PcieTree(int cards, const TopologyParams& p) {
  Graph g;
  cards = std::max(0, cards);
  for (int c = 0; c < cards; ++c) AddVertex(g, TopologyVertexKind::kCard, c);
  if (cards == 0) return g;
  const int per_switch = std::max(1, p.cards_per_pcie_switch);
  const int switches = (cards + per_switch - 1) / per_switch;
  const int sockets = std::clamp(p.sockets, 1, switches);
  std::vector<int> socket_vertex;
  for (int s = 0; s < sockets; ++s) {
    socket_vertex.push_back(AddVertex(g, TopologyVertexKind::kSocket, s));
  }
  for (int w = 0; w < switches; ++w) {
    const int v = AddVertex(g, TopologyVertexKind::kPcieSwitch, w);
    AddLink(g, v, socket_vertex[w * sockets / switches], p.pcie_gbps);
    for (int c = w * per_switch; c < std::min(cards, (w + 1) * per_switch); ++c) {
      AddLink(g, c, v, p.pcie_gbps);
    }
  }
  for (int a = 0; a < sockets; ++a) {
    for (int b = a + 1; b < sockets; ++b) {
      AddLink(g, socket_vertex[a], socket_vertex[b], p.inter_socket_gbps);
    }
  }
  return g;
}

}  // namespace

GpuTopology::GpuTopology(Graph graph, int cards) : graph_(std::move(graph)), cards_(cards) {
  // Every widest path runs along a maximum spanning tree (the classic max-bottleneck property),
  // so one Kruskal pass (on negated bandwidths) and a walk of the tree from each card give the
  // bottleneck of every pair.
  const auto negated = boost::make_transform_value_property_map([](double gbps) { return -gbps; },
                                                                boost::get(&Link::gbps, graph_));
  std::vector<Graph::edge_descriptor> tree;
  boost::kruskal_minimum_spanning_tree(graph_, std::back_inserter(tree),
                                       boost::weight_map(negated));
  const int n = static_cast<int>(boost::num_vertices(graph_));
  std::vector<std::vector<std::pair<int, double>>> adjacent(n);
  for (const auto& e : tree) {
    const int a = static_cast<int>(boost::source(e, graph_));
    const int b = static_cast<int>(boost::target(e, graph_));
    adjacent[a].emplace_back(b, graph_[e].gbps);
    adjacent[b].emplace_back(a, graph_[e].gbps);
  }
  widest_.assign(static_cast<size_t>(cards_) * cards_, 0);
  std::vector<double> reach(n);
  std::vector<int> stack;
  for (int s = 0; s < cards_; ++s) {
    std::fill(reach.begin(), reach.end(), -1.0);
    reach[s] = kInfinite;
    stack.assign(1, s);
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (const auto& [w, gbps] : adjacent[v]) {
        if (reach[w] >= 0) continue;
        reach[w] = std::min(reach[v], gbps);
        stack.push_back(w);
      }
    }
    for (int c = 0; c < cards_; ++c) widest_[s * cards_ + c] = std::max(0.0, reach[c]);
  }
}

GpuTopology GpuTopology::Pcie(int cards, const TopologyParams& params) {
  return GpuTopology(PcieTree(cards, params), std::max(0, cards));
}

GpuTopology GpuTopology::NvSwitch(int cards, const TopologyParams& params) {
  Graph g = PcieTree(cards, params);
  cards = std::max(0, cards);
  if (cards > 1) {
    const int nvswitch = AddVertex(g, TopologyVertexKind::kNvSwitch, 0);
    for (int c = 0; c < cards; ++c) AddLink(g, c, nvswitch, params.nvlink_gbps);
  }
  return GpuTopology(std::move(g), cards);
}

GpuTopology GpuTopology::NvlinkIslands(int cards, const TopologyParams& params) {
  Graph g = PcieTree(cards, params);
  cards = std::max(0, cards);
  const int size = std::max(1, params.island_size);
  for (int first = 0; first < cards; first += size) {
    const int end = std::min(cards, first + size);
    for (int a = first; a < end; ++a) {
      for (int b = a + 1; b < end; ++b) AddLink(g, a, b, params.nvlink_gbps);
    }
  }
  return GpuTopology(std::move(g), cards);
}

GpuTopology GpuTopology::NvlinkPairs(int cards, const TopologyParams& params) {
  Graph g = PcieTree(cards, params);
  cards = std::max(0, cards);
  for (int a = 0; a + 1 < cards; a += 2) AddLink(g, a, a + 1, params.nvlink_bridge_gbps);
  return GpuTopology(std::move(g), cards);
}

bool GpuTopology::IsKnownKind(std::string_view kind) {
  return kind == "nvlink" || kind == "nvswitch" || kind == "nvlink-islands" ||
         kind == "nvlink-pairs" || kind == "pcie";
}

std::optional<GpuTopology> GpuTopology::ForKind(std::string_view kind, int cards,
                                                const TopologyParams& params) {
  if (kind == "nvlink" || kind == "nvswitch") return NvSwitch(cards, params);
  if (kind == "nvlink-islands") return NvlinkIslands(cards, params);
  if (kind == "nvlink-pairs") return NvlinkPairs(cards, params);
  if (kind == "pcie") return Pcie(cards, params);
  return std::nullopt;
}

double GpuTopology::PathBandwidth(int a, int b) const {
  if (a < 0 || b < 0 || a >= cards_ || b >= cards_) return 0;
  return widest_[a * cards_ + b];
}

double GpuTopology::BottleneckBandwidth(std::span<const int> cards) const {
  double bottleneck = kInfinite;
  for (size_t i = 0; i < cards.size(); ++i) {
    if (cards[i] < 0 || cards[i] >= cards_) return 0;
    for (size_t j = i + 1; j < cards.size(); ++j) {
      bottleneck = std::min(bottleneck, PathBandwidth(cards[i], cards[j]));
    }
  }
  return bottleneck;
}

int GpuTopology::PreferredCardSet(std::span<const std::vector<int>> candidates) const {
  int best = -1;
  double best_gbps = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double gbps = BottleneckBandwidth(candidates[i]);
    if (gbps > best_gbps) {
      best = static_cast<int>(i);
      best_gbps = gbps;
    }
  }
  return best;
}

double MultiCardThroughputFactor(double bottleneck_gbps, bool same_node,
                                 const MultiCardThroughputParams& params) {
  const double reference = params.reference_gbps;
  const double network = params.inter_node_gbps;
  // Out-of-range parameters leave the job unslowed rather than divide by zero.
  if (!(reference > network && network > 0 && params.inter_node_factor > 0)) return 1;
  double b = bottleneck_gbps;
  if (!(b > 0)) b = network;
  if (!same_node) b = std::min(b, network);
  if (b >= reference) return 1;
  const double share = (1 / params.inter_node_factor - 1) / (reference / network - 1);
  return 1 / (1 + share * (reference / b - 1));
}

}  // namespace knobsim
