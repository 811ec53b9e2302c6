#include "sim/whatif/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

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
    SloMiss m;
    m.workload = Qualified(variant, w.name);
    const WorkloadStats* b = FindWorkload(base, w.name);
    m.change = b != nullptr && !b->slo_met ? Change::kAlready : Change::kNew;
    m.percentile = w.slo.percentile;
    m.target_ms = static_cast<double>(w.slo.latency) / 1e6;
    m.no_success = w.latency_replications == 0 && w.requests.mean > 0;
    m.latency_ms = w.slo_latency_ms.mean;
    m.latency_missed = m.target_ms > 0 && (m.no_success || m.latency_ms > m.target_ms);
    m.error_ratio = w.error_ratio.mean;
    m.error_budget = w.slo.error_budget;
    m.errors_missed = m.error_ratio > m.error_budget;
    v.slo_misses.push_back(std::move(m));
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
    std::vector<std::string> why;
    if (m.latency_missed) {
      why.push_back(m.no_success ? fmt::format("no request completed (p{:g} target {:g} ms)",
                                               m.percentile, m.target_ms)
                                 : fmt::format("p{:g} {:.1f} ms > target {:g} ms", m.percentile,
                                               m.latency_ms, m.target_ms));
    }
    if (m.errors_missed) {
      why.push_back(
          fmt::format("errors {} > budget {}", Percent(m.error_ratio), Percent(m.error_budget)));
    }
    if (why.empty()) why.push_back("requests still queued at the end, none finished");
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
    if (o.load_ooms > 0)
      parts.push_back(fmt::format("{} pod(s) failed to load the model", o.load_ooms));
    if (o.request_ooms > 0)
      parts.push_back(fmt::format("{:g} request(s) failed with CUDA OOM", o.request_ooms));
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
