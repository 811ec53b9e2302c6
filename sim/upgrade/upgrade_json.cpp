#include "sim/upgrade/upgrade_json.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "models/memory_isolation.h"
#include "sim/io/json_numbers.h"

namespace knobsim {

namespace {

using Json = nlohmann::ordered_json;

using json_numbers::Num;
using json_numbers::Seconds;

// A time that may not have come (-1 in the engine's structs): null, never a negative second.
Json TimeOrNull(SimTime t) {
  return t < 0 ? Json(nullptr) : Num(Seconds(t));
}

Json AfterJson(const NodeSettings& after) {
  Json j = Json::object();
  if (after.isolation)
    j["isolation"] = *after.isolation == MemoryIsolation::kHard ? "hard" : "soft";
  if (after.policy) j["policy"] = static_cast<int>(*after.policy);
  if (after.cgpu_version) j["cgpu_version"] = *after.cgpu_version;
  return j;
}

Json OptionsJson(const UpgradeOptions& o) {
  Json j;
  j["order"] = UpgradeOrderName(o.order);
  j["nodes"] = o.nodes;
  j["pools"] = o.pools;
  j["max_unavailable"] = o.max_unavailable;
  j["start_s"] = TimeOrNull(o.start);
  j["reset_time_s"] = Num(Seconds(o.reset_time));
  j["drain_timeout_s"] = Num(Seconds(o.drain_timeout));
  j["retry_interval_s"] = Num(Seconds(o.retry_interval));
  j["tail_s"] = Num(Seconds(o.tail));
  j["after"] = AfterJson(o.after);
  return j;
}

Json NodeJson(const NodeUpgrade& n) {
  Json j;
  j["node"] = n.node;
  j["pool"] = n.pool;
  j["zone"] = n.zone;
  j["outcome"] = n.outcome;
  j["attempts"] = n.attempts;
  j["refusals"] = n.refusals;
  j["cordoned_s"] = TimeOrNull(n.cordoned);
  j["drained_s"] = TimeOrNull(n.drained);
  j["back_s"] = TimeOrNull(n.back);
  Json steps = Json::array();
  for (const NodeStep& s : n.steps) {
    Json step;
    step["t_s"] = Num(Seconds(s.at));
    step["what"] = s.what;
    step["pod"] = s.pod;
    step["detail"] = s.detail;
    steps.push_back(std::move(step));
  }
  j["steps"] = std::move(steps);
  return j;
}

Json BlockedJson(const BlockedDrain& b) {
  Json j;
  j["node"] = b.node;
  j["pod"] = b.pod;
  j["budget"] = b.budget;
  j["from_s"] = Num(Seconds(b.from));
  j["until_s"] = TimeOrNull(b.until);
  j["refusals"] = b.refusals;
  j["cause"] = b.cause;
  j["gave_up"] = b.gave_up;
  return j;
}

}  // namespace

std::string_view UpgradeOrderName(UpgradeOrder order) {
  switch (order) {
    case UpgradeOrder::kPool:
      return "pool";
    case UpgradeOrder::kZone:
      return "zone";
    case UpgradeOrder::kNodeList:
      return "node-list";
  }
  return "pool";
}

nlohmann::ordered_json UpgradeToJson(const UpgradeTimeline& upgrade, const UpgradeOptions& options,
                                     const std::vector<QuotaFix>& quota_fixes) {
  Json j;
  j["started_s"] = TimeOrNull(upgrade.started);
  j["finished_s"] = TimeOrNull(upgrade.finished);
  j["options"] = OptionsJson(options);
  Json fixes = Json::array();
  for (const QuotaFix& f : quota_fixes) {
    Json fj;
    fj["workload"] = f.workload;
    fj["from_units"] = f.from_units;
    fj["to_units"] = f.to_units;
    fj["peak_mib"] = f.peak_mib;
    fj["note"] = f.note;
    fixes.push_back(std::move(fj));
  }
  j["quota_fixes"] = std::move(fixes);
  Json nodes = Json::array();
  for (const NodeUpgrade& n : upgrade.nodes) nodes.push_back(NodeJson(n));
  j["nodes"] = std::move(nodes);
  Json blocked = Json::array();
  for (const BlockedDrain& b : upgrade.blocked) blocked.push_back(BlockedJson(b));
  j["blocked"] = std::move(blocked);
  return j;
}

nlohmann::ordered_json AddUpgradeSections(const nlohmann::ordered_json& results_doc,
                                          const std::vector<UpgradeRun>& runs,
                                          const UpgradeOptions& options,
                                          const std::string& command) {
  // ordered_json keeps insertion order, so the document is rebuilt to put `command` beside
  // `scenario`, where a plan document has it.
  Json out;
  for (const auto& [key, value] : results_doc.items()) {
    if (key == "command") continue;
    if (key != "variants") {
      out[key] = value;
      if (key == "scenario") out["command"] = command;
      continue;
    }
    Json variants = Json::array();
    for (const Json& v : value) {
      Json vj = v;
      const std::string name = v.value("name", "");
      for (const UpgradeRun& r : runs) {
        if (r.name != name) continue;
        vj["upgrade"] = UpgradeToJson(r.upgrade, options, r.quota_fixes);
        break;
      }
      variants.push_back(std::move(vj));
    }
    out["variants"] = std::move(variants);
  }
  if (!out.contains("command")) out["command"] = command;
  return out;
}

}  // namespace knobsim
