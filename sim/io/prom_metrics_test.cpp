#include "sim/io/prom_metrics.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace knobsim {
namespace {

using Labels = std::map<std::string, std::string>;

constexpr double kAll = std::numeric_limits<double>::infinity();
constexpr double kT0 = 1700000000;

PromSeries Series(Labels labels, std::vector<double> values, double step = 60, double t0 = kT0) {
  PromSeries s;
  s.labels = std::move(labels);
  for (size_t i = 0; i < values.size(); ++i) s.times.push_back(t0 + step * static_cast<double>(i));
  s.values = std::move(values);
  return s;
}

PromResult File(std::vector<PromSeries> series, std::string name = "q.json") {
  PromResult r;
  r.file = std::move(name);
  r.series = std::move(series);
  return r;
}

// An FB_USED (or any metric) series of one pod on one card of node-a.
Labels On(const std::string& metric, const std::string& gpu, const std::string& pod,
          const std::string& container = "main") {
  Labels l = {{"__name__", metric},
              {"Hostname", "node-a"},
              {"gpu", gpu},
              {"UUID", "GPU-" + gpu},
              {"container", container}};
  if (!pod.empty()) {
    l["namespace"] = "ml";
    l["pod"] = pod;
  }
  return l;
}

Labels Fb(const std::string& gpu, const std::string& pod) {
  return On("DCGM_FI_DEV_FB_USED", gpu, pod);
}

Metrics Interpret(const std::vector<PromResult>& files, const MetricNames& names = {},
                  double start = -kAll, double end = kAll) {
  return InterpretMetrics(files, names, start, end);
}

const PodMemoryPeak* MemoryOf(const Metrics& m, const std::string& pod) {
  auto it = std::find_if(m.pod_memory.begin(), m.pod_memory.end(),
                         [&](const PodMemoryPeak& p) { return p.pod.pod == pod; });
  return it == m.pod_memory.end() ? nullptr : &*it;
}

bool HasLine(const std::vector<std::string>& lines, const std::string& text) {
  return std::find(lines.begin(), lines.end(), text) != lines.end();
}

// The warnings but the one every test without a utilization metric gets.
std::vector<std::string> OtherWarnings(const Metrics& m) {
  std::vector<std::string> other;
  for (const std::string& w : m.warnings) {
    if (!w.starts_with("no card utilization:")) other.push_back(w);
  }
  return other;
}

// Busy fractions are percentages times 0.01: equal but for the last bit.
void CheckNear(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]));
}

// ---- Per-pod memory --------------------------------------------------------------------------

TEST_CASE("FB_USED that differs between a card's pods at some time is each pod's usage") {
  const Metrics m = Interpret({File({
      Series(Fb("0", "ocr-0"), {1000, 1200, 1100}),
      Series(Fb("0", "asr-0"), {1000, 3000, 2000}),  // equal at first, not after
  })});
  REQUIRE(m.pod_memory.size() == 2);
  CHECK(m.card_totals.empty());
  const PodMemoryPeak& asr = m.pod_memory[0];  // sorted by pod: ml/asr-0 first
  CHECK(asr.pod == PodKey{"ml", "asr-0"});
  CHECK(asr.peak_mib == 3000);
  CHECK(asr.mean_mib == 2000);
  CHECK(asr.source == "DCGM_FI_DEV_FB_USED per pod");
  CHECK(asr.card == CardKey{"node-a", "0", "GPU-0"});
  CHECK(m.pod_memory[1].pod.pod == "ocr-0");
  CHECK(m.pod_memory[1].peak_mib == 1200);
  CHECK(m.pod_memory[1].mean_mib == 1100);
  CHECK(HasLine(m.notes,
                "pod GPU memory from DCGM_FI_DEV_FB_USED (MiB): 1 card whose pods report "
                "different values (per-pod values)"));
}

TEST_CASE("FB_USED equal for every pod of a card at every time is the card's total only") {
  const Metrics m = Interpret({File({
      Series(Fb("0", "ocr-0"), {5000, 7000, 6000}), Series(Fb("0", "asr-0"), {5000, 7000, 6000}),
      Series(Fb("0", "tts-0"), {5000, 7000}),  // gone before the last sample
  })});
  CHECK(m.pod_memory.empty());  // never any one pod's usage
  REQUIRE(m.card_totals.size() == 1);
  CHECK(m.card_totals[0].card == CardKey{"node-a", "0", "GPU-0"});
  CHECK(m.card_totals[0].peak_mib == 7000);
  CHECK(m.card_totals[0].pods ==
        std::vector<PodKey>{{"ml", "asr-0"}, {"ml", "ocr-0"}, {"ml", "tts-0"}});
  CHECK(HasLine(m.notes,
                "pod GPU memory from DCGM_FI_DEV_FB_USED (MiB): 1 card whose pods all report the "
                "same value: the card's total, not any pod's usage (pods that really use the "
                "same amount look alike: --mem-metric overrides)"));
}

