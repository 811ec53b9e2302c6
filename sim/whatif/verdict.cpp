#include "sim/whatif/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/slo_check.h"
#include "sim/text.h"

namespace knobsim {
namespace {

// Workload results carry the bare name (names are unique across namespaces); the verdict
// names workloads the way the command line does, namespace/name, taking the namespace from
// the workload's pods.
std::string Qualified(const VariantSummary& v, const std::string& workload) {
  for (const PodResult& p : v.pods) {
    if (p.workload == workload) return p.namespace_ + "/" + workload;
  }
  return workload;
}

const WorkloadStats* FindWorkload(const VariantSummary& v, const std::string& name) {
  for (const WorkloadStats& w : v.workloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

const PodResult* FindPod(const VariantSummary& v, const PodResult& like) {
  for (const PodResult& p : v.pods) {
    if (p.namespace_ == like.namespace_ && p.name == like.name) return &p;
  }
  return nullptr;
}

// Pods whose model never loaded for lack of GPU memory, per workload (replication 0's events:
// FakeReady, LoadOOM and CrashLoopBackOff all carry the load failure's text).
std::map<std::string, int> LoadOomsByWorkload(const VariantSummary& v) {
  std::map<std::string, std::set<std::string>> pods;
  for (const ClusterEvent& e : v.cluster.events) {
    if (e.message.rfind("CUDA out of memory loading", 0) != 0) continue;
    for (const PodResult& p : v.pods) {
      if (p.namespace_ + "/" + p.name == e.pod) pods[p.workload].insert(e.pod);
    }
  }
  std::map<std::string, int> counts;
  for (const auto& [w, set] : pods) counts[w] = static_cast<int>(set.size());
  return counts;
}

std::string ChangeText(Change c, std::string_view is_new, std::string_view already) {
  return std::string(c == Change::kNew ? is_new : already);
}

void PodLines(std::vector<VerdictLine>& out, std::string_view label,
              const std::vector<PodProblem>& pods, int max_pods, bool is_base) {
  int shown = 0;
  for (const PodProblem& p : pods) {
    if (shown == max_pods) {
      out.push_back({std::string(label),
                     fmt::format("… and {} more", pods.size() - static_cast<size_t>(shown)),
                     false});
      break;
    }
    out.push_back({std::string(label),
                   p.pod + (p.message.empty() ? "" : ": " + p.message) +
                       (is_base ? "" : ChangeText(p.change, " (new)", " (as in base)")),
                   p.change == Change::kNew});
    ++shown;
  }
}

// The rules of sim/slo_check.h as the replications met them, with the table's means.
SloMiss MissOf(const WorkloadStats& w, int replications) {
  SloMiss m;
  m.replications = std::max(1, replications);
  m.slo_met_replications = w.slo_met_replications;
  m.percentile = w.slo.percentile;
  m.target_ms = static_cast<double>(w.slo.latency) / kNanosPerMilli;
  m.no_success = w.latency_replications == 0 && w.requests.mean > 0;
  m.latency_ms = w.slo_latency_ms.mean;
  m.latency_met_replications = w.latency_met_replications;
  m.latency_missed = w.latency_met_replications < m.replications;
  m.error_ratio = w.error_ratio.mean;
  m.error_budget = w.slo.error_budget;
  m.errors_met_replications = w.errors_met_replications;
  m.errors_missed = w.errors_met_replications < m.replications;
  m.backlog_met_replications = w.backlog_met_replications;
  m.backlog_missed = w.backlog_met_replications < m.replications;
  m.nothing_left = w.nothing_left_replications == m.replications;
  m.unanswered = w.in_system_end.mean;
  m.overdue = w.in_system_overdue.mean;
  m.overdue_age_ms = static_cast<double>(OverdueAge(w.slo)) / kNanosPerMilli;
  m.allowance = BacklogAllowance(w.slo, w.requests.mean);
  m.oldest_ms = w.in_system_oldest_ms.mean;
  return m;
}

// ", met in 8 of 9 replications" after a rule's numbers (nothing for one run).
std::string MetIn(int met, int replications) {
  if (replications <= 1) return "";
  return fmt::format(" met in {} of {} replications", met, replications);
}

// Why `m` missed, rule by rule, from the same numbers as the table (means over the
// replications, and for each rule how many met it).
std::vector<std::string> MissReasons(const SloMiss& m) {
  std::vector<std::string> why;
  const bool replicated = m.replications > 1;
  const std::string mean = replicated ? fmt::format(" (mean of {})", m.replications) : "";
  if (m.latency_missed) {
    if (m.no_success) {
      why.push_back(fmt::format("no request completed{} (p{:g} target {:g} ms)",
                                replicated ? " in any replication" : "", m.percentile,
                                m.target_ms));
    } else if (!replicated) {
      why.push_back(
          fmt::format("p{:g} {:.1f} ms > target {:g} ms", m.percentile, m.latency_ms, m.target_ms));
    } else {
      why.push_back(fmt::format("p{:g} {:.1f} ms{}, target {:g} ms{}", m.percentile, m.latency_ms,
                                mean, m.target_ms,
                                MetIn(m.latency_met_replications, m.replications)));
    }
  }
  if (m.errors_missed) {
    why.push_back(replicated ? fmt::format("errors {}{}, budget {}{}", Percent(m.error_ratio), mean,
                                           Percent(m.error_budget),
                                           MetIn(m.errors_met_replications, m.replications))
                             : fmt::format("errors {} > budget {}", Percent(m.error_ratio),
                                           Percent(m.error_budget)));
  }
  if (m.backlog_missed) {
    const std::string oldest = fmt::format("oldest {}", DurationText(m.oldest_ms / 1e3));
    if (m.nothing_left) {
      why.push_back(fmt::format("no request left the system: {:.0f} unanswered at the end{}, {}",
                                m.unanswered, mean, oldest));
    } else {
      why.push_back(fmt::format(
          "backlog grows: {:.0f} requests unanswered at the end{}, {:.0f} older than {} "
          "(allowed {:.0f}), {}{}",
          m.unanswered, mean, m.overdue, DurationText(m.overdue_age_ms / 1e3), m.allowance, oldest,
          replicated ? ";" + MetIn(m.backlog_met_replications, m.replications) : ""));
    }
  }
  // Every rule met in every replication, yet a replication's word was "missed" (a document
  // written before a rule changed): say so rather than invent a cause.
  if (why.empty())
    why.push_back(fmt::format("SLO{}", MetIn(m.slo_met_replications, m.replications)));
  return why;
}

}  // namespace

bool Verdict::NewSloMiss() const {
  return std::any_of(slo_misses.begin(), slo_misses.end(),
                     [](const SloMiss& m) { return m.change == Change::kNew; });
}

Verdict JudgeVariant(const VariantSummary& base, const VariantSummary& variant) {
  Verdict v;
  v.variant = variant.name;
  v.workloads = static_cast<int>(variant.workloads.size());
  for (const WorkloadStats& w : variant.workloads) {
    if (w.slo_met) continue;
    const WorkloadStats* b = FindWorkload(base, w.name);
    SloMiss m = MissOf(w, variant.replications);
    m.workload = Qualified(variant, w.name);
    m.change = b != nullptr && !b->slo_met ? Change::kAlready : Change::kNew;
    v.slo_misses.push_back(std::move(m));
  }
  for (const WorkloadStats& w : variant.workloads) {
    if (w.slo.latency <= 0 && w.requests.mean > 0)
      v.errors_only.push_back(Qualified(variant, w.name));
  }

  for (const PodResult& p : variant.pods) {
    PodProblem problem{p.namespace_ + "/" + p.name, p.workload, p.message, Change::kNew};
    const PodResult* in_base = FindPod(base, p);
    if (in_base != nullptr && in_base->state == p.state) problem.change = Change::kAlready;
    if (p.state == "Pending") {
      v.pending.push_back(std::move(problem));
    } else if (p.state == "FakeReady") {
      v.fake_ready.push_back(std::move(problem));
    } else if (p.state != "Running") {
      if (problem.message.empty())
        problem.message = p.state;
      else
        problem.message = p.state + ": " + problem.message;
      v.not_serving.push_back(std::move(problem));
    }
  }

  const std::map<std::string, int> load = LoadOomsByWorkload(variant);
  const std::map<std::string, int> base_load = LoadOomsByWorkload(base);
  for (const WorkloadStats& w : variant.workloads) {
    const auto it = load.find(w.name);
    const int load_ooms = it == load.end() ? 0 : it->second;
    if (w.errors.oom.mean <= 0 && load_ooms == 0) continue;
    OomProblem o;
    o.workload = Qualified(variant, w.name);
    o.request_ooms = w.errors.oom.mean;
    o.fake_ready_errors = w.errors.fake_ready.mean;
    o.load_ooms = load_ooms;
    const WorkloadStats* b = FindWorkload(base, w.name);
    const bool base_has = (b != nullptr && b->errors.oom.mean > 0) || base_load.count(w.name) > 0;
    o.change = base_has ? Change::kAlready : Change::kNew;
    v.ooms.push_back(std::move(o));
  }
  return v;
}

VerdictLines LinesOf(const Verdict& verdict, int max_pods) {
  VerdictLines out;
  const bool is_base = verdict.variant == kBaseVariant;
  const size_t missed = verdict.slo_misses.size();
  const auto newly = std::count_if(verdict.slo_misses.begin(), verdict.slo_misses.end(),
                                   [](const SloMiss& m) { return m.change == Change::kNew; });
  if (missed == 0) {
    out.headline = fmt::format("every SLO met ({} workloads)", verdict.workloads);
  } else {
    out.headline = fmt::format("{} of {} workloads miss their SLO", missed, verdict.workloads);
    if (!is_base) out.headline += fmt::format(" ({} newly)", newly);
  }
  out.clean = missed == 0 && verdict.pending.empty() && verdict.fake_ready.empty() &&
              verdict.not_serving.empty() && verdict.ooms.empty();
  if (out.clean) out.headline += "; no Pending, fake-Ready or OOM pods";

  for (const SloMiss& m : verdict.slo_misses) {
    const std::vector<std::string> why = MissReasons(m);
    std::string reasons;
    for (size_t i = 0; i < why.size(); ++i) {
      if (i > 0) reasons += ", ";
      reasons += why[i];
    }
    out.lines.push_back({"SLO",
                         m.workload + ": " + reasons +
                             (is_base ? ""
                                      : ChangeText(m.change, " (newly missing; base meets it)",
                                                   " (was already missing)")),
                         m.change == Change::kNew});
  }
  PodLines(out.lines, "Pending", verdict.pending, max_pods, is_base);
  PodLines(out.lines, "FakeReady", verdict.fake_ready, max_pods, is_base);
  PodLines(out.lines, "NotServing", verdict.not_serving, max_pods, is_base);
  for (const OomProblem& o : verdict.ooms) {
    std::vector<std::string> parts;
    if (o.load_ooms > 0) {
      parts.push_back(fmt::format("{} pod{} failed to load the model", o.load_ooms,
                                  o.load_ooms == 1 ? "" : "s"));
    }
    if (o.request_ooms > 0) {
      // A mean over replications: a count of requests is shown whole ("about" when it was
      // rounded), never as 8405.44 requests.
      const double whole = std::round(o.request_ooms);
      const bool rounded = whole != o.request_ooms;
      const std::string count = fmt::format("{}{:.0f}", rounded ? "about " : "",
                                            std::max(whole, 1.0));
      parts.push_back(fmt::format("{} request{} failed with CUDA OOM", count,
                                  count == "1" ? "" : "s"));
    }
    std::string text;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) text += ", ";
      text += parts[i];
    }
    out.lines.push_back({"OOM",
                         o.workload + ": " + text +
                             (is_base ? "" : ChangeText(o.change, " (new)", " (as in base)")),
                         o.change == Change::kNew});
  }
  if (!verdict.errors_only.empty()) {
    const size_t n = verdict.errors_only.size();
    std::vector<std::string> names(
        verdict.errors_only.begin(),
        verdict.errors_only.begin() +
            static_cast<std::ptrdiff_t>(std::min(n, static_cast<size_t>(std::max(0, max_pods)))));
    if (names.size() < n) names.push_back(fmt::format("… and {} more", n - names.size()));
    out.lines.push_back({"ErrorsOnly",
                         Join(names) + fmt::format(" ({}): no latency objective, only errors and "
                                                   "requests left unanswered are judged",
                                                   n),
                         false});
  }
  return out;
}

std::string VerdictText(const Verdict& verdict, int max_pods) {
  const VerdictLines lines = LinesOf(verdict, max_pods);
  std::string out = fmt::format("VERDICT {}: {}\n", verdict.variant, lines.headline);
  for (const VerdictLine& line : lines.lines)
    out += fmt::format("  {:<10} {}\n", line.kind, line.text);
  return out;
}

}  // namespace knobsim
