#include "sim/scheduler/fgd/request.h"

#include <algorithm>

namespace knobsim::fgd {

int ModelTable::Add(std::string_view model) {
  if (model.empty()) return -1;
  const int id = Find(model);
  if (id >= 0) return id;
  if (static_cast<int>(names_.size()) >= kMaxModels) return -1;
  names_.emplace_back(model);
  return static_cast<int>(names_.size()) - 1;
}

int ModelTable::Find(std::string_view model) const {
  const auto it = std::find(names_.begin(), names_.end(), model);
  return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
}

uint64_t ModelTable::Mask(std::string_view spec) const {
  if (spec.empty()) return kAnyModel;
  uint64_t mask = 0;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t bar = spec.find('|', start);
    if (bar == std::string_view::npos) bar = spec.size();
    const int id = Find(spec.substr(start, bar - start));
    if (id >= 0) mask |= uint64_t{1} << id;
    start = bar + 1;
  }
  return mask;
}

std::string NormaliseSpec(std::string_view spec) {
  std::string out;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t bar = spec.find('|', start);
    if (bar == std::string_view::npos) bar = spec.size();
    const std::string_view piece = spec.substr(start, bar - start);
    if (!piece.empty()) {
      if (!out.empty()) out += '|';
      out.append(piece);
    }
    start = bar + 1;
  }
  return out;
}

uint64_t PodRequest::tag() const {
  if (!wants_gpu()) return 0;
  if (shared()) return 1;
  return uint64_t{1} << std::clamp(num_gpu, 1, 63);
}

PodRequest MakeRequest(const WrittenRequest& pod, const ModelTable& models) {
  PodRequest r;
  r.cpu = pod.cpu_milli;
  r.mem = pod.memory_mib;
  if (pod.num_gpu <= 0) return r;  // no GPU at all, even with gpu_milli or gpu_spec filled in
  r.num_gpu = pod.num_gpu;
  r.milli = static_cast<int>(std::clamp<int64_t>(pod.gpu_milli, 0, kMilliPerCard));
  r.spec = NormaliseSpec(pod.gpu_spec);
  r.models = models.Mask(r.spec);
  return r;
}

}  // namespace knobsim::fgd
