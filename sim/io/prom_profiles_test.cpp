// The GPU profiles' solo rule (prom_metrics.h, "GPU profiles"; prom_profiles.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "sim/io/prom_metrics.h"

namespace knobsim {
namespace {

using Labels = std::map<std::string, std::string>;

constexpr double kAll = std::numeric_limits<double>::infinity();
constexpr double kT0 = 1700000000;

// SM_ACTIVE of card `gpu` on node-a, labelled with `pod` (none: ""), sampled every 60 s from
// minute `first`.
PromSeries SmActive(const std::string& gpu, const std::string& pod, std::vector<double> values,
                    int first = 0) {
  PromSeries s;
  s.labels = {{"__name__", "DCGM_FI_PROF_SM_ACTIVE"},
              {"Hostname", "node-a"},
              {"gpu", gpu},
              {"UUID", "GPU-" + gpu}};
  if (!pod.empty()) {
    s.labels["namespace"] = "ml";
    s.labels["pod"] = pod;
  }
  for (size_t i = 0; i < values.size(); ++i)
    s.times.push_back(kT0 + 60.0 * static_cast<double>(first + static_cast<int>(i)));
  s.values = std::move(values);
  return s;
}

const PodSoloSamples* Of(const Metrics& m, const std::string& pod) {
  for (const PodSoloSamples& p : m.profiles)
    if (p.pod.pod == pod) return &p;
  return nullptr;
}

struct Case {
  const char* rule;
  std::vector<PromSeries> series;
  std::string pod;
  std::vector<double> solo;  // its SM_ACTIVE solo samples, in time order
  size_t shared = 0;
  size_t dropped = 0;
};

TEST_CASE("gpu profiles: only samples of a pod alone on its card are its own") {
  const Case cases[] = {
      {"a pod alone on its card: every sample", {SmActive("0", "a", {0.2, 0.4})}, "a", {0.2, 0.4}},
      {"two pods on one card: none (the card's value repeated)",
       {SmActive("0", "a", {0.5, 0.5}), SmActive("0", "b", {0.5, 0.5})},
       "a",
       {},
       2},
      {"a pod that leaves the card: the other is alone from then on",
       {SmActive("0", "a", {0.5, 0.5, 0.3, 0.3}), SmActive("0", "b", {0.5, 0.5})},
       "a",
       {0.3, 0.3},
       2},
      {"pods on different cards are each alone",
       {SmActive("0", "a", {0.6}), SmActive("1", "b", {0.1})},
       "b",
       {0.1}},
      {"an unlabelled series beside it: an occupant nobody can name",
       {SmActive("0", "a", {0.4, 0.4}), SmActive("0", "", {0.4}, 1)},
       "a",
       {0.4},
       1},
      {"a pod's two series (containers) count once, the larger",
       {SmActive("0", "a", {0.4}), SmActive("0", "a", {0.42})},
       "a",
       {0.42}},
      {"beyond the ratio tolerance: dropped; within it: 1",
       {SmActive("0", "a", {1.02, 1.5, -0.1})},
       "a",
       {1.0},
       0,
       2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    std::vector<PromSeries> series = c.series;
    // Two series of one pod need distinct labels to stay two series.
    for (size_t i = 0; i < series.size(); ++i) series[i].labels["container"] = std::to_string(i);
    PromResult file;
    file.file = "sm.json";
    file.series = series;
    const Metrics m = InterpretMetrics(std::vector<PromResult>{file}, MetricNames{}, -kAll, kAll);
    const PodSoloSamples* p = Of(m, c.pod);
    REQUIRE(p != nullptr);
    CHECK(p->solo[kSmActive] == c.solo);
    CHECK(p->shared == c.shared);
    CHECK(p->dropped == c.dropped);
    for (int k = kSmOccupancy; k < kProfileCounters; ++k) CHECK(p->solo[k].empty());
  }
}

}  // namespace
}  // namespace knobsim
