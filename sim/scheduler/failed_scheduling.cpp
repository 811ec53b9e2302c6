// The FailedScheduling text, upstream's FitError.Error() (pkg/scheduler/framework/types.go)
// with DefaultPreemption's PostFilter message (docs/semantics.md §3.7):
//
//   0/<N> nodes are available: <histogram>. [no new claims to deallocate, ]preemption: <nested>
//
// The histogram counts each reason once per node that gave it, "<count> <reason>", sorted as
// plain strings ("1 x" < "10 x" < "2 y") and joined with ", ". The nested message has the same
// shape over the preemption dry run's verdict per node (preemption.h): a node rejected as
// UnschedulableAndUnresolvable is "Preemption is not helpful for scheduling" (upstream
// nodesWherePreemptionMightHelp), a node without a lower-priority pod "No preemption victims
// found for incoming pod", a node where evicting them all is not enough the filters' reasons
// then. When preemption nominates a node the message has no preemption part at all (the
// PostFilter succeeded), and a profile without DefaultPreemption has none either.
//
// Version differences (KubeVersion):
//  * before 1.24 there is no preemption suffix (added by kubernetes#107775);
//  * 1.25-1.29 print the suffix through " %v." although it already ends in ".", hence the
//    doubled ".." of those releases (kubernetes#110894 introduced it, #123301 reports it as
//    fixed in 1.30); 1.24 and >= 1.30 end with a single ".";
//  * before 1.25 a PreFilter rejection was not a message of its own: every node carried the
//    PreFilter status, so its reasons appear in the histogram counted N times;
//  * DRA-enabled clusters run the DynamicResources PostFilter before DefaultPreemption; for a pod
//    without claims it answers "no new claims to deallocate", and the framework joins the
//    PostFilter reasons with ", " — hence "no new claims to deallocate, preemption: ...". A pod
//    whose claims passed its PreFilter gets the plugin's answer instead (KubeVersion::
//    dra_answer): "still not schedulable", or "deallocation of ResourceClaim completed" when it
//    freed an allocated claim no node would take.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/scheduler/scheduler.h"
#include "sim/text.h"

