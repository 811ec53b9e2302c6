#include "sim/report/plan_page.h"

#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/report/card_map.h"
#include "sim/report/svg_chart.h"

namespace knobsim::report {

namespace {

std::string Traffic(double t) {
  return Short(t) + "\xC3\x97";  // "1.5×"
}

std::string Id(const Json& option) {
  return Text(Get(option, "id"));
}

double Nodes(const Json& option) {
  double n = 0;
  bool any = false;
  for (const Json& pool : Items(Get(option, "pools"))) {
    const double k = Number(Get(pool, "nodes"));
    if (std::isfinite(k)) n += k, any = true;
  }
  return any ? n : NAN;
}

bool Feasible(const Json& option) {
  const Json* f = Get(option, "feasible");
  return f != nullptr && f->is_boolean() && f->get<bool>();
}

// The option family a line of the p99-against-traffic chart follows: everything but traffic.
std::string Family(const Json& o) {
  std::string s = Text(Get(o, "gpu_type"));
  if (const Json* p = Get(o, "policy")) s += " \xC2\xB7 POLICY " + Text(p);
  if (const Json* p = Get(o, "placement")) s += " \xC2\xB7 " + Text(p);
  if (const Json* p = Get(o, "pricing")) s += " \xC2\xB7 " + Text(p);
  return s;
}

std::string Currency(const Json& doc) {
  if (std::string c = Text(Get(Get(doc, "prices"), "currency")); !c.empty()) return c;
  for (const Json& o : Items(Get(doc, "options"))) {
    if (std::string c = Text(Get(o, "currency")); !c.empty()) return c;
  }
  return "";
}

std::string Money(double v, const std::string& currency) {
  return std::isfinite(v) ? fmt::format("{:.2f} {}", v, currency) : "\xE2\x80\x94";
}

class PlanPage {
 public:
  explicit PlanPage(const Json& doc) : doc_(doc), currency_(Currency(doc)) {
    for (const Json& o : Items(Get(doc, "options"))) {
      if (!o.is_object()) continue;
      options_.push_back(&o);
      by_id_.emplace(Id(o), &o);
    }
    for (const Json& t : Items(Get(doc, "traffic_levels"))) {
      if (t.is_number()) levels_.push_back(t.get<double>());
    }
    if (levels_.empty()) {  // a document without the list: the levels its options use
      std::set<double> seen;
      for (const Json* o : options_) {
        const double t = Number(Get(*o, "traffic"));
        if (std::isfinite(t) && seen.insert(t).second) levels_.push_back(t);
      }
    }
  }

  std::string Body() const {
    std::string out = Header();
    out += Recommendations();
    out += Frontiers();
    out += TrafficCurves();
    out += Utilization();
    out += Autoscaled();
    out += AllOptions();
    out += Assumptions();
    out += Reproduce();
    return out;
  }

 private:
  const Json* Option(const std::string& id) const {
    const auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : it->second;
  }

  std::vector<const Json*> AtLevel(double t) const {
    std::vector<const Json*> out;
    for (const Json* o : options_)
      if (Number(Get(*o, "traffic")) == t) out.push_back(o);
    return out;
  }

  const Json* Recommendation(double t) const {
    for (const Json& r : Items(Get(doc_, "recommendations")))
      if (Number(Get(r, "traffic")) == t) return &r;
    return nullptr;
  }

  std::vector<std::string> FrontierIds(double t) const {
    std::vector<std::string> ids;
    for (const Json& f : Items(Get(doc_, "frontier"))) {
      if (Number(Get(f, "traffic")) != t) continue;
      for (const Json& id : Items(Get(f, "options")))
        if (id.is_string()) ids.push_back(id.get<std::string>());
    }
    return ids;
  }

