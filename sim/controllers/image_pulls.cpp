#include "sim/controllers/image_pulls.h"

#include <algorithm>

#include "sim/controllers/endpoints.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

std::vector<std::string> ImagesOf(const Workload& w) {
  if (!w.images.empty()) return w.images;
  return {"(image of " + w.namespace_ + "/" + w.name + ")"};
}

void MarkImagesCached(EngineState& state, int32_t p) {
  const PodRun& pod = state.pods[p];
  if (pod.node < 0) return;
  std::vector<std::string>& cache = state.nodes[pod.node].images;
  for (std::string& image : ImagesOf(*state.workloads[pod.workload].spec))
    if (std::find(cache.begin(), cache.end(), image) == cache.end())
      cache.push_back(std::move(image));
}

void StartOnNode(Simulator& sim, int32_t p) {
  EngineState& s = sim.state;
  PodRun& pod = s.pods[p];
  const Workload& spec = *s.workloads[pod.workload].spec;
  const std::vector<std::string>& cache = s.nodes[pod.node].images;
  bool cached = true;
  for (const std::string& image : ImagesOf(spec)) {
    if (std::find(cache.begin(), cache.end(), image) != cache.end()) continue;
    cached = false;
    if (std::binary_search(s.missing_images.begin(), s.missing_images.end(), image)) {
      pod.message = "Back-off pulling image \"" + image +
                    "\": manifest unknown (the registry no longer has this tag)";
      sim.recorder.PodEvent("ImagePullBackOff", p,
                            pod.message + "; node " + s.cluster.nodes[pod.node].name);
      SetPhase(sim, p, PodPhase::kImagePullBackOff);
      return;
    }
  }
  SimTime pull = 0;
  if (!cached) {
    const double mib_per_s = s.options.pull_mib_per_s;
    pull = spec.image_size_mib > 0 && mib_per_s > 0
               ? static_cast<SimTime>(static_cast<double>(spec.image_size_mib) / mib_per_s * 1e9)
               : spec.image_pull;
  }
  SetPhase(sim, p, PodPhase::kPulling);
  s.queue.Push(s.now + pull, kContainerStart, static_cast<uint32_t>(p), pod.generation);
}

}  // namespace knobsim::engine
