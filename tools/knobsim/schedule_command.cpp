// `knobsim schedule`: place pending pods on a cluster exported from Kubernetes, the way ACK's
// scheduler would (node by the kube-scheduler plugins, card by the GPU-share plugin), and say
// why: each pod's node and cards or its FailedScheduling message, and with --explain every
// node's filter verdict and every plugin's score (docs/schedule.md).
//
// Only the --pods file's pending pods are scheduled, in file order; each placed pod then
// occupies its node and cards for the next (Scheduler::ScheduleAndBind). Pending pods found in
// the --cluster files are left out with a note, so `--cluster all.json --pods all.json` works.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/import/import_dra.h"
#include "sim/input_error.h"
#include "sim/io/kube_reader.h"
#include "sim/io/results_json.h"
#include "sim/output_file.h"
#include "sim/run_limits.h"
#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/cluster_state_builder.h"
#include "sim/scheduler/framework.h"
#include "sim/scheduler/node_sample.h"
#include "sim/scheduler/policy_placement.h"
#include "sim/scheduler/scheduler.h"
#include "sim/text.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

constexpr std::string_view kSchema = "knobsim.schedule/v1";

struct ScheduleArgs {
  std::vector<std::string> cluster;
  std::string pods;
  bool explain = false;
  std::string json;
  std::string kube_version = "1.35";
  std::string placement = "binpack";
  bool extender_best_fit = false;
  bool memory_core_mix = false;
  std::string scoring = "LeastAllocated";
  bool random_tie_break = false;
  uint64_t seed = 1;
  int gpu_share_weight = 1;
  int percentage_of_nodes_to_score = kAdaptivePercentageOfNodesToScore;
  bool no_preemption = false;
  std::vector<std::string> limits;  // --limit NAME=VALUE
  CLI::Option* json_opt = nullptr;
  CLI::Option* seed_opt = nullptr;
  CLI::Option* percentage_opt = nullptr;
};

// One pod's outcome, in the words the text and the JSON both print.
struct PodOutcome {
  std::string namespace_;
  std::string name;
  std::string node;  // empty when unschedulable
  std::vector<int> cards;
  std::vector<int> mem_units;
  std::vector<int> core_units;
  // The devices of the pod's DRA claims once bound ("driver/pool/device" per allocation result).
  std::vector<DraDeviceResult> devices;
  std::vector<std::string> device_claims;  // the claim of each, parallel
  std::string message;                // FailedScheduling text when unschedulable
  int64_t score = 0;                  // the winner's weighted total
  int feasible = 0;                   // nodes that passed every filter
  int evaluated = 0;                  // nodes the search reached (percentageOfNodesToScore)
  std::vector<NodeVerdict> verdicts;  // by node index
  bool on_nominated_node = false;     // placed on status.nominatedNodeName, no other node tried
  // DefaultPreemption: the pods evicted for it (namespace/name, most important first) and the
  // FailedScheduling message of the cycle that nominated the node.
  std::vector<std::string> preempted;
  std::string message_before_preemption;
  // Bound, then refused by the kubelet's device admission (the NVIDIA device plugin's
  // failRequestsGreaterThanOne, docs/semantics.md §2.6): the pod fails and holds nothing.
  std::string admission_error;
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string PodKey(const PodSpec& pod) {
  return pod.namespace_ + "/" + pod.name;
}

// Up to `limit` names, then "and N more".
std::string NameList(const std::vector<std::string>& names, size_t limit = 5) {
  std::vector<std::string> shown(names.begin(),
                                 names.begin() + static_cast<long>(std::min(limit, names.size())));
  std::string s = Join(shown, ", ");
  if (names.size() > limit) s += fmt::format(" and {} more", names.size() - limit);
  return s;
}

// Reader and snapshot warnings, each once (a file given as both --cluster and --pods would
// otherwise warn twice). The reader never quotes env values or unrelated annotations.
class Warnings {
 public:
  void Add(const std::vector<std::string>& lines) {
    for (const std::string& line : lines) {
      if (seen_.insert(line).second) std::cerr << "knobsim: warning: " << line << "\n";
    }
  }

