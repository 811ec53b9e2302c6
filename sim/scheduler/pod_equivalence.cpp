#include "sim/scheduler/pod_equivalence.h"

#include <algorithm>
#include <string_view>

namespace knobsim {
namespace {

// 64-bit FNV-1a, fed field by field; each string ends with its length so that field
// boundaries count.
class Hasher {
 public:
  void Bytes(std::string_view s) {
    for (unsigned char c : s) h_ = (h_ ^ c) * 0x100000001b3ULL;
    Int(static_cast<int64_t>(s.size()));
  }
  void Int(int64_t v) {
    auto u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i, u >>= 8) h_ = (h_ ^ (u & 0xff)) * 0x100000001b3ULL;
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

void HashTerm(Hasher& h, const std::vector<NodeSelectorRequirement>& term) {
  h.Int(static_cast<int64_t>(term.size()));
  for (const NodeSelectorRequirement& r : term) {
    h.Bytes(r.key);
    h.Bytes(r.op);
    h.Int(static_cast<int64_t>(r.values.size()));
    for (const std::string& v : r.values) h.Bytes(v);
  }
}

bool SameRequirement(const NodeSelectorRequirement& a, const NodeSelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}

bool SameTerm(const std::vector<NodeSelectorRequirement>& a,
              const std::vector<NodeSelectorRequirement>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), SameRequirement);
}

bool SameAffinity(const NodeAffinity& a, const NodeAffinity& b) {
  return std::equal(a.required_terms.begin(), a.required_terms.end(), b.required_terms.begin(),
                    b.required_terms.end(), SameTerm) &&
         std::equal(a.preferred.begin(), a.preferred.end(), b.preferred.begin(), b.preferred.end(),
                    [](const NodeAffinity::Preferred& x, const NodeAffinity::Preferred& y) {
                      return x.weight == y.weight && SameTerm(x.expressions, y.expressions);
                    });
}

bool SameToleration(const Toleration& a, const Toleration& b) {
  return a.key == b.key && a.op == b.op && a.value == b.value && a.effect == b.effect &&
         a.toleration_seconds == b.toleration_seconds;
}

// The pod annotations HAMi's card fit reads (hami_devices.h): the card types and the card order.
constexpr const char* kHamiNodeLocalAnnotations[] = {
    kHamiUseTypeAnnotation, kHamiNoUseTypeAnnotation, kHamiGpuPolicyAnnotation};

bool SameHamiAnnotations(const PodSpec& a, const PodSpec& b) {
  for (const char* key : kHamiNodeLocalAnnotations) {
    const auto x = a.annotations.find(key);
    const auto y = b.annotations.find(key);
    const bool has_x = x != a.annotations.end();
    if (has_x != (y != b.annotations.end()) || (has_x && x->second != y->second)) return false;
  }
  return true;
}

}  // namespace

uint64_t NodeLocalHash(const PodSpec& pod) {
  Hasher h;
  for (const auto& [name, amount] : pod.requests) {
    h.Bytes(name);
    h.Int(amount);
  }
  h.Int(pod.nonzero_cpu_milli);
  h.Int(pod.nonzero_memory_bytes);
  h.Int(pod.num_containers);
  for (const std::string& image : pod.images) h.Bytes(image);
  for (const auto& [key, value] : pod.node_selector) {
    h.Bytes(key);
    h.Bytes(value);
  }
  h.Int(static_cast<int64_t>(pod.node_affinity.required_terms.size()));
  for (const auto& term : pod.node_affinity.required_terms) HashTerm(h, term);
  for (const NodeAffinity::Preferred& p : pod.node_affinity.preferred) {
    h.Int(p.weight);
    HashTerm(h, p.expressions);
  }
  for (const Toleration& t : pod.tolerations) {
    h.Bytes(t.key);
    h.Bytes(t.op);
    h.Bytes(t.value);
    h.Bytes(t.effect);
  }
  for (const ContainerGpu& c : pod.container_gpus) {
    h.Int(c.gpu_mem);
    h.Int(c.gpu_core);
  }
  h.Int(pod.gpu_mem);
  h.Int(pod.gpu_core);
  h.Int(pod.gpu_count);
  h.Int(pod.whole_gpus);
  h.Bytes(pod.device_resource);
  h.Int(pod.require_whole_device ? 1 : 0);
  for (const HamiRequest& r : pod.hami) {
    h.Int(r.vgpus);
    h.Int(r.mem_mib);
    h.Int(r.mem_percent);
    h.Int(r.cores);
  }
  // HAMi's card fit reads the pod's type annotations (hami_devices.h).
  for (const char* key : kHamiNodeLocalAnnotations) {
    const auto it = pod.annotations.find(key);
    if (it != pod.annotations.end()) h.Bytes(it->second);
    h.Int(it != pod.annotations.end() ? 1 : 0);
  }
  // Claims are looked up in the pod's namespace (VolumeBinding, VolumeZone).
  if (!pod.pvc_claims.empty()) h.Bytes(pod.namespace_);
  for (const std::string& claim : pod.pvc_claims) h.Bytes(claim);
  for (const HostPort& p : pod.host_ports) {
    h.Bytes(p.host_ip);
    h.Bytes(p.protocol);
    h.Int(p.port);
  }
  return h.value();
}

bool SameNodeLocalInputs(const PodSpec& a, const PodSpec& b) {
  return a.requests == b.requests && a.nonzero_cpu_milli == b.nonzero_cpu_milli &&
         a.nonzero_memory_bytes == b.nonzero_memory_bytes && a.num_containers == b.num_containers &&
         a.images == b.images && a.node_selector == b.node_selector &&
         SameAffinity(a.node_affinity, b.node_affinity) &&
         std::equal(a.tolerations.begin(), a.tolerations.end(), b.tolerations.begin(),
                    b.tolerations.end(), SameToleration) &&
         std::equal(a.container_gpus.begin(), a.container_gpus.end(), b.container_gpus.begin(),
                    b.container_gpus.end(),
                    [](const ContainerGpu& x, const ContainerGpu& y) {
                      return x.gpu_mem == y.gpu_mem && x.gpu_core == y.gpu_core;
                    }) &&
         a.gpu_mem == b.gpu_mem && a.gpu_core == b.gpu_core && a.gpu_count == b.gpu_count &&
         a.whole_gpus == b.whole_gpus && a.device_resource == b.device_resource &&
         a.require_whole_device == b.require_whole_device && a.hami == b.hami &&
         SameHamiAnnotations(a, b) && a.host_ports == b.host_ports &&
         a.pvc_claims == b.pvc_claims && a.ephemeral_claims == b.ephemeral_claims &&
         (a.pvc_claims.empty() || a.namespace_ == b.namespace_);
}

}  // namespace knobsim
