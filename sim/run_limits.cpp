#include "sim/run_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "sim/text.h"
#include "sim/traffic.h"

namespace knobsim {
namespace {

struct LimitName {
  std::string_view name;
  double RunLimits::*real;
  int64_t RunLimits::*whole;
};

constexpr LimitName kLimitNames[] = {
    {"rate", &RunLimits::rate_per_s, nullptr},
    {"nodes", nullptr, &RunLimits::nodes},
    {"pods", nullptr, &RunLimits::pods},
    {"replicas", nullptr, &RunLimits::replicas},
    {"events", &RunLimits::events, nullptr},
    {"timeline-memory", &RunLimits::timeline_bytes, nullptr},
    {"explain-rows", nullptr, &RunLimits::explain_rows},
};

// The highest rate the traffic reaches (per second, scaled); recorded traffic has none to cap
// (its arrivals are counted by EstimatedEvents).
double PeakRate(const Traffic& t) {
  switch (t.kind) {
    case ArrivalKind::kPoisson:
      return t.rate * t.scale;
    case ArrivalKind::kPiecewise: {
      double peak = 0;
      for (const RatePoint& p : t.pieces) peak = std::max(peak, p.rate);
      return peak * t.scale;
    }
    case ArrivalKind::kDiurnal:
      return t.diurnal_mean * (1 + t.diurnal_amplitude) * t.scale;
    case ArrivalKind::kReplay:
    case ArrivalKind::kCounts:
    case ArrivalKind::kNone:
      break;
  }
  return 0;
}

SimTime Duration(const Sweep& sweep, const Scenario& s) {
  return sweep.duration > 0 ? sweep.duration : s.run.duration;
}

int64_t Nodes(const Scenario& s) {
  int64_t nodes = 0;
  for (const NodePool& p : s.node_pools) nodes += std::max(p.slots(), 0);
  return nodes;
}

int64_t Cards(const Scenario& s) {
  int64_t cards = 0;
  for (const NodePool& p : s.node_pools) {
    cards += static_cast<int64_t>(std::max(p.slots(), 0)) * std::max(p.card_slots(), 0);
  }
  return cards;
}

int64_t Pods(const Scenario& s) {
  int64_t pods = 0;
  for (const Workload& w : s.workloads) pods += std::max(w.replicas, 0);
  return pods;
}

// The speed of the fastest card type of the scenario's pools (1 without any).
double FastestCardSpeed(const Scenario& s) {
  double fastest = 1;
  for (const NodePool& p : s.node_pools)
    if (const GpuType* gpu = s.catalog.Find(p.gpu_type)) fastest = std::max(fastest, gpu->speed);
  return fastest;
}

// One run's expected arrivals plus its pods and nodes.
double RunEvents(const Scenario& s, SimTime duration) {
  double events = static_cast<double>(Pods(s) + Nodes(s));
  const double seconds = static_cast<double>(duration) / kNanosPerSecond;
  for (const Workload& w : s.workloads) {
    if (w.closed_loop) {
      // Each loop of each pod turns at most once per (think + CPU stages + the work alone on
      // the fastest card): a bound, not the likely count.
      const double turn_s =
          static_cast<double>(w.closed_loop->think + w.cpu_before + w.cpu_after) / kNanosPerSecond +
          w.work.mean_s / FastestCardSpeed(s);
      events += static_cast<double>(std::max(w.replicas, 0)) * w.closed_loop->in_flight *
                (turn_s > 0 ? seconds / turn_s : std::numeric_limits<double>::infinity());
    }
    if (w.traffic.kind == ArrivalKind::kNone) continue;
    const double rate = MeanRate(w.traffic, duration);
    // A NaN or infinite rate (1e308 × a scale) counts as infinitely many events.
    events += std::isfinite(rate) ? rate * seconds : std::numeric_limits<double>::infinity();
  }
  return events;
}

std::string Number(double x) {
  if (!std::isfinite(x)) return "infinitely many";
  if (std::fabs(x) < 1e6 && x == std::floor(x)) return fmt::format("{:.0f}", x);
  return fmt::format("{:.3g}", x);
}

std::string Bytes(double bytes) {
  if (!std::isfinite(bytes)) return "unbounded";
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit + 1 < 7) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{:.3g} {}", bytes, kUnits[unit]);
}

std::string Raise(const Sweep& sweep, std::string_view name) {
  return fmt::format("raise it with {} {}=N (docs/limits.md)", sweep.raise_hint, name);
}

std::string Where(const SweepRun& run) {
  return run.variant.empty() ? "" : run.variant + ": ";
}

Status CheckRunSize(const Sweep& sweep, const SweepRun& run, const RunLimits& limits) {
  const Scenario& s = *run.scenario;
  for (const Workload& w : s.workloads) {
    const double peak = PeakRate(w.traffic);
    if (!(peak <= limits.rate_per_s)) {  // NaN included
      return Status::Failure(fmt::format(
          "{}workload {}: a traffic rate of {}/s (scaled) is over the limit of {}/s per "
          "workload; a rate that high never lets simulated time advance; {}",
          Where(run), w.name, fmt::format("{:.3g}", peak), fmt::format("{:.3g}", limits.rate_per_s),
          Raise(sweep, "rate")));
    }
    if (w.replicas > limits.replicas) {
      return Status::Failure(
          fmt::format("{}workload {}: {} replicas are over the limit of {} per "
                      "workload; {}",
                      Where(run), w.name, w.replicas, limits.replicas, Raise(sweep, "replicas")));
    }
  }
  if (const int64_t nodes = Nodes(s); nodes > limits.nodes) {
    return Status::Failure(
        fmt::format("{}{} nodes (all pools) are over the limit of {} per run; {}", Where(run),
                    nodes, limits.nodes, Raise(sweep, "nodes")));
  }
  if (const int64_t pods = Pods(s); pods > limits.pods) {
    return Status::Failure(fmt::format(
        "{}{} pods (the replicas of all workloads) are over the limit of {} per run; {}",
        Where(run), pods, limits.pods, Raise(sweep, "pods")));
  }
  return Status::Ok();
}

}  // namespace