 private:
  std::set<std::string> seen_;
};

void Note(const std::string& text) {
  std::cerr << "knobsim: note: " << text << "\n";
}

// What the --cluster and --pods files held that this command does not use. When the --pods
// file is also a --cluster file (`--cluster all.json --pods all.json`), its nodes and bound pods
// are the cluster and need no note.
void NoteUnused(const ScheduleArgs& args, const KubeObjects& cluster, const KubeObjects& pods,
                const std::vector<PodSpec>& pending) {
  std::set<std::string> scheduled;
  for (const PodSpec& p : pending) scheduled.insert(PodKey(p));
  std::vector<std::string> left_out;
  for (const PodSpec& p : PendingPods(cluster)) {
    if (scheduled.count(PodKey(p)) == 0) left_out.push_back(PodKey(p));
  }
  if (!left_out.empty()) {
    Note(
        fmt::format("{} pending pod(s) in the --cluster files are not scheduled (only the "
                    "--pods file's are): {}",
                    left_out.size(), NameList(left_out)));
  }
  const bool pods_file_is_cluster =
      std::find(args.cluster.begin(), args.cluster.end(), args.pods) != args.cluster.end();
  const size_t not_pending = pods.pods.size() - pending.size();
  if (not_pending > 0 && !pods_file_is_cluster) {
    Note(fmt::format("{} pod(s) in {} are bound, finished or terminating and are not scheduled",
                     not_pending, args.pods));
  }
  if (!pods.nodes.empty() && !pods_file_is_cluster) {
    Note(fmt::format("{} Node object(s) in the --pods file are ignored (nodes come from --cluster)",
                     pods.nodes.size()));
  }
  std::map<std::string, int> skipped = cluster.skipped_kinds;
  for (const auto& [kind, n] : pods.skipped_kinds) skipped[kind] += n;
  if (!skipped.empty()) {
    std::vector<std::string> parts;
    for (const auto& [kind, n] : skipped) parts.push_back(fmt::format("{} {}", n, kind));
    Note("skipped objects of other kinds: " + Join(parts, ", "));
  }
}

std::string CardList(const std::vector<int>& cards) {
  std::vector<std::string> parts;
  for (int c : cards) parts.push_back(std::to_string(c));
  return (cards.size() == 1 ? "card " : "cards ") + Join(parts, ",");
}

// The short column names of the --explain table (the legend gives the full ones); a plugin
// added later shows under its own name.
std::string ShortName(std::string_view plugin) {
  static const std::pair<std::string_view, std::string_view> kShort[] = {
      {"TaintToleration", "Taint"},     {"NodeAffinity", "Affinity"},
      {"NodeResourcesFit", "Fit"},      {"PodTopologySpread", "Spread"},
      {"InterPodAffinity", "InterPod"}, {"NodeResourcesBalancedAllocation", "Balanced"},
      {"ImageLocality", "Image"},
  };
  for (const auto& [full, abbr] : kShort) {
    if (plugin == full) return std::string(abbr);
  }
  return std::string(plugin);
}

// A score cell: the normalised score, and the raw one in parentheses where normalising changed it.
std::string ScoreCell(const NodeVerdict::PluginScore& s) {
  if (s.raw == s.normalized) return std::to_string(s.normalized);
  return fmt::format("{} ({})", s.normalized, s.raw);
}

std::string VerdictText(const NodeVerdict& v) {
  return v.failed_plugin + ": " + Join(v.status.reasons, ", ");
}

const NodeVerdict* FirstFeasible(const std::vector<NodeVerdict>& verdicts) {
  for (const NodeVerdict& v : verdicts) {
    if (v.feasible()) return &v;
  }
  return nullptr;
}

std::string Legend(const NodeVerdict& sample) {
  std::vector<std::string> parts;
  for (const NodeVerdict::PluginScore& s : sample.scores) {
    const std::string abbr = ShortName(s.plugin);
    parts.push_back(abbr == s.plugin
                        ? fmt::format("{} (weight {})", s.plugin, s.weight)
                        : fmt::format("{} = {} (weight {})", abbr, s.plugin, s.weight));
  }
  std::string text =
      "Per feasible node, each plugin's score normalised to 0-100 (the raw score in "
      "parentheses where\nnormalising changed it); total = sum of weight x normalised score; "
      "the highest total wins (*).\nColumns:";
  size_t line = text.size() - text.rfind('\n') - 1;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string item = parts[i] + (i + 1 < parts.size() ? "," : ".");
    if (line + 1 + item.size() > 100) {
      text += "\n ";
      line = 1;
    }
    text += " " + item;
    line += 1 + item.size();
  }
  return text + "\n";
}