  std::string Header() const {
    const std::string scenario = Text(Get(doc_, "scenario"));
    std::string out = "<header><h1>Capacity plan: " + HtmlEscape(scenario) + "</h1>\n";
    std::vector<std::string> meta = {"knobsim.plan/v1"};
    if (const Json* v = Get(doc_, "knobsim_version")) meta.push_back("knobsim " + Text(v));
    if (const Json* v = Get(doc_, "replications")) meta.push_back(Text(v) + " replications");
    if (const Json* v = Get(doc_, "confidence")) meta.push_back("confidence " + Pct(Number(v), 0));
    if (const Json* v = Get(doc_, "seed")) meta.push_back("seed " + Text(v));
    if (const Json* v = Get(doc_, "duration_s")) {
      meta.push_back(Count(Number(v)) + " s simulated (" + Short(Number(Get(doc_, "warmup_s"))) +
                     " s warm-up)");
    }
    std::string line;
    for (const std::string& m : meta) line += (line.empty() ? "" : " \xC2\xB7 ") + m;
    out += "<p class=\"meta\">" + HtmlEscape(line) + "</p>\n";
    if (const Json* shard = Get(doc_, "shard")) {
      out += "<p class=\"warn\">" +
             HtmlEscape(
                 fmt::format("This is shard {} of {}: a part of the grid only. Merge the shards "
                             "(knobsim merge) for the whole plan; the recommendations below "
                             "see only this part.",
                             Text(Get(shard, "index")), Text(Get(shard, "count")))) +
             "</p>\n";
    }
    const Json* prices = Get(doc_, "prices");
    const Json* example = Get(prices, "example");
    if (example != nullptr && example->is_boolean() && example->get<bool>()) {
      out += "<p class=\"warn\">" +
             HtmlEscape("The prices are examples (" + Text(Get(prices, "file")) + ", " +
                        Text(Get(prices, "date")) +
                        "), not a quote: put your own price file in "
                        "before anyone signs for these costs.") +
             "</p>\n";
    }
    return out + "</header>\n";
  }

  std::string Recommendations() const {
    std::string out =
        "<section id=\"recommendation\"><h2>Recommendation</h2>\n<ul class=\"recs\">\n";
    Table t;
    t.Head({"traffic", "option", "GPU", "POLICY", "placement", "pricing", "pods per card", "nodes",
            "monthly cost", "worst p99 / SLO", "binding workload"});
    for (double level : levels_) {
      const Json* r = Recommendation(level);
      const Json* o = r != nullptr ? Option(Text(Get(r, "option"))) : nullptr;
      std::string text = Text(Get(r, "text"));
      if (text.empty())
        text = r == nullptr ? "no recommendation in the document" : "no option meets every SLO";
      // knobsim plan's sentence names its level ("At 1.5x traffic: ..."); others get a label.
      const std::string label =
          text.rfind("At ", 0) == 0
              ? ""
              : "<strong>" + HtmlEscape(Traffic(level) + " traffic:") + "</strong> ";
      out += fmt::format("<li{}>{}{}</li>\n", o == nullptr ? " class=\"warn\"" : "", label,
                         HtmlEscape(text));
      if (o == nullptr) continue;
      t.Row()
          .Cell(Traffic(level))
          .Cell(Id(*o))
          .Cell(Text(Get(*o, "gpu_type")))
          .Cell(Text(Get(*o, "policy")))
          .Cell(Text(Get(*o, "placement")))
          .Cell(Text(Get(*o, "pricing")))
          .Cell(Text(Get(*o, "density")))
          .Cell(Count(Nodes(*o)), "num")
          .Cell(Money(Number(Get(*o, "monthly_cost")), currency_), "num")
          .Cell(Fixed(Number(Get(*o, "worst_p99_ratio")), 3), "num")
          .Cell(Text(Get(*o, "binding_workload")));
    }
    out += "</ul>\n";
    if (!t.empty()) out += t.Render();
    return out + "</section>\n";
  }