TEST_CASE("FB_USED of a card holding one pod is that pod's usage") {
  const Metrics m = Interpret({File({
      Series(Fb("0", "ocr-0"), {5000, 7000, 6000}),
      Series(Fb("0", "ocr-0") /* a second container, same card value */, {5000, 7000, 6000}),
      Series(Fb("1", "asr-0"), {100, 300}),
      Series(Fb("2", ""), {42}),  // a card with no pod: not about any pod
  })});
  REQUIRE(m.pod_memory.size() == 2);
  CHECK(m.card_totals.empty());
  const PodMemoryPeak* ocr = MemoryOf(m, "ocr-0");
  REQUIRE(ocr != nullptr);
  CHECK(ocr->peak_mib == 7000);
  CHECK(ocr->mean_mib == 6000);  // the container copies count once
  CHECK(ocr->source == "DCGM_FI_DEV_FB_USED of a card holding only this pod");
  CHECK(MemoryOf(m, "asr-0")->peak_mib == 300);
  CHECK(MemoryOf(m, "asr-0")->card.gpu == "1");
  CHECK(HasLine(m.notes,
                "pod GPU memory from DCGM_FI_DEV_FB_USED (MiB): 2 cards with one pod "
                "(the card's total is the pod's)"));
  CHECK(OtherWarnings(m).empty());
}

TEST_CASE("pods never on a card at the same time each read the card's total as their own") {
  const Metrics m = Interpret({File({
      Series(Fb("0", "old-0"), {900, 1000}),
      Series(Fb("0", "new-0"), {2000, 2100}, 60, kT0 + 120),
  })});
  REQUIRE(m.pod_memory.size() == 2);
  CHECK(MemoryOf(m, "old-0")->peak_mib == 1000);
  CHECK(MemoryOf(m, "new-0")->peak_mib == 2100);
  CHECK(MemoryOf(m, "new-0")->source ==
        "DCGM_FI_DEV_FB_USED of a card holding only this pod at each time");
}

TEST_CASE("the process metric wins over FB_USED and is summed per pod at each time") {
  MetricNames names;
  names.process_mem_mib_per_unit = 1.0 / (1024 * 1024);  // a bytes export
  const double kMi = 1024 * 1024;
  const Metrics m = Interpret(
      {File({
          Series(Fb("0", "ocr-0"), {9000, 9000}),
          Series(Fb("0", "asr-0"), {9000, 9000}),
          Series(On("DCGM_CUSTOM_PROCESS_MEM_USED", "0", "ocr-0", "a"), {1000 * kMi, 3000 * kMi}),
          Series(On("DCGM_CUSTOM_PROCESS_MEM_USED", "0", "ocr-0", "b"), {500 * kMi, 100 * kMi}),
          Series(On("DCGM_CUSTOM_PROCESS_MEM_USED", "0", "asr-0", "a"), {2000 * kMi}),
      })},
      names);
  CHECK(m.card_totals.empty());
  REQUIRE(m.pod_memory.size() == 2);
  const PodMemoryPeak* ocr = MemoryOf(m, "ocr-0");
  CHECK(ocr->peak_mib == 3100);  // 3000 + 100 at the second time, not 1000 + 3000 or 3000 + 500
  CHECK(ocr->mean_mib == 2300);  // (1500 + 3100) / 2
  CHECK(ocr->source == "DCGM_CUSTOM_PROCESS_MEM_USED summed over the pod's processes");
  CHECK(MemoryOf(m, "asr-0")->peak_mib == 2000);
  CHECK(HasLine(m.notes,
                "pod GPU memory from DCGM_CUSTOM_PROCESS_MEM_USED summed over each "
                "pod's processes, read as 9.5367431640625e-07 MiB per unit (the metric's "
                "unit is unconfirmed, docs/semantics.md §1.9)"));
}

TEST_CASE("pods the process metric does not cover read FB_USED (import's and check's rule)") {
  // node-a card 0 runs ocr-0 with the process metric; card 1's asr-0 (a pool without it) has
  // only FB_USED, alone on its card.
  const std::vector<PromResult> files = {File({
      Series(Fb("0", "ocr-0"), {9000, 9000}),
      Series(On("DCGM_CUSTOM_PROCESS_MEM_USED", "0", "ocr-0", "a"), {3000, 3100}),
      Series(Fb("1", "asr-0"), {4000, 4500}),
  })};
  const Metrics plain = Interpret(files);
  CHECK(MemoryOf(plain, "asr-0") == nullptr);  // InterpretMetrics alone: the process metric rules
  const Metrics m = InterpretPodMemoryMetrics(files, MetricNames{}, -kAll, kAll);
  REQUIRE(m.pod_memory.size() == 2);
  CHECK(MemoryOf(m, "ocr-0")->peak_mib == 3100);
  REQUIRE(MemoryOf(m, "asr-0") != nullptr);
  CHECK(MemoryOf(m, "asr-0")->peak_mib == 4500);
  bool noted = false;
  for (const std::string& n : m.notes)
    noted |= n.find("(pods without DCGM_CUSTOM_PROCESS_MEM_USED)") != std::string::npos;
  CHECK(noted);
  // A named metric replaces both rules: no fallback.
  MetricNames named;
  named.mem_metric_override = "DCGM_CUSTOM_PROCESS_MEM_USED";
  CHECK(MemoryOf(InterpretPodMemoryMetrics(files, named, -kAll, kAll), "asr-0") == nullptr);
}