// The --explain table of one pod: the feasible nodes best first, then the filtered-out ones in
// node order with the first filter that rejected them, then how many the search did not reach.
std::string ExplainTable(const PodOutcome& o, const ClusterState& cluster) {
  std::string out;
  std::vector<const NodeVerdict*> feasible;
  std::vector<const NodeVerdict*> rejected;
  size_t not_evaluated = 0;
  for (const NodeVerdict& v : o.verdicts) {
    if (!v.evaluated) {
      ++not_evaluated;
    } else {
      (v.failed_plugin.empty() ? feasible : rejected).push_back(&v);
    }
  }
  std::stable_sort(feasible.begin(), feasible.end(),
                   [](const NodeVerdict* a, const NodeVerdict* b) { return a->total > b->total; });
  const int chosen = o.node.empty() ? -1 : cluster.FindNode(o.node);

  size_t name_width = 8;  // "(weight)"
  for (const NodeVerdict& v : o.verdicts)
    name_width = std::max(name_width, cluster.node(v.node).spec.name.size());

  if (!feasible.empty()) {
    const std::vector<NodeVerdict::PluginScore>& columns = feasible.front()->scores;
    std::vector<std::string> headers;
    std::vector<size_t> widths;
    for (const NodeVerdict::PluginScore& s : columns) {
      headers.push_back(ShortName(s.plugin));
      size_t w = headers.back().size();
      for (const NodeVerdict* v : feasible) {
        for (const NodeVerdict::PluginScore& t : v->scores) {
          if (t.plugin == s.plugin) w = std::max(w, ScoreCell(t).size());
        }
      }
      widths.push_back(w);
    }
    size_t total_width = 5;
    for (const NodeVerdict* v : feasible)
      total_width = std::max(total_width, std::to_string(v->total).size());

    out += fmt::format("    {:<{}}", "node", name_width);
    for (size_t c = 0; c < headers.size(); ++c)
      out += fmt::format("  {:>{}}", headers[c], widths[c]);
    out += fmt::format("  {:>{}}\n", "total", total_width);
    out += fmt::format("    {:<{}}", "(weight)", name_width);
    for (size_t c = 0; c < columns.size(); ++c)
      out += fmt::format("  {:>{}}", columns[c].weight, widths[c]);
    out += "\n";
    for (const NodeVerdict* v : feasible) {
      out += fmt::format("  {} {:<{}}", v->node == chosen ? '*' : ' ',
                         cluster.node(v->node).spec.name, name_width);
      for (size_t c = 0; c < columns.size(); ++c) {
        std::string cell;
        for (const NodeVerdict::PluginScore& t : v->scores) {
          if (t.plugin == columns[c].plugin) cell = ScoreCell(t);
        }
        out += fmt::format("  {:>{}}", cell, widths[c]);
      }
      out += fmt::format("  {:>{}}\n", v->total, total_width);
    }
  }
  if (!rejected.empty()) {
    out += fmt::format("    filtered out ({} of {} nodes):\n", rejected.size(), o.verdicts.size());
    for (const NodeVerdict* v : rejected) {
      out += fmt::format("      {:<{}}  {}\n", cluster.node(v->node).spec.name, name_width,
                         VerdictText(*v));
    }
  }
  if (not_evaluated > 0) {
    out += fmt::format(
        "    not evaluated ({} of {} nodes): the search stopped after {} feasible nodes "
        "(percentageOfNodesToScore)\n",
        not_evaluated, o.verdicts.size(), feasible.size());
  }
  return out;
}

std::string OutcomeLine(const PodOutcome& o, size_t num_nodes) {
  const std::string who = o.namespace_ + "/" + o.name;
  if (o.node.empty()) return who + ": " + o.message + "\n";
  std::string line = who + " -> " + o.node;
  if (!o.cards.empty()) line += " [" + CardList(o.cards) + "]";
  if (!o.devices.empty()) {
    std::vector<std::string> names;
    for (const DraDeviceResult& d : o.devices)
      names.push_back(d.driver + "/" + d.pool + "/" + d.device);
    line +=
        " [" + std::string(o.devices.size() == 1 ? "device " : "devices ") + Join(names, ",") + "]";
  }
  if (!o.preempted.empty()) {
    return line + fmt::format(
                      " (score {}, after preempting {} pod(s) there: {})\n    first "
                      "attempt: {}\n",
                      o.score, o.preempted.size(), NameList(o.preempted, 10),
                      o.message_before_preemption);
  }
  if (!o.admission_error.empty())
    return line + fmt::format(" (score {}), then UnexpectedAdmissionError: {}\n", o.score,
                              o.admission_error);
  if (o.on_nominated_node) return line + fmt::format(" (score {}, its nominated node)\n", o.score);
  if (o.evaluated < static_cast<int>(num_nodes)) {
    line += fmt::format(" (score {}, {} of {} evaluated nodes feasible; {} nodes in all)\n",
                        o.score, o.feasible, o.evaluated, num_nodes);
  } else {
    line += fmt::format(" (score {}, {} of {} nodes feasible)\n", o.score, o.feasible, num_nodes);
  }
  return line;
}