Status SetRunLimit(std::string_view text, RunLimits* limits) {
  std::vector<std::string> names;
  for (const LimitName& n : kLimitNames) names.emplace_back(n.name);
  const std::string accepted = "NAME=VALUE with NAME one of " + Join(names);
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return Status::Failure("--limit: " + Quote(text) + " is not " + accepted);
  }
  const std::string_view name = text.substr(0, eq), value = text.substr(eq + 1);
  const auto* known = std::find_if(std::begin(kLimitNames), std::end(kLimitNames),
                                   [&](const LimitName& n) { return n.name == name; });
  if (known == std::end(kLimitNames)) {
    return Status::Failure("--limit: unknown limit " + Quote(name) + "; " + accepted);
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v) || v <= 0) {
    return Status::Failure("--limit " + std::string(name) + ": " + Quote(value) +
                           " is not a positive finite number");
  }
  if (known->real != nullptr) {
    limits->*(known->real) = v;
  } else {
    if (v != std::floor(v) || v > 2e9) {
      return Status::Failure("--limit " + std::string(name) + ": " + Quote(value) +
                             " is not a whole number up to 2000000000");
    }
    limits->*(known->whole) = static_cast<int64_t>(v);
  }
  return Status::Ok();
}

double EstimatedEvents(const Sweep& sweep) {
  double events = 0;
  for (const SweepRun& run : sweep.runs) {
    events += RunEvents(*run.scenario, Duration(sweep, *run.scenario)) * sweep.replications;
  }
  return events;
}

double EstimatedTimelineBytes(const Sweep& sweep) {
  if (sweep.timeline_step <= 0) return 0;
  double bytes = 0;
  for (const SweepRun& run : sweep.runs) {
    const Scenario& s = *run.scenario;
    const double steps = std::ceil(static_cast<double>(Duration(sweep, s)) /
                                   static_cast<double>(sweep.timeline_step));
    const double series = static_cast<double>(s.workloads.size()) + static_cast<double>(Cards(s));
    bytes +=
        steps * series * (kTimelineBytesPerPoint + sweep.replications * kTimelineBytesPerKeptPoint);
  }
  return bytes;
}

Status CheckRunLimits(const Sweep& sweep, const RunLimits& limits) {
  for (const SweepRun& run : sweep.runs) {
    if (Status s = CheckRunSize(sweep, run, limits); !s) return s;
  }
  if (const double events = EstimatedEvents(sweep); !(events <= limits.events)) {
    return Status::Failure(fmt::format(
        "the runs would simulate about {} events (expected arrivals: rate × duration, over {} "
        "variant(s) × {} replication(s), plus pods and nodes), over the budget of {}; shorten "
        "--duration, lower the traffic or the replications, or {}",
        Number(events), sweep.runs.size(), sweep.replications, Number(limits.events),
        Raise(sweep, "events")));
  }
  if (const double bytes = EstimatedTimelineBytes(sweep); !(bytes <= limits.timeline_bytes)) {
    return Status::Failure(fmt::format(
        "the timeline would take about {} (steps × (workloads + cards) × {} per point, over "
        "{} variant(s)), over the limit of {}; take a longer step, or {}",
        Bytes(bytes), Bytes(kTimelineBytesPerPoint), sweep.runs.size(),
        Bytes(limits.timeline_bytes), Raise(sweep, "timeline-memory")));
  }
  return Status::Ok();
}

Status CheckScheduleLimits(int64_t nodes, int64_t bound_pods, int64_t pending_pods, bool explain,
                           const RunLimits& limits) {
  const auto raise = [](std::string_view name) {
    return fmt::format("raise it with --limit {}=N (docs/limits.md)", name);
  };
  if (nodes > limits.nodes) {
    return Status::Failure(fmt::format("--cluster: {} nodes are over the limit of {}; {}", nodes,
                                       limits.nodes, raise("nodes")));
  }
  if (bound_pods + pending_pods > limits.pods) {
    return Status::Failure(fmt::format(
        "{} pods ({} bound in --cluster, {} pending in --pods) are over the limit of {}; {}",
        bound_pods + pending_pods, bound_pods, pending_pods, limits.pods, raise("pods")));
  }
  // Both at most the limits above (2e9 each): the product fits a double exactly enough.
  const double rows = static_cast<double>(pending_pods) * static_cast<double>(nodes);
  if (explain && rows > static_cast<double>(limits.explain_rows)) {
    return Status::Failure(fmt::format(
        "--explain: {} pending pods × {} nodes make {:.3g} table rows, over the limit of {}; "
        "explain a few pods (give them in a --pods file of their own) or {}",
        pending_pods, nodes, rows, limits.explain_rows, raise("explain-rows")));
  }
  return Status::Ok();
}

}  // namespace knobsim
