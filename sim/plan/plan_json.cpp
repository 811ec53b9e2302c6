#include "sim/plan/plan_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "sim/io/json_numbers.h"
#include "sim/slo_check.h"
#include "sim/text.h"

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

using json_numbers::Num;
using json_numbers::Seconds;

Json OrNull(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

Json WorkloadJson(const PlanWorkload& w) {
  const bool any = w.latency_replications > 0;
  auto lat = [any](double x) { return any ? Num(x) : Json(nullptr); };
  Json j;
  j["name"] = w.name;
  j["namespace"] = w.namespace_;
  j["replicas"] = w.replicas;
  j["slo_percentile"] = Num(w.slo.percentile);
  j["slo_latency_ms"] =
      w.slo.latency > 0 ? Num(static_cast<double>(w.slo.latency) / kNanosPerMilli) : Json(nullptr);
  Json l;
  l["p50"] = lat(w.p50_ms.mean);
  l["p99"] = lat(w.p99_ms.mean);
  l["p99_ci95"] = lat(w.p99_ms.half_width);
  l["slo"] = lat(w.slo_latency_ms.mean);         // at the SLO percentile, mean over replications
  l["slo_bound"] = lat(w.slo_latency_bound_ms);  // its one-sided upper confidence bound
  j["latency_ms"] = std::move(l);
  j["error_ratio"] = Num(w.error_ratio.mean);
  j["error_ratio_bound"] = Num(w.error_ratio_bound);
  j["error_budget"] = Num(w.slo.error_budget);
  // The backlog rule (sim/slo_check.h): requests unanswered and overdue at the end, per request.
  j["overdue_ratio_bound"] = Num(w.overdue_ratio_bound);
  j["overdue_allowance"] = Num(BacklogAllowance(w.slo, 1.0));
  j["slo_met_replications"] = w.slo_met_replications;
  j["slo_met"] = w.slo_met;
  return j;
}

Json WorkloadsJson(const std::vector<PlanWorkload>& workloads) {
  Json ws = Json::array();
  for (const PlanWorkload& w : workloads) ws.push_back(WorkloadJson(w));
  return ws;
}

// A feasible option's cheapest autoscaled configuration (docs/plan.md "Autoscaled pools").
Json AutoscaledJson(const PlanAutoscaled& a, const std::string& currency) {
  Json j;
  Json pools = Json::array();
  for (const PlanAutoscaledPool& p : a.pools) {
    Json pj;
    pj["name"] = p.name;
    pj["min"] = p.min;
    pj["max"] = p.max;
    pj["nodes_mean"] = Num(p.nodes_mean);
    pj["monthly_cost"] = p.monthly_cost ? Num(*p.monthly_cost) : Json(nullptr);
    pools.push_back(std::move(pj));
  }
  j["pools"] = std::move(pools);
  j["monthly_cost"] = a.monthly_cost ? Num(*a.monthly_cost) : Json(nullptr);
  j["currency"] = OrNull(currency);
  j["worst_p99_ratio"] = Num(a.worst_p99_ratio);
  j["workloads"] = WorkloadsJson(a.workloads);
  Json search = Json::array();
  for (const PlanSearchStep& s : a.search) {
    Json sj;
    sj["floor"] = s.nodes;
    sj["met"] = s.met;
    sj["pool"] = s.pool;
    search.push_back(std::move(sj));
  }
  j["search"] = std::move(search);
  return j;
}

Json OptionJson(const PlanOption& o) {
  Json j;
  j["id"] = o.id;
  j["cell"] = o.cell;
  j["traffic"] = Num(o.traffic);
  j["gpu_type"] = o.gpu_type;
  j["policy"] = o.policy;
  j["placement"] = o.placement;
  j["pricing"] = o.pricing;
  j["density"] = o.density > 0 ? Json(o.density) : Json(nullptr);
  j["feasible"] = o.feasible;
  j["reason"] = o.feasible ? Json(nullptr) : Json(o.reason);
  Json pools = Json::array();
  for (const PlanPool& p : o.pools) {
    Json pj;
    pj["name"] = p.name;
    pj["instance_type"] = OrNull(p.instance_type);
    pj["nodes"] = p.nodes;
    pj["cards"] = p.cards;
    pj["monthly_cost"] = p.monthly_cost ? Num(*p.monthly_cost) : Json(nullptr);
    pools.push_back(std::move(pj));
  }
  j["pools"] = std::move(pools);
  j["monthly_cost"] = o.monthly_cost ? Num(*o.monthly_cost) : Json(nullptr);
  j["currency"] = OrNull(o.currency);
  j["binding_workload"] = o.feasible ? OrNull(o.binding_workload) : Json(nullptr);
  j["worst_p99_ratio"] = o.feasible ? Num(o.worst_p99_ratio) : Json(nullptr);
  j["workloads"] = WorkloadsJson(o.workloads);
  Json cards = Json::array();
  for (const PlanCard& c : o.cards) {
    Json cj;
    cj["node"] = c.node;
    cj["index"] = c.index;
    cj["gpu"] = c.gpu;
    cj["busy"] = Num(c.busy);
    cj["effective"] = Num(c.effective);
    cj["headroom"] = Num(c.headroom);
    cards.push_back(std::move(cj));
  }
  j["cards"] = std::move(cards);
  Json search = Json::array();
  for (const PlanSearchStep& s : o.search) {
    Json sj;
    sj["nodes"] = s.nodes;
    sj["met"] = s.met;
    sj["pool"] = s.pool;
    sj["density"] = s.density;
    search.push_back(std::move(sj));
  }
  j["search"] = std::move(search);
  if (o.autoscaled) j["autoscaled"] = AutoscaledJson(*o.autoscaled, o.currency);
  return j;
}

std::string Fixed2(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

// Milliseconds with three significant figures or so: 182, 41.3, 7.25.
std::string Ms(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x);
  return buf;
}

// A number as people write it: 1, 1.5, 99 (the JSON writer would say 1.0 for a double).
std::string NumberText(const Json& x) {
  return x.is_number() ? ShortestNumber(x.get<double>()) : x.dump();
}

int Cards(const Json& option) {
  int n = 0;
  for (const Json& p : option.at("pools")) n += p.at("cards").get<int>();
  return n;
}

double Double(const Json& x, double otherwise) {
  return x.is_number() ? x.get<double>() : otherwise;
}

// How options compare for "cheapest": cost (cards without prices), worst ratio, grid order.
std::tuple<double, double, int> Rank(const Json& o) {
  const double cost =
      o.at("monthly_cost").is_number() ? o.at("monthly_cost").get<double>() : Cards(o);
  return {cost, Double(o.at("worst_p99_ratio"), 1e300), o.at("cell").get<int>()};
}

// "ai/ocr binds (p99 182 ms of 200 ms)", or the error ratio when errors bind.
std::string BindingText(const Json& option) {
  const Json& id = option.at("binding_workload");
  if (!id.is_string()) return "";
  for (const Json& w : option.at("workloads")) {
    if (w.at("namespace").get<std::string>() + "/" + w.at("name").get<std::string>() != id)
      continue;
    const double lat_ratio =
        w.at("slo_latency_ms").is_number() && w.at("latency_ms").at("slo_bound").is_number()
            ? w.at("latency_ms").at("slo_bound").get<double>() /
                  w.at("slo_latency_ms").get<double>()
            : -1;
    const double budget = Double(w.at("error_budget"), 0);
    const double err_ratio = budget > 0 ? Double(w.at("error_ratio_bound"), 0) / budget : -1;
    std::string text = id.get<std::string>() + " binds (";
    if (lat_ratio >= err_ratio && w.at("latency_ms").at("slo").is_number()) {
      text += "p" + NumberText(w.at("slo_percentile")) + " " +
              Ms(w.at("latency_ms").at("slo").get<double>()) + " ms of " +
              Ms(w.at("slo_latency_ms").get<double>()) + " ms)";
    } else {
      text += "errors " + Fixed2(100 * Double(w.at("error_ratio"), 0)) + " % of " +
              Fixed2(100 * budget) + " %)";
    }
    return text;
  }
  return "";
}

std::string Recommendation(double traffic, const Json& o) {
  std::string text = "At " + NumberText(Json(traffic)) + "x traffic: ";
  const Json& pools = o.at("pools");
  // Each pool by name with its nodes and what they are, the instance type where prices name
  // one: "7 nodes of ecs.gn7i-c8g1.2xlarge (A10) in gpu-infer".
  for (size_t i = 0; i < pools.size(); ++i) {
    const Json& p = pools[i];
    const int nodes = p.at("nodes").get<int>();
    if (i > 0) text += " + ";
    text += std::to_string(nodes) + (nodes == 1 ? " node " : " nodes ");
    if (p.at("instance_type").is_string())
      text += "of " + p.at("instance_type").get<std::string>() + " ";
    text += "(" + o.at("gpu_type").get<std::string>() + ") in " + p.at("name").get<std::string>();
  }
  text += ", POLICY " + std::to_string(o.at("policy").get<int>()) + ", " +
          o.at("placement").get<std::string>();
  if (o.at("density").is_number()) {
    const int d = o.at("density").get<int>();
    text += ", " + std::to_string(d) + (d == 1 ? " pod per card" : " pods per card");
  }
  if (o.at("monthly_cost").is_number()) {
    text += ", " + Fixed2(o.at("monthly_cost").get<double>()) + " " +
            o.at("currency").get<std::string>() + "/month";
    if (o.at("pricing") != "on_demand") text += " (" + o.at("pricing").get<std::string>() + ")";
  } else {
    const int cards = Cards(o);
    text += ", " + std::to_string(cards) + (cards == 1 ? " card" : " cards") + " (no prices given)";
  }
  const std::string binding = BindingText(o);
  if (!binding.empty()) text += "; " + binding;
  // The autoscaled configuration beside it: "; autoscaled, gpu-a10 0..3 nodes (mean 2.3) for
  // 16027.91 CNY/month".
  if (o.contains("autoscaled")) {
    const Json& a = o.at("autoscaled");
    text += "; autoscaled,";
    for (const Json& p : a.at("pools")) {
      text += " " + p.at("name").get<std::string>() + " " + std::to_string(p.at("min").get<int>()) +
              ".." + std::to_string(p.at("max").get<int>()) + " nodes (mean " +
              ShortestNumber(std::round(p.at("nodes_mean").get<double>() * 10) / 10) + ")";
    }
    if (a.at("monthly_cost").is_number())
      text += " for " + Fixed2(a.at("monthly_cost").get<double>()) + " " +
              a.at("currency").get<std::string>() + "/month";
  }
  return text + ".";
}

// The document without the keys in which shards may differ. A shard that carries its sweep
// (the command with each input file as the hash of its bytes, PlanSweepText) is compared on
// that instead of the command and the price file's path, which name the files as typed: the
// same scenario given as ./s.yaml on one node and /work/s.yaml on another is the same plan,
// as `knobsim run` shards compare the scenario's bytes, not its path.
Json Common(const Json& doc) {
  Json c = doc;
  for (const char* k : {"shard", "options", "recommendations", "frontier"}) c.erase(k);
  const auto shard = doc.find("shard");
  if (shard != doc.end() && shard->is_object() && shard->contains("sweep")) {
    c["command"] = (*shard)["sweep"];
    if (c.contains("prices") && c["prices"].is_object()) c["prices"].erase("file");
  }
  return c;
}

}  // namespace