// Keys in the order the schema lists them (docs/schedule.md), not sorted.
using Json = nlohmann::ordered_json;

Json OutcomeJson(const PodOutcome& o, const ClusterState& cluster, bool explain) {
  using json = Json;
  json pod = {{"name", o.name}, {"namespace", o.namespace_}};
  pod["node"] = o.node.empty() ? json(nullptr) : json(o.node);
  pod["cards"] = o.cards;
  pod["gpu_mem"] = o.mem_units;
  pod["gpu_core"] = o.core_units;
  Json devices = Json::array();
  for (size_t i = 0; i < o.devices.size(); ++i) {
    const DraDeviceResult& d = o.devices[i];
    devices.push_back({{"claim", o.device_claims[i]},
                       {"request", d.request},
                       {"driver", d.driver},
                       {"pool", d.pool},
                       {"device", d.device},
                       {"share_id", d.share_id.empty() ? json(nullptr) : json(d.share_id)}});
  }
  pod["devices"] = std::move(devices);
  pod["score"] = o.node.empty() ? json(nullptr) : json(o.score);
  pod["message"] = o.node.empty() ? json(o.message) : json(nullptr);
  pod["nominated"] = o.on_nominated_node || !o.preempted.empty();
  pod["preempted"] = o.preempted;
  pod["message_before_preemption"] =
      o.preempted.empty() ? json(nullptr) : json(o.message_before_preemption);
  pod["admission_error"] = o.admission_error.empty() ? json(nullptr) : json(o.admission_error);
  if (!explain) return pod;
  json nodes = json::array();
  for (const NodeVerdict& v : o.verdicts) {
    const bool feasible = v.feasible();
    json n = {{"node", cluster.node(v.node).spec.name},
              {"evaluated", v.evaluated},
              {"feasible", feasible}};
    n["failed_plugin"] = v.failed_plugin.empty() ? json(nullptr) : json(v.failed_plugin);
    n["reasons"] = v.status.reasons;
    json scores = json::array();
    for (const NodeVerdict::PluginScore& s : v.scores) {
      scores.push_back({{"plugin", s.plugin},
                        {"raw", s.raw},
                        {"normalized", s.normalized},
                        {"weight", s.weight}});
    }
    n["scores"] = std::move(scores);
    n["total"] = feasible ? json(v.total) : json(nullptr);
    nodes.push_back(std::move(n));
  }
  pod["nodes"] = std::move(nodes);
  return pod;
}

// The scheduler's settings from the options; a failure that is only the message when one is bad.
Status ConfigureScheduler(const ScheduleArgs& args, SchedulerConfig& config) {
  const Expected<KubeVersion> kube_version = KubeVersion::Parse(args.kube_version);
  if (!kube_version) return Status::Failure("--kube-version: " + kube_version.error().message);
  config.kube_version = *kube_version;
  const std::optional<CardPolicy> placement = ParseCardPolicy(args.placement);
  if (!placement || *placement == CardPolicy::kExtenderBestFit) {
    return Status::Failure(
        "--placement: \"" + args.placement +
        "\" is not a placement (the legacy extender's best-fit is --extender-best-fit)");
  }
  config.default_placement = *placement;
  config.extender_best_fit = args.extender_best_fit;
  config.enable_memory_core_mix = args.memory_core_mix;
  // --scoring is checked case-insensitively; the plugin takes upstream's spelling.
  config.node_resources_strategy =
      EqualsIgnoreCase(args.scoring, "MostAllocated") ? "MostAllocated" : "LeastAllocated";
  config.random_tie_break = args.random_tie_break;
  config.gpu_share_weight = args.gpu_share_weight;
  config.percentage_of_nodes_to_score = args.percentage_of_nodes_to_score;
  config.seed = args.seed;
  if (args.seed_opt->count() > 0 && !args.random_tie_break) {
    Note("--seed only matters with --random-tie-break; ties go to the first node in file order");
  }
  return Status::Ok();
}

