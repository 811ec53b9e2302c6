// A workload's requests: `traffic:` (its arrivals), `work:` (GPU time per request) and `slo:`
// (scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include <algorithm>
#include <cmath>

#include "sim/io/arrival_file.h"
#include "sim/io/spelling.h"
#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim::scenario_internal {

// counts: {step, values | file | per_pod | per_pod_file, spread}.
IntervalCounts Reader::ReadCounts(const Field& f, const std::vector<CurrentPod>& pods) const {
  Section c(*this, f, {"step", "values", "file", "per_pod", "per_pod_file", "spread"});
  IntervalCounts counts;
  if (auto spread = c.Get("spread")) {
    counts.spread =
        Enum<CountSpread>(*spread, "counts spread",
                          {{"uniform", CountSpread::kUniform}, {"even", CountSpread::kEven}});
  }
  const Field step = c.Require("step");
  counts.step = Duration(step);
  if (counts.step <= 0) Fail(step, "the step must be positive");
  // At the Service (values | file), per pod (per_pod | per_pod_file), or both: then the
  // Service's are the requests no current pod recorded.
  const char* kHint =
      "give values or file (the Service's requests), per_pod or per_pod_file (each pod's own), or "
      "one of each (the Service's then are those of pods no longer running)";
  const auto one_of = [&](std::string_view a, std::string_view b) {
    if (c.Has(a) && c.Has(b))
      Fail(*c.Get(b), "counts has both `" + std::string(a) + "` and `" + std::string(b) + "`",
           kHint);
  };
  one_of("values", "file");
  one_of("per_pod", "per_pod_file");
  if (!c.Has("values") && !c.Has("file") && !c.Has("per_pod") && !c.Has("per_pod_file"))
    Fail(f, "counts needs its counts", kHint);
  if (auto values = c.Get("values")) {
    for (const Field& item : Items(*values))
      counts.values.push_back(Integer(item, 0, 1'000'000'000));
    if (counts.values.empty()) Fail(*values, "counts needs at least one value");
  }
  if (auto file = c.Get("file")) {
    const std::string name = NonEmptyString(*file);
    Expected<std::vector<int64_t>> values = ReadCountsFile(Beside(name));
    if (!values) Fail(*file, values.error().ToString());
    counts.values = std::move(*values);
    counts.source = name;
  }
  // Each pod's series names one of the workload's current pods: its replica ordinal.
  const auto ordinal = [&](const Field& at, const std::string& name) {
    for (size_t i = 0; i < pods.size(); ++i)
      if (pods[i].name == name) return static_cast<int>(i);
    std::vector<std::string> names;
    for (const CurrentPod& p : pods) names.push_back(p.name);
    Fail(at, "no pod " + Quote(name) + " in the workload's `pods:`",
         pods.empty() ? "per-pod counts name the workload's current pods; it lists none"
                      : SuggestName(name, names, "its pods are"));
  };
  if (auto per_pod = c.Get("per_pod")) {
    const std::vector<std::pair<std::string, Field>> entries = Entries(*per_pod);
    if (entries.empty())
      Fail(*per_pod, "per_pod maps pod names to their counts", "per_pod: {POD: [3, 0, 5]}");
    for (const auto& [key, value] : entries) {
      PodCounts pod{key, ordinal(EntryOf(*per_pod, key), key), {}};
      for (const Field& item : Items(value)) pod.values.push_back(Integer(item, 0, 1'000'000'000));
      if (pod.values.empty()) Fail(value, "the pod's counts need at least one value");
      counts.per_pod.push_back(std::move(pod));
    }
  }
  if (auto file = c.Get("per_pod_file")) {
    const std::string name = NonEmptyString(*file);
    Expected<std::vector<PodCounts>> read = ReadPerPodCountsCsv(Beside(name));
    if (!read) Fail(*file, read.error().ToString());
    for (PodCounts& pod : *read) pod.replica = ordinal(*file, pod.pod);
    counts.per_pod = std::move(*read);
    counts.source = name;
  }
  size_t longest = counts.values.size();
  for (const PodCounts& pod : counts.per_pod) longest = std::max(longest, pod.values.size());
  if (static_cast<double>(longest) * static_cast<double>(counts.step) > 9e18) {
    Fail(step, "the counts cover more time than a run can (9e9 s)");
  }
  return counts;
}

Traffic Reader::ReadTraffic(const Field& f, const std::vector<CurrentPod>& pods) const {
  Section s(*this, f, {"rate", "piecewise", "diurnal", "replay", "counts", "start"});
  Traffic t;
  std::vector<std::string> kinds;
  for (std::string_view k : {"rate", "piecewise", "diurnal", "replay", "counts"}) {
    if (s.Has(k)) kinds.emplace_back(k);
  }
  if (kinds.empty()) {
    Fail(f, "traffic needs one of `rate`, `piecewise`, `diurnal`, `replay` or `counts`");
  }
  if (kinds.size() > 1) {
    Fail(*s.Get(kinds[1]), "traffic has both `" + kinds[0] + "` and `" + kinds[1] + "`",
         "give exactly one of rate, piecewise, diurnal, replay or counts");
  }
  if (auto v = s.Get("start"); v && !s.Has("replay")) {
    Fail(*v, "start is the recording's t = 0 and goes with `replay`");
  }
  if (auto v = s.Get("replay")) {
    t.kind = ArrivalKind::kReplay;
    RecordingStart start;
    if (auto when = s.Get("start")) {
      const std::string text = Scalar(*when, "a start");
      const Expected<RecordingStart> parsed = ParseRecordingStart(text);
      if (!parsed) Fail(*when, Quote(text) + " " + parsed.error().message);
      start = *parsed;
    }
    const std::string name = NonEmptyString(*v);
    Expected<RecordedArrivals> rec = ReadArrivalsCsv(Beside(name), start);
    if (!rec) Fail(*v, rec.error().ToString());
    rec->source = name;
    if (rec->at.empty()) Fail(*v, "the recording " + Quote(name) + " holds no arrival");
    t.replay = std::make_shared<const RecordedArrivals>(std::move(*rec));
  }
  if (auto v = s.Get("counts")) {
    t.kind = ArrivalKind::kCounts;
    t.counts = ReadCounts(*v, pods);
  }
  if (auto v = s.Get("rate")) {
    t.kind = ArrivalKind::kPoisson;
    t.rate = Unit(*v, &ParseRate, "a rate");
  }
  if (auto v = s.Get("piecewise")) {
    t.kind = ArrivalKind::kPiecewise;
    for (const Field& item : Items(*v)) {
      Section p(*this, item, {"at", "rate"});
      const Field at = p.Require("at");
      RatePoint point{Duration(at), Unit(p.Require("rate"), &ParseRate, "a rate")};
      if (t.pieces.empty() && point.at != 0) Fail(at, "the first piece must start at 0s");
      if (!t.pieces.empty() && point.at <= t.pieces.back().at) {
        Fail(at, "pieces must be in increasing order of `at`",
             "this piece starts at " + FormatDuration(point.at) + ", the one before at " +
                 FormatDuration(t.pieces.back().at));
      }
      t.pieces.push_back(point);
    }
    if (t.pieces.empty()) Fail(*v, "piecewise needs at least one piece");
  }
  if (auto v = s.Get("diurnal")) {
    t.kind = ArrivalKind::kDiurnal;
    Section d(*this, *v, {"mean", "amplitude", "period", "peak_at"});
    t.diurnal_mean = Unit(d.Require("mean"), &ParseRate, "a rate");
    if (auto a = d.Get("amplitude")) t.diurnal_amplitude = Number(*a, 0, 1, false, false);
    if (auto p = d.Get("period")) {
      t.diurnal_period = Duration(*p);
      if (t.diurnal_period <= 0) Fail(*p, "the period must be positive");
    }
    if (auto p = d.Get("peak_at")) t.diurnal_peak_at = Duration(*p);
    if (t.diurnal_peak_at >= t.diurnal_period) {
      Fail(d.Get("peak_at") ? *d.Get("peak_at") : *d.Get("period"),
           "peak_at (" + FormatDuration(t.diurnal_peak_at) + ") must be within the period (" +
               FormatDuration(t.diurnal_period) + ")");
    }
  }
  return t;
}

WorkModel Reader::ReadWork(const Field& f) const {
  Section s(*this, f, {"dist", "mean", "cv"});
  WorkModel w;
  if (auto v = s.Get("dist")) {
    w.dist = Enum<WorkDistribution>(*v, "distribution",
                                    {{"constant", WorkDistribution::kConstant},
                                     {"exponential", WorkDistribution::kExponential},
                                     {"lognormal", WorkDistribution::kLognormal},
                                     {"gamma", WorkDistribution::kGamma}});
  }
  if (auto v = s.Get("mean")) {
    const SimTime mean = Duration(*v);
    if (mean <= 0) Fail(*v, "the mean work must be positive");
    w.mean_s = static_cast<double>(mean) / kNanosPerSecond;
  }
  // The cv a distribution has by nature is stored, so the struct says what is simulated.
  if (w.dist == WorkDistribution::kConstant) w.cv = 0;
  if (w.dist == WorkDistribution::kExponential) w.cv = 1;
  if (auto v = s.Get("cv")) {
    const double cv = Number(*v, 0, INFINITY, false, false);
    if (w.dist == WorkDistribution::kConstant && cv != 0) {
      Fail(*v, "constant work has cv 0", "use lognormal or gamma for a cv above 0");
    }
    if (w.dist == WorkDistribution::kExponential && cv != 1) {
      Fail(*v, "exponential work has cv 1", "use lognormal or gamma for another cv");
    }
    if ((w.dist == WorkDistribution::kLognormal || w.dist == WorkDistribution::kGamma) && cv == 0) {
      Fail(*v, "lognormal and gamma need a cv above 0", "use dist constant for cv 0");
    }
    w.cv = cv;
  }
  return w;
}

Slo Reader::ReadSlo(const Field& f) const {
  Section s(*this, f, {"latency", "percentile", "error_budget", "unanswered_after"});
  Slo slo;
  if (auto v = s.Get("latency")) slo.latency = Duration(*v);
  if (auto v = s.Get("percentile")) slo.percentile = Number(*v, 0, 100, true, false);
  if (auto v = s.Get("error_budget")) slo.error_budget = Unit(*v, &ParsePercentage, "a percentage");
  if (auto v = s.Get("unanswered_after")) {
    slo.unanswered_after = Duration(*v);
    if (slo.unanswered_after <= 0) {
      Fail(*v, "unanswered_after must be above 0",
           "the age of an unanswered request that counts against the objective, e.g. 60s");
    }
  }
  return slo;
}

}  // namespace knobsim::scenario_internal
