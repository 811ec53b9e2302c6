// Memory isolation of the imported pools: rules 2-4 (DecideIsolation, import_steps.h) and the
// user's `--isolation` rules (ApplyIsolationRules, cluster_import.h).
#include <algorithm>
#include <charconv>

#include "models/memory_isolation.h"
#include "sim/import/import_steps.h"
#include "sim/text.h"

namespace knobsim {
using namespace import_text;

namespace {

std::string OverQuotaLine(const OverQuotaPod& q) {
  return "  " + q.ns + "/" + q.pod + " on " + q.node +
         (q.card >= 0 ? " gpu" + std::to_string(q.card) : std::string()) + ": peak " +
         Mib(q.peak_mib) + " > quota " + Mib(static_cast<double>(q.quota_mib)) + " (" +
         FormatNumber("%.0f %%", 100 * q.peak_mib / static_cast<double>(q.quota_mib)) + ")";
}

}  // namespace

bool RanHealthy(const PodSpec& p, std::string* why) {
  if (p.phase != "Running") {
    *why = "phase " + p.phase;
    return false;
  }
  if (!p.ready_status.empty() && p.ready_status != "True") {
    *why = "not Ready";
    return false;
  }
  for (const ContainerInfo& c : p.containers) {
    for (const std::string* r :
         {&c.terminated_reason, &c.last_terminated_reason, &c.waiting_reason}) {
      if (*r == "OOMKilled" || *r == "CrashLoopBackOff" || *r == "Error") {
        *why = "container " + c.name + " " + *r;
        return false;
      }
    }
  }
  return true;
}

void OverQuotaEvidence(const KubeObjects& objects, const Metrics& metrics, const NodeIndex& nodes,
                       const PodIndex& pods, const GpuCatalog& catalog,
                       const ImportOptions& options, ImportModel& model) {
  for (const PodMemoryPeak& m : metrics.pod_memory) {
    auto at = pods.workload_of.find(m.pod);
    if (at == pods.workload_of.end()) continue;
    auto pl = pods.place.find(at->second.second);
    if (pl == pods.place.end()) continue;
    const PodSpec& pod = objects.pods[at->second.second];
    ImportedPool& pool = model.pools[nodes.pool_of_node.at(pl->second.node)];
    if (!pool.pool.cgpu_active || pod.whole_gpus > 0 || pod.gpu_mem <= 0) continue;
    if (m.measured_peak_mib > 0) continue;  // above the whole card: not a reading (CheckEvidence)
    int card = -1;
    if (!m.card.gpu.empty())
      std::from_chars(m.card.gpu.data(), m.card.gpu.data() + m.card.gpu.size(), card);
    if (card < 0 && pl->second.cards.size() == 1) card = pl->second.cards.front();
    int units = pod.gpu_mem / std::max(1, pod.gpu_count);
    if (auto u = pod.allocated_mem.find(card); u != pod.allocated_mem.end()) units = u->second;
    const int64_t mib = CardMemoryMib(pool.pool.gpu_type, catalog, model);
    const NodeSpec* node = nodes.node_by_name.at(pl->second.node);
    const int card_units = node->card_mem_units > 0 ? node->card_mem_units : CardMemoryUnits(mib);
    const int64_t quota = VisibleQuotaMib(mib, units, card_units);
    if (quota <= 0 || m.peak_mib <= static_cast<double>(quota) * (1 + options.over_quota_margin))
      continue;
    std::string why;
    if (!RanHealthy(pod, &why)) {
      model.warnings.push_back("pod " + m.pod.ToString() + " peaked at " + Mib(m.peak_mib) +
                               " over its quota " + Mib(static_cast<double>(quota)) + " but " +
                               why + ": not counted as evidence of soft isolation");
      continue;
    }
    pool.over_quota.push_back({m.pod.ns, m.pod.pod, pl->second.node, card, m.peak_mib, quota});
  }
}

void DecideIsolation(const KubeObjects& objects, const Metrics* metrics, const NodeIndex& nodes,
                     const PodIndex& pods, const GpuCatalog& catalog, const ImportOptions& options,
                     ImportModel& model) {
  if (metrics) OverQuotaEvidence(objects, *metrics, nodes, pods, catalog, options, model);
  for (ImportedPool& pool : model.pools) {
    NodePool& np = pool.pool;
    if (np.gpu_type.empty() || !np.cgpu_active) continue;
    const auto& bad = options.cgpu_no_isolation_versions;
    if (!np.cgpu_version.empty() &&
        std::find(bad.begin(), bad.end(), np.cgpu_version) != bad.end()) {
      np.isolation = MemoryIsolation::kSoft;
      pool.isolation_notes.push_back("memory isolation soft: rule 2, node label " +
                                     options.cgpu_version_label + "=" + np.cgpu_version +
                                     " is a cGPU release without memory isolation "
                                     "(--cgpu-no-isolation-versions)");
    } else if (!pool.over_quota.empty()) {
      np.isolation = MemoryIsolation::kSoft;
      pool.isolation_notes.push_back(
          "memory isolation soft: rule 3, " + std::to_string(pool.over_quota.size()) +
          " pod(s) ran healthy above their cGPU quota, so the module does not enforce it (the "
          "buggy-module incident; --isolation " +
          np.name + "=hard to assume a fixed one):");
    } else {
      np.isolation = MemoryIsolation::kHard;
      pool.isolation_notes.push_back(
          std::string("memory isolation hard: rule 4, cGPU runs and ") +
          (metrics ? "no pod's measured peak is above its quota" : "no metrics to say otherwise"));
    }
    for (const OverQuotaPod& q : pool.over_quota) pool.isolation_notes.push_back(OverQuotaLine(q));
  }
}

Expected<IsolationRule> ParseIsolationRule(std::string_view text) {
  auto fail = [&](std::string message, std::string hint) -> Expected<IsolationRule> {
    InputError e;
    e.path = "--isolation";
    e.message = Quote(std::string(text)) + " " + message;
    e.hint = std::move(hint);
    return e;
  };
  const auto eq = text.find('=');
  if (eq == std::string_view::npos)
    return fail("has no `=`", "write POOL=hard or POOL=soft (`*` for every pool)");
  IsolationRule rule;
  rule.pool = std::string(text.substr(0, eq));
  const std::string_view mode = text.substr(eq + 1);
  if (mode == "hard") {
    rule.isolation = MemoryIsolation::kHard;
  } else if (mode == "soft") {
    rule.isolation = MemoryIsolation::kSoft;
  } else {
    return fail("names no isolation", "the value after `=` is hard or soft");
  }
  if (rule.pool.empty())
    return fail("names no pool", "write POOL=hard|soft, e.g. gpu-l20-1=soft or *=hard");
  return rule;
}

Status ApplyIsolationRules(ImportModel& model, const std::vector<IsolationRule>& rules) {
  for (const IsolationRule& r : rules) {
    const std::string text =
        r.pool + "=" + (r.isolation == MemoryIsolation::kHard ? "hard" : "soft");
    auto fail = [&](std::string message, std::string hint) {
      InputError e;
      e.path = "--isolation";
      e.message = Quote(text) + " " + message;
      e.hint = std::move(hint);
      return e;
    };
    bool matched = false;
    std::string names;
    for (ImportedPool& pool : model.pools) {
      NodePool& np = pool.pool;
      if (!np.gpu_type.empty()) names += (names.empty() ? "" : ", ") + np.name;
      if (r.pool != "*" && r.pool != np.name) continue;
      matched = true;
      if (np.gpu_type.empty()) {
        if (r.pool == "*") continue;
        return fail("names a pool without GPUs", "pools with GPUs: " + names);
      }
      if (r.isolation == MemoryIsolation::kHard && !np.cgpu_active) {
        if (r.pool == "*") continue;
        return fail("asks hard isolation of a pool without a cGPU module",
                    "hard needs ack.node.gpu.schedule cgpu or core_mem without "
                    "cgpu.disable.isolation=true");
      }
      np.isolation = r.isolation;
      pool.isolation_notes.push_back("memory isolation overridden by --isolation " + text);
    }
    if (!matched) return fail("names no imported pool", "pools with GPUs: " + names);
  }
  return Status::Ok();
}

}  // namespace knobsim