TEST_CASE("--mem-metric takes the named metric per pod as-is, ahead of every other rule") {
  MetricNames names;
  names.mem_metric_override = "pod_gpu_mem_mib";
  const Metrics m =
      Interpret({File({
                    Series(On("DCGM_CUSTOM_PROCESS_MEM_USED", "0", "ocr-0"), {1}),
                    Series(Fb("0", "ocr-0"), {5000}),
                    Series(Fb("0", "asr-0"), {5000}),
                    Series({{"__name__", "pod_gpu_mem_mib"}, {"namespace", "ml"}, {"pod", "ocr-0"}},
                           {2000, 2500}),
                    Series({{"__name__", "pod_gpu_mem_mib"}, {"namespace", "ml"}, {"pod", "asr-0"}},
                           {2000, 2000}),
                })},
                names);
  CHECK(m.card_totals.empty());
  REQUIRE(m.pod_memory.size() == 2);
  CHECK(MemoryOf(m, "ocr-0")->peak_mib == 2500);
  CHECK(MemoryOf(m, "asr-0")->peak_mib == 2000);
  CHECK(MemoryOf(m, "asr-0")->source == "pod_gpu_mem_mib per pod (--mem-metric)");
  CHECK(MemoryOf(m, "asr-0")->card == CardKey{});

  names.mem_metric_override = "missing_metric";
  const Metrics none = Interpret({File({Series(Fb("0", "ocr-0"), {5000})})}, names);
  CHECK(none.pod_memory.empty());
  CHECK(HasLine(none.warnings,
                "no series of missing_metric (--mem-metric) in the Prometheus files: no pod GPU "
                "memory"));
}

TEST_CASE("exported_pod names the workload's pod when a ServiceMonitor renamed the label") {
  Labels l = Fb("0", "dcgm-exporter-x7k2p");  // the exporter's own pod, as the scrape sets it
  l["namespace"] = "monitoring";
  l["exported_pod"] = "ocr-0";
  l["exported_namespace"] = "ml";
  const Metrics m = Interpret({File({Series(l, {4096})})});
  REQUIRE(m.pod_memory.size() == 1);
  CHECK(m.pod_memory[0].pod == PodKey{"ml", "ocr-0"});
}

TEST_CASE("a pod on two cards has one memory entry per card") {
  const Metrics m = Interpret({File({
      Series(Fb("0", "big-0"), {1000}),
      Series(Fb("1", "big-0"), {2000}),
  })});
  REQUIRE(m.pod_memory.size() == 2);
  CHECK(m.pod_memory[0].card.gpu == "0");
  CHECK(m.pod_memory[0].peak_mib == 1000);
  CHECK(m.pod_memory[1].card.gpu == "1");
  CHECK(m.pod_memory[1].peak_mib == 2000);
}

TEST_CASE("pod series without card labels cannot be told from a card total and are not used") {
  const Metrics m = Interpret({File({
      Series({{"__name__", "DCGM_FI_DEV_FB_USED"}, {"namespace", "ml"}, {"pod", "ocr-0"}}, {1}),
  })});
  CHECK(m.pod_memory.empty());
  CHECK(HasLine(m.warnings,
                "DCGM_FI_DEV_FB_USED: 1 pod's series without card labels (UUID, or Hostname "
                "and gpu) not used: a pod's usage cannot be told from the card's total"));
}

TEST_CASE("without any pod-labelled memory series there is no pod memory, and it is said") {
  const Metrics m = Interpret({File({Series(Fb("0", ""), {1})})});
  CHECK(m.pod_memory.empty());
  CHECK(HasLine(m.warnings,
                "no pod GPU memory: no series of DCGM_CUSTOM_PROCESS_MEM_USED or "
                "DCGM_FI_DEV_FB_USED carries a pod label (exported_pod, pod)"));
}

// ---- NaN, the window and several files ------------------------------------------------------

TEST_CASE("NaN and infinite samples are skipped, counted, and never reach a peak or a mean") {
  const double nan = std::nan("");
  const Metrics m = Interpret({File({
      Series(Fb("0", "ocr-0"), {1000, nan, kAll, 3000, -kAll}),
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", "ocr-0"), {50, nan}),
  })});
  REQUIRE(m.pod_memory.size() == 1);
  CHECK(m.pod_memory[0].peak_mib == 3000);
  CHECK(m.pod_memory[0].mean_mib == 2000);
  REQUIRE(m.cards.size() == 1);
  CheckNear(m.cards[0].busy, {0.5});
  CHECK(HasLine(m.warnings, "DCGM_FI_DEV_FB_USED: 3 samples NaN or ±Inf skipped"));
  CHECK(HasLine(m.warnings, "DCGM_FI_DEV_GPU_UTIL: 1 sample NaN or ±Inf skipped"));
}

TEST_CASE("samples beyond 1e15 are skipped and counted: converted to MiB they would overflow") {
  const Metrics m = Interpret({File({
      Series(Fb("0", "ocr-0"), {1000, 1e308, 3000, -1e300}),
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", "ocr-0"), {50, 2e15}),
  })});
  REQUIRE(m.pod_memory.size() == 1);
  CHECK(m.pod_memory[0].peak_mib == 3000);
  CHECK(m.pod_memory[0].mean_mib == 2000);
  CHECK(HasLine(m.warnings,
                "DCGM_FI_DEV_FB_USED: 2 samples beyond ±1e+15 skipped (no GPU memory, utilization "
                "or request rate is that large)"));
  CHECK(HasLine(m.warnings,
                "DCGM_FI_DEV_GPU_UTIL: 1 sample beyond ±1e+15 skipped (no GPU "
                "memory, utilization or request rate is that large)"));
}