Json PlanToJson(const PlanResult& r, const std::string& command, std::string_view version) {
  const PlanOptions& o = r.options;
  Json j;
  j["schema"] = kPlanSchema;
  j["knobsim_version"] = version;
  j["scenario"] = r.scenario;
  j["command"] = command;
  j["seed"] = o.seed;
  j["replications"] = o.replications;
  j["confidence"] = Num(o.confidence);
  j["duration_s"] = Num(Seconds(r.duration));
  j["warmup_s"] = Num(Seconds(r.warmup));
  if (o.prices != nullptr) {
    Json p;
    p["file"] = o.prices->file;
    p["currency"] = o.prices->currency;
    p["date"] = o.prices->date;
    p["source"] = o.prices->source;
    p["example"] = o.prices->example;
    j["prices"] = std::move(p);
  } else {
    j["prices"] = nullptr;
  }
  Json levels = Json::array();
  for (double t : o.traffic) levels.push_back(Num(t));
  j["traffic_levels"] = std::move(levels);
  Json grid;
  grid["gpu_types"] = o.gpu_types;
  grid["policies"] = o.policies;
  grid["placements"] = o.placements;
  grid["density"] = o.density > 0 ? Json(o.density) : Json("auto");
  grid["pricing"] = o.pricing;
  j["grid"] = std::move(grid);
  if (!o.shard.whole()) {
    Json s;
    s["index"] = o.shard.index;
    s["count"] = o.shard.count;
    j["shard"] = std::move(s);
  }
  Json options = Json::array();
  for (const PlanOption& opt : r.options_planned) options.push_back(OptionJson(opt));
  j["options"] = std::move(options);
  AddPlanSummary(&j);
  return j;
}

