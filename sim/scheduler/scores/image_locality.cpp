// ImageLocality score (docs/semantics.md §3.6, upstream imagelocality/image_locality.go): nodes
// that already hold the pod's container images score higher, an image counting for its size scaled
// by the fraction of all nodes that have it (so an image everywhere does not pull pods onto any
// one node): sum = Σ_containers size × nodesWithImage / totalNodes, clamped to
// [23 MiB, 1000 MiB × containers], score = 100×(sum − 23 MiB)/(max − 23 MiB). Weight 1 (§3.1).
//
// Names: the pod's image gets ":latest" when it has no tag or digest (upstream
// normalizedImageName). The node's names (status.images[].names) are matched as written — the
// runtime always lists them tagged — except that a name without a tag is read as ":latest" too,
// which only matters for hand-written node specs. A node without image information scores 0.
//
// Containers: upstream counts init containers in the threshold since 1.28 and sums every
// container's image (an image used twice counts twice); PodSpec.images holds one entry per
// container, so the threshold uses max(num_containers, images.size()).
#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kMinThreshold = 23 * kMiB;
constexpr int64_t kMaxContainerThreshold = 1000 * kMiB;

std::string NormalizedImageName(const std::string& name) {
  const auto colon = name.rfind(':');
  const auto slash = name.rfind('/');
  // No ':' at all, or only in a registry host:port before the last '/': no tag.
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) {
    std::string tagged = name;
    tagged.append(":latest");
    return tagged;
  }
  return name;
}

class ImageLocalityScore final : public ScorePlugin {
 public:
  std::string_view Name() const override { return "ImageLocality"; }
  int Weight() const override { return 1; }

  void PreScore(const PodSpec& pod, const ClusterState& cluster, std::span<const int>) override {
    IndexNewNodes(cluster);
    total_nodes_ = static_cast<int64_t>(cluster.present_count());
    pod_images_.clear();
    bool any_present = false;
    for (const std::string& image : pod.images) {
      const auto it = image_ids_.find(NormalizedImageName(image));
      const int id = it == image_ids_.end() ? -1 : it->second;
      pod_images_.push_back(id);
      if (id >= 0 && nodes_with_image_[id] > 0) any_present = true;
    }
    const int containers = std::max(pod.num_containers, static_cast<int>(pod.images.size()));
    max_threshold_ = kMaxContainerThreshold * std::max(containers, 1);
    // No requested image on any node: every node sums 0 and scores 0.
    skipped_ = !any_present;
  }

  int64_t Score(const PodSpec&, const ClusterState&, int node) const override {
    const auto& images = node_images_[node];  // sorted by image id
    int64_t sum = 0;
    for (int id : pod_images_) {
      if (id < 0) continue;
      const auto it =
          std::lower_bound(images.begin(), images.end(), std::make_pair(id, int64_t{0}),
                           [](const auto& a, const auto& b) { return a.first < b.first; });
      if (it == images.end() || it->first != id) continue;
      // Upstream: int64(float64(size) × float64(numNodes)/float64(totalNodes)).
      const double spread =
          static_cast<double>(nodes_with_image_[id]) / static_cast<double>(total_nodes_);
      sum += static_cast<int64_t>(static_cast<double>(it->second) * spread);
    }
    sum = std::clamp(sum, kMinThreshold, max_threshold_);
    return 100 * (sum - kMinThreshold) / (max_threshold_ - kMinThreshold);
  }

  bool Skipped() const override { return skipped_; }

 private:
  // Node specs never change once added: index only the nodes added since the last pod.
  void IndexNewNodes(const ClusterState& cluster) {
    if (&cluster != cluster_) {
      cluster_ = &cluster;
      image_ids_.clear();
      nodes_with_image_.clear();
      node_images_.clear();
    }
    for (size_t n = node_images_.size(); n < cluster.nodes().size(); ++n) {
      auto& images = node_images_.emplace_back();
      for (const ContainerImage& image : cluster.node(static_cast<int>(n)).spec.images) {
        for (const std::string& name : image.names) {
          const auto [it, added] = image_ids_.try_emplace(NormalizedImageName(name),
                                                          static_cast<int>(image_ids_.size()));
          if (added) nodes_with_image_.push_back(0);
          // A name listed twice on one node: the later entry's size, one node (upstream builds
          // a map per node and a set of nodes per name).
          auto existing = std::find_if(images.begin(), images.end(),
                                       [id = it->second](const auto& e) { return e.first == id; });
          if (existing != images.end()) {
            existing->second = image.size_bytes;
          } else {
            images.emplace_back(it->second, image.size_bytes);
            ++nodes_with_image_[it->second];
          }
        }
      }
      std::sort(images.begin(), images.end());
    }
  }

  const ClusterState* cluster_ = nullptr;
  std::unordered_map<std::string, int> image_ids_;                 // normalised name -> id
  std::vector<int> nodes_with_image_;                              // by image id
  std::vector<std::vector<std::pair<int, int64_t>>> node_images_;  // per node: (id, size)
  std::vector<int> pod_images_;  // image ids of the last PreScore's pod, -1 = on no node
  int64_t total_nodes_ = 0;
  int64_t max_threshold_ = kMaxContainerThreshold;
  bool skipped_ = false;
};

}  // namespace

std::unique_ptr<ScorePlugin> NewImageLocalityScore() {
  return std::make_unique<ImageLocalityScore>();
}

}  // namespace knobsim