TEST_CASE("samples outside the window are ignored, its bounds included") {
  const Metrics m = Interpret({File({
                                  Series(Fb("0", "ocr-0"), {9000, 1000, 2000, 3000, 9999}),
                                  Series(On("DCGM_FI_DEV_GPU_UTIL", "0", ""), {99, 10, 20, 30, 99}),
                              })},
                              {}, kT0 + 60, kT0 + 180);
  REQUIRE(m.pod_memory.size() == 1);
  CHECK(m.pod_memory[0].peak_mib == 3000);
  CHECK(m.pod_memory[0].mean_mib == 2000);
  REQUIRE(m.cards.size() == 1);
  CHECK(m.cards[0].times == std::vector<double>{kT0 + 60, kT0 + 120, kT0 + 180});
  CHECK(m.cards[0].busy.size() == 3);
  CHECK(m.cards[0].busy[2] == doctest::Approx(0.30));
}

TEST_CASE("the same series in two files merges by timestamp and sums count it once") {
  // Two exports of one query over overlapping days; the overlap must not double a sum.
  const Labels a = On("DCGM_CUSTOM_PROCESS_MEM_USED", "0", "ocr-0", "a");
  const Labels b = On("DCGM_CUSTOM_PROCESS_MEM_USED", "0", "ocr-0", "b");
  const Metrics m = Interpret({
      File({Series(a, {100, 200, 300}), Series(b, {10, 10, 10})}, "day1.json"),
      File({Series(a, {300, 900}, 60, kT0 + 120), Series(b, {10, 10}, 60, kT0 + 120)}, "day2.json"),
  });
  REQUIRE(m.pod_memory.size() == 1);
  CHECK(m.pod_memory[0].peak_mib == 910);  // 900 + 10 at kT0 + 180
  CHECK(m.pod_memory[0].mean_mib == (110 + 210 + 310 + 910) / 4.0);
  CHECK(OtherWarnings(m).empty());
}

TEST_CASE("two files disagreeing on one series at one time keep the first and say so") {
  const Labels a = Fb("0", "ocr-0");
  const Metrics m = Interpret({
      File({Series(a, {100, 200})}, "one.json"),
      File({Series(a, {999})}, "two.json"),
  });
  REQUIRE(m.pod_memory.size() == 1);
  CHECK(m.pod_memory[0].peak_mib == 200);
  CHECK(HasLine(m.warnings,
                "DCGM_FI_DEV_FB_USED: 1 time where two files hold the same series "
                "with different values; the first file's kept"));
}

TEST_CASE("a pod's series in several files merge by timestamp even when other labels differ") {
  Labels day1 = Fb("0", "ocr-0");
  day1["instance"] = "10.0.1.7:9400";
  Labels day2 = Fb("0", "ocr-0");
  day2["instance"] = "10.0.1.9:9400";  // the exporter restarted on another address
  Labels other = Fb("0", "asr-0");
  const Metrics m = Interpret({
      File({Series(day1, {100, 200}), Series(other, {100, 300})}, "one.json"),
      File({Series(day2, {250, 150}, 60, kT0 + 120), Series(other, {300, 300}, 60, kT0 + 120)},
           "two.json"),
  });
  REQUIRE(m.pod_memory.size() == 2);
  const PodMemoryPeak* ocr = MemoryOf(m, "ocr-0");
  CHECK(ocr->peak_mib == 250);
  CHECK(ocr->mean_mib == (100 + 200 + 250 + 150) / 4.0);
  CHECK(ocr->source == "DCGM_FI_DEV_FB_USED per pod");
}

// ---- Utilization -----------------------------------------------------------------------------

TEST_CASE("utilization scale: above 1 is a percentage, fractions at most 1 a ratio") {
  struct Case {
    const char* name;
    std::vector<double> values;
    double scale;
    std::string note;
  };
  const Case cases[] = {
      {"percent",
       {0, 35, 87},
       0.01,
       "DCGM_FI_DEV_GPU_UTIL read as a percentage (largest sample 87 > 1.05)"},
      {"ratio",
       {0.25, 0.93, 0.5},
       1,
       "DCGM_FI_DEV_GPU_UTIL read as a ratio (largest sample 0.93 "
       "<= 1.05)"},
      {"ratio overshooting by noise",
       {0.5, 1.02},
       1,
       "DCGM_FI_DEV_GPU_UTIL read as a ratio (largest sample 1.02 <= 1.05)"},
      {"an idle card's whole percentages",
       {0, 1, 0},
       0.01,
       "DCGM_FI_DEV_GPU_UTIL read as a percentage: whole numbers only (largest 1), as an idle "
       "card's percentage reads and a ratio never does"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.name));
    const Metrics m = Interpret({File({Series(On("DCGM_FI_DEV_GPU_UTIL", "0", ""), c.values)})});
    REQUIRE(m.cards.size() == 1);
    CHECK(m.cards[0].scale == c.scale);
    CHECK(m.cards[0].busy[1] == doctest::Approx(std::min(1.0, c.values[1] * c.scale)));
    CHECK(HasLine(m.notes, c.note));
  }
}

