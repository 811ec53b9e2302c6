// The generator's entry points (export_generator.h): CheckOptions and Generate, which runs the
// plan's steps (plan.h) and lays the objects out in kubectl's order.
//
// Contract: Generate checks the options first; the nodes come sorted by name, then the pods,
// Deployments, ReplicaSets, StatefulSets, PDBs, PVCs, PVs, StorageClasses and ResourceQuotas,
// each kind by namespace and name (the API server's key order). The truth lists pods and
// workloads in the same order.
#include "tools/gen-export/export_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <utility>

#include "tools/gen-export/object_writer.h"
#include "tools/gen-export/plan.h"
#include "tools/gen-export/random.h"
#include "tools/gen-export/vocabulary.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

// Each GPU workload with traffic gets a profile from hashed bits of its index, so the other
// draws (and a default export) stay as they were. Four decimals, as truth.json writes them.
void DrawGpuProfiles(uint64_t seed, GroundTruth& truth) {
  auto draw = [&](size_t w, uint64_t k, double lo, double hi) {
    const double u = HashUnit(seed, 0x600000000ull + 8 * w + k, 0);
    return std::round((lo + (hi - lo) * u) * 1e4) / 1e4;
  };
  for (size_t w = 0; w < truth.workloads.size(); ++w) {
    TruthWorkload& tw = truth.workloads[w];
    if (!tw.gpu || !tw.has_traffic || tw.cpu_only) continue;
    tw.gpu_profile = TruthGpuProfile{draw(w, 0, 0.2, 0.95), draw(w, 1, 0.1, 0.6),
                                     draw(w, 2, 0.05, 0.6), draw(w, 3, 0, 0.5)};
  }
}

}  // namespace

Status CheckOptions(const GeneratorOptions& o) {
  auto bad = [](std::string flag, std::string message) {
    InputError e;
    e.path = std::move(flag);
    e.message = std::move(message);
    return Status(std::move(e));
  };
  auto divides_day = [](int step) { return step >= 1 && step <= kDay && kDay % step == 0; };
  if (o.nodes < 1 || o.nodes > 20000) return bad("--nodes", "must be between 1 and 20000");
  if (o.pods < 0 || o.pods > 200000) return bad("--pods", "must be between 0 and 200000");
  if (o.days < 1 || o.days > 366) return bad("--days", "must be between 1 and 366");
  if (!divides_day(o.step_s)) {
    return bad("--step", fmt::format("{} s does not divide a day (86400 s)", o.step_s));
  }
  if (o.start_unix < 0 || o.start_unix > 253402300799 - 400 * kDay) {
    return bad("--start", "must be a Unix time between 1970 and 9998");
  }
  const int metrics_step = o.metrics_step_s == 0 ? o.step_s : o.metrics_step_s;
  const int rate_step = o.rate_step_s == 0 ? metrics_step : o.rate_step_s;
  for (const auto& [flag, step] :
       {std::pair{"--metrics-step", metrics_step}, {"--rate-step", rate_step}}) {
    if (!divides_day(step) || step % o.step_s != 0) {
      return bad(flag, fmt::format("{} s must divide a day and be a multiple of --step ({} s)",
                                   step, o.step_s));
    }
  }
  if (o.metrics_days < 0 || o.metrics_days > o.days) {
    return bad("--metrics-days", fmt::format("must be between 0 and --days ({})", o.days));
  }
  if (!(o.busy_noise >= 0 && o.busy_noise <= 0.5)) {
    return bad("--busy-noise", "must be between 0 and 0.5");
  }
  if (!(o.idle_floor >= 0 && o.idle_floor <= 0.2)) {
    return bad("--idle-floor", "must be between 0 and 0.2");
  }
  if (!(o.backtest_split >= 0 && o.backtest_split < 1)) {
    return bad("--backtest-split", "must be 0 (no split) or a fraction below 1");
  }
  if (o.backtest_split > 0) {
    // Each window needs at least one sample of every series.
    const int64_t unit = std::lcm(int64_t{metrics_step}, int64_t{rate_step});
    const int days = o.metrics_days == 0 ? o.days : o.metrics_days;
    if (days * kDay / unit < 2) {
      return bad("--backtest-split",
                 fmt::format("the metrics window holds fewer than two {} s steps", unit));
    }
  }
  return Status::Ok();
}

