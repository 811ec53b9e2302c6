#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

using testing::BindOn;
using testing::MakeNode;
using testing::MakePod;

// Upstream's newPod(host, "PROTOCOL/IP/PORT"...) of node_ports_test.go.
PodSpec PortsPod(const std::string& name, const std::vector<std::string>& ports) {
  PodSpec pod = MakePod(name);
  for (const std::string& p : ports) {
    std::istringstream in(p);
    HostPort hp;
    std::string port;
    std::getline(in, hp.protocol, '/');
    std::getline(in, hp.host_ip, '/');
    std::getline(in, port);
    hp.port = std::stoi(port);
    pod.host_ports.push_back(hp);
  }
  return pod;
}

const char* const kNoFreePorts = "node(s) didn't have free ports for the requested pod ports";

// Upstream pkg/scheduler/framework/plugins/nodeports/node_ports_test.go, TestNodePorts: each
// case's name is upstream's; the node holds one bound pod with `used`.
TEST_CASE(
    "NodePorts rejects a node whose pods hold the same protocol and port on an overlapping IP") {
  struct Case {
    const char* name;
    std::vector<std::string> want;
    std::vector<std::string> used;
    bool fits;
  };
  const Case cases[] = {
      {"other port", {"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/9090"}, true},
      {"same udp port", {"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/8080"}, false},
      {"same tcp port", {"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"}, false},
      {"different host ip", {"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.2/8080"}, true},
      {"different protocol", {"UDP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"}, true},
      {"second udp port conflict",
       {"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"},
       {"UDP/127.0.0.1/8080"},
       false},
      {"first tcp port conflict",
       {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"},
       {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"},
       false},
      {"first tcp port conflict due to 0.0.0.0 hostIP",
       {"TCP/0.0.0.0/8001"},
       {"TCP/127.0.0.1/8001"},
       false},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       {"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"},
       {"TCP/127.0.0.1/8001"},
       false},
      {"second tcp port conflict to 0.0.0.0 hostIP",
       {"TCP/127.0.0.1/8001"},
       {"TCP/0.0.0.0/8001"},
       false},
      {"second different protocol", {"UDP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001"}, true},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP",
       {"UDP/127.0.0.1/8001"},
       {"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"},
       false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    ClusterState cluster;
    cluster.AddNode(MakeNode("m1"));
    BindOn(cluster, "m1", PortsPod("existing", c.used));
    auto filter = NewNodePortsFilter();
    const PodSpec pod = PortsPod("p", c.want);
    REQUIRE(filter->PreFilter(pod, cluster).ok());
    CHECK_FALSE(filter->Skipped());
    const PluginStatus s = filter->Filter(pod, cluster, 0);
    CHECK(s.ok() == c.fits);
    if (!c.fits) {
      CHECK(s.code == StatusCode::kUnschedulable);  // evicting the holder would free the port
      CHECK(s.reasons == std::vector<std::string>{kNoFreePorts});
    }
  }
}

// Upstream TestNodePorts "skip filter": a pod without host ports skips the plugin.
TEST_CASE("NodePorts: a pod without host ports skips the plugin and fits everywhere") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("m1"));
  BindOn(cluster, "m1", PortsPod("existing", {"TCP/0.0.0.0/80"}));
  auto filter = NewNodePortsFilter();
  const PodSpec pod = MakePod("plain");
  REQUIRE(filter->PreFilter(pod, cluster).ok());
  CHECK(filter->Skipped());
  CHECK(filter->Filter(pod, cluster, 0).ok());
}

TEST_CASE(
    "NodePorts in the scheduler: replicas asking one host port spread one per node, then wait") {
  ClusterState cluster;
  for (const char* name : {"a", "b"}) cluster.AddNode(MakeNode(name));
  Scheduler scheduler(cluster, {});
  const PodSpec pod = PortsPod("agent", {"TCP/0.0.0.0/9100"});
  const int first = scheduler.ScheduleAndBind(pod).placement.node;
  const int second = scheduler.ScheduleAndBind(pod).placement.node;
  CHECK(first >= 0);
  CHECK(second >= 0);
  CHECK(first != second);
  const ScheduleResult third = scheduler.ScheduleAndBind(pod);
  CHECK(third.placement.node == -1);
  CHECK(third.message ==
        "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports. "
        "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.");
  // The equivalence cache sees the port freed when the holder goes.
  cluster.Unbind(0);
  CHECK(scheduler.ScheduleAndBind(pod).placement.node == first);
}

}  // namespace
}  // namespace knobsim