TEST_CASE("the scale is decided per metric over all its series, not per card") {
  const Metrics m = Interpret({File({
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", ""), {0.5, 0.8}),  // would read as a ratio alone
      Series(On("DCGM_FI_DEV_GPU_UTIL", "1", ""), {40, 60}),
  })});
  REQUIRE(m.cards.size() == 2);
  CHECK(m.cards[0].scale == 0.01);
  CHECK(m.cards[0].busy[1] == doctest::Approx(0.008));
  CHECK(m.cards[1].busy[1] == doctest::Approx(0.6));
}

TEST_CASE("a configured utilization scale skips the detection") {
  MetricNames names;
  names.util_scale = 1;
  const Metrics m =
      Interpret({File({Series(On("DCGM_FI_DEV_GPU_UTIL", "0", ""), {0, 1, 0})})}, names);
  REQUIRE(m.cards.size() == 1);
  CHECK(m.cards[0].busy == std::vector<double>{0, 1, 0});
  CHECK(HasLine(m.notes, "DCGM_FI_DEV_GPU_UTIL scaled by 1 as configured"));
}

TEST_CASE("the first listed utilization metric wins per card, the next fills cards lacking it") {
  const Metrics m = Interpret({File({
      Series(On("DCGM_FI_PROF_SM_ACTIVE", "0", ""), {0.2, 0.4}),
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", ""), {70, 90}),
      Series(On("DCGM_FI_PROF_SM_ACTIVE", "1", ""), {0.1, 0.3}),
  })});
  REQUIRE(m.cards.size() == 2);
  CHECK(m.cards[0].card.gpu == "0");
  CHECK(m.cards[0].metric == "DCGM_FI_DEV_GPU_UTIL");
  CheckNear(m.cards[0].busy, {0.7, 0.9});
  CHECK(m.cards[1].metric == "DCGM_FI_PROF_SM_ACTIVE");
  CHECK(m.cards[1].scale == 1);
  CHECK(m.cards[1].busy == std::vector<double>{0.1, 0.3});
  CHECK(HasLine(m.notes, "card utilization from DCGM_FI_DEV_GPU_UTIL on 1 card"));
  CHECK(HasLine(m.notes,
                "card utilization from DCGM_FI_PROF_SM_ACTIVE on 1 card that lack the "
                "metrics listed before it"));
  CHECK(HasLine(m.notes,
                "DCGM_FI_PROF_SM_ACTIVE also present on 1 card not used: the list "
                "prefers the metric before it (DCGM_FI_DEV_GPU_UTIL, "
                "DCGM_FI_PROF_SM_ACTIVE, DCGM_FI_PROF_GR_ENGINE_ACTIVE)"));
}

TEST_CASE("a card's utilization copied onto its pods' series counts once and lists the pods") {
  const Metrics m = Interpret({File({
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", "ocr-0"), {30, 60}),
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", "asr-0"), {30, 60}),
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", "asr-0", "sidecar"), {30, 60}),
  })});
  REQUIRE(m.cards.size() == 1);
  CHECK(m.cards[0].card == CardKey{"node-a", "0", "GPU-0"});
  CheckNear(m.cards[0].busy, {0.3, 0.6});
  CHECK(m.cards[0].pods == std::vector<PodKey>{{"ml", "asr-0"}, {"ml", "ocr-0"}});
}

TEST_CASE("utilization within the tolerance above 100 % is clamped, beyond it or below 0 dropped") {
  // Percent (130 > 1.05): 103 % is noise at full load, 130 % and -5 % are no reading at all.
  const Metrics m =
      Interpret({File({Series(On("DCGM_FI_DEV_GPU_UTIL", "0", ""), {50, 103, 130, -5, 20})})});
  REQUIRE(m.cards.size() == 1);
  const CardUtilization& c = m.cards[0];
  CHECK(c.times == std::vector<double>{kT0, kT0 + 60, kT0 + 240});
  CheckNear(c.busy, {0.5, 1.0, 0.2});
  CHECK(c.clamped == 1);
  CHECK(c.dropped_high == 1);
  CHECK(c.dropped_negative == 1);
  CHECK(c.largest == doctest::Approx(1.3));
  CHECK(c.smallest == doctest::Approx(-0.05));
  // Counted for the import to name per card (CheckEvidence), not a warning here.
  for (const std::string& w : m.warnings)
    CHECK(w.find("DCGM_FI_DEV_GPU_UTIL") == std::string::npos);
}

TEST_CASE("copies of an impossible card sample on its pods' series count once") {
  const Metrics m = Interpret({File({
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", "asr-0"), {40, 250}),
      Series(On("DCGM_FI_DEV_GPU_UTIL", "0", "ocr-0"), {40, 250}),
  })});
  REQUIRE(m.cards.size() == 1);
  CHECK(m.cards[0].dropped_high == 1);
  CheckNear(m.cards[0].busy, {0.4});
}

TEST_CASE("cards are ordered by node, then by index as a number") {
  std::vector<PromSeries> series;
  for (const char* gpu : {"10", "2", "1"}) {
    series.push_back(Series(On("DCGM_FI_DEV_GPU_UTIL", gpu, ""), {10}));
  }
  Labels other = On("DCGM_FI_DEV_GPU_UTIL", "0", "");
  other["Hostname"] = "node-0";
  other["UUID"] = "GPU-other";
  series.push_back(Series(other, {10}));
  const Metrics m = Interpret({File(series)});
  REQUIRE(m.cards.size() == 4);
  CHECK(m.cards[0].card.node == "node-0");
  CHECK(m.cards[1].card.gpu == "1");
  CHECK(m.cards[2].card.gpu == "2");
  CHECK(m.cards[3].card.gpu == "10");
  CHECK(m.cards[3].card.ToString() == "node-a/gpu 10 (GPU-10)");
}