// The cluster of the --cluster files, with the claims, volumes and classes of both files (a
// StatefulSet's pod and its claim may come in one file).
ClusterState SnapshotCluster(const KubeObjects& cluster_objects, const KubeObjects& pod_objects,
                             Warnings& warnings) {
  std::vector<std::string> snapshot_warnings;
  ClusterState cluster = BuildClusterState(cluster_objects, &snapshot_warnings);
  if (!pod_objects.pvcs.empty() || !pod_objects.pvs.empty() ||
      !pod_objects.storage_classes.empty()) {
    auto both = [](auto a, const auto& b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    cluster.SetVolumes(VolumeCatalog(
        both(cluster_objects.pvcs, pod_objects.pvcs), both(cluster_objects.pvs, pod_objects.pvs),
        both(cluster_objects.storage_classes, pod_objects.storage_classes)));
  }
  // DRA objects of the --pods files (a manifest's claims and templates, or a whole export given
  // as both) join the cluster's, each object once.
  if (!pod_objects.resource_slices.empty() || !pod_objects.device_classes.empty() ||
      !pod_objects.resource_claims.empty() || !pod_objects.resource_claim_templates.empty()) {
    auto merged = [](auto a, const auto& b, auto key) {
      std::set<std::string> seen;
      for (const auto& x : a) seen.insert(key(x));
      for (const auto& x : b) {
        if (seen.insert(key(x)).second) a.push_back(x);
      }
      return a;
    };
    auto by_name = [](const auto& x) { return x.name; };
    auto by_namespace = [](const auto& x) { return x.namespace_ + "/" + x.name; };
    cluster.SetDra(DraCatalog(
        merged(cluster_objects.resource_slices, pod_objects.resource_slices, by_name),
        merged(cluster_objects.device_classes, pod_objects.device_classes, by_name),
        merged(cluster_objects.resource_claims, pod_objects.resource_claims, by_namespace),
        merged(cluster_objects.resource_claim_templates, pod_objects.resource_claim_templates,
               by_namespace)));
  }
  warnings.Add(snapshot_warnings);
  return cluster;
}

// The PodDisruptionBudgets of the --cluster and --pods files (a file given as both counts once),
// with the disruptionsAllowed their status carries.
std::vector<PreemptionBudget> PreemptionBudgets(const ScheduleArgs& args,
                                                const KubeObjects& cluster_objects,
                                                const KubeObjects& pod_objects) {
  std::vector<PreemptionBudget> budgets;
  std::set<std::string> seen;
  auto add = [&](const std::vector<PodDisruptionBudgetSpec>& pdbs) {
    for (const PodDisruptionBudgetSpec& pdb : pdbs) {
      if (!seen.insert(pdb.namespace_ + "/" + pdb.name).second) continue;
      if (!pdb.status) {
        Note(
            fmt::format("PodDisruptionBudget {}/{} has no status; preemption reads its "
                        "disruptionsAllowed as 0",
                        pdb.namespace_, pdb.name));
      }
      PreemptionBudget& b = budgets.emplace_back();
      b.namespace_ = pdb.namespace_;
      b.selector = pdb.selector;
      b.disruptions_allowed = pdb.status ? pdb.status->disruptions_allowed : 0;
      if (pdb.status) {
        b.disrupted_pods.insert(pdb.status->disrupted_pods.begin(),
                                pdb.status->disrupted_pods.end());
      }
    }
  };
  add(cluster_objects.pdbs);
  const bool pods_file_is_cluster =
      std::find(args.cluster.begin(), args.cluster.end(), args.pods) != args.cluster.end();
  if (!pods_file_is_cluster) add(pod_objects.pdbs);
  return budgets;
}

// FGD's target workload: the pods already bound and the ones to place.
std::shared_ptr<std::vector<fgd::TargetPod>> TargetWorkload(const ClusterState& cluster,
                                                            const std::vector<PodSpec>& pending) {
  auto targets = std::make_shared<std::vector<fgd::TargetPod>>();
  for (int p = 0; p < static_cast<int>(cluster.pods().size()); ++p) {
    if (cluster.bound(p)) targets->push_back(fgd::TargetPodOf(cluster.pod(p)));
  }
  for (const PodSpec& pod : pending) targets->push_back(fgd::TargetPodOf(pod));
  return targets;
}

// Schedules and binds each pending pod in turn; the explain record only with --explain (it costs
// a verdict per node and cycle). The node chosen and the line's counts and score are the same
// either way (scheduler.h: the cache and skipped scores cannot change them).
//
// The pods go in the scheduling queue's order (PrioritySort): higher priority first, file order
// among equals. A pod whose preemption nominates a node has its victims deleted there — their
// graceful termination taken as done before the next pod, so nothing else takes the room — and
// is scheduled again, on that node (upstream evaluates the nominated node first).
std::vector<PodOutcome> ScheduleAll(ClusterState& cluster, const SchedulerConfig& config,
                                    const std::vector<PodSpec>& pending,
                                    std::vector<PreemptionBudget> budgets, bool explain) {
  Scheduler scheduler(cluster, config);
  auto live_budgets = std::make_shared<std::vector<PreemptionBudget>>(std::move(budgets));
  scheduler.SetBudgetSource([live_budgets] { return *live_budgets; });
  std::vector<size_t> order(pending.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pending[a].priority > pending[b].priority; });
  std::vector<PodOutcome> outcomes;
  outcomes.reserve(pending.size());
  for (size_t k : order) {
    PodSpec pod = pending[k];
    ScheduleResult r = scheduler.ScheduleAndBind(pod, explain, /*score=*/true);
    PodOutcome& o = outcomes.emplace_back();
    if (r.placement.node < 0 && r.preemption.node >= 0) {
      o.message_before_preemption = r.message;
      for (int victim : r.preemption.victims) {
        o.preempted.push_back(PodKey(cluster.pod(victim)));
        // The disruption controller counts the victim gone: one disruption fewer allowed by
        // each budget that selects it.
        for (PreemptionBudget& b : *live_budgets) {
          if (b.disruptions_allowed > 0 && BudgetSelects(b, cluster.pod(victim))) {
            --b.disruptions_allowed;
          }
        }
        cluster.Unbind(victim);
      }
      pod.nominated_node_name = cluster.node(r.preemption.node).spec.name;
      r = scheduler.ScheduleAndBind(pod, explain, /*score=*/true);
    }
    o.namespace_ = pod.namespace_;
    o.name = pod.name;
    o.on_nominated_node = r.on_nominated_node;
    o.evaluated = r.evaluated;
    o.feasible = r.feasible;
    o.score = r.score;
    if (r.placement.node >= 0) {
      o.node = cluster.node(r.placement.node).spec.name;
      o.cards = r.placement.cards;
      o.mem_units = r.placement.mem_units;
      o.core_units = r.placement.core_units;
      // The bound pod (the last: ClusterState::Bind appends), with the claim the scheduler made
      // for its extended resources where it made one.
      ClaimLookupError unresolved;
      for (const PodClaimRef& ref : cluster.dra().ClaimsOf(cluster.pods().back(), &unresolved)) {
        if (!ref.claim.allocation) continue;
        for (const DraDeviceResult& d : ref.claim.allocation->results) {
          o.devices.push_back(d);
          o.device_claims.push_back(ref.claim.name);
        }
      }
      // The kubelet refuses it after the bind: Failed, it leaves the scheduler's view (a Failed
      // pod holds no resources), so the pods after it see the node without it.
      o.admission_error = DeviceAdmissionError(pod, cluster.node(r.placement.node).spec);
      // ClusterState::Bind appends: the pod just bound is the last.
      if (!o.admission_error.empty()) cluster.Unbind(static_cast<int>(cluster.pods().size()) - 1);
    } else {
      o.message = r.message;
    }
    if (explain) o.verdicts = std::move(r.explain);
  }
  return outcomes;
}