namespace knobsim {
namespace {

constexpr const char* kNotHelpful = "Preemption is not helpful for scheduling";
constexpr const char* kNoVictims = "No preemption victims found for incoming pod";

// " <count> <reason>, ..." + "." when there is any entry; nothing otherwise (as upstream).
void AppendHistogram(std::string& msg, const std::map<std::string, int64_t>& counts) {
  std::vector<std::string> entries;
  for (const auto& [reason, count] : counts) {
    if (count <= 0) continue;
    std::string entry = std::to_string(count);
    entry.append(" ").append(reason);
    entries.push_back(std::move(entry));
  }
  if (entries.empty()) return;
  std::sort(entries.begin(), entries.end());
  for (size_t i = 0; i < entries.size(); ++i) msg.append(i == 0 ? " " : ", ").append(entries[i]);
  msg.append(".");
}

std::string NodesAvailable(int num_nodes) {
  std::string msg = "0/";
  msg.append(std::to_string(num_nodes)).append(" nodes are available:");
  return msg;
}

}  // namespace

std::string FailedSchedulingMessage(int num_nodes, const std::vector<PluginStatus>& node_statuses,
                                    const KubeVersion& version, const PluginStatus* pre_filter,
                                    bool preemption_never) {
  std::vector<CountedStatus> counted;
  counted.reserve(node_statuses.size());
  for (const PluginStatus& status : node_statuses) counted.push_back({&status, 1});
  return FailedSchedulingMessageFromCounts(num_nodes, counted, version, pre_filter,
                                           preemption_never);
}

std::string FailedSchedulingMessageFromCounts(int num_nodes,
                                              std::span<const CountedStatus> node_statuses,
                                              const KubeVersion& version,
                                              const PluginStatus* pre_filter,
                                              bool preemption_never) {
  PreemptionVerdict verdict;
  if (preemption_never) {
    verdict.outcome = PreemptionVerdict::Outcome::kNotEligible;
    verdict.not_eligible = "not eligible due to preemptionPolicy=Never.";
  }
  return FailedSchedulingMessageFromCounts(num_nodes, node_statuses, version, pre_filter, verdict);
}

std::string FailedSchedulingMessageFromCounts(int num_nodes,
                                              std::span<const CountedStatus> node_statuses,
                                              const KubeVersion& version,
                                              const PluginStatus* pre_filter,
                                              const PreemptionVerdict& preemption) {
  using Outcome = PreemptionVerdict::Outcome;
  // Upstream never builds a FitError for an empty cluster; it reports ErrNoNodesAvailable.
  if (num_nodes <= 0) return "no nodes available to schedule pods";

  std::string msg = NodesAvailable(num_nodes);
  int64_t not_helpful = 0;  // nodes where preemption cannot help
  int64_t no_victims = 0;   // nodes where it could, had there been victims
  if (pre_filter != nullptr && !pre_filter->ok()) {
    // Every node carries the PreFilter status.
    if (pre_filter->code == StatusCode::kUnschedulableAndUnresolvable) {
      not_helpful = num_nodes;
    } else {
      no_victims = num_nodes;
    }
    if (version.minor >= 25) {
      const std::string reasons = Join(pre_filter->reasons);
      if (!reasons.empty()) msg.append(" ").append(reasons).append(".");
    } else {
      std::map<std::string, int64_t> histogram;
      for (const std::string& reason : pre_filter->reasons) histogram[reason] += num_nodes;
      AppendHistogram(msg, histogram);
    }
  } else {
    std::map<std::string, int64_t> histogram;
    int64_t rejected = 0;
    for (const auto& [status, nodes] : node_statuses) {
      if (status->ok()) continue;
      rejected += nodes;
      for (const std::string& reason : status->reasons) histogram[reason] += nodes;
      if (status->code == StatusCode::kUnschedulableAndUnresolvable) {
        not_helpful += nodes;
      } else {
        no_victims += nodes;
      }
    }
    AppendHistogram(msg, histogram);
    // Nodes without a status of their own: upstream's absent-node default is
    // UnschedulableAndUnresolvable without a reason, so they show only in the suffix.
    not_helpful += std::max<int64_t>(0, num_nodes - rejected);
  }

  // A nominated node ends the PostFilter with success, which drops every reason; a profile
  // without DefaultPreemption leaves DRA's alone.
  if (preemption.outcome == Outcome::kNominated) return msg;
  const std::string_view dra_answer =
      version.dra_answer.empty() ? kNoClaimsToDeallocate : version.dra_answer;
  const bool dra = version.dra || !version.dra_answer.empty();
  if (preemption.outcome == Outcome::kDisabled) {
    if (dra && version.minor >= 24) {
      msg.append(" ").append(dra_answer);
      if (version.minor >= 25 && version.minor <= 29) msg.append(".");
    }
    return msg;
  }
  if (version.minor < 24) return msg;
  std::string post = dra ? std::string(dra_answer) + ", preemption: " : "preemption: ";
  if (preemption.outcome == Outcome::kNotEligible) {
    post.append(preemption.not_eligible);
  } else if (preemption.outcome == Outcome::kDryRun) {
    // The dry run's status on each node it tried; every other node is "not helpful".
    std::map<std::string, int64_t> histogram;
    int64_t tried = 0;
    for (const auto& [status, nodes] : preemption.tried) {
      tried += nodes;
      for (const std::string& reason : status->reasons) histogram[reason] += nodes;
    }
    histogram[kNotHelpful] += std::max<int64_t>(0, num_nodes - tried);
    post.append(NodesAvailable(num_nodes));
    AppendHistogram(post, histogram);
  } else {
    post.append(NodesAvailable(num_nodes));
    AppendHistogram(post, {{kNotHelpful, not_helpful}, {kNoVictims, no_victims}});
  }
  msg.append(" ").append(post);
  if (version.minor >= 25 && version.minor <= 29) msg.append(".");
  return msg;
}

namespace {

// Go's %v of a []string: "[a b]".
std::string GoList(const std::vector<std::string>& names) { return "[" + Join(names, " ") + "]"; }

}  // namespace

PluginStatus OutsidePreFilterResultStatus(const KubeVersion& version,
                                          const std::vector<std::string>& plugins) {
  PluginStatus status{StatusCode::kUnschedulableAndUnresolvable, {}};
  if (version.minor >= 32) {
    status.reasons.push_back("node(s) didn't satisfy plugin(s) " + GoList(plugins));
  } else if (version.minor == 25 || version.minor == 26) {
    status.reasons.push_back("node is filtered out by the prefilter result");
  }
  return status;
}

PluginStatus PreFilterResultsConflict(const std::vector<std::string>& plugins) {
  if (plugins.size() == 1) {
    return PluginStatus::Unresolvable("node(s) didn't satisfy plugin " + plugins[0]);
  }
  return PluginStatus::Unresolvable("node(s) didn't satisfy plugin(s) " + GoList(plugins) +
                                    " simultaneously");
}

}  // namespace knobsim