TEST_CASE("without any utilization metric there are no cards, and it is said") {
  const Metrics m = Interpret({File({Series(Fb("0", "ocr-0"), {1})})});
  CHECK(m.cards.empty());
  CHECK(HasLine(m.warnings,
                "no card utilization: none of DCGM_FI_DEV_GPU_UTIL, "
                "DCGM_FI_PROF_SM_ACTIVE, DCGM_FI_PROF_GR_ENGINE_ACTIVE in the "
                "Prometheus files"));
}

// ---- Rates and unnamed series ----------------------------------------------------------------

TEST_CASE("--rate-metric is summed per pod at each time") {
  MetricNames names;
  names.rate_metric = "ocr_requests_per_second";
  const Labels path_a = {{"__name__", "ocr_requests_per_second"},
                         {"namespace", "ml"},
                         {"pod", "ocr-0"},
                         {"path", "/a"}};
  Labels path_b = path_a;
  path_b["path"] = "/b";
  const Metrics m = Interpret({File({
                                  Series(path_a, {5, 6}),
                                  Series(path_b, {1, 2}),
                                  Series({{"__name__", "ocr_requests_per_second"}}, {99}),
                              })},
                              names);
  REQUIRE(m.rates.size() == 1);
  CHECK(m.rates[0].pod == PodKey{"ml", "ocr-0"});
  CHECK(m.rates[0].times == std::vector<double>{kT0, kT0 + 60});
  CHECK(m.rates[0].rate == std::vector<double>{6, 8});
  CHECK(HasLine(m.notes, "request rates from ocr_requests_per_second, summed per pod (1 pod)"));
  CHECK(HasLine(m.warnings,
                "ocr_requests_per_second: 1 series without a pod label (exported_pod, pod) not "
                "used"));
}

TEST_CASE("negative request rates are dropped before the per-pod sum and counted per pod") {
  MetricNames names;
  names.rate_metric = "rps";
  const Labels a = {{"__name__", "rps"}, {"namespace", "ml"}, {"pod", "ocr-0"}, {"path", "/a"}};
  Labels b = a;
  b["path"] = "/b";
  const Metrics m = Interpret({File({Series(a, {1, -2, 3, -0.5}), Series(b, {1, 1, 1})})}, names);
  REQUIRE(m.rates.size() == 1);
  const PodRate& r = m.rates[0];
  // Missing, not 0: the second time holds /b's sample only, the fourth no sample at all.
  CHECK(r.times == std::vector<double>{kT0, kT0 + 60, kT0 + 120});
  CHECK(r.rate == std::vector<double>{2, 1, 4});
  CHECK(r.negative == 2);
  CHECK(r.lowest == -2);
}

TEST_CASE("a pod's rate series that name different nodes stay apart, one PodRate per node") {
  MetricNames names;
  names.rate_metric = "rps";
  const Labels on_a = {{"__name__", "rps"}, {"namespace", "ml"}, {"pod", "ocr-0"}, {"node", "a"}};
  Labels on_b = on_a;
  on_b["node"] = "b";
  Labels none = on_a;
  none.erase("node");
  const Metrics m = Interpret(
      {File({Series(on_b, {2}), Series(on_a, {1}), Series(none, {5}), Series(on_a, {1})})}, names);
  REQUIRE(m.rates.size() == 3);
  CHECK(m.rates[0].node == "");
  CHECK(m.rates[1].node == "a");
  CHECK(m.rates[1].rate == std::vector<double>{1});  // the same series twice: merged
  CHECK(m.rates[2].node == "b");
  CHECK(HasLine(m.notes, "request rates from rps, summed per pod (1 pod)"));
}

TEST_CASE("series without a metric name are not used, with the label_replace hint") {
  const Metrics m = Interpret({File({Series({{"pod", "ocr-0"}}, {1})})});
  CHECK(HasLine(m.warnings,
                "1 series without a metric name (__name__) not used: a query such as rate(...) "
                "or sum by (...) drops it; keep one with label_replace(<query>, \"__name__\", "
                "\"<name>\", \"\", \"\")"));
}

TEST_CASE("the same input gives the same output whatever the file order within a metric") {
  const std::vector<PromResult> one = {
      File({Series(Fb("0", "b"), {1, 2}), Series(Fb("1", "a"), {3})})};
  const std::vector<PromResult> two = {
      File({Series(Fb("1", "a"), {3}), Series(Fb("0", "b"), {1, 2})})};
  const Metrics x = Interpret(one), y = Interpret(two);
  REQUIRE(x.pod_memory.size() == 2);
  REQUIRE(y.pod_memory.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(x.pod_memory[i].pod == y.pod_memory[i].pod);
    CHECK(x.pod_memory[i].peak_mib == y.pod_memory[i].peak_mib);
  }
  CHECK(x.pod_memory[0].pod.pod == "a");
  CHECK(x.notes == y.notes);
}

}  // namespace
}  // namespace knobsim

