// Images and their pulls, as kubelet does them (imagePullPolicy IfNotPresent, docs/upgrade.md):
// each node keeps an image cache (NodeRun::images); a pod starting on a node pulls what the
// node does not hold — image_size / RunOptions::pull_mib_per_s when the workload's size is
// known, else its startup `image_pull` — and an image the registry no longer has
// (RunOptions::missing_images) ends in ImagePullBackOff, for good. A node taken down or
// reclaimed loses its cache. The scenario's own pods hold their images at t = 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/engine_state.h"

namespace knobsim::engine {

class Simulator;

// The workload's images; one named after the workload when it lists none, so that the cache
// still tells whether a node ran it.
std::vector<std::string> ImagesOf(const Workload& w);
// The pod's images are on its node now.
void MarkImagesCached(EngineState& state, int32_t p);
// kubelet on the pod's (bound, up) node: pull what is missing, then start the container.
void StartOnNode(Simulator& sim, int32_t p);

}  // namespace knobsim::engine
