#include "sim/replay/workload.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/replay/trace_conversion.h"

namespace knobsim::replay {

using fgd::kMilliPerCard;
using fgd::PodRequest;
using fgd::TypicalPods;

Workload MakeWorkload(std::string name, std::vector<TraceNode> nodes, std::vector<TracePod> pods) {
  Workload w;
  w.name = std::move(name);
  // The reference sorts both lists by name before anything draws from the generator (§2.2).
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const TraceNode& a, const TraceNode& b) { return a.name < b.name; });
  std::stable_sort(pods.begin(), pods.end(),
                   [](const TracePod& a, const TracePod& b) { return a.name < b.name; });
  for (const TraceNode& n : nodes) {
    w.models.Add(n.model);
    w.capacity_milli += int64_t{n.gpu} * kMilliPerCard;
    w.total_gpus += n.gpu;
  }
  using Key = std::tuple<int64_t, int, int, std::string>;
  std::map<Key, int> types;
  w.requests.reserve(pods.size());
  w.pod_type.reserve(pods.size());
  for (const TracePod& p : pods) {
    PodRequest r = MakeRequest(p, w.models);
    const auto [it, added] =
        types.emplace(Key{r.cpu, r.milli, r.num_gpu, r.spec}, static_cast<int>(types.size()));
    w.pod_type.push_back(it->second);
    w.requests.push_back(std::move(r));
  }
  w.num_pod_types = static_cast<int>(types.size());
  w.typical = TypicalPods(w.requests);
  w.nodes = std::move(nodes);
  w.pods = std::move(pods);
  return w;
}

std::string FileStem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base;
}

}  // namespace knobsim::replay
