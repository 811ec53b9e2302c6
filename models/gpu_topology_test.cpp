#include "models/gpu_topology.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace knobsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_CASE("widest paths follow the fastest links of each node type") {
  // Eight cards, two per PCIe switch, switches 0-1 on socket 0 and 2-3 on socket 1.
  struct Row {
    const char* kind;
    int a, b;
    double gbps;
  };
  for (const Row& row : {
           Row{"pcie", 0, 1, 32},     // same PCIe switch
           Row{"pcie", 0, 3, 32},     // same socket, through the CPU
           Row{"pcie", 0, 4, 20},     // across sockets
           Row{"nvlink", 0, 7, 300},  // NVSwitch: every pair
           Row{"nvswitch", 2, 5, 300},
           Row{"nvlink-islands", 0, 3, 300},  // inside island 0-3
           Row{"nvlink-islands", 3, 4, 20},   // islands sit on different sockets
           Row{"nvlink-pairs", 0, 1, 300},    // the bridge beats the PCIe path
           Row{"nvlink-pairs", 1, 2, 32},
           Row{"nvlink-pairs", 0, 6, 20},
       }) {
    CAPTURE(row.kind);
    CAPTURE(row.a);
    CAPTURE(row.b);
    const auto topology = GpuTopology::ForKind(row.kind, 8);
    REQUIRE(topology.has_value());
    CHECK(topology->cards() == 8);
    CHECK(topology->PathBandwidth(row.a, row.b) == row.gbps);
    CHECK(topology->PathBandwidth(row.b, row.a) == row.gbps);
  }
}

TEST_CASE("the graph holds cards first, then switches and sockets") {
  const GpuTopology t = GpuTopology::NvSwitch(8);
  const auto& g = t.graph();
  // 8 cards + 2 sockets + 4 PCIe switches + 1 NVSwitch.
  CHECK(boost::num_vertices(g) == 15);
  for (int c = 0; c < 8; ++c) {
    CHECK(g[c].kind == TopologyVertexKind::kCard);
    CHECK(g[c].index == c);
  }
  // 8 card-switch + 4 switch-socket + 1 socket-socket PCIe/UPI links, 8 NVLinks.
  CHECK(boost::num_edges(g) == 21);
}

TEST_CASE("a card set's bottleneck is its worst pair") {
  const GpuTopology t = GpuTopology::NvlinkIslands(8);
  CHECK(t.BottleneckBandwidth(std::vector<int>{0, 1, 2, 3}) == 300);
  CHECK(t.BottleneckBandwidth(std::vector<int>{2, 3, 4, 5}) == 20);
  CHECK(t.BottleneckBandwidth(std::vector<int>{5}) == kInf);  // nothing to talk to
  CHECK(t.BottleneckBandwidth(std::vector<int>{}) == kInf);
  CHECK(t.BottleneckBandwidth(std::vector<int>{0, 8}) == 0);  // no such card
  CHECK(t.PathBandwidth(3, 3) == kInf);

  // Custom bandwidths and shapes: islands of 2 on one socket.
  TopologyParams p;
  p.island_size = 2;
  p.sockets = 1;
  p.nvlink_gbps = 450;
  const GpuTopology small = GpuTopology::NvlinkIslands(4, p);
  CHECK(small.PathBandwidth(2, 3) == 450);
  CHECK(small.PathBandwidth(1, 2) == 32);
}

TEST_CASE("the preferred card set lies inside one fast island") {
  const GpuTopology t = GpuTopology::NvlinkIslands(8);
  const std::vector<std::vector<int>> sets = {{0, 2, 4, 6}, {4, 5, 6, 7}, {0, 1, 2, 3}};
  CHECK(t.PreferredCardSet(sets) == 1);  // first of the two 300 GB/s sets
  CHECK(t.PreferredCardSet(std::vector<std::vector<int>>{}) == -1);
}

TEST_CASE("unknown interconnects have no topology; odd sizes still build") {
  CHECK_FALSE(GpuTopology::ForKind("", 8).has_value());
  CHECK_FALSE(GpuTopology::ForKind("infiniband", 8).has_value());
  CHECK(GpuTopology::IsKnownKind("nvlink-pairs"));
  CHECK_FALSE(GpuTopology::IsKnownKind("NVLINK"));
  CHECK(GpuTopology::Pcie(0).cards() == 0);
  CHECK(GpuTopology::NvSwitch(1).PathBandwidth(0, 0) == kInf);
  const GpuTopology three = GpuTopology::NvlinkPairs(3);
  CHECK(three.PathBandwidth(0, 1) == 300);
  CHECK(three.PathBandwidth(1, 2) == 20);  // card 2: no partner, its own switch and socket
}

TEST_CASE("a 4-card job split over two nodes keeps 85 % of its NVLink throughput") {
  // docs/design.md §1 item 6, the seed data point of the factor.
  CHECK(MultiCardThroughputFactor(300, false) == doctest::Approx(0.85));
  CHECK(MultiCardThroughputFactor(kInf, false) == doctest::Approx(0.85));
  CHECK(MultiCardThroughputFactor(25, true) == doctest::Approx(0.85));
  // Inside an NVLink island, or on one card, nothing is lost.
  CHECK(MultiCardThroughputFactor(300, true) == 1);
  CHECK(MultiCardThroughputFactor(kInf, true) == 1);
  // PCIe inside the node: s = (1/0.85 - 1) / 11; 1 / (1 + s * (300/32 - 1)) = 0.8816.
  CHECK(MultiCardThroughputFactor(32, true) == doctest::Approx(0.8816).epsilon(1e-3));
  // Slower links never help.
  double last = 0;
  for (double gbps : {5.0, 10.0, 20.0, 25.0, 32.0, 64.0, 150.0, 300.0}) {
    const double f = MultiCardThroughputFactor(gbps, true);
    CHECK(f > last);
    CHECK(f <= 1);
    last = f;
  }
  CHECK(MultiCardThroughputFactor(900, true) == 1);  // faster than the reference: no gain
  CHECK(MultiCardThroughputFactor(0, true) == doctest::Approx(0.85));  // no path: the network
  MultiCardThroughputParams slower;
  slower.inter_node_factor = 0.7;
  CHECK(MultiCardThroughputFactor(25, false, slower) == doctest::Approx(0.7));
  MultiCardThroughputParams nonsense;
  nonsense.reference_gbps = 10;
  CHECK(MultiCardThroughputFactor(5, false, nonsense) == 1);
}

TEST_CASE("the topology's bottleneck feeds the factor: one island vs two") {
  const GpuTopology t = GpuTopology::NvlinkIslands(8);
  const double inside = t.BottleneckBandwidth(std::vector<int>{4, 5, 6, 7});
  const double across = t.BottleneckBandwidth(std::vector<int>{2, 3, 4, 5});
  CHECK(MultiCardThroughputFactor(inside, true) == 1);
  CHECK(MultiCardThroughputFactor(across, true) < 0.85);  // 20 GB/s between sockets
}

}  // namespace
}  // namespace knobsim