std::string OutcomesJson(const std::vector<PodOutcome>& outcomes, const ClusterState& cluster,
                         bool explain) {
  Json doc = {{"schema", kSchema}, {"knobsim_version", KNOBSIM_VERSION}};
  Json pods = Json::array();
  for (const PodOutcome& o : outcomes) pods.push_back(OutcomeJson(o, cluster, explain));
  doc["pods"] = std::move(pods);
  return doc.dump(2) + "\n";
}

// The text report: a line per pod (with --explain its table, after the legend), then the count.
std::string OutcomesText(const std::vector<PodOutcome>& outcomes, const ClusterState& cluster,
                         bool explain, size_t unschedulable) {
  const size_t num_nodes = cluster.nodes().size();
  std::string text;
  // The legend names the columns of the widest table (PlacementPolicy shows only for pods a
  // paper placement scores).
  const NodeVerdict* sample = nullptr;
  for (const PodOutcome& o : outcomes) {
    const NodeVerdict* v = FirstFeasible(o.verdicts);
    if (v != nullptr && (sample == nullptr || v->scores.size() > sample->scores.size())) sample = v;
  }
  if (explain && sample != nullptr) text += Legend(*sample) + "\n";
  for (const PodOutcome& o : outcomes) {
    if (explain) {
      text += OutcomeLine(o, num_nodes);
      text += ExplainTable(o, cluster);
      text += "\n";
    } else {
      text += OutcomeLine(o, num_nodes);
    }
  }
  size_t refused = 0;
  for (const PodOutcome& o : outcomes) refused += o.admission_error.empty() ? 0 : 1;
  text += fmt::format("{} of {} pod(s) placed, {} unschedulable", outcomes.size() - unschedulable,
                      outcomes.size(), unschedulable - refused);
  text +=
      refused > 0 ? fmt::format(", {} refused by the kubelet's device admission\n", refused) : "\n";
  return text;
}

