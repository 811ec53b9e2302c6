#include "sim/backtest/backtest_text.h"

#include <fmt/format.h>

#include <cmath>

#include "sim/backtest/score_text.h"
#include "sim/text.h"

namespace knobsim::backtest {
namespace {

std::string Minutes(double s) {
  return fmt::format("{:g}m", s / 60);
}

void Cards(const BacktestReport& r, std::string& out) {
  if (r.cards.empty()) return;
  out += fmt::format(
      "\nCard utilization per window (predicted vs measured; baseline: the card's "
      "train-window mean)\n  {:<32} {:>8} {:>8} {:>10} {:>10} {:>7}\n",
      "card", "R²", "MAE pp", "base R²", "base MAE", "idle");
  for (const CardBacktest& c : r.cards)
    out += fmt::format("  {:<32} {:>8} {:>8} {:>10} {:>10} {:>7}\n",
                       c.node + "/" + std::to_string(c.index) + " " + c.gpu, Fixed(c.r2, 3),
                       Fixed(c.mae * 100, 2), Fixed(c.train_mean_r2, 3),
                       Fixed(c.train_mean_mae * 100, 2), Fixed(c.idle_busy * 100, 1));
  const BacktestSummary& s = r.summary;
  out += fmt::format("  {:<32} {:>8} {:>8} {:>10} {:>10}\n", "median", Fixed(s.r2_median, 3),
                     Fixed(s.mae_pp_median, 2), Fixed(s.train_mean_r2_median, 3),
                     Fixed(s.train_mean_mae_pp_median, 2));
}

void Workloads(const BacktestReport& r, std::string& out) {
  if (r.workloads.empty()) return;
  out += fmt::format(
      "\nLatency per window, MdAPE (predicted; baselines: train-window median, "
      "per-pod M/M/1)\n  {:<32} {:>8} {:>8} {:>10} {:>10} {:>9} {:>9} {:>10}\n",
      "workload", "mean", "p99", "base mean", "base p99", "M/M/1", "M/M/1 p99", "work");
  bool through_buckets = false;
  for (const WorkloadBacktest& w : r.workloads) {
    through_buckets = through_buckets || w.p99_through_buckets;
    out +=
        fmt::format("  {:<32} {:>8} {:>8} {:>10} {:>10} {:>9} {:>9} {:>10}\n", w.id,
                    Pct(w.mdape_mean), Pct(w.mdape_p99) + (w.p99_through_buckets ? "*" : " "),
                    Pct(w.train_median_mdape_mean), Pct(w.train_median_mdape_p99),
                    Pct(w.mm1_mdape_mean), Pct(w.mm1_mdape_p99), Fixed(w.work_s * 1e3, 2) + " ms");
  }
  const BacktestSummary& s = r.summary;
  out += fmt::format("  {:<32} {:>8} {:>8} {:>10} {:>10} {:>9} {:>9}\n", "all windows",
                     Pct(s.mdape_mean), Pct(s.mdape_p99), Pct(s.train_median_mdape_mean),
                     Pct(s.train_median_mdape_p99), Pct(s.mm1_mdape_mean), Pct(s.mm1_mdape_p99));
  if (through_buckets)
    out +=
        "  * p99 read through the metric's histogram buckets (histogram_quantile), the "
        "predicted requests counted into the same buckets\n";
}

void Memory(const BacktestReport& r, std::string& out) {
  bool header = false;
  for (const MemoryBacktest& m : r.memory) {
    if (!m.over_train_peak && !m.over_quota) continue;
    if (!header)
      out += "\nGPU memory above the train-window peak or the visible quota in the test window\n";
    header = true;
    out += fmt::format("  {} on {}: peak {} MiB (train {} MiB, quota {}){}{}\n", m.pod, m.card,
                       Fixed(m.test_peak_mib, 0), Fixed(m.train_peak_mib, 0),
                       m.quota_mib > 0 ? Fixed(m.quota_mib, 0) + " MiB" : "unknown",
                       m.over_train_peak ? "; above the train peak" : "",
                       m.over_quota ? "; above the quota" : "");
  }
}

}  // namespace

std::string BacktestText(const BacktestReport& r) {
  std::string out = fmt::format(
      "Backtest: trained on {} .. {}, tested on {} .. {}: {} windows of {}, {} replication{}\n",
      Rfc3339(r.train.from), Rfc3339(r.train.to), Rfc3339(r.test.from), Rfc3339(r.test.to),
      r.windows, Minutes(r.window_s), r.replications, r.replications == 1 ? "" : "s");
  Cards(r, out);
  Workloads(r, out);
  Memory(r, out);
  out += "\nVerdict\n";
  for (const Verdict& v : r.verdicts)
    out += fmt::format("  {} {}: {}\n", v.trust ? "trust" : "do not trust", v.what, v.why);
  if (!r.notes.empty()) {
    out += "\nNotes\n";
    for (const std::string& n : r.notes) out += "  " + n + "\n";
  }
  return out;
}

}  // namespace knobsim::backtest
