#include "sim/traffic.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace knobsim {

ArrivalProcess::ArrivalProcess(const Traffic& traffic, RandomStream stream)
    : traffic_(traffic), stream_(stream) {}

double ArrivalProcess::RateAt(SimTime t) const {
  switch (traffic_.kind) {
    case ArrivalKind::kPoisson:
      return traffic_.rate * traffic_.scale;
    case ArrivalKind::kPiecewise: {
      double rate = 0;
      for (const RatePoint& p : traffic_.pieces) {
        if (p.at > t) break;
        rate = p.rate;
      }
      return rate * traffic_.scale;
    }
    case ArrivalKind::kDiurnal: {
      const double phase = 2 * std::numbers::pi *
                           static_cast<double>(t - traffic_.diurnal_peak_at) /
                           static_cast<double>(traffic_.diurnal_period);
      return traffic_.diurnal_mean * (1 + traffic_.diurnal_amplitude * std::cos(phase)) *
             traffic_.scale;
    }
    case ArrivalKind::kReplay:
    case ArrivalKind::kCounts:
    case ArrivalKind::kNone:
      break;
  }
  return 0;
}

namespace {
SimTime ToNanos(double seconds) {
  const double ns = seconds * 1e9 + 0.5;  // seconds >= 0: rounds to the nearest nanosecond
  return ns >= 9.0e18 ? ArrivalProcess::kNever : static_cast<SimTime>(ns);
}
}  // namespace

SimTime ArrivalProcess::Next(SimTime now) {
  switch (traffic_.kind) {
    case ArrivalKind::kNone:
      return kNever;
    case ArrivalKind::kPoisson: {
      const double rate = RateAt(now);
      if (rate <= 0) return kNever;
      const SimTime dt = ToNanos(stream_.Exponential(1.0 / rate));
      return dt == kNever ? kNever : now + dt;
    }
    case ArrivalKind::kPiecewise: {
      // Time rescaling: spend one Exp(1) of integrated rate across the pieces.
      double budget = stream_.Exponential(1.0);
      SimTime t = now;
      const auto& pieces = traffic_.pieces;
      size_t i = 0;
      while (i + 1 < pieces.size() && pieces[i + 1].at <= t) ++i;
      if (!pieces.empty() && pieces[0].at > t) i = SIZE_MAX;  // before the first piece: rate 0
      while (true) {
        const double rate = (i == SIZE_MAX ? 0.0 : pieces[i].rate) * traffic_.scale;
        const size_t next = i == SIZE_MAX ? 0 : i + 1;
        const bool last = next >= pieces.size();
        if (last) {
          if (rate <= 0) return kNever;
          const SimTime dt = ToNanos(budget / rate);
          return dt == kNever ? kNever : t + dt;
        }
        const double span_s = static_cast<double>(pieces[next].at - t) / 1e9;
        if (rate * span_s >= budget) return t + ToNanos(budget / rate);
        budget -= rate * span_s;
        t = pieces[next].at;
        i = next;
      }
    }
    case ArrivalKind::kReplay:
      return NextRecorded();
    case ArrivalKind::kCounts:
      return NextCounted();
    case ArrivalKind::kDiurnal: {
      const double peak = traffic_.diurnal_mean * (1 + traffic_.diurnal_amplitude) * traffic_.scale;
      if (peak <= 0) return kNever;
      SimTime t = now;
      while (true) {  // thinning
        t += ToNanos(stream_.Exponential(1.0 / peak));
        if (stream_.Uniform01() * peak < RateAt(t)) return t;
      }
    }
  }
  return kNever;
}

int64_t ArrivalProcess::ScaledCount(double n) {
  const double scaled = n * traffic_.scale;
  const double whole = std::floor(scaled);
  const double frac = scaled - whole;
  int64_t count = static_cast<int64_t>(whole);
  if (frac > 0 && stream_.Uniform01() < frac) ++count;
  return count;
}

SimTime ArrivalProcess::NextRecorded() {
  if (copies_left_ > 0) {
    --copies_left_;
    return current_at_;
  }
  const RecordedArrivals* rec = traffic_.replay.get();
  while (rec != nullptr && index_ < rec->at.size()) {
    const size_t i = index_++;
    const int64_t copies = traffic_.scale == 1.0 ? 1 : ScaledCount(1.0);
    if (copies == 0) continue;
    current_at_ = rec->at[i];
    copies_left_ = copies - 1;
    recorded_work_.reset();
    if (!rec->work_s.empty()) recorded_work_ = rec->work_s[i];
    return current_at_;
  }
  return kNever;
}

