// DCGM profiling counters -> each workload's gpu_profile (import_steps.h, ProfilesFromDcgm).
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/import/import_steps.h"
#include "sim/text.h"

namespace knobsim {

namespace {

std::optional<double>& Field(GpuProfile& p, int counter) {
  switch (counter) {
    case kSmActive:
      return p.sm_active;
    case kSmOccupancy:
      return p.sm_occupancy;
    case kDramActive:
      return p.dram_active;
    case kTensorActive:
      return p.tensor_active;
    default:
      return p.gr_engine_active;
  }
}

// Four decimals: DCGM's ratios carry no more than sampling noise beyond them.
double Rounded(double v) {
  return std::round(v * 1e4) / 1e4;
}

}  // namespace

void ProfilesFromDcgm(const Metrics& metrics, const PodIndex& pods, KnownPods& known,
                      ImportModel& model) {
  struct Pooled {
    std::array<std::vector<double>, kProfileCounters> solo;
    size_t shared = 0;
    size_t dropped = 0;
    int pods = 0;       // pods with a profiling series
    int solo_pods = 0;  // of them, pods with a solo sample
  };
  std::vector<Pooled> pooled(model.workloads.size());
  for (const PodSoloSamples& p : metrics.profiles) {
    if (!known(p.pod)) continue;
    Pooled& w = pooled[static_cast<size_t>(pods.workload_of.at(p.pod).first)];
    ++w.pods;
    bool solo = false;
    for (int k = 0; k < kProfileCounters; ++k) {
      w.solo[k].insert(w.solo[k].end(), p.solo[k].begin(), p.solo[k].end());
      solo = solo || !p.solo[k].empty();
    }
    w.solo_pods += solo;
    w.shared += p.shared;
    w.dropped += p.dropped;
  }
  for (size_t wi = 0; wi < model.workloads.size(); ++wi) {
    Pooled& w = pooled[wi];
    if (w.pods == 0) continue;
    ImportedWorkload& iw = model.workloads[wi];
    const std::string name = iw.spec.namespace_ + "/" + iw.spec.name;
    if (w.dropped > 0)
      model.warnings.push_back("gpu_profile of " + name + ": " + std::to_string(w.dropped) +
                               " profiling samples outside 0..1 dropped (not a DCGM ratio)");
    if (w.solo_pods == 0) {
      // A shared card's counters are the card's, repeated on each pod's series: no pod's own.
      model.warnings.push_back("gpu_profile of " + name +
                               ": its pods never ran alone on a card in the DCGM profiling "
                               "series (" +
                               std::to_string(w.shared) + " shared samples); no profile written");
      iw.notes["gpu_profile"] = "none: its pods never ran alone on a card";
      continue;
    }
    GpuProfile profile;
    size_t samples = 0;
    for (int k = 0; k < kProfileCounters; ++k) {
      if (w.solo[k].empty()) continue;
      samples = std::max(samples, w.solo[k].size());
      Field(profile, k) = Rounded(*Median(std::move(w.solo[k])));
    }
    // SM_ACTIVE of 0 (a job whose kernels never ran while sampled) is no demand to speak of.
    if (profile.sm_active && *profile.sm_active <= 0) profile.sm_active.reset();
    if (profile.gr_engine_active && *profile.gr_engine_active <= 0)
      profile.gr_engine_active.reset();
    if (profile == GpuProfile{}) continue;
    iw.spec.gpu_profile = profile;
    iw.notes["gpu_profile"] =
        "medians of DCGM profiling counters over " + std::to_string(samples) + " samples of " +
        std::to_string(w.solo_pods) +
        (w.solo_pods == 1 ? " pod alone on its card" : " pods alone on their cards") +
        (w.shared > 0 ? " (" + std::to_string(w.shared) + " samples on shared cards left out)"
                      : "");
  }
}

}  // namespace knobsim