void AddPlanSummary(Json* doc) {
  Json& d = *doc;
  Json recs = Json::array();
  Json frontier = Json::array();
  for (const Json& level : d.at("traffic_levels")) {
    const double t = level.get<double>();
    std::vector<const Json*> feasible;
    const Json* first_infeasible = nullptr;
    for (const Json& o : d.at("options")) {
      if (o.at("traffic").get<double>() != t) continue;
      if (o.at("feasible").get<bool>()) {
        feasible.push_back(&o);
      } else if (first_infeasible == nullptr) {
        first_infeasible = &o;
      }
    }
    std::sort(feasible.begin(), feasible.end(),
              [](const Json* a, const Json* b) { return Rank(*a) < Rank(*b); });
    Json rec;
    rec["traffic"] = level;
    if (feasible.empty()) {
      rec["option"] = nullptr;
      rec["monthly_cost"] = nullptr;
      std::string text =
          "At " + NumberText(level) + "x traffic: no option of the grid meets every SLO";
      if (first_infeasible != nullptr) {
        text += " (" + first_infeasible->at("id").get<std::string>() + ": " +
                first_infeasible->at("reason").get<std::string>() + ")";
      }
      rec["text"] = text + ".";
    } else {
      const Json& best = *feasible.front();
      rec["option"] = best.at("id");
      rec["monthly_cost"] = best.at("monthly_cost");
      rec["text"] = Recommendation(t, best);
    }
    recs.push_back(std::move(rec));

    // Pareto set: walking from the cheapest, keep an option when it is strictly better on the
    // ratio than everything cheaper (equal cost: the sort already put the better ratio first).
    Json ids = Json::array();
    double best_ratio = 1e300;
    for (const Json* o : feasible) {
      const double ratio = Double(o->at("worst_p99_ratio"), 1e300);
      if (ratio < best_ratio) {
        ids.push_back(o->at("id"));
        best_ratio = ratio;
      }
    }
    Json f;
    f["traffic"] = level;
    f["options"] = std::move(ids);
    frontier.push_back(std::move(f));
  }
  d["recommendations"] = std::move(recs);
  d["frontier"] = std::move(frontier);
}