SimTime ArrivalProcess::NextCounted() {
  const IntervalCounts& counts = traffic_.counts;
  while (interval_sent_ >= interval_count_) {
    if (++interval_ >= static_cast<int64_t>(counts.values.size())) return kNever;
    const auto n = static_cast<double>(counts.values[interval_]);
    interval_count_ = traffic_.scale == 1.0 ? counts.values[interval_] : ScaledCount(n);
    interval_sent_ = 0;
    interval_at_ = 0;
  }
  const double step = static_cast<double>(counts.step);
  const double u = stream_.Uniform01();
  double place = 0;  // in [0, 1) of the interval
  if (counts.spread == CountSpread::kEven) {
    place = (static_cast<double>(interval_sent_) + u) / static_cast<double>(interval_count_);
  } else {
    const auto remaining = static_cast<double>(interval_count_ - interval_sent_);
    interval_at_ += (1 - interval_at_) * (1 - std::pow(1 - u, 1 / remaining));
    place = std::min(interval_at_, std::nextafter(1.0, 0.0));
  }
  ++interval_sent_;
  return interval_ * counts.step + static_cast<SimTime>(place * step);
}

double DrawWorkSeconds(const WorkModel& model, RandomStream& stream) {
  switch (model.dist) {
    case WorkDistribution::kConstant:
      return model.mean_s;
    case WorkDistribution::kExponential:
      return stream.Exponential(model.mean_s);
    case WorkDistribution::kLognormal:
      return stream.LogNormal(model.mean_s, model.cv);
    case WorkDistribution::kGamma: {
      if (model.cv <= 0) return model.mean_s;
      const double shape = 1.0 / (model.cv * model.cv);
      return stream.Gamma(shape, model.mean_s / shape);
    }
  }
  return model.mean_s;
}

Traffic PodCountsTraffic(const Traffic& traffic, size_t k) {
  Traffic out;
  out.kind = ArrivalKind::kCounts;
  out.scale = traffic.scale;
  out.counts.step = traffic.counts.step;
  out.counts.spread = traffic.counts.spread;
  out.counts.values = traffic.counts.per_pod.at(k).values;
  out.counts.source = traffic.counts.source;
  return out;
}

namespace {
// Arrivals of counts over [0, d] ns, the interval d ends in prorated.
double CountedArrivals(const std::vector<int64_t>& values, SimTime step, double d) {
  double arrivals = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double from = static_cast<double>(i) * static_cast<double>(step);
    const double part = std::clamp((d - from) / static_cast<double>(step), 0.0, 1.0);
    arrivals += part * static_cast<double>(values[i]);
  }
  return arrivals;
}
}  // namespace

double MeanRate(const Traffic& t, SimTime duration) {
  const double d = static_cast<double>(duration);
  if (!(d > 0)) return 0;
  double mean = 0;
  switch (t.kind) {
    case ArrivalKind::kNone:
      return 0;
    case ArrivalKind::kPoisson:
      mean = t.rate;
      break;
    case ArrivalKind::kPiecewise: {
      double area = 0;
      for (size_t i = 0; i < t.pieces.size(); ++i) {
        const double from = static_cast<double>(t.pieces[i].at);
        const double to = i + 1 < t.pieces.size() ? static_cast<double>(t.pieces[i + 1].at) : d;
        const double a = std::min(from, d), b = std::min(to, d);
        if (b > a) area += t.pieces[i].rate * (b - a);
      }
      mean = area / d;
      break;
    }
    case ArrivalKind::kReplay: {
      const std::vector<SimTime>& at = t.replay->at;
      const auto within = std::lower_bound(at.begin(), at.end(), duration) - at.begin();
      mean = static_cast<double>(within) / (d / 1e9);
      break;
    }
    case ArrivalKind::kCounts: {
      double arrivals = CountedArrivals(t.counts.values, t.counts.step, d);
      for (const PodCounts& pod : t.counts.per_pod)
        arrivals += CountedArrivals(pod.values, t.counts.step, d);
      mean = arrivals / (d / 1e9);
      break;
    }
    case ArrivalKind::kDiurnal: {
      // mean · (1 + A cos(2π (s - peak) / P)) integrated over [0, d].
      const double p = static_cast<double>(t.diurnal_period);
      const double peak = static_cast<double>(t.diurnal_peak_at);
      const double k = 2 * std::numbers::pi / p;
      const double wave = (std::sin(k * (d - peak)) - std::sin(k * (0 - peak))) / k;
      mean = t.diurnal_mean * (1 + t.diurnal_amplitude * wave / d);
      break;
    }
  }
  return mean * t.scale;
}

}  // namespace knobsim