Expected<GeneratedCluster> Generate(const GeneratorOptions& options) {
  if (Status checked = CheckOptions(options); !checked) return checked.error();
  Plan plan;
  plan.o = options;
  plan.now = options.start_unix + options.days * kDay;
  BuildNodes(plan);
  BuildWorkloads(plan);
  PlaceAll(plan);
  ChooseRequestTruth(plan);

  GeneratedCluster out;
  out.options = options;
  ObjectWriter writer(plan);
  std::vector<int> node_order(plan.nodes.size());
  for (size_t i = 0; i < node_order.size(); ++i) node_order[i] = static_cast<int>(i);
  std::sort(node_order.begin(), node_order.end(),
            [&](int a, int b) { return plan.nodes[a].name < plan.nodes[b].name; });
  for (int n : node_order) out.nodes.push_back(writer.NodeJson(n));

  // kubectl lists each kind by namespace, then name (the API server's key order).
  std::vector<int> pod_order(plan.pods.size());
  for (size_t i = 0; i < pod_order.size(); ++i) pod_order[i] = static_cast<int>(i);
  auto pod_key = [&](int p) {
    return std::tie(plan.workloads[plan.pods[p].workload].ns, plan.pods[p].name);
  };
  std::sort(pod_order.begin(), pod_order.end(),
            [&](int a, int b) { return pod_key(a) < pod_key(b); });
  std::vector<int> workload_order(plan.workloads.size());
  for (size_t i = 0; i < workload_order.size(); ++i) workload_order[i] = static_cast<int>(i);
  std::sort(workload_order.begin(), workload_order.end(), [&](int a, int b) {
    return std::tie(plan.workloads[a].ns, plan.workloads[a].name) <
           std::tie(plan.workloads[b].ns, plan.workloads[b].name);
  });

  std::vector<json> deployments, replica_sets, stateful_sets, pdbs, pvcs, pvs;
  for (int wi : workload_order) {
    const Workload& w = plan.workloads[wi];
    if (w.kind == Kind::kDeployment) {
      deployments.push_back(writer.DeploymentJson(w));
      for (json& rs : writer.ReplicaSetJson(w)) replica_sets.push_back(std::move(rs));
    } else if (w.kind == Kind::kStatefulSet) {
      stateful_sets.push_back(writer.StatefulSetJson(w));
      writer.ClaimsJson(w, pvcs, pvs);
      if (w.name.rfind("etcd", 0) == 0) {
        pdbs.push_back(writer.PdbJson(w, {{"minAvailable", "51%"}}));
      } else {
        pdbs.push_back(writer.PdbJson(w, {{"maxUnavailable", 1}}));
      }
    }
  }
  auto by_name = [](const json& a, const json& b) {
    const json& ma = a["metadata"];
    const json& mb = b["metadata"];
    return std::make_pair(ma.value("namespace", ""), ma["name"].get<std::string>()) <
           std::make_pair(mb.value("namespace", ""), mb["name"].get<std::string>());
  };
  for (std::vector<json>* list : {&replica_sets, &pvcs, &pvs}) {
    std::sort(list->begin(), list->end(), by_name);
  }
  for (int p : pod_order) out.objects.push_back(writer.PodJson(p));
  for (std::vector<json>* list :
       {&deployments, &replica_sets, &stateful_sets, &pdbs, &pvcs, &pvs}) {
    for (json& j : *list) out.objects.push_back(std::move(j));
  }
  for (json& j : writer.StorageClassJson()) out.objects.push_back(std::move(j));
  for (json& j : writer.QuotaJson()) out.objects.push_back(std::move(j));

  FillTruth(plan, out.truth, pod_order, workload_order);
  SimulateRequests(options, out.truth);
  if (options.gpu_profiles) DrawGpuProfiles(options.seed, out.truth);
  return out;
}

double CardProfileCounter(const GroundTruth& truth, int card, int counter, double busy, int64_t t) {
  if (counter == 4) return busy;  // GR_ENGINE_ACTIVE
  double work = 0, weighted = 0;
  for (int p : truth.cards[card].pods) {
    const TruthWorkload& w = truth.workloads[truth.pods[p].workload];
    if (!w.gpu_profile) continue;
    const double part = PodRate(truth, p, t) * w.work_s;
    const TruthGpuProfile& g = *w.gpu_profile;
    const double per_busy = counter == 0   ? g.sm_active
                            : counter == 1 ? g.sm_occupancy
                            : counter == 2 ? g.dram_active
                                           : g.tensor_active;
    work += part;
    weighted += part * per_busy;
  }
  return work > 0 ? busy * weighted / work : 0;
}

}  // namespace knobsim::gen_export