  std::string Frontiers() const {
    std::string out =
        "<section id=\"frontier\"><h2>Cost against p99</h2>\n<p>Each point is one option at the "
        "smallest size that met every SLO; its height is the worst workload's SLO percentile "
        "latency over its target (below 1: the SLO is met). The frontier joins the options that no "
        "other option beats on both cost and latency, cheapest first; grey points are dominated. "
        "The ringed point is the recommendation.</p>\n";
    for (double level : levels_) {
      const std::vector<const Json*> at = AtLevel(level);
      bool priced = false;
      for (const Json* o : at)
        priced = priced || (Feasible(*o) && std::isfinite(Number(Get(*o, "monthly_cost"))));
      auto x_of = [&](const Json& o) { return priced ? Number(Get(o, "monthly_cost")) : Nodes(o); };
      auto point = [&](const Json& o) { return Point{x_of(o), Number(Get(o, "worst_p99_ratio"))}; };

      const std::vector<std::string> front = FrontierIds(level);
      const std::set<std::string> on_front(front.begin(), front.end());
      const Json* rec = Recommendation(level);
      const std::string rec_id = Text(Get(rec, "option"));

      XYChart chart;
      chart.title = Traffic(level) + " traffic: cost against worst p99 / SLO";
      chart.x_label = priced ? "monthly cost (" + currency_ + ")" : "nodes (no prices given)";
      chart.y_label = "worst p99 / SLO";
      chart.y_reference = 1;
      chart.reference_label = "SLO";
      // Scaled to the data (and the SLO line): options between 0.8 and 1 are told apart, not
      // pressed into the top fifth of an axis from 0.
      chart.y_from_zero = false;
      XYSeries others;
      others.name = "dominated options";
      others.joined = false;
      others.muted = true;
      XYSeries frontier;
      frontier.name = "frontier";
      frontier.color = SeriesColor(0);
      std::vector<std::string> infeasible;
      for (const Json* o : at) {
        if (!Feasible(*o)) {
          const std::string reason = Text(Get(*o, "reason"));
          infeasible.push_back(Id(*o) + (reason.empty() ? "" : " (" + reason + ")"));
        } else if (on_front.count(Id(*o)) == 0) {
          others.points.push_back(point(*o));
        }
      }
      for (const std::string& id : front)
        if (const Json* o = Option(id)) frontier.points.push_back(point(*o));
      chart.series.push_back(std::move(others));
      chart.series.push_back(std::move(frontier));
      if (const Json* o = Option(rec_id)) {
        XYSeries r;
        r.name = "recommended: " + rec_id;
        r.points = {point(*o)};
        r.joined = false;
        r.emphasized = true;
        r.color = SeriesColor(1);
        chart.series.push_back(std::move(r));
      }
      out += "<figure>" + RenderXYChart(chart);
      std::string caption = fmt::format("{} options at {} traffic, {} on the frontier.", at.size(),
                                        Traffic(level), front.size());
      if (!infeasible.empty()) {
        caption += fmt::format(" Not drawn, no size met every SLO ({}): ", infeasible.size());
        for (size_t i = 0; i < infeasible.size() && i < 8; ++i)
          caption += (i > 0 ? "; " : "") + infeasible[i];
        if (infeasible.size() > 8) caption += fmt::format("; and {} more", infeasible.size() - 8);
        caption += ".";
      }
      out += "<figcaption>" + HtmlEscape(caption) + "</figcaption></figure>\n";
    }
    return out + "</section>\n";
  }

  std::string TrafficCurves() const {
    std::vector<std::string> families;
    std::map<std::string, XYSeries> series;
    for (const Json* o : options_) {
      if (!Feasible(*o)) continue;
      const std::string f = Family(*o);
      if (series.count(f) == 0) {
        families.push_back(f);
        series[f].name = f;
      }
      series[f].points.push_back({Number(Get(*o, "traffic")), Number(Get(*o, "worst_p99_ratio"))});
    }
    XYChart chart;
    chart.title = "Worst p99 / SLO against traffic, per option";
    chart.x_label = "traffic (\xC3\x97 the scenario's)";
    chart.y_label = "worst p99 / SLO";
    chart.y_reference = 1;
    chart.reference_label = "SLO";
    chart.y_from_zero = false;  // scaled to the data and the SLO line
    for (const std::string& f : families) chart.series.push_back(std::move(series[f]));
    return "<section id=\"traffic\"><h2>p99 against traffic</h2>\n<p>One line per option family "
           "(GPU type, POLICY, placement, pricing), each at the size it needs at that traffic; "
           "options that met no SLO at some traffic leave a gap.</p>\n<figure>" +
           RenderXYChart(chart) + "</figure>\n</section>\n";
  }

  std::string Utilization() const {
    std::string out =
        "<section id=\"utilization\"><h2>Card utilization at the recommended size</h2>\n<p>Busy: "
        "the fraction of the measured time a card had a request in service (what nvidia-smi "
        "shows). Headroom is 1 \xE2\x88\x92 busy.</p>\n";
    bool any = false;
    for (double level : levels_) {
      const Json* rec = Recommendation(level);
      const Json* o = Option(Text(Get(rec, "option")));
      if (o == nullptr) continue;
      CardMapStats stats;
      const HeatMap map =
          CardHeatMap(Get(*o, "cards"), Traffic(level) + " traffic: " + Id(*o), &stats);
      const int n = stats.cards;
      any = true;
      out += "<figure>" + RenderHeatMap(map);
      out += "<figcaption>" +
             HtmlEscape(n == 0 ? std::string("No card figures in the document.")
                               : fmt::format("{} cards: mean busy {}, busiest {} (headroom {}).", n,
                                             Pct(stats.mean), Pct(stats.max), Pct(1 - stats.max))) +
             "</figcaption></figure>\n";
    }
    if (!any) out += "<p>No option met every SLO, so there is no recommended size to show.</p>\n";
    return out + "</section>\n";
  }