std::string PlanJsonText(const Json& doc) {
  return doc.dump(2) + "\n";
}

namespace {

constexpr int64_t kMostPolicy = 5;  // cGPU POLICY 0..5

void CheckPlanWorkload(const JsonField& w) {
  w.At("name").String();
  w.At("namespace").String();
  w.At("replicas").Integer(0);
  w.At("slo_percentile").Number();
  w.At("slo_latency_ms").NumberOrNull();
  const JsonField latency = w.At("latency_ms");
  for (const char* key : {"p50", "p99", "p99_ci95"}) latency.At(key).NumberOrNull();
  for (const char* key : {"error_ratio", "error_budget"}) w.At(key).NumberOrNull();
  // Added within v1 (the SLO percentile's latency and the bounds): checked when there.
  for (const char* key : {"slo", "slo_bound"})
    if (auto f = latency.Find(key)) f->NumberOrNull();
  for (const char* key : {"error_ratio_bound", "overdue_ratio_bound", "overdue_allowance"})
    if (auto f = w.Find(key)) f->NumberOrNull();
  w.At("slo_met_replications").Integer(0);
  w.At("slo_met").Bool();
}

void CheckPlanOption(const JsonField& o) {
  o.At("id").String();
  // The grid cell: merge needs it (and says so); documents of knobsim 0.1 have none.
  if (auto cell = o.Find("cell")) cell->Integer(0);
  o.At("traffic").Number();
  o.At("gpu_type").String();
  o.At("policy").Integer(0, kMostPolicy);
  o.At("placement").String();
  o.At("pricing").String();
  if (const JsonField density = o.At("density"); !density.is_null()) density.Integer(1);
  o.At("feasible").Bool();
  o.At("reason").StringOrNull();
  for (const JsonField& p : o.At("pools").Items()) {
    p.At("name").String();
    p.At("instance_type").StringOrNull();
    p.At("nodes").Integer(0);
    p.At("cards").Integer(0);
    p.At("monthly_cost").NumberOrNull();
  }
  const bool priced = o.At("monthly_cost").NumberOrNull().has_value();
  const JsonField currency = o.At("currency");
  if (priced) {
    currency.String();
  } else {
    currency.StringOrNull();
  }
  o.At("binding_workload").StringOrNull();
  o.At("worst_p99_ratio").NumberOrNull();
  for (const JsonField& w : o.At("workloads").Items()) CheckPlanWorkload(w);
  for (const JsonField& c : o.At("cards").Items()) {
    c.At("node").String();
    c.At("index").Integer(0);
    for (const char* key : {"busy", "effective", "headroom"}) c.At(key).NumberOrNull();
  }
  if (auto search = o.Find("search"))
    for (const JsonField& step : search->Items()) step.Object();
}

}  // namespace