int Schedule(const ScheduleArgs& args) {
  SchedulerConfig config;
  if (Status bad = ConfigureScheduler(args, config); !bad) return BadInput(bad);
  RunLimits limits;
  if (Status bad = ApplyLimitOptions(args.limits, &limits, kScheduleLimitNames); !bad) {
    return BadInput(bad);
  }
  if (Status bad = CheckOutputPath(args.json, "--json"); !bad) return BadInput(bad);

  if (args.pods == "-" && std::count(args.cluster.begin(), args.cluster.end(), "-") > 0) {
    return BadInput("--cluster and --pods cannot both read standard input (-)");
  }
  Expected<KubeObjects> cluster_objects = ReadKubeFiles(args.cluster);
  if (!cluster_objects.ok()) return BadInput(cluster_objects.error());
  // The cluster's PriorityClasses give the pods of a manifest their priority.
  Expected<KubeObjects> pod_objects = ReadKubeFile(args.pods, cluster_objects->priority_classes);
  if (!pod_objects.ok()) return BadInput(pod_objects.error());
  Warnings warnings;
  warnings.Add(cluster_objects->warnings);
  warnings.Add(pod_objects->warnings);
  if (cluster_objects->nodes.empty()) {
    return BadInput("--cluster: no Node objects in " + Join(args.cluster, ", ") +
                    " (export them with kubectl get nodes -o yaml)");
  }

  const std::vector<PodSpec> pending = PendingPods(*pod_objects);
  NoteUnused(args, *cluster_objects, *pod_objects, pending);
  if (std::string w =
          OlderSchedulerWarning(pending, *cluster_objects, *pod_objects, config.kube_version.minor);
      !w.empty())
    warnings.Add({w});
  if (pending.empty()) Note("no pending pods in " + args.pods + "; nothing to schedule");

  ClusterState cluster = SnapshotCluster(*cluster_objects, *pod_objects, warnings);
  int64_t bound = 0;
  for (int p = 0; p < static_cast<int>(cluster.pods().size()); ++p) bound += cluster.bound(p);
  if (Status over = CheckScheduleLimits(cluster.present_count(), bound,
                                        static_cast<int64_t>(pending.size()), args.explain, limits);
      !over) {
    return BadInput(over);
  }
  config.target_workload = TargetWorkload(cluster, pending);
  // The FGD paper's simulator scores every node (percentageOfNodesToScore 100).
  if (args.percentage_opt->count() == 0) {
    config.percentage_of_nodes_to_score = DefaultPercentageOfNodesToScore(cluster, config);
  }
  config.preemption = !args.no_preemption;
  const std::vector<PodOutcome> outcomes =
      ScheduleAll(cluster, config, pending, PreemptionBudgets(args, *cluster_objects, *pod_objects),
                  args.explain);

  const bool json_to_stdout = args.json_opt->count() > 0 && args.json == "-";
  if (args.json_opt->count() > 0) {
    const std::string text = OutcomesJson(outcomes, cluster, args.explain);
    if (json_to_stdout) {
      std::cout << text << std::flush;
    } else if (Status written = WriteFileAtomically(args.json, text); !written) {
      return BadInput(written);
    }
  }
  size_t unschedulable = 0;
  for (const PodOutcome& o : outcomes)
    unschedulable += o.node.empty() || !o.admission_error.empty() ? 1 : 0;
  // With `--json -` stdout is the document alone, so a pipe into jq gets valid JSON.
  if (!json_to_stdout) {
    std::cout << OutcomesText(outcomes, cluster, args.explain, unschedulable) << std::flush;
  }
  return unschedulable > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void AddScheduleCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ScheduleArgs>();
  CLI::App* cmd = app.add_subcommand(
      "schedule",
      "Place pending pods on a cluster exported from Kubernetes as ACK would and say why: each "
      "pod's node and cards or its FailedScheduling message; --explain adds every node's filter "
      "verdict and scores (see docs/schedule.md). Exit 1 when a pod is unschedulable or fails the "
      "kubelet's device admission.");
  cmd->add_option("--cluster", args->cluster,
                  "Nodes and bound pods: kubectl get -o yaml/json output (single objects, "
                  "multi-document YAML or kind: List); - reads stdin")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--pods", args->pods,
                  "The pods to schedule, in file order (only the pending ones: no nodeName, not "
                  "finished); - reads stdin")
      ->required()
      ->type_name("FILE");
  cmd->add_flag("--explain", args->explain,
                "Per pod, every node's filter verdict and every plugin's score and the total");
  args->json_opt = cmd->add_option(
      "--json", args->json,
      "Write the outcome as JSON (knobsim.schedule/v1) to FILE; - writes it to stdout instead "
      "of the text");
  args->json_opt->type_name("FILE");
  cmd->add_option("--kube-version", args->kube_version,
                  "Kubernetes version whose FailedScheduling wording and rules to use, e.g. "
                  "1.28 or 1.35+dra (default 1.35); from 1.36 extended resources a "
                  "DeviceClass backs are allocated through DRA")
      ->type_name("VERSION");
  cmd->add_option("--placement", args->placement,
                  "Card placement on nodes without the ack.node.gpu.placement label: ACK's "
                  "binpack (default; ACK's own default is unconfirmed) or spread, or the FGD "
                  "paper's random, dotprod, clustering, packing, bestfit, fgd")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return NormalizePlacement(v) ? std::string() : Quote(v) + " is not a placement";
          },
          "PLACEMENT"))
      ->type_name("POLICY");
  cmd->add_flag("--extender-best-fit", args->extender_best_fit,
                "Choose cards as the legacy gpushare extender does (best fit, one card per pod) "
                "instead of ACK's scheduler plugin");
  cmd->add_flag("--memory-core-mix", args->memory_core_mix,
                "ACK's enableMemoryCoreMixSchedule: let gpu-mem-only pods onto nodes that also "
                "offer gpu-core.percentage (off by default, as in ACK)");
  cmd->add_option("--scoring", args->scoring,
                  "NodeResourcesFit scoring strategy (default LeastAllocated)")
      ->check(CLI::IsMember({"LeastAllocated", "MostAllocated"}, CLI::ignore_case))
      ->type_name("STRATEGY");
  cmd->add_flag("--random-tie-break", args->random_tie_break,
                "Break ties between equal node scores at random (seeded), as kube-scheduler "
                "does; default: the first node in file order");
  cmd->add_option("--gpu-share-weight", args->gpu_share_weight,
                  "Weight of the GPU-share score beside kube-scheduler's (default 1; ACK's value "
                  "is unconfirmed)")
      ->check(CLI::Range(0, 100))
      ->type_name("N");
  args->percentage_opt =
      cmd->add_option(
             "--percentage-of-nodes-to-score", args->percentage_of_nodes_to_score,
             "kube-scheduler's percentageOfNodesToScore: on 100+ nodes stop the search "
             "once this share of the nodes is feasible (at least 100), the next pod "
             "starting where it stopped; 0 = upstream's adaptive default (50 % - nodes/125, "
             "at least 5 %), 100 = filter and score every node; default 0, or 100 where "
             "a node uses one of the FGD paper's placements")
          ->check(CLI::Range(0, 100))
          ->type_name("PERCENT");
  const CLI::Validator digits = Uint64Digits();
  args->seed_opt = cmd->add_option("--seed", args->seed, "Seed of the random tie-break (default 1)")
                       ->check(digits);
  cmd->add_flag("--no-preemption", args->no_preemption,
                "Schedule without DefaultPreemption (a profile that disables it): no pod is "
                "evicted for a higher-priority one and messages have no preemption part");
  AddLimitOption(cmd, &args->limits, kScheduleLimitNames);
  cmd->callback([args, exit_code] { *exit_code = Schedule(*args); });
}

}  // namespace knobsim::cli
