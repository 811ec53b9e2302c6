#include "sim/replay/replay.h"

#include <cstdio>
#include <cstdlib>

#include "sim/replay/placer.h"

namespace knobsim::replay {

using fgd::FragExceptQ3;
using fgd::FragTotal;
using fgd::FragVector;
using fgd::GoRand;
using fgd::PolicyKind;

double Round2(double x) {
  // glibc's printf is exact (it rounds the binary value's full decimal expansion), as are
  // Python's round() and Go's strconv; parsing the text back gives the same double as theirs.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return std::strtod(buf, nullptr);
}

RunResult Replay(const Workload& workload, PolicyKind policy, int64_t seed, double tune) {
  RunResult result;
  GoRand rng(seed);
  result.order = PrepareRun(workload, seed, tune, rng);
  Placer placer(workload, policy, result.order.rank, rng);
  const size_t events = result.order.events.size();
  result.events.reserve(events);
  result.node_of_event.reserve(events);
  int64_t arrived = 0;
  for (int p : result.order.events) {
    arrived += workload.requests[p].gpu_request();
    const Placer::Placement placement = placer.Place(p);
    if (placement.node >= 0) {
      ++result.placed;
    } else {
      ++result.failed;
    }
    result.node_of_event.push_back(placement.node);
    const FragVector& total = placer.frag();
    const double frag = FragExceptQ3(total);
    const double idle = FragTotal(total);
    EventMetrics m;
    m.arrived = arrived;
    m.used = placer.used();
    m.frag_amount = Round2(frag);
    m.frag_ratio = idle > 0 ? Round2(100 * frag / idle) : 0;
    result.events.push_back(m);
  }
  return result;
}

}  // namespace knobsim::replay
