// Evidence that cannot be true (import_steps.h, CheckEvidence) and the run length (RunLength).
// Each impossible reading is a warning naming the pod or card, the numbers and what was done,
// and the same line as a comment beside what it affected in the scenario (docs/import.md
// "Impossible evidence").
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "sim/import/import_steps.h"
#include "sim/import/scenario_writer.h"
#include "sim/text.h"

namespace knobsim {
using namespace import_text;

namespace {

std::string Count(size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// Where the export places pod `k`: its node, or "" when the pod is not in it or not placed.
const std::string& PlacedNode(const PodKey& k, const PodIndex& pods) {
  static const std::string kNone;
  auto at = pods.workload_of.find(k);
  if (at == pods.workload_of.end()) return kNone;
  auto pl = pods.place.find(at->second.second);
  return pl == pods.place.end() ? kNone : pl->second.node;
}

// A series labelling pod `k` with `node` contradicts the export: `node` is an exported node,
// and the export places the pod on another one.
bool OnOtherNode(const PodKey& k, const std::string& node, const NodeIndex& nodes,
                 const PodIndex& pods) {
  if (node.empty() || !nodes.pool_of_node.count(node)) return false;
  const std::string& placed = PlacedNode(k, pods);
  return !placed.empty() && placed != node;
}

// The card a memory peak was measured on: its node (the card's label when exported, else
// where the pod runs), GPU type and physical memory; mib 0 when unknown.
struct CardMemory {
  std::string node, gpu;
  int64_t mib = 0;
};
CardMemory MemoryCardOf(const PodMemoryPeak& m, const NodeIndex& nodes, const PodIndex& pods,
                        const GpuCatalog& catalog, const ImportModel& model) {
  CardMemory c;
  c.node = nodes.pool_of_node.count(m.card.node) ? m.card.node : PlacedNode(m.pod, pods);
  if (c.node.empty()) return c;
  c.gpu = nodes.gpu_of_node.at(c.node);
  if (!c.gpu.empty()) c.mib = CardMemoryMib(c.gpu, catalog, model);
  return c;
}

int WorkloadOf(const PodKey& k, const PodIndex& pods) {
  auto at = pods.workload_of.find(k);
  return at == pods.workload_of.end() ? -1 : at->second.first;
}

void Flag(ImportModel& model, int workload, const std::string& key, const std::string& line) {
  model.warnings.push_back(line);
  if (workload >= 0) model.workloads[workload].evidence[key].push_back(line);
}

// Card utilization outside 0..1 once scaled (counted by InterpretMetrics).
void UtilizationOutOfRange(const Metrics& metrics, const NodeIndex& nodes, ImportModel& model) {
  for (const CardUtilization& cu : metrics.cards) {
    const size_t high = cu.clamped + cu.dropped_high;
    if (high == 0 && cu.dropped_negative == 0) continue;
    std::string line = "card " + cu.card.ToString() + ": " + cu.metric;
    if (high > 0) {
      line += " above 100 % at " + Count(high, "sample") + " (largest " +
              Percent(cu.largest, 0, " %") + "), which cannot be: ";
      std::vector<std::string> done;
      if (cu.clamped > 0)
        done.push_back(std::to_string(cu.clamped) + " within " +
                       Percent(kUtilRatioTolerance, 0, " %") +
                       " of it clamped to 100 % (noise at full load)");
      if (cu.dropped_high > 0)
        done.push_back(std::to_string(cu.dropped_high) +
                       " further above dropped as missing (no reading of the card: a series "
                       "summed over copies, a wrong scale)");
      line += Join(done, ", ");
    }
    if (cu.dropped_negative > 0)
      line += std::string(high > 0 ? "; " : " ") + Count(cu.dropped_negative, "sample") +
              " below 0 % (smallest " + Percent(cu.smallest, 0, " %") + ") dropped as missing";
    model.warnings.push_back(line);
    if (auto p = nodes.pool_of_node.find(cu.card.node); p != nodes.pool_of_node.end())
      model.pools[p->second].evidence.push_back(line);
  }
}

// Negative request rates (dropped by InterpretMetrics before the per-pod sum).
void NegativeRates(const Metrics& metrics, const PodIndex& pods, ImportModel& model) {
  for (const PodRate& r : metrics.rates) {
    const int wi = WorkloadOf(r.pod, pods);
    if (r.negative == 0 || wi < 0) continue;  // a pod not in the export is not used at all
    Flag(model, wi, "traffic",
         "pod " + r.pod.ToString() + ": " + Count(r.negative, "negative request-rate sample") +
             " (lowest " + FormatNumber("%.4g/s", r.lowest) +
             "), which cannot be (a counter reset rated wrongly, a bad recording rule): dropped "
             "as missing, not used as 0");
  }
}

// Series that label a pod with an exported node other than its own, per pod and node.
void SeriesOnOtherNodes(const Metrics& metrics, const NodeIndex& nodes, const PodIndex& pods,
                        ImportModel& model, bool& correct) {
  std::map<std::pair<PodKey, std::string>, std::vector<std::string>> found;
  for (const CardUtilization& cu : metrics.cards)
    for (const PodKey& k : cu.pods)
      if (OnOtherNode(k, cu.card.node, nodes, pods))
        found[{k, cu.card.node}].push_back(cu.metric + " (card " + cu.card.ToString() + ")");
  for (const PodMemoryPeak& m : metrics.pod_memory)
    if (OnOtherNode(m.pod, m.card.node, nodes, pods))
      found[{m.pod, m.card.node}].push_back("GPU memory (" + m.source + ", card " +
                                            m.card.ToString() + ")");
  for (const CardTotalMemory& t : metrics.card_totals)
    for (const PodKey& k : t.pods)
      if (OnOtherNode(k, t.card.node, nodes, pods))
        found[{k, t.card.node}].push_back("a card's total GPU memory (card " + t.card.ToString() +
                                          ")");
  for (const PodRate& r : metrics.rates)
    if (OnOtherNode(r.pod, r.node, nodes, pods))
      found[{r.pod, r.node}].push_back("the request rate");
  for (const auto& [key, what] : found) {
    const auto& [pod, node] = key;
    Flag(model, WorkloadOf(pod, pods), "pods",
         "pod " + pod.ToString() + " runs on node " + PlacedNode(pod, pods) +
             " in the export, but its series of " + Join(what, ", ") + " name node " + node +
             ", where the export does not place it: those series are not used for this pod");
  }
  correct = correct || !found.empty();
}

// Memory peaks above the card's physical memory; capped in CorrectMetrics.
void MemoryAboveCard(const Metrics& metrics, const NodeIndex& nodes, const PodIndex& pods,
                     const GpuCatalog& catalog, ImportModel& model, bool& correct) {
  for (const PodMemoryPeak& m : metrics.pod_memory) {
    if (OnOtherNode(m.pod, m.card.node, nodes, pods)) continue;  // not used for the pod
    const CardMemory card = MemoryCardOf(m, nodes, pods, catalog, model);
    if (card.mib <= 0 || m.peak_mib <= static_cast<double>(card.mib)) continue;
    const double mib = static_cast<double>(card.mib);
    const std::string where =
        m.card.ToString() != "?" ? "card " + m.card.ToString() : "node " + card.node;
    Flag(model, WorkloadOf(m.pod, pods), "gpu_memory",
         "pod " + m.pod.ToString() + " on " + where + ", GPU type " + card.gpu + " with " +
             Mib(mib) + ": measured GPU memory peak " + Mib(m.peak_mib) + " (mean " +
             Mib(m.mean_mib) + ", " + m.source +
             ") is above the card's physical memory, which cannot be: the " +
             "simulated peak is capped at " + Mib(mib) +
             (m.mean_mib <= mib ? ", weights from the mean, activation the rest up to the card"
                                : ", the mean is above the card too: weights fill the card, no "
                                  "activation") +
             "; not counted as evidence of soft isolation");
    correct = true;
  }
}

// A pod's remaining rate series (several node labels) as one, summed at each time.
PodRate SumRates(const std::vector<const PodRate*>& parts) {
  PodRate r;
  r.pod = parts.front()->pod;
  std::map<double, double> at;
  for (const PodRate* p : parts) {
    for (size_t i = 0; i < p->times.size() && i < p->rate.size(); ++i)
      at[p->times[i]] += p->rate[i];
    r.lowest = r.negative == 0 ? p->lowest : std::min(r.lowest, p->lowest);
    r.negative += p->negative;
  }
  for (const auto& [t, v] : at) {
    r.times.push_back(t);
    r.rate.push_back(v);
  }
  return r;
}

// The corrections CheckEvidence announced, on a copy of the metrics.
Metrics CorrectMetrics(const Metrics& metrics, const NodeIndex& nodes, const PodIndex& pods,
                       const GpuCatalog& catalog, const ImportModel& model) {
  Metrics fixed = metrics;
  auto other = [&](const PodKey& k, const std::string& node) {
    return OnOtherNode(k, node, nodes, pods);
  };
  for (CardUtilization& cu : fixed.cards)
    std::erase_if(cu.pods, [&](const PodKey& k) { return other(k, cu.card.node); });
  std::erase_if(fixed.pod_memory,
                [&](const PodMemoryPeak& m) { return other(m.pod, m.card.node); });
  for (CardTotalMemory& t : fixed.card_totals)
    std::erase_if(t.pods, [&](const PodKey& k) { return other(k, t.card.node); });
  std::erase_if(fixed.card_totals, [](const CardTotalMemory& t) { return t.pods.empty(); });
  std::erase_if(fixed.rates, [&](const PodRate& r) { return other(r.pod, r.node); });

  for (PodMemoryPeak& m : fixed.pod_memory) {
    const CardMemory card = MemoryCardOf(m, nodes, pods, catalog, model);
    const double mib = static_cast<double>(card.mib);
    if (card.mib <= 0 || m.peak_mib <= mib) continue;
    m.measured_peak_mib = m.peak_mib;
    m.peak_mib = mib;
    m.mean_mib = std::min(m.mean_mib, mib);
  }

  std::vector<PodRate> rates;  // one per pod (the import indexes rates by pod)
  for (size_t i = 0; i < fixed.rates.size();) {
    size_t j = i;
    std::vector<const PodRate*> parts;
    while (j < fixed.rates.size() && fixed.rates[j].pod == fixed.rates[i].pod)
      parts.push_back(&fixed.rates[j++]);
    rates.push_back(parts.size() == 1 ? std::move(fixed.rates[i]) : SumRates(parts));
    i = j;
  }
  fixed.rates = std::move(rates);
  return fixed;
}

}  // namespace

int64_t CardMemoryMib(const std::string& gpu, const GpuCatalog& catalog, const ImportModel& model) {
  if (const GpuType* t = catalog.Find(gpu)) return t->memory_mib;
  for (const ImportedGpuType& t : model.gpu_types)
    if (t.type.name == gpu) return t.type.memory_mib;
  return 0;
}

std::optional<Metrics> CheckEvidence(const Metrics& metrics, const NodeIndex& nodes,
                                     const PodIndex& pods, const GpuCatalog& catalog,
                                     ImportModel& model) {
  UtilizationOutOfRange(metrics, nodes, model);
  NegativeRates(metrics, pods, model);
  bool correct = false;
  SeriesOnOtherNodes(metrics, nodes, pods, model, correct);
  MemoryAboveCard(metrics, nodes, pods, catalog, model, correct);
  for (size_t i = 1; i < metrics.rates.size() && !correct; ++i)
    correct = metrics.rates[i].pod == metrics.rates[i - 1].pod;  // several node labels
  if (!correct) return std::nullopt;
  return CorrectMetrics(metrics, nodes, pods, catalog, model);
}

void RunLength(const ImportOptions& options, bool have_metrics, ImportModel& model) {
  if (!have_metrics) {
    model.duration_s = options.run_duration_s > 0 ? options.run_duration_s : 3600;
    model.run_note = "run: " + ScenarioDuration(model.duration_s) +
                     " (no metrics window; knobsim import --duration D for another length)";
  } else {
    // Whole seconds, as run.start takes them: the window's first second.
    model.start_unix_s = static_cast<int64_t>(std::floor(options.window_start));
    const double window = std::max(1.0, options.window_end - options.window_start);
    const std::string w = ScenarioDuration(window);
    if (options.run_duration_s <= 0) {
      model.duration_s = window;
      model.run_note = "run: the whole " + w + " metrics window (--duration window)";
    } else if (options.run_duration_s >= window) {
      model.duration_s = window;
      model.run_note = "run: the whole " + w + " metrics window (--duration " +
                       ScenarioDuration(options.run_duration_s) + " covers it)";
    } else {
      model.duration_s = options.run_duration_s;
      model.run_note = "run: the first " + ScenarioDuration(model.duration_s) + " of the " + w +
                       " metrics window, so that a run answers in seconds; the traffic covers "
                       "the whole window: `knobsim run --duration D` runs longer, `knobsim "
                       "import --duration window` writes all of it";
    }
  }
  model.header.insert(model.header.begin(), model.run_note);
}

}  // namespace knobsim
