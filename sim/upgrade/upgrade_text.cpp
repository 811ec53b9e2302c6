#include "sim/upgrade/upgrade_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "sim/text.h"

namespace knobsim {

namespace {

constexpr std::string_view kDash = "\xE2\x80\x94";  // —

size_t Width(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Columns padded to their widest cell (in characters, not bytes); numbers right-aligned.
class Columns {
 public:
  explicit Columns(std::vector<std::string> head, std::vector<bool> right)
      : right_(std::move(right)) {
    rows_.push_back(std::move(head));
  }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.size() <= 1; }  // the header row only
  std::string Render(std::string_view indent = "  ") const {
    std::vector<size_t> w(rows_.front().size(), 0);
    for (const auto& row : rows_)
      for (size_t c = 0; c < row.size() && c < w.size(); ++c) w[c] = std::max(w[c], Width(row[c]));
    std::string out;
    for (const auto& row : rows_) {
      std::string line(indent);
      for (size_t c = 0; c < row.size() && c < w.size(); ++c) {
        const std::string pad(w[c] - Width(row[c]), ' ');
        const bool last = c + 1 == row.size();
        if (c > 0) line += "  ";
        line += right_[c] ? pad + row[c] : row[c] + (last ? "" : pad);
      }
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

struct CauseInfo {
  const char* key;
  const char* label;  // as the verdict says it: "7 OOM errors"
  int64_t ErrorCounts::*field;
};

constexpr std::array<CauseInfo, 5> kCauses = {{
    {"oom", "OOM", &ErrorCounts::oom},
    {"fake_ready", "fake-Ready", &ErrorCounts::fake_ready},
    {"no_replica", "no-replica", &ErrorCounts::no_replica},
    {"interrupted", "interrupted", &ErrorCounts::interrupted},
    {"timeout", "timeout", &ErrorCounts::timeout},
}};

struct CauseTotal {
  int64_t count = 0;
  SimTime first = -1;
  std::string first_workload;
};

// Per cause, over the whole run: from the timeline when there is one (its points cover every
// request), else the run's post-warm-up counts without a time.
std::array<CauseTotal, kCauses.size()> CauseTotals(const UpgradeRun& run) {
  std::array<CauseTotal, kCauses.size()> totals;
  const RunTimeline& t = run.run.timeline;
  if (t.step > 0) {
    for (const WorkloadTimeline& w : t.workloads) {
      for (const TimelinePoint& p : w.points) {
        for (size_t c = 0; c < kCauses.size(); ++c) {
          const int64_t n = p.errors.*kCauses[c].field;
          if (n <= 0) continue;
          totals[c].count += n;
          if (totals[c].first < 0 || p.start < totals[c].first) {
            totals[c].first = p.start;
            totals[c].first_workload = w.namespace_ + "/" + w.name;
          }
        }
      }
    }
    return totals;
  }
  for (const WorkloadResult& w : run.run.workloads) {
    for (size_t c = 0; c < kCauses.size(); ++c) totals[c].count += w.errors.*kCauses[c].field;
  }
  return totals;
}

// The spans in which a node was being upgraded: from a cordon to the next uncordon, or to its
// return when no uncordon is recorded after it; an open span lasts to the end of the run.
std::vector<std::pair<SimTime, SimTime>> BusySpans(const NodeUpgrade& n) {
  std::vector<std::pair<SimTime, SimTime>> spans;
  SimTime open = -1;
  for (const NodeStep& s : n.steps) {
    if (s.what == "cordoned" && open < 0) {
      open = s.at;
    } else if ((s.what == "uncordoned" || s.what == "back") && open >= 0) {
      spans.emplace_back(open, s.at);
      open = -1;
    }
  }
  if (open >= 0) spans.emplace_back(open, std::numeric_limits<SimTime>::max());
  return spans;
}

// The nodes being upgraded at some time in [from, to) (a timeline step).
std::vector<std::string> NodesBusyIn(const UpgradeTimeline& u, SimTime from, SimTime to) {
  std::vector<std::string> names;
  for (const NodeUpgrade& n : u.nodes) {
    for (const auto& [a, b] : BusySpans(n)) {
      if (a < to && b > from) {
        names.push_back(n.node);
        break;
      }
    }
  }
  return names;
}

// The node that came back last before `t`, "" when none had.
std::string LastBackBefore(const UpgradeTimeline& u, SimTime t) {
  std::string name;
  SimTime best = -1;
  for (const NodeUpgrade& n : u.nodes) {
    if (n.back >= 0 && n.back < t && n.back >= best) {
      best = n.back;
      name = n.node;
    }
  }
  return name;
}

// Where an error that began in the step at `start` came from, in words: the nodes under upgrade
// then and the last one back before it (its pods may be the ones failing).
std::string ErrorContext(const UpgradeRun& run, SimTime start) {
  const SimTime step = run.run.timeline.step > 0 ? run.run.timeline.step : 1;
  if (run.upgrade.started < 0 || start + step <= run.upgrade.started) return "before the upgrade";
  const std::vector<std::string> busy = NodesBusyIn(run.upgrade, start, start + step);
  const std::string back = LastBackBefore(run.upgrade, start + step);
  std::vector<std::string> parts;
  if (!busy.empty()) parts.push_back(Join(busy) + " being upgraded");
  if (!back.empty() && std::find(busy.begin(), busy.end(), back) == busy.end()) {
    parts.push_back("after " + back + " came back");
  }
  return Join(parts);
}

std::string NotFinishedWhy(const UpgradeTimeline& u) {
  std::vector<std::string> parts;
  for (const NodeUpgrade& n : u.nodes) {
    if (n.outcome == "upgraded") continue;
    std::string part = n.node + " " + n.outcome;
    if (n.outcome == "blocked") {
      std::vector<std::string> by;
      for (const BlockedDrain& b : u.blocked) {
        if (b.node == n.node && (b.until < 0 || b.gave_up)) by.push_back(b.pod + " by " + b.budget);
      }
      if (!by.empty()) part += " (eviction of " + Join(by) + " refused)";
    }
    parts.push_back(part);
  }
  if (parts.empty()) return "the run ended before the last node was back";
  return Join(parts);
}

std::string Count(int64_t n) {
  return std::to_string(n);
}

std::string PercentOrDash(double fraction) {
  return std::isfinite(fraction) ? Percent(fraction, 1, " %") : std::string(kDash);
}

std::string Ms(double ms) {
  if (!std::isfinite(ms)) return std::string(kDash);
  return ms >= 100 ? fmt::format("{:.0f}", ms) : fmt::format("{:.1f}", ms);
}

std::string AfterText(const NodeSettings& after) {
  std::vector<std::string> parts;
  if (after.isolation)
    parts.push_back(std::string("isolation=") +
                    (*after.isolation == MemoryIsolation::kHard ? "hard" : "soft"));
  if (after.policy) parts.push_back("policy=" + std::to_string(static_cast<int>(*after.policy)));
  if (after.cgpu_version) parts.push_back("cgpu_version=" + *after.cgpu_version);
  return parts.empty() ? "unchanged settings" : Join(parts, ",");
}

// p99 per step in one line of block characters, scaled to the workload's own maximum; "·" for
// a step in which nothing succeeded. Long runs are folded: each column is the worst of its steps.
std::string Sparkline(const WorkloadTimeline& w, size_t max_columns, double* max_ms,
                      SimTime* max_at) {
  static constexpr std::array<std::string_view, 8> kBlocks = {
      "\xE2\x96\x81", "\xE2\x96\x82", "\xE2\x96\x83", "\xE2\x96\x84",
      "\xE2\x96\x85", "\xE2\x96\x86", "\xE2\x96\x87", "\xE2\x96\x88"};
  const size_t n = w.points.size();
  const size_t per = std::max<size_t>(1, (n + max_columns - 1) / max_columns);
  std::vector<double> columns;
  *max_ms = std::numeric_limits<double>::quiet_NaN();
  *max_at = -1;
  for (size_t i = 0; i < n; i += per) {
    double v = std::numeric_limits<double>::quiet_NaN();
    for (size_t k = i; k < std::min(n, i + per); ++k) {
      const TimelinePoint& p = w.points[k];
      if (p.completed <= 0 || !std::isfinite(p.latency_p99_ms)) continue;
      if (!(v >= p.latency_p99_ms)) v = p.latency_p99_ms;
      if (!(*max_ms >= p.latency_p99_ms)) {
        *max_ms = p.latency_p99_ms;
        *max_at = p.start;
      }
    }
    columns.push_back(v);
  }
  std::string line;
  for (double v : columns) {
    if (!std::isfinite(v)) {
      line += "\xC2\xB7";  // ·
      continue;
    }
    const double f = *max_ms > 0 ? v / *max_ms : 0;
    const size_t level = std::min<size_t>(7, static_cast<size_t>(std::floor(f * 7.999)));
    line += kBlocks[level];
  }
  return line;
}

// "1 min", "30 s", "1.5 s": a step or an option's duration in words.
std::string StepText(SimTime t) {
  if (t > 0 && t % (60 * kNanosPerSecond) == 0)
    return fmt::format("{} min", t / (60 * kNanosPerSecond));
  return fmt::format("{:g} s", static_cast<double>(t) / kNanosPerSecond);
}

std::string PlanLine(const UpgradeRun& run, const UpgradeOptions& o) {
  static constexpr std::array<std::string_view, 3> kOrder = {"pool by pool", "zone by zone",
                                                             "in the order given"};
  return fmt::format(
      "  plan: {} node(s) {}, {} at a time, reset {}, drain timeout {}, back with {}\n",
      run.upgrade.nodes.size(), kOrder[static_cast<size_t>(o.order)], o.max_unavailable,
      StepText(o.reset_time), o.drain_timeout > 0 ? StepText(o.drain_timeout) : "none",
      AfterText(o.after));
}

// Greedy word wrap at `width` characters; the paragraph keeps its words in order.
std::string Wrap(const std::string& text, size_t width) {
  std::string out, line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && Width(line) + 1 + Width(word) > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line + "\n";
}

std::string Headline(const UpgradeRun& run, const UpgradeBreakage& b) {
  std::string out = run.name + ": ";
  if (b.finished) {
    out += fmt::format("finished in {} after the first cordon ({} to {})",
                       SpanText(run.upgrade.finished - run.upgrade.started),
                       RunTimeText(run.upgrade.started), RunTimeText(run.upgrade.finished));
  } else {
    out += "not finished: " + b.not_finished;
  }
  return out + "\n";
}

std::string BrokeLine(const UpgradeRun& run, const UpgradeBreakage& b) {
  std::vector<std::string> parts;
  if (b.oom > 0 || b.fake_ready > 0) {
    std::vector<std::string> kinds;
    if (b.oom > 0) kinds.push_back(Count(b.oom) + " OOM");
    if (b.fake_ready > 0) kinds.push_back(Count(b.fake_ready) + " fake-Ready");
    std::string s = Join(kinds, " and ") + " errors";
    if (b.first_error >= 0) {
      s += " from " + RunTimeText(b.first_error);
      const std::string ctx = ErrorContext(run, b.first_error);
      if (!ctx.empty()) s += " (" + ctx + ")";
    }
    parts.push_back(s);
  }
  if (!b.outages.empty()) parts.push_back("outage: " + Join(b.outages));
  if (!b.broken_pods.empty()) parts.push_back(Join(b.broken_pods) + " at the end");
  return Join(parts, "; ");
}

std::string NodeSection(const UpgradeRun& run) {
  const UpgradeTimeline& u = run.upgrade;
  std::string out = "Nodes (in upgrade order):\n";
  if (u.nodes.empty()) return out + "  none\n";
  Columns t({"node", "pool", "zone", "cordoned", "drained", "back", "attempts", "429s", "outcome"},
            {false, false, false, false, false, false, true, true, false});
  for (const NodeUpgrade& n : u.nodes) {
    t.Add({n.node, n.pool, n.zone, RunTimeText(n.cordoned), RunTimeText(n.drained),
           RunTimeText(n.back), std::to_string(n.attempts), std::to_string(n.refusals), n.outcome});
  }
  return out + t.Render();
}

std::string BlockedSection(const UpgradeRun& run) {
  const UpgradeTimeline& u = run.upgrade;
  std::string out = "Blocked drains:\n";
  if (u.blocked.empty()) return out + "  none: every eviction was accepted at once\n";
  Columns t({"node", "pod", "budget", "from", "until", "429s", "gave up"},
            {false, false, false, false, false, true, false});
  for (const BlockedDrain& b : u.blocked) {
    t.Add({b.node, b.pod, b.budget, RunTimeText(b.from),
           b.until < 0 ? "the end" : RunTimeText(b.until), std::to_string(b.refusals),
           b.gave_up ? "yes" : "no"});
  }
  out += t.Render();
  // The causes once each, as the API server worded them (they are long).
  std::vector<std::string> seen;
  for (const BlockedDrain& b : u.blocked) {
    if (b.cause.empty() || std::find(seen.begin(), seen.end(), b.cause) != seen.end()) continue;
    seen.push_back(b.cause);
    out += "  429 (" + b.budget + "): " + b.cause + "\n";
  }
  return out;
}

std::string AvailabilitySection(const UpgradeRun& run) {
  const RunTimeline& t = run.run.timeline;
  std::string out =
      "Availability (a pod is available when Ready with its model loaded; a fake-Ready pod never "
      "is):\n";
  if (t.step <= 0) return out + "  no timeline was collected\n";
  Columns c({"workload", "desired", "available", "below desired", "none available", "min available",
             "Ready, not available"},
            {false, true, true, true, true, true, true});
  for (const WorkloadTimeline& w : t.workloads) {
    int min_available = w.desired;
    double gap = 0;  // the largest step-mean of Ready pods that were not available
    for (const TimelinePoint& p : w.points) {
      min_available = std::min(min_available, p.available_min);
      gap = std::max(gap, p.ready_mean - p.available_mean);
    }
    c.Add({w.namespace_ + "/" + w.name, std::to_string(w.desired),
           PercentOrDash(w.available_fraction), SpanText(w.below_desired_ns),
           SpanText(w.unavailable_ns),
           w.points.empty() ? std::string(kDash) : std::to_string(min_available),
           gap > 0.005 ? fmt::format("up to {:.1f}", gap) : "0"});
  }
  return out + c.Render();
}

// Per cause and workload: the errors from the step the upgrade started in to the end, the step
// the first of them fell in and what the upgrade was doing then. Errors before that step
// (the start-up the run replays, the warm-up) are not the upgrade's doing: their own column.
std::string ErrorSection(const UpgradeRun& run) {
  const RunTimeline& t = run.run.timeline;
  if (t.step <= 0) {
    const auto totals = CauseTotals(run);
    std::string out = "Errors by cause (after warm-up; no timeline, so no times):\n";
    Columns c({"cause", "requests"}, {false, true});
    for (size_t i = 0; i < kCauses.size(); ++i)
      if (totals[i].count > 0) c.Add({kCauses[i].key, Count(totals[i].count)});
    return out + (c.empty() ? std::string("  none\n") : c.Render());
  }
  const SimTime from = run.upgrade.started >= 0 ? run.upgrade.started / t.step * t.step : t.end;
  std::string out = "Errors by cause and workload (from " + RunTimeText(from) +
                    ", the step the upgrade started in; before = start-up and warm-up):\n";
  Columns c({"cause", "workload", "requests", "before", "first", "while"},
            {false, false, true, true, false, false});
  for (size_t i = 0; i < kCauses.size(); ++i) {
    for (const WorkloadTimeline& w : t.workloads) {
      int64_t during = 0, before = 0;
      SimTime first = -1;
      for (const TimelinePoint& p : w.points) {
        const int64_t n = p.errors.*kCauses[i].field;
        if (n <= 0) continue;
        if (p.start < from) {
          before += n;
          continue;
        }
        during += n;
        if (first < 0) first = p.start;
      }
      if (during + before == 0) continue;
      c.Add({kCauses[i].key, w.namespace_ + "/" + w.name, Count(during), Count(before),
             first >= 0 ? RunTimeText(first) : std::string(kDash),
             first >= 0 ? ErrorContext(run, first) : ""});
    }
  }
  if (c.empty()) return out + "  none\n";
  return out + c.Render();
}

std::string LatencySection(const UpgradeRun& run) {
  const RunTimeline& t = run.run.timeline;
  if (t.step <= 0) return "p99 latency over time: no timeline was collected\n";
  std::string out = "p99 latency per " + StepText(t.step) + " step (ms; \xC2\xB7 = no success):\n";
  size_t name_w = 0;
  for (const WorkloadTimeline& w : t.workloads)
    name_w = std::max(name_w, Width(w.namespace_ + "/" + w.name));
  for (const WorkloadTimeline& w : t.workloads) {
    int64_t arrivals = 0;
    for (const TimelinePoint& p : w.points) arrivals += p.arrivals;
    if (arrivals == 0) continue;  // no traffic (etcd, a database): no latency to show
    double max_ms = 0;
    SimTime max_at = -1;
    const std::string line = Sparkline(w, 72, &max_ms, &max_at);
    const std::string id = w.namespace_ + "/" + w.name;
    out += "  " + id + std::string(name_w - Width(id), ' ') + "  " + line;
    if (std::isfinite(max_ms)) out += "  max " + Ms(max_ms) + " at " + RunTimeText(max_at);
    out += "\n";
  }
  return out;
}

std::string PodSection(const UpgradeRun& run) {
  std::string out = "Pods not Running at the end:\n";
  Columns c({"pod", "state", "node", "message"}, {false, false, false, false});
  bool any = false;
  for (const PodResult& p : run.run.pods) {
    if (p.state == "Running") continue;
    any = true;
    c.Add({p.namespace_ + "/" + p.name, p.state, p.node.empty() ? std::string(kDash) : p.node,
           p.message});
  }
  if (!any) return out + "  none\n";
  return out + c.Render();
}

std::string QuotaSection(const UpgradeRun& run) {
  if (run.quota_fixes.empty()) return "";
  std::string out = "Quota fixes applied before the upgrade (gpu-mem per pod):\n";
  Columns c({"workload", "gpu-mem", "peak", "note"}, {false, false, true, false});
  for (const QuotaFix& f : run.quota_fixes) {
    c.Add({f.workload,
           f.to_units == f.from_units
               ? fmt::format("{} GiB (kept)", f.from_units)
               : fmt::format("{} \xE2\x86\x92 {} GiB", f.from_units, f.to_units),
           f.peak_mib > 0 ? fmt::format("{} MiB", f.peak_mib) : std::string("unbounded"), f.note});
  }
  return out + c.Render();
}

}  // namespace

bool IsBrokenPodState(const std::string& state) {
  return state == "ImagePullBackOff" || state == "CrashLoopBackOff" || state == "FakeReady";
}

UpgradeBreakage JudgeUpgrade(const UpgradeRun& run) {
  UpgradeBreakage b;
  b.finished = run.upgrade.finished >= 0;
  if (!b.finished) b.not_finished = NotFinishedWhy(run.upgrade);
  const auto totals = CauseTotals(run);
  b.oom = totals[0].count;
  b.fake_ready = totals[1].count;
  for (size_t c : {size_t{0}, size_t{1}}) {
    if (totals[c].first >= 0 && (b.first_error < 0 || totals[c].first < b.first_error)) {
      b.first_error = totals[c].first;
    }
  }
  for (const PodResult& p : run.run.pods) {
    if (IsBrokenPodState(p.state))
      b.broken_pods.push_back(p.namespace_ + "/" + p.name + " " + p.state);
  }
  const RunTimeline& t = run.run.timeline;
  if (t.step > 0 && run.upgrade.started >= 0) {
    for (const WorkloadTimeline& w : t.workloads) {
      SimTime down = 0;
      int64_t none = 0;
      for (const TimelinePoint& p : w.points) {
        if (p.start + t.step <= run.upgrade.started) continue;  // before the upgrade's step
        const double wanted = p.desired_mean > 0 ? p.desired_mean : w.desired;
        // The last step may end early, with the run.
        if (wanted > 0 && p.available_mean == 0) down += std::min(t.step, t.end - p.start);
        none += p.errors.no_replica;
      }
      if (down > 0) {
        b.outages.push_back(
            fmt::format("{}/{} none available for {} ({} requests found no replica)", w.namespace_,
                        w.name, SpanText(down), Count(none)));
      }
    }
  }
  return b;
}

std::string RunTimeText(SimTime t) {
  if (t < 0) return std::string(kDash);
  const int64_t s = t / kNanosPerSecond;
  if (s >= 3600) return fmt::format("t+{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("t+{:02}:{:02}", s / 60, s % 60);
}

std::string SpanText(SimTime span) {
  if (span < 0) return std::string(kDash);
  const int64_t s = span / kNanosPerSecond;
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

std::string UpgradeRunText(const UpgradeRun& run, const UpgradeOptions& options) {
  const UpgradeBreakage b = JudgeUpgrade(run);
  std::string out = Headline(run, b) + PlanLine(run, options);
  const std::string broke = BrokeLine(run, b);
  out += "  broke: " + (broke.empty() ? std::string("nothing") : broke) + "\n\n";
  out += NodeSection(run) + "\n";
  out += BlockedSection(run) + "\n";
  out += AvailabilitySection(run) + "\n";
  out += ErrorSection(run) + "\n";
  out += LatencySection(run) + "\n";
  out += PodSection(run);
  if (const std::string q = QuotaSection(run); !q.empty()) out += "\n" + q;
  return out;
}

std::string UpgradeVerdictText(const std::vector<UpgradeRun>& runs) {
  std::vector<std::string> sentences;
  for (const UpgradeRun& r : runs) {
    const UpgradeBreakage b = JudgeUpgrade(r);
    const std::string broke = BrokeLine(r, b);
    std::string s = r.name + ": " + (broke.empty() ? "none" : broke);
    if (!b.finished) {
      s += (broke.empty() ? ", but not finished (" : "; not finished (") + b.not_finished + ")";
    } else {
      s += "; done in " + SpanText(r.upgrade.finished - r.upgrade.started);
    }
    sentences.push_back(s);
  }
  return Wrap("Verdict: " + Join(sentences, ". ") + ".", 100);
}

std::string UpgradeText(const std::vector<UpgradeRun>& runs, const UpgradeOptions& options) {
  std::string out;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (i > 0) out += "\n";
    out += UpgradeRunText(runs[i], options);
  }
  if (runs.size() >= 2) out += "\n" + UpgradeVerdictText(runs);
  return out;
}

}  // namespace knobsim