  std::string WorkloadTable(const Json& o) const {
    Table t;
    t.Head({"workload", "replicas", "p50", "p99", "p99 \xC2\xB1 (95 %)", "SLO", "error ratio",
            "error budget", "SLO met in", "SLO met"});
    const double reps = Number(Get(doc_, "replications"));
    for (const Json& w : Items(Get(o, "workloads"))) {
      const Json* lat = Get(w, "latency_ms");
      const bool met = Text(Get(w, "slo_met")) == "yes";
      t.Row()
          .Cell(Text(Get(w, "namespace")) + "/" + Text(Get(w, "name")))
          .Cell(Count(Number(Get(w, "replicas"))), "num")
          .Cell(Ms(Number(Get(lat, "p50"))), "num")
          .Cell(Ms(Number(Get(lat, "p99"))), "num")
          .Cell(Ms(Number(Get(lat, "p99_ci95"))), "num")
          .Cell("p" + Text(Get(w, "slo_percentile")) + " \xE2\x89\xA4 " +
                Ms(Number(Get(w, "slo_latency_ms")), 0))
          .Cell(Pct(Number(Get(w, "error_ratio")), 2), "num")
          .Cell(Pct(Number(Get(w, "error_budget")), 2), "num")
          .Cell(Count(Number(Get(w, "slo_met_replications"))) +
                    (std::isfinite(reps) ? " of " + Count(reps) : ""),
                "num")
          .Cell(met ? "met" : "missed", met ? "ok" : "bad");
    }
    return t.empty() ? "" : t.Render();
  }

  std::string AllOptions() const {
    std::string out = "<section id=\"options\"><h2>Every option</h2>\n";
    for (double level : levels_) {
      const Json* o = Option(Text(Get(Recommendation(level), "option")));
      if (o == nullptr) continue;
      out += "<h3>" +
             HtmlEscape(Traffic(level) + " traffic, recommended " + Id(*o) + ": per workload") +
             "</h3>\n" + WorkloadTable(*o);
    }
    Table t;
    t.Head({"option", "feasible", "pods per card", "nodes", "monthly cost", "worst p99 / SLO",
            "binding workload", "sizes tried", "why not"});
    for (const Json* o : options_) {
      std::string tried;
      for (const Json& s : Items(Get(*o, "search"))) {
        // Appended piece by piece: `const char* + std::string` here trips GCC 12's
        // -Wstringop-overflow false positive under LTO.
        if (!tried.empty()) tried += ", ";
        tried += Text(Get(s, "nodes"));
        tried += Text(Get(s, "met")) == "yes" ? "\xE2\x9C\x93" : "\xE2\x9C\x97";
      }
      const bool feasible = Feasible(*o);
      t.Row()
          .Cell(Id(*o))
          .Cell(feasible ? "yes" : "no", feasible ? "ok" : "bad")
          .Cell(Text(Get(*o, "density")))
          .Cell(Count(Nodes(*o)), "num")
          .Cell(Money(Number(Get(*o, "monthly_cost")), currency_), "num")
          .Cell(Fixed(Number(Get(*o, "worst_p99_ratio")), 3), "num")
          .Cell(Text(Get(*o, "binding_workload")))
          .Cell(tried)
          .Cell(Text(Get(*o, "reason")));
    }
    out += fmt::format("<details><summary>All {} options of the grid</summary>\n", options_.size());
    out += t.Render() + "</details>\n</section>\n";
    return out;
  }

  // The options with an autoscaled configuration beside the fixed one (docs/plan.md
  // "Autoscaled pools"); nothing when the plan has none.
  std::string Autoscaled() const {
    Table t;
    t.Head({"option", "fixed nodes", "fixed monthly cost", "autoscaled pools", "mean nodes",
            "autoscaled monthly cost", "worst p99 / SLO"});
    for (const Json* o : options_) {
      const Json* a = Get(*o, "autoscaled");
      if (a == nullptr) continue;
      std::string pools;
      double mean = 0;
      for (const Json& p : Items(Get(*a, "pools"))) {
        if (!pools.empty()) pools += ", ";
        pools += Text(Get(p, "name")) + " " + Text(Get(p, "min")) + ".." + Text(Get(p, "max"));
        mean += Number(Get(p, "nodes_mean"));
      }
      t.Row()
          .Cell(Id(*o))
          .Cell(Count(Nodes(*o)), "num")
          .Cell(Money(Number(Get(*o, "monthly_cost")), currency_), "num")
          .Cell(pools)
          .Cell(Fixed(mean, 1), "num")
          .Cell(Money(Number(Get(*a, "monthly_cost")), currency_), "num")
          .Cell(Fixed(Number(Get(*a, "worst_p99_ratio")), 3), "num");
    }
    if (t.empty()) return "";
    return "<section id=\"autoscaled\"><h2>Autoscaled</h2>\n<p>Each option's autoscaled pools "
           "between the smallest floor that still meets every SLO through the run's traffic and "
           "the fixed size; the cost at their mean size.</p>\n" +
           t.Render() + "</section>\n";
  }