// ---- Latency -----------------------------------------------------------------------------------

namespace knobsim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Labels Lat(const std::string& metric, const std::string& pod, Labels extra = {}) {
  Labels l = {{"__name__", metric}, {"namespace", "ml"}, {"pod", pod}};
  l.insert(extra.begin(), extra.end());
  return l;
}

// A histogram pod: per bucket (le text) its values, plus _sum and _count.
std::vector<PromSeries> Histogram(const std::string& pod, const std::string& container,
                                  const std::vector<std::pair<std::string, std::vector<double>>>& b,
                                  std::vector<double> sum, std::vector<double> count) {
  std::vector<PromSeries> out;
  for (const auto& [le, values] : b)
    out.push_back(Series(Lat("lat_bucket", pod, {{"le", le}, {"container", container}}), values));
  out.push_back(Series(Lat("lat_sum", pod, {{"container", container}}), std::move(sum)));
  out.push_back(Series(Lat("lat_count", pod, {{"container", container}}), std::move(count)));
  return out;
}

MetricNames LatencyNames(double unit = 1.0) {
  MetricNames names;
  names.latency_metric = "lat";
  names.latency_unit_s = unit;
  return names;
}

const PodLatency* LatencyOf(const Metrics& m, const std::string& pod) {
  for (const PodLatency& l : m.latencies)
    if (l.pod.pod == pod) return &l;
  return nullptr;
}

bool SameOrBothNaN(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b || a == doctest::Approx(b);
}

}  // namespace

TEST_CASE("histogram_quantile: Prometheus' rule, bucket by bucket") {
  const std::vector<double> le = {1, 2, 5, INFINITY};
  struct Row {
    const char* rule;
    double q;
    std::vector<double> le;
    std::vector<double> cumulative;
    double want;
  };
  const Row rows[] = {
      {"linear inside the bucket holding the rank", 0.5, le, {2, 6, 10, 10}, 1.75},
      {"the first bucket starts at 0", 0.1, le, {2, 6, 10, 10}, 0.5},
      {"rank in +Inf: the highest finite bound", 0.99, le, {2, 6, 8, 10}, 5},
      {"the bucket's upper bound when the rank is its count", 0.6, le, {2, 6, 10, 10}, 2},
      {"counts made monotonic first", 0.5, {1, 2, 3, 4, INFINITY}, {2, 6, 4, 10, 10}, 1.75},
      {"no +Inf bucket: NaN", 0.5, {1, 2, 5}, {2, 6, 10}, kNaN},
      {"no observations: NaN", 0.5, le, {0, 0, 0, 0}, kNaN},
      {"fewer than two buckets: NaN", 0.5, {INFINITY}, {4}, kNaN},
      {"a first bound <= 0 is returned as is", 0.1, {0, 1, INFINITY}, {5, 8, 10}, 0},
      {"q above 1: +Inf", 1.5, le, {2, 6, 10, 10}, INFINITY},
      {"q below 0: -Inf", -0.5, le, {2, 6, 10, 10}, -INFINITY},
  };
  for (const Row& row : rows) {
    CAPTURE(std::string(row.rule));
    const double got = HistogramQuantile(row.q, row.le, row.cumulative);
    CHECK(SameOrBothNaN(got, row.want));
  }
}

TEST_CASE("latency histogram of rates: a pod's containers add bucket by bucket") {
  // Two containers of pod a, rates per second at two samples; the second sample has no
  // observations.
  auto files =
      Histogram("a", "c1", {{"0.1", {1, 0}}, {"0.5", {3, 0}}, {"+Inf", {4, 0}}}, {0.8, 0}, {4, 0});
  for (PromSeries& s :
       Histogram("a", "c2", {{"0.1", {1, 0}}, {"0.5", {1, 0}}, {"+Inf", {4, 0}}}, {2.4, 0}, {4, 0}))
    files.push_back(std::move(s));
  const Metrics m = Interpret({File(files)}, LatencyNames());
  const PodLatency* l = LatencyOf(m, "a");
  REQUIRE(l);
  CHECK(l->source == "histogram");
  REQUIRE(l->times.size() == 2);
  CHECK(l->bucket_le == std::vector<double>{0.1, 0.5, INFINITY});
  CHECK(l->buckets[0] == std::vector<double>{2, 4, 8});
  CHECK(l->count[0] == 8);
  CHECK(l->mean_s[0] == doctest::Approx(3.2 / 8));
  CHECK(l->p50_s[0] == doctest::Approx(0.5));  // rank 4 = the 0.5 bucket's count
  CHECK(l->p99_s[0] == doctest::Approx(0.5));  // rank 7.92 in +Inf
  CHECK(std::isnan(l->mean_s[1]));
  CHECK(std::isnan(l->p50_s[1]));
  CHECK(m.notes.back().find("latency from lat (1 s per unit): 1 pod as histogram") == 0);
}

