#include "sim/io/results_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/text.h"

namespace knobsim {

namespace {

constexpr std::string_view kNone = "—";

// Display columns of UTF-8 text: every code point here (✓ ✗ ± → — …) is one column wide.
size_t Width(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string PadLeft(std::string_view s, size_t w) {
  const size_t n = Width(s);
  return std::string(w > n ? w - n : 0, ' ') + std::string(s);
}

std::string PadRight(std::string_view s, size_t w) {
  const size_t n = Width(s);
  return std::string(s) + std::string(w > n ? w - n : 0, ' ');
}

void TrimRight(std::string& s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
}

// Numbers: precision follows magnitude so that 0.84 ms and 2300 ms both read naturally.
std::string Num(double x) {
  if (!std::isfinite(x)) return std::string(kNone);
  const double a = std::fabs(x);
  if (a >= 100 || x == 0) return fmt::format("{:.0f}", x);
  if (a >= 10) return fmt::format("{:.1f}", x);
  return fmt::format("{:.2f}", x);
}

std::string Count(const MeanCi& m, bool replicated) {
  if (!replicated) return fmt::format("{}", std::llround(m.mean));
  return fmt::format("{:.1f} ±{}", m.mean, Num(m.half_width));
}

std::string Real(const MeanCi& m, bool replicated) {
  if (!replicated) return Num(m.mean);
  return Num(m.mean) + " ±" + Num(m.half_width);
}

std::string PercentOrNone(double fraction) {
  return std::isfinite(fraction) ? Percent(fraction) : std::string(kNone);
}

std::string PercentCi(const MeanCi& m, bool replicated) {
  if (!replicated) return PercentOrNone(m.mean);
  return PercentOrNone(m.mean) + " ±" + fmt::format("{:.1f}", m.half_width * 100);
}

// Card percentages, compact: 62, 7.5, 0.
std::string ShortPercent(double fraction) {
  if (!std::isfinite(fraction)) return std::string(kNone);
  const double p = fraction * 100;
  if (std::fabs(p) < 0.05) return "0";
  return std::fabs(p) >= 10 || p == 0 ? fmt::format("{:.0f}", p) : fmt::format("{:.1f}", p);
}

std::string Plural(int n, std::string_view what) {
  return fmt::format("{} {} pod{}", n, what, n == 1 ? "" : "s");
}

// A table of labelled rows with one cell per variant, rendered in blocks that fit the width.
class Grid {
 public:
  explicit Grid(std::vector<std::string> columns) : columns_(std::move(columns)) {}

  // A section heading that also names the columns.
  void Header(std::string label) { rows_.push_back({Kind::kHeader, std::move(label), {}}); }
  // A line of its own (a workload or card name).
  void Title(std::string label) { rows_.push_back({Kind::kTitle, std::move(label), {}}); }
  void Values(std::string label, std::vector<std::string> cells) {
    cells.resize(columns_.size());
    rows_.push_back({Kind::kValues, std::move(label), std::move(cells)});
  }
  void Blank() { rows_.push_back({Kind::kTitle, "", {}}); }

  std::string Render(int width) const {
    size_t label_w = 0;
    std::vector<size_t> col_w(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) col_w[c] = Width(columns_[c]);
    for (const Row& r : rows_) {
      if (r.kind == Kind::kTitle) continue;
      label_w = std::max(label_w, Width(r.label));
      for (size_t c = 0; c < r.cells.size(); ++c) col_w[c] = std::max(col_w[c], Width(r.cells[c]));
    }
    // Blocks of columns; every block after the first repeats the base column for comparison.
    std::vector<std::vector<size_t>> blocks;
    size_t next = 1;
    blocks.push_back({0});
    size_t used = label_w + 2 + col_w[0];
    while (next < columns_.size()) {
      const size_t need = 2 + col_w[next];
      if (blocks.back().size() > 1 && used + need > static_cast<size_t>(width)) {
        blocks.push_back({0});
        used = label_w + 2 + col_w[0];
      }
      blocks.back().push_back(next++);
      used += need;
    }
    std::string out;
    for (size_t b = 0; b < blocks.size(); ++b) {
      if (b > 0) out += "\n";
      for (const Row& r : rows_) {
        std::string line;
        if (r.kind == Kind::kTitle) {
          line = r.label;
        } else {
          line = PadRight(r.label, label_w);
          for (size_t c : blocks[b]) {
            line += "  ";
            line += PadLeft(r.kind == Kind::kHeader ? columns_[c] : r.cells[c], col_w[c]);
          }
        }
        TrimRight(line);
        out += line + "\n";
      }
    }
    return out;
  }

 private:
  enum class Kind { kHeader, kTitle, kValues };
  struct Row {
    Kind kind;
    std::string label;
    std::vector<std::string> cells;
  };
  std::vector<std::string> columns_;
  std::vector<Row> rows_;
};

const WorkloadStats* FindWorkload(const VariantSummary& v, const std::string& name) {
  for (const WorkloadStats& w : v.workloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

const CardStats* FindCard(const VariantSummary& v, const std::string& node, int index) {
  for (const CardStats& c : v.cards) {
    if (c.node == node && c.index == index) return &c;
  }
  return nullptr;
}

// "SLO p99 ≤ 200 ms, errors ≤ 0.1%": goes on the workload's title line, not in the label
// column, so that the label column stays narrow.
std::string SloText(const Slo& slo) {
  std::string s = "SLO ";
  if (slo.latency > 0) {
    s += fmt::format("p{:g} ≤ {} ms, ", slo.percentile,
                     Num(static_cast<double>(slo.latency) / kNanosPerMilli));
  }
  s += fmt::format("errors ≤ {:g}%", slo.error_budget * 100);
  return s;
}

std::string SloCell(const WorkloadStats& w, int replications) {
  if (w.slo_met) return "✓";
  if (replications <= 1) return "✗";
  return fmt::format("✗ {}/{}", w.slo_met_replications, replications);
}

// A closed-loop job's rows (ClosedLoopStats): its pace, its step against the step alone, and
// when it finished.
template <class Row>
void AddClosedLoopRows(Row& row, bool rep) {
  auto stepping = [rep](const MeanCi ClosedLoopStats::*field) {
    return [rep, field](const WorkloadStats& w) {
      return w.loop.stepping_replications == 0 ? std::string(kNone) : Real(w.loop.*field, rep);
    };
  };
  row("steps/s", stepping(&ClosedLoopStats::steps_per_s));
  row("step ms", stepping(&ClosedLoopStats::step_ms_mean));
  row("step ms alone", stepping(&ClosedLoopStats::solo_step_ms));
  row("slowdown ×", stepping(&ClosedLoopStats::slowdown));
  row("completed at", [](const WorkloadStats& w) {
    return w.loop.completed_replications == 0 ? std::string("not within the run")
                                              : DurationText(w.loop.completion_s.mean);
  });
}

void AddWorkloads(const RunSetResult& r, Grid& g) {
  const bool rep = r.replications > 1;
  const auto& vs = r.variants;
  g.Header("WORKLOADS");
  for (const WorkloadStats& base : vs.front().workloads) {
    g.Title(base.name + "  (" + SloText(base.slo) + ")");
    auto row = [&](std::string label, auto cell) {
      std::vector<std::string> cells;
      for (const VariantSummary& v : vs) {
        const WorkloadStats* w = FindWorkload(v, base.name);
        cells.push_back(w == nullptr ? std::string(kNone) : cell(*w));
      }
      g.Values("  " + std::move(label), std::move(cells));
    };
    row("requests", [&](const WorkloadStats& w) { return Count(w.requests, rep); });
    row("completed", [&](const WorkloadStats& w) { return Count(w.completed, rep); });
    // Only the causes that occur anywhere, so that a healthy service takes one line.
    struct Cause {
      const char* label;
      MeanCi ErrorStats::*field;
    };
    const Cause causes[] = {{"errors: CUDA OOM", &ErrorStats::oom},
                            {"errors: fake-Ready", &ErrorStats::fake_ready},
                            {"errors: timeout", &ErrorStats::timeout},
                            {"errors: no replica", &ErrorStats::no_replica},
                            {"errors: interrupted", &ErrorStats::interrupted}};
    bool any_error = false;
    for (const Cause& c : causes) {
      bool occurs = false;
      for (const VariantSummary& v : vs) {
        const WorkloadStats* w = FindWorkload(v, base.name);
        occurs = occurs || (w != nullptr && (w->errors.*c.field).mean > 0);
      }
      if (!occurs) continue;
      any_error = true;
      row(c.label, [&](const WorkloadStats& w) { return Count(w.errors.*c.field, rep); });
    }
    if (!any_error) row("errors", [](const WorkloadStats&) { return std::string("0"); });
    row("error %", [&](const WorkloadStats& w) { return PercentCi(w.error_ratio, rep); });
    auto latency = [&](const MeanCi LatencyStats::*field) {
      return [&, field](const WorkloadStats& w) {
        return w.latency_replications == 0 ? std::string(kNone) : Real(w.latency_ms.*field, rep);
      };
    };
    row("latency p50 ms", latency(&LatencyStats::p50));
    row("latency p99 ms", latency(&LatencyStats::p99));
    row("throughput req/s", [&](const WorkloadStats& w) { return Real(w.throughput_rps, rep); });
    if (base.closed_loop) AddClosedLoopRows(row, rep);
    // The backlog rule's numbers (sim/slo_check.h), only where some variant missed it: the
    // verdict's "backlog grows" reason quotes them.
    bool backlog = false;
    for (const VariantSummary& v : vs) {
      const WorkloadStats* w = FindWorkload(v, base.name);
      backlog = backlog || (w != nullptr && w->backlog_met_replications < v.replications);
    }
    if (backlog) {
      row("unanswered at end", [&](const WorkloadStats& w) { return Count(w.in_system_end, rep); });
      row("unanswered overdue",
          [&](const WorkloadStats& w) { return Count(w.in_system_overdue, rep); });
      row("oldest unanswered", [](const WorkloadStats& w) {
        return w.in_system_oldest_ms.mean > 0 ? DurationText(w.in_system_oldest_ms.mean / 1e3)
                                              : std::string(kNone);
      });
    }
    row("SLO met", [&](const WorkloadStats& w) { return SloCell(w, r.replications); });
  }
}

void AddCluster(const RunSetResult& r, Grid& g) {
  const auto& vs = r.variants;
  g.Blank();
  g.Header(r.replications > 1 ? "CLUSTER (replication 0)" : "CLUSTER");
  auto row = [&](std::string label, auto cell) {
    std::vector<std::string> cells;
    for (const VariantSummary& v : vs) cells.push_back(cell(v.cluster));
    g.Values("  " + std::move(label), std::move(cells));
  };
  row("gpu-mem allocated (units)", [](const ClusterResult& c) {
    return fmt::format("{}/{} ({})", c.gpu_mem_allocated_units, c.gpu_mem_total_units,
                       PercentOrNone(c.allocation_ratio));
  });
  row("pending pods", [](const ClusterResult& c) { return fmt::format("{}", c.pending_pods); });
  row("preempted pods", [](const ClusterResult& c) { return fmt::format("{}", c.preempted_pods); });
  row("fake-Ready pods",
      [](const ClusterResult& c) { return fmt::format("{}", c.fake_ready_pods); });
  row("runtime CUDA OOM errors",
      [](const ClusterResult& c) { return fmt::format("{}", c.request_oom_errors); });
  // FGD's measure (docs/fgd-policies.md §5) against the scenario's own pods: the share of idle GPU
  // that the typical pods could not use.
  std::vector<std::string> frag;
  for (const VariantSummary& v : vs) {
    const FragmentationResult& f = v.fragmentation;
    frag.push_back(f.idle_milli > 0 ? fmt::format("{} of idle", PercentOrNone(f.frag_ratio))
                                    : std::string(kNone));
  }
  g.Values("  GPU fragmentation (FGD)", std::move(frag));
  // Autoscaled pools: the size over the run and what it cost in node-hours (the billing unit
  // of docs/prices.md), so a min/max knob shows its price beside its latency.
  // A priced fixed pool gets its row too: its cost is the comparison's other half.
  for (size_t p = 0; p < (vs.empty() ? 0 : vs.front().pools.size()); ++p) {
    bool shown = false;
    for (const VariantSummary& v : vs)
      shown |= p < v.pools.size() && (v.pools[p].autoscaled || !v.pools[p].currency.empty());
    if (!shown) continue;
    std::vector<std::string> cells;
    for (const VariantSummary& v : vs) {
      if (p >= v.pools.size()) {
        cells.emplace_back(kNone);
        continue;
      }
      const PoolResult& pool = v.pools[p];
      std::string cell = fmt::format("{:g}-{:g} (mean {:.1f}), {:.1f} node-h", pool.nodes_min,
                                     pool.nodes_max, pool.nodes_mean, pool.node_hours);
      if (!pool.currency.empty()) cell += fmt::format(", {:.2f} {}", pool.cost, pool.currency);
      cells.push_back(std::move(cell));
    }
    g.Values("  nodes " + vs.front().pools[p].name, std::move(cells));
  }
}

// Returns whether any card's peak exceeded its allocated quota (the footnote is then needed).
bool AddCards(const RunSetResult& r, Grid& g, int* idle_cards) {
  const auto& vs = r.variants;
  // Union of cards over variants (a variant may add nodes), base order first.
  std::vector<const CardStats*> cards;
  for (const VariantSummary& v : vs) {
    for (const CardStats& c : v.cards) {
      bool seen = false;
      for (const CardStats* k : cards) seen = seen || (k->node == c.node && k->index == c.index);
      if (!seen) cards.push_back(&c);
    }
  }
  bool with_switch = false;
  for (const VariantSummary& v : vs) {
    for (const CardStats& c : v.cards) with_switch = with_switch || c.switch_overhead.mean > 5e-4;
  }
  g.Blank();
  g.Header("CARDS");
  bool over_quota = false;
  *idle_cards = 0;
  for (const CardStats* card : cards) {
    bool idle = true;
    for (const VariantSummary& v : vs) {
      const CardStats* c = FindCard(v, card->node, card->index);
      idle = idle && (c == nullptr || (c->pods.empty() && c->busy.mean == 0));
    }
    if (idle) {
      ++*idle_cards;
      continue;
    }
    g.Title(fmt::format("{}/{} {}", card->node, card->index, card->gpu));
    std::vector<std::string> use, memory;
    for (const VariantSummary& v : vs) {
      const CardStats* c = FindCard(v, card->node, card->index);
      if (c == nullptr) {
        use.emplace_back(kNone);
        memory.emplace_back(kNone);
        continue;
      }
      std::string u = ShortPercent(c->busy.mean) + " / " + ShortPercent(c->effective.mean);
      if (with_switch) u += " / " + ShortPercent(c->switch_overhead.mean);
      use.push_back(u + " / " + ShortPercent(c->waste.mean));
      const bool over = c->memory_peak_mib.mean > c->memory_quota_mib.mean;
      over_quota = over_quota || over;
      memory.push_back(fmt::format("{:.0f} / {:.0f} / {:.0f}{}", c->memory_quota_mib.mean,
                                   c->memory_used_mib.mean, c->memory_peak_mib.mean,
                                   over ? " !" : ""));
    }
    g.Values(with_switch ? "  busy / eff / switch / waste %" : "  busy / eff / waste %",
             std::move(use));
    g.Values("  MiB quota / used / peak", std::move(memory));
  }
  return over_quota;
}

// Greedy word wrap; the first line has `first` columns, the others `rest`.
std::vector<std::string> Wrap(std::string_view text, size_t first, size_t rest) {
  std::vector<std::string> lines(1);
  size_t limit = std::max<size_t>(first, 20);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(pos, end - pos);
    std::string& line = lines.back();
    if (!line.empty() && Width(line) + 1 + Width(word) > limit) {
      lines.emplace_back(word);
      limit = std::max<size_t>(rest, 20);
    } else {
      if (!line.empty()) line += ' ';
      line += word;
    }
    pos = end + 1;
  }
  return lines;
}

std::string PodsNotRunning(const RunSetResult& r, const TableOptions& o) {
  std::string out =
      r.replications > 1 ? "PODS NOT RUNNING (replication 0)\n" : "PODS NOT RUNNING\n";
  for (const VariantSummary& v : r.variants) {
    std::vector<const PodResult*> bad;
    for (const PodResult& p : v.pods) {
      if (p.state != "Running") bad.push_back(&p);
    }
    if (bad.empty()) {
      out += v.pods.size() == 1 ? fmt::format("{}: its 1 pod is Running\n", v.name)
                                : fmt::format("{}: all {} pods Running\n", v.name, v.pods.size());
      continue;
    }
    out += fmt::format("{}: {} of {} pods not Running\n", v.name, bad.size(), v.pods.size());
    size_t name_w = 0, state_w = 0, where_w = 0;
    std::vector<std::string> where;
    for (const PodResult* p : bad) {
      std::string w = p->node.empty() ? std::string(kNone) : p->node;
      if (!p->cards.empty()) {
        w += " [";
        std::vector<std::string> cards;
        for (int c : p->cards) cards.push_back(std::to_string(c));
        w += Join(cards, ",") + "]";
      }
      where.push_back(w);
    }
    const size_t shown = std::min(bad.size(), static_cast<size_t>(std::max(o.max_pods, 1)));
    for (size_t i = 0; i < shown; ++i) {
      name_w = std::max(name_w, Width(bad[i]->namespace_) + 1 + Width(bad[i]->name));
      state_w = std::max(state_w, Width(bad[i]->state));
      where_w = std::max(where_w, Width(where[i]));
    }
    const size_t indent = 2 + name_w + 2 + state_w + 2 + where_w + 2;
    for (size_t i = 0; i < shown; ++i) {
      const PodResult& p = *bad[i];
      std::string line = "  " + PadRight(p.namespace_ + "/" + p.name, name_w) + "  " +
                         PadRight(p.state, state_w) + "  " + PadRight(where[i], where_w);
      if (p.message.empty()) {
        TrimRight(line);
        out += line + "\n";
        continue;
      }
      // Long FailedScheduling messages continue under the message column when there is room.
      const size_t room = static_cast<size_t>(o.width) > indent + 30 ? o.width - indent : 60;
      const size_t hang = static_cast<size_t>(o.width) > indent + 30 ? indent : 4;
      const std::vector<std::string> msg = Wrap(p.message, room, room);
      out += line + "  " + msg[0] + "\n";
      for (size_t k = 1; k < msg.size(); ++k) out += std::string(hang, ' ') + msg[k] + "\n";
    }
    if (shown < bad.size()) {
      out +=
          fmt::format("  … and {} more (the JSON document lists every pod)\n", bad.size() - shown);
    }
  }
  return out;
}

std::map<std::string, int> StateCounts(const std::vector<PodResult>& pods) {
  std::map<std::string, int> n;
  for (const PodResult& p : pods) {
    if (p.state != "Running") ++n[p.state];
  }
  return n;
}

double ErrorFraction(const VariantSummary& v) {
  double errors = 0, requests = 0;
  for (const WorkloadStats& w : v.workloads) {
    errors += w.errors.oom.mean + w.errors.fake_ready.mean + w.errors.timeout.mean +
              w.errors.no_replica.mean + w.errors.interrupted.mean;
    requests += w.requests.mean;
  }
  return requests > 0 ? errors / requests : 0;
}

int SloMet(const VariantSummary& v) {
  int n = 0;
  for (const WorkloadStats& w : v.workloads) n += w.slo_met ? 1 : 0;
  return n;
}

double MeanCardField(const VariantSummary& v, MeanCi CardStats::*field) {
  if (v.cards.empty()) return 0;
  double s = 0;
  for (const CardStats& c : v.cards) s += (c.*field).mean;
  return s / static_cast<double>(v.cards.size());
}

}  // namespace

std::string ChangeSummary(const VariantSummary& base, const VariantSummary& variant) {
  std::vector<std::string> parts;

  // Pod states first: they explain the numbers that follow (fake-Ready pods → errors).
  const std::map<std::string, int> b = StateCounts(base.pods), v = StateCounts(variant.pods);
  std::vector<std::string> states = {"FakeReady", "CrashLoopBackOff", "Unready", "Pending",
                                     "OOMKilled"};
  for (const auto& m : {b, v}) {
    for (const auto& [state, n] : m) {
      if (std::find(states.begin(), states.end(), state) == states.end()) states.push_back(state);
    }
  }
  for (const std::string& s : states) {
    const int nb = b.count(s) ? b.at(s) : 0;
    const int nv = v.count(s) ? v.at(s) : 0;
    if (nb == nv) continue;
    if (nv == 0) {
      parts.push_back(fmt::format("no {} pods (base {})", s, nb));
    } else {
      parts.push_back(Plural(nv, s) + (nb > 0 ? fmt::format(" (base {})", nb) : ""));
    }
  }

  // Pods evicted for higher-priority ones (replication 0's cluster, like the table).
  if (variant.cluster.preempted_pods != base.cluster.preempted_pods) {
    const int nv = variant.cluster.preempted_pods, nb = base.cluster.preempted_pods;
    parts.push_back((nv == 0 ? std::string("no preempted pods") : Plural(nv, "preempted")) +
                    fmt::format(" (base {})", nb));
  }

  const double eb = ErrorFraction(base), ev = ErrorFraction(variant);
  if (std::fabs(ev - eb) >= 0.0005) {
    parts.push_back(fmt::format("errors {} → {}", PercentOrNone(eb), PercentOrNone(ev)));
  }
  const int sb = SloMet(base), sv = SloMet(variant);
  if (sb != sv) {
    parts.push_back(fmt::format("SLO met {}/{} → {}/{}", sb, base.workloads.size(), sv,
                                variant.workloads.size()));
  }

  // The two workloads whose p99 moved most (by ratio), when it moved by 10 % or more.
  std::vector<std::pair<double, std::string>> moves;
  for (const WorkloadStats& wb : base.workloads) {
    const WorkloadStats* wv = FindWorkload(variant, wb.name);
    if (wv == nullptr || wb.latency_replications == 0 || wv->latency_replications == 0) continue;
    const double pb = wb.latency_ms.p99.mean, pv = wv->latency_ms.p99.mean;
    if (!(pb > 0 && pv > 0)) continue;
    const double shift = std::fabs(std::log(pv / pb));
    if (shift >= std::log(1.1)) {
      moves.push_back({shift, fmt::format("p99 {} {} → {} ms", wb.name, Num(pb), Num(pv))});
    }
  }
  std::stable_sort(moves.begin(), moves.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  for (size_t i = 0; i < moves.size() && i < 2; ++i) parts.push_back(moves[i].second);

  const double fb = MeanCardField(base, &CardStats::effective);
  const double fv = MeanCardField(variant, &CardStats::effective);
  if (std::fabs(fv - fb) >= 0.01) {
    parts.push_back(fmt::format("GPU effective use {} → {}", PercentOrNone(fb), PercentOrNone(fv)));
  }
  const double wb = MeanCardField(base, &CardStats::waste);
  const double wv = MeanCardField(variant, &CardStats::waste);
  if (std::fabs(wv - wb) >= 0.01) {
    parts.push_back(fmt::format("capped waste {} → {}", PercentOrNone(wb), PercentOrNone(wv)));
  }

  if (parts.empty()) return "no material change from base";
  return Join(parts, ", ");
}

std::string ResultsSummary(const RunSetResult& r, const TableOptions& o) {
  if (r.variants.empty()) return "no runs\n";
  std::string out =
      fmt::format("Scenario {}: seed {}, {} replication{}, {:g} s simulated ({:g} s warm-up)\n",
                  r.scenario, r.seed, r.replications, r.replications == 1 ? "" : "s",
                  static_cast<double>(r.duration) / kNanosPerSecond,
                  static_cast<double>(r.warmup) / kNanosPerSecond);
  if (r.replications > 1) {
    out += fmt::format("Numbers are means over {} replications ± the 95 % half-width.\n",
                       r.replications);
  }
  for (const VariantSummary& v : r.variants) {
    std::string line = "  " + v.name;
    if (!v.description.empty()) line += ": " + v.description;
    out += line + "\n";
  }
  if (r.variants.size() > 1) {
    out += "\nWHAT CHANGED VS BASE\n";
    for (size_t i = 1; i < r.variants.size(); ++i) {
      const std::string head = "  " + r.variants[i].name + ": ";
      const size_t w = static_cast<size_t>(std::max(o.width, 40));
      const std::vector<std::string> lines =
          Wrap(ChangeSummary(r.variants.front(), r.variants[i]), w - Width(head), w - 4);
      out += head + lines[0] + "\n";
      for (size_t k = 1; k < lines.size(); ++k) out += "    " + lines[k] + "\n";
    }
  }
  return out;
}

std::string ResultsDetails(const RunSetResult& r, const TableOptions& o) {
  if (r.variants.empty()) return "";
  std::string out;
  std::vector<std::string> names;
  for (const VariantSummary& v : r.variants) names.push_back(v.name);
  Grid grid(names);
  AddWorkloads(r, grid);
  AddCluster(r, grid);
  int idle = 0;
  const bool over_quota = AddCards(r, grid, &idle);
  out += grid.Render(o.width);
  if (idle > 0)
    out += fmt::format("({} idle card{} without pods not shown)\n", idle, idle == 1 ? "" : "s");
  if (over_quota) out += "! = peak memory above the quota allocated on the card\n";
  out += "\n" + PodsNotRunning(r, o);
  return out;
}

std::string ResultsTable(const RunSetResult& r, const TableOptions& o) {
  if (r.variants.empty()) return "no runs\n";
  return ResultsSummary(r, o) + "\n" + ResultsDetails(r, o);
}

}  // namespace knobsim