  std::string Assumptions() const {
    std::vector<std::pair<std::string, std::string>> rows;
    rows.emplace_back("scenario", Text(Get(doc_, "scenario")));
    rows.emplace_back("replications per size", Text(Get(doc_, "replications")));
    rows.emplace_back("confidence", Pct(Number(Get(doc_, "confidence")), 0));
    rows.emplace_back("seed", Text(Get(doc_, "seed")));
    rows.emplace_back("simulated time", Short(Number(Get(doc_, "duration_s"))) +
                                            " s, of which warm-up " +
                                            Short(Number(Get(doc_, "warmup_s"))) + " s");
    std::string levels;
    for (double t : levels_) {
      if (!levels.empty()) levels += ", ";
      levels += Traffic(t);
    }
    rows.emplace_back("traffic levels", levels);
    const Json* grid = Get(doc_, "grid");
    auto list = [](const Json* a) {
      if (a != nullptr && !a->is_array()) return Text(a);
      std::string s;
      for (const Json& x : Items(a)) {
        if (!s.empty()) s += ", ";  // not `"" + std::string`: see AllOptions
        s += Text(&x);
      }
      return s;
    };
    rows.emplace_back("GPU types", list(Get(grid, "gpu_types")));
    rows.emplace_back("POLICY values", list(Get(grid, "policies")));
    rows.emplace_back("placements", list(Get(grid, "placements")));
    rows.emplace_back("pods per card", list(Get(grid, "density")));
    rows.emplace_back("pricing", list(Get(grid, "pricing")));
    if (const Json* p = Get(doc_, "prices")) {
      rows.emplace_back("price file", Text(Get(p, "file")));
      rows.emplace_back("currency", Text(Get(p, "currency")));
      rows.emplace_back("prices as of", Text(Get(p, "date")));
      rows.emplace_back("price source", Text(Get(p, "source")));
      rows.emplace_back("example prices", Text(Get(p, "example")));
    } else {
      rows.emplace_back("prices", "none given: options are compared by node count");
    }
    std::string out = "<section id=\"assumptions\"><h2>Assumptions</h2>\n" + KeyValueTable(rows);

    // The SLOs every option was held to, once per workload.
    Table slos;
    slos.Head({"workload", "SLO percentile", "SLO latency", "error budget"});
    std::set<std::string> seen;
    for (const Json* o : options_) {
      for (const Json& w : Items(Get(*o, "workloads"))) {
        const std::string id = Text(Get(w, "namespace")) + "/" + Text(Get(w, "name"));
        if (!seen.insert(id).second) continue;
        slos.Row()
            .Cell(id)
            .Cell("p" + Text(Get(w, "slo_percentile")))
            .Cell(Ms(Number(Get(w, "slo_latency_ms")), 0), "num")
            .Cell(Pct(Number(Get(w, "error_budget")), 2), "num");
      }
    }
    if (!slos.empty()) out += "<h3>SLOs</h3>\n" + slos.Render();
    if (const std::string catalog = GenericTable(Items(Get(doc_, "catalog"))); !catalog.empty()) {
      out += "<h3>GPU catalog</h3>\n" + catalog;
    }
    if (const std::string work = GenericTable(Items(Get(doc_, "workloads"))); !work.empty()) {
      out += "<h3>Workloads (work per request)</h3>\n" + work;
    }
    return out + "</section>\n";
  }

  std::string Reproduce() const {
    const std::string command = Text(Get(doc_, "command"));
    if (command.empty()) return "";
    return "<section id=\"reproduce\"><h2>Reproduce</h2>\n<pre><code>" + HtmlEscape(command) +
           "</code></pre>\n</section>\n";
  }

  const Json& doc_;
  std::string currency_;
  std::vector<const Json*> options_;
  std::map<std::string, const Json*> by_id_;
  std::vector<double> levels_;
};

}  // namespace

std::string PlanPageBody(const Json& doc) {
  return PlanPage(doc).Body();
}

}  // namespace knobsim::report