Status CheckPlanDocument(const JsonDocument& doc) {
  return CheckJson(doc, [](const JsonField& root) {
    root.Object();
    const JsonField schema = root.At("schema");
    if (schema.String() != kPlanSchema)
      schema.Fail(schema.Shown() + " is not " + std::string(kPlanSchema));
    root.At("scenario").String();
    root.At("command").String();
    root.At("seed").Unsigned();
    root.At("replications").Integer(1);
    const JsonField levels = root.At("traffic_levels");
    if (levels.Items().empty()) levels.Fail("is empty: a plan has one traffic level at least");
    for (const JsonField& t : levels.Items()) t.Number();
    const JsonField grid = root.At("grid");
    for (const char* key : {"gpu_types", "placements", "pricing"})
      for (const JsonField& item : grid.At(key).Items()) item.String();
    for (const JsonField& p : grid.At("policies").Items()) p.Integer(0, kMostPolicy);
    if (auto shard = root.Find("shard")) {
      const int64_t count = shard->At("count").Integer(1, 1'000'000);
      shard->At("index").Integer(0, count - 1);
      if (auto sweep = shard->Find("sweep")) sweep->String();
    }
    for (const JsonField& o : root.At("options").Items()) CheckPlanOption(o);
    if (auto recs = root.Find("recommendations")) {
      for (const JsonField& r : recs->Items()) {
        r.At("traffic").Number();
        r.At("option").StringOrNull();
        r.At("text").String();
      }
    }
    if (auto frontier = root.Find("frontier")) {
      for (const JsonField& f : frontier->Items()) {
        f.At("traffic").Number();
        for (const JsonField& id : f.At("options").Items()) id.String();
      }
    }
  });
}

