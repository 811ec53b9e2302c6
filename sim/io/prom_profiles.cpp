// DCGM's profiling counters per pod, at the times the pod ran alone on its card (prom_metrics.h,
// "GPU profiles"): what `knobsim import` takes a workload's gpu_profile from.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/io/prom_series.h"

namespace knobsim::prom_detail {

namespace {

// One card's series of one counter: per pod its series, and those without pod labels.
struct CardSeries {
  std::map<PodKey, std::vector<const Series*>> pods;
  std::vector<const Series*> unlabelled;
};

}  // namespace

void SoloProfiles(const Collected& c, const MetricNames& names, Metrics& out) {
  std::map<PodKey, PodSoloSamples> by_pod;
  const size_t counters = std::min<size_t>(names.profile_counters.size(), kProfileCounters);
  for (size_t k = 0; k < counters; ++k) {
    const std::vector<Series>& series = c.Of(names.profile_counters[k]);
    if (series.empty()) continue;
    std::map<std::string, CardSeries> cards;
    size_t no_card = 0;
    for (const Series& s : series) {
      const std::string id = CardId(CardOf(*s.labels, names));
      if (id.empty()) {
        ++no_card;
        continue;
      }
      const PodKey pod = PodOf(*s.labels, names);
      if (pod.pod.empty()) {
        cards[id].unlabelled.push_back(&s);
      } else {
        cards[id].pods[pod].push_back(&s);
      }
    }
    if (no_card > 0) {
      out.warnings.push_back(fmt::format("{}: {} without card labels not used for GPU profiles",
                                         names.profile_counters[k],
                                         Plural(no_card, "series", "series")));
    }
    for (const auto& [id, card] : cards) {
      // Who was on the card at each time: the pods with a sample then; an unlabelled sample
      // is an occupant nobody can name.
      std::map<double, int> occupants;
      std::map<PodKey, std::vector<Sample>> samples;
      for (const auto& [pod, parts] : card.pods) {
        samples[pod] = Combine(parts, /*sum=*/false);
        for (const Sample& s : samples[pod]) ++occupants[s.t];
      }
      for (const Series* s : card.unlabelled)
        for (const Sample& x : s->samples) occupants[x.t] += 2;  // never solo
      for (const auto& [pod, list] : samples) {
        PodSoloSamples& p = by_pod[pod];
        p.pod = pod;
        for (const Sample& s : list) {
          if (occupants[s.t] != 1) {
            ++p.shared;
          } else if (s.v < 0 || s.v > 1 + kUtilRatioTolerance) {
            ++p.dropped;
          } else {
            p.solo[k].push_back(std::min(s.v, 1.0));
          }
        }
      }
    }
  }
  for (auto& [pod, p] : by_pod) out.profiles.push_back(std::move(p));
}

}  // namespace knobsim::prom_detail