TEST_CASE("latency histogram of raw counters is differenced, a reset read as from 0") {
  // Cumulative counts every 60 s, 60 requests a step; the process restarts before sample 6.
  std::vector<double> inf, b1, sum;
  for (int i = 0; i < 12; ++i) {
    inf.push_back(i < 6 ? 20 + 60 * i : 60 * (i - 5));
    b1.push_back(inf.back() / 2);
    sum.push_back(inf.back() * 0.2);
  }
  const auto files = Histogram("a", "c", {{"0.25", b1}, {"+Inf", inf}}, sum, inf);
  const Metrics m = Interpret({File(files)}, LatencyNames());
  const PodLatency* l = LatencyOf(m, "a");
  REQUIRE(l);
  REQUIRE(l->times.size() == 11);  // the first sample gives no increase
  CHECK(l->times[0] == kT0 + 60);
  CHECK(l->count[0] == doctest::Approx(1.0));  // 60 requests in 60 s
  CHECK(l->count[5] == doctest::Approx(1.0));  // reset: 60 since the restart
  CHECK(l->buckets[5] == std::vector<double>{0.5, 1.0});
  for (double mean : l->mean_s) CHECK(mean == doctest::Approx(0.2));
  CHECK(l->p50_s[0] == doctest::Approx(0.25));
  CHECK(m.notes.back().find("1 pod's series read as raw cumulative counters") != std::string::npos);
}

TEST_CASE("latency: rate series that rise and fall are not taken for counters") {
  const auto files = Histogram("a", "c", {{"1", {1, 2, 1, 3}}, {"+Inf", {2, 4, 2, 6}}},
                               {1, 2, 1, 3}, {2, 4, 2, 6});
  const Metrics m = Interpret({File(files)}, LatencyNames());
  const PodLatency* l = LatencyOf(m, "a");
  REQUIRE(l);
  CHECK(l->times.size() == 4);
  CHECK(l->mean_s[1] == doctest::Approx(0.5));
  CHECK(m.notes.back().find("cumulative") == std::string::npos);
}

TEST_CASE("latency summary: quantile series, mean from _sum / _count; several don't combine") {
  std::vector<PromSeries> files = {
      Series(Lat("lat", "a", {{"quantile", "0.5"}}), {150, 160}),
      Series(Lat("lat", "a", {{"quantile", "0.99"}}), {400, 420}),
      Series(Lat("lat_sum", "a"), {1600, 1700}),
      Series(Lat("lat_count", "a"), {10, 10.5}),
      // Pod b has two handlers' p50: unknown; its p99 is one series.
      Series(Lat("lat", "b", {{"quantile", "0.5"}, {"handler", "x"}}), {100}),
      Series(Lat("lat", "b", {{"quantile", "0.5"}, {"handler", "y"}}), {200}),
      Series(Lat("lat", "b", {{"quantile", "0.99"}}), {900}),
  };
  const Metrics m = Interpret({File(files)}, LatencyNames(0.001));
  const PodLatency* a = LatencyOf(m, "a");
  REQUIRE(a);
  CHECK(a->source == "summary");
  CHECK(a->p50_s[0] == doctest::Approx(0.15));
  CHECK(a->p99_s[1] == doctest::Approx(0.42));
  CHECK(a->mean_s[0] == doctest::Approx(0.16));
  CHECK(a->count[1] == 10.5);
  const PodLatency* b = LatencyOf(m, "b");
  REQUIRE(b);
  CHECK(std::isnan(b->p50_s[0]));
  CHECK(b->p99_s[0] == doctest::Approx(0.9));
  CHECK(std::isnan(b->mean_s[0]));
  CHECK(std::any_of(m.warnings.begin(), m.warnings.end(), [](const std::string& w) {
    return w.find("1 pod with several series of one quantile") != std::string::npos;
  }));
}

TEST_CASE("latency mean series: one per pod read in its unit; several are unknown") {
  std::vector<PromSeries> files = {
      Series(Lat("lat", "a"), {1500, 1800}),
      Series(Lat("lat", "b", {{"container", "x"}}), {10}),
      Series(Lat("lat", "b", {{"container", "y"}}), {20}),
      Series(Lat("lat_sum", "c"), {6}),
      Series(Lat("lat_count", "c"), {3}),
      Series(Lat("lat", "", {}), {1}),  // no pod label
  };
  const Metrics m = Interpret({File(files)}, LatencyNames(0.001));
  struct Row {
    const char* pod;
    double mean0;
  };
  for (const Row& row : {Row{"a", 1.5}, Row{"b", kNaN}, Row{"c", 0.002}}) {
    CAPTURE(row.pod);
    const PodLatency* l = LatencyOf(m, row.pod);
    REQUIRE(l);
    CHECK(l->source == "mean");
    CHECK(SameOrBothNaN(l->mean_s[0], row.mean0));
    CHECK(std::isnan(l->p50_s[0]));
    CHECK(std::isnan(l->p99_s[0]));
  }
  CHECK(std::any_of(m.warnings.begin(), m.warnings.end(), [](const std::string& w) {
    return w.find("several mean-latency series") != std::string::npos;
  }));
  CHECK(std::any_of(m.warnings.begin(), m.warnings.end(), [](const std::string& w) {
    return w.find("1 series without a pod label") != std::string::npos;
  }));
}

TEST_CASE("latency: none without --latency-metric, a warning when its series are absent") {
  const std::vector<PromSeries> files = {Series(Lat("lat", "a"), {1})};
  CHECK(Interpret({File(files)}).latencies.empty());
  MetricNames names;
  names.latency_metric = "other";
  const Metrics m = Interpret({File(files)}, names);
  CHECK(m.latencies.empty());
  CHECK(m.warnings.back().find("no latency of other (--latency-metric)") == 0);
}

}  // namespace knobsim