Expected<Json> MergePlanShards(const std::vector<Json>& shards) {
  auto fail = [](std::string why) { return InputError{"", 0, "", std::move(why), ""}; };
  if (shards.empty()) return fail("no shard documents to merge");
  int count = -1;
  std::map<int, const Json*> by_index;
  for (size_t i = 0; i < shards.size(); ++i) {
    const Json& s = shards[i];
    const std::string which = "document " + std::to_string(i + 1);
    if (!s.is_object() || !s.contains("schema") || s.at("schema") != kPlanSchema) {
      return fail(which + " is not a " + std::string(kPlanSchema) + " document");
    }
    if (!s.contains("shard") || !s.at("shard").is_object()) {
      return fail(which + " is not a shard (no \"shard\" key): it is a whole plan already");
    }
    const Json& sh = s.at("shard");
    if (!sh.contains("index") || !sh.contains("count") || !sh.at("index").is_number_integer() ||
        !sh.at("count").is_number_integer()) {
      return fail(which + ": \"shard\" needs integer \"index\" and \"count\"");
    }
    const int index = sh.at("index").get<int>();
    const int n = sh.at("count").get<int>();
    if (count >= 0 && n != count) {
      return fail("shard counts differ: " + std::to_string(count) + " and " + std::to_string(n));
    }
    count = n;
    if (index < 0 || index >= n) return fail(which + ": shard index out of range");
    if (!by_index.emplace(index, &s).second) {
      return fail("shard " + std::to_string(index) + "/" + std::to_string(n) + " is given twice");
    }
    if (!s.contains("options") || !s.at("options").is_array()) {
      return fail(which + ": \"options\" is not an array");
    }
  }
  for (int i = 0; i < count; ++i) {
    if (by_index.count(i) == 0) {
      return fail("shard " + std::to_string(i) + "/" + std::to_string(count) + " is missing");
    }
  }
  if (static_cast<int>(shards.size()) != count) {
    return fail("expected " + std::to_string(count) + " shards, got " +
                std::to_string(shards.size()));
  }
  const Json& first = *by_index.at(0);
  const Json common = Common(first);
  for (const auto& [index, s] : by_index) {
    if (Common(*s) != common) {
      const std::string what =
          Common(*s).value("command", Json()) != common.value("command", Json()) ? "commands"
                                                                                 : "plans";
      return fail("shard " + std::to_string(index) + " comes from a different plan (" + what +
                  " differ from shard 0's)");
    }
  }
  size_t cells = 1;
  try {
    const Json& g = first.at("grid");
    cells = first.at("traffic_levels").size() * g.at("gpu_types").size() * g.at("policies").size() *
            g.at("placements").size() * g.at("pricing").size();
  } catch (const Json::exception&) {
    return fail("shard 0 has no complete \"grid\" and \"traffic_levels\"");
  }
  std::map<int, Json> options;
  for (const auto& [index, s] : by_index) {
    for (const Json& o : s->at("options")) {
      if (!o.is_object() || !o.contains("cell") || !o.at("cell").is_number_integer()) {
        return fail("shard " + std::to_string(index) + ": an option without an integer \"cell\"");
      }
      const int cell = o.at("cell").get<int>();
      if (cell < 0 || static_cast<size_t>(cell) >= cells || cell % count != index) {
        return fail("shard " + std::to_string(index) + " holds cell " + std::to_string(cell) +
                    ", which it does not own");
      }
      if (!options.emplace(cell, o).second) {
        return fail("cell " + std::to_string(cell) + " appears twice");
      }
    }
  }
  if (options.size() != cells) {
    return fail("the shards hold " + std::to_string(options.size()) + " of the plan's " +
                std::to_string(cells) + " cells");
  }
  Json merged;
  for (auto it = first.begin(); it != first.end(); ++it) {
    if (it.key() == "shard") continue;
    if (it.key() == "options") {
      Json all = Json::array();
      for (auto& [cell, o] : options) all.push_back(std::move(o));
      merged["options"] = std::move(all);
    } else {
      merged[it.key()] = it.value();
    }
  }
  try {
    AddPlanSummary(&merged);
  } catch (const Json::exception& e) {
    // Unreachable for documents CheckPlanDocument accepted; the library's text says nothing to
    // a user, so it is not passed on.
    return fail("an option lacks a field the summary needs (see docs/plan.md for the fields)");
  }
  return merged;
}

}  // namespace knobsim
