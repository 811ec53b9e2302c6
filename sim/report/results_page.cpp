#include "sim/report/results_page.h"

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

bool True(const Json* j) {
  return j != nullptr && j->is_boolean() && j->get<bool>();
}

const Json* FindBy(const Json* array, const std::string& id, std::string (*key)(const Json&)) {
  for (const Json& x : Items(array))
    if (key(x) == id) return &x;
  return nullptr;
}

std::string ErrorsText(const Json& w) {
  const Json* e = Get(w, "errors");
  std::string s;
  for (const auto& [key, label] :
       std::vector<std::pair<const char*, const char*>>{{"oom", "OOM"},
                                                        {"fake_ready", "fake Ready"},
                                                        {"timeout", "timeout"},
                                                        {"no_replica", "no replica"},
                                                        {"interrupted", "spot interrupted"}}) {
    const double v = Number(Get(e, key));
    if (v > 0) s += (s.empty() ? "" : ", ") + Count(v) + " " + label;
  }
  return s.empty() ? (e == nullptr ? "\xE2\x80\x94" : "none") : s;
}

class ResultsPage {
 public:
  explicit ResultsPage(const Json& doc) : doc_(doc) {
    for (const Json& v : Items(Get(doc, "variants")))
      if (v.is_object()) variants_.push_back(&v);
    // Workloads by id in the order they first appear (base first), for the rows of the table.
    std::set<std::string> seen;
    for (const Json* v : variants_) {
      for (const Json& w : Items(Get(*v, "workloads"))) {
        const std::string id = WorkloadId(w);
        if (seen.insert(id).second) workloads_.push_back(id);
      }
    }
  }

  std::string Body() const {
    std::string out = Header();
    if (variants_.empty()) return out + "<p class=\"warn\">The document holds no variant.</p>\n";
    out += Verdicts();
    out += SideBySide();
    out += LatencyChart();
    out += Utilization();
    out += Assumptions();
    return out;
  }

 private:
  std::string Name(const Json& v) const { return Text(Get(v, "name")); }

  std::string Header() const {
    std::string out =
        "<header><h1>Simulation results: " + HtmlEscape(Text(Get(doc_, "scenario"))) + "</h1>\n";
    std::vector<std::string> meta = {"knobsim.results/v1"};
    if (const Json* v = Get(doc_, "knobsim_version")) meta.push_back("knobsim " + Text(v));
    meta.push_back(fmt::format("{} variant(s)", variants_.size()));
    if (const Json* v = Get(doc_, "replications")) meta.push_back(Text(v) + " replication(s)");
    if (const Json* v = Get(doc_, "seed")) meta.push_back("seed " + Text(v));
    if (const Json* v = Get(doc_, "duration_s")) {
      meta.push_back(Count(Number(v)) + " s simulated (" + Short(Number(Get(doc_, "warmup_s"))) +
                     " s warm-up)");
    }
    std::string line;
    for (const std::string& m : meta) line += (line.empty() ? "" : " \xC2\xB7 ") + m;
    return out + "<p class=\"meta\">" + HtmlEscape(line) + "</p>\n</header>\n";
  }

  std::string Verdicts() const {
    std::string out =
        "<section id=\"verdict\"><h2>Verdict</h2>\n<p>Each variant against the base (the scenario "
        "as written): which workloads miss their SLO, which pods go Pending, fake Ready or stop "
        "serving, and where CUDA runs out of memory. Pods are those of replication 0.</p>\n";
    // The verdict `knobsim whatif` printed, as the document carries it (sim/whatif/verdict.h).
    for (const Json* v : variants_) {
      const Json* verdict = Get(*v, "verdict");
      if (verdict == nullptr) continue;
      out += fmt::format("<div class=\"verdict {}\"><h3>{}</h3><p>{}</p>\n",
                         True(Get(*verdict, "clean")) ? "ok" : "bad", HtmlEscape(Name(*v)),
                         HtmlEscape(Text(Get(*verdict, "headline"))));
      if (const std::string d = Text(Get(*v, "description")); !d.empty()) {
        out += "<p class=\"meta\">" + HtmlEscape(d) + "</p>\n";
      }
      const Json& lines = Items(Get(*verdict, "lines"));
      if (!lines.empty()) {
        out += "<ul>\n";
        for (const Json& line : lines) {
          out +=
              fmt::format("<li class=\"{}\"><span class=\"kind\">{}</span> {}</li>\n",
                          True(Get(line, "new")) ? "new" : "old",
                          HtmlEscape(Text(Get(line, "kind"))), HtmlEscape(Text(Get(line, "text"))));
        }
        out += "</ul>\n";
      }
      out += "</div>\n";
    }
    return out + "</section>\n";
  }

  std::string SideBySide() const {
    const bool replicated = Number(Get(doc_, "replications")) > 1;
    std::vector<std::string> head = {"workload", ""};
    for (const Json* v : variants_) head.push_back(Name(*v));
    Table t("side");
    t.Head(head);
    for (const std::string& id : workloads_) {
      std::vector<const Json*> ws;
      for (const Json* v : variants_) ws.push_back(FindBy(Get(*v, "workloads"), id, WorkloadId));
      const Json* any = nullptr;
      for (const Json* w : ws) any = any != nullptr ? any : w;
      const Json* slo = Get(any, "slo");
      const std::string pct = Short(Number(Get(slo, "percentile")));

      auto row = [&](const std::string& label, auto cell) {
        t.Row().HeadCell(label == "p99" ? id : "").Cell(label);
        for (const Json* w : ws) {
          if (w == nullptr) {
            t.Cell("not in this variant", "na");
          } else {
            const auto [text, css] = cell(*w);
            t.Cell(text, css);
          }
        }
      };
      row("p99", [&](const Json& w) {
        const double p99 = Number(Get(Get(w, "latency_ms"), "p99"));
        const double ci = Number(Get(Get(Get(w, "ci95"), "latency_ms"), "p99"));
        return std::pair<std::string, std::string>{
            Ms(p99) + (replicated && std::isfinite(ci) ? " \xC2\xB1 " + Fixed(ci, 1) : ""), "num"};
      });
      row("mean", [&](const Json& w) {
        return std::pair<std::string, std::string>{Ms(Number(Get(Get(w, "latency_ms"), "mean"))),
                                                   "num"};
      });
      row("errors", [&](const Json& w) {
        const std::string e = ErrorsText(w);
        return std::pair<std::string, std::string>{e, e == "none" ? "" : "bad"};
      });
      row("SLO", [&](const Json& w) {
        const Json* s = Get(w, "slo");
        const double target = Number(Get(s, "latency_ms"));
        std::string text = True(Get(w, "slo_met")) ? "met" : "missed";
        if (std::isfinite(target)) text += " (p" + pct + " \xE2\x89\xA4 " + Short(target) + " ms)";
        if (const Json* r = Get(w, "slo_met_replications"))
          text += ", " + Text(r) + " of " + Text(Get(doc_, "replications"));
        return std::pair<std::string, std::string>{text, True(Get(w, "slo_met")) ? "ok" : "bad"};
      });
    }
    auto cluster_row = [&](const std::string& label, auto cell) {
      t.Row().HeadCell("cluster").Cell(label);
      for (const Json* v : variants_) {
        const auto [text, css] = cell(Get(*v, "cluster"), *v);
        t.Cell(text, css);
      }
    };
    cluster_row("Pending pods", [](const Json* c, const Json&) {
      const double n = Number(Get(c, "pending_pods"));
      return std::pair<std::string, std::string>{Count(n), n > 0 ? "bad" : "num"};
    });
    cluster_row("fake-Ready pods", [](const Json* c, const Json&) {
      const double n = Number(Get(c, "fake_ready_pods"));
      return std::pair<std::string, std::string>{Count(n), n > 0 ? "bad" : "num"};
    });
    cluster_row("request OOM errors", [](const Json* c, const Json&) {
      const double n = Number(Get(c, "request_oom_errors"));
      return std::pair<std::string, std::string>{Count(n), n > 0 ? "bad" : "num"};
    });
    cluster_row("gpu-mem allocated", [](const Json* c, const Json&) {
      return std::pair<std::string, std::string>{
          Pct(Number(Get(c, "allocation_ratio"))) + " (" +
              Count(Number(Get(c, "gpu_mem_allocated_units"))) + " of " +
              Count(Number(Get(c, "gpu_mem_total_units"))) + " units)",
          "num"};
    });
    cluster_row("GPU fragmentation (FGD)", [](const Json*, const Json& v) {
      return std::pair<std::string, std::string>{
          Pct(Number(Get(Get(v, "fragmentation"), "frag_ratio"))), "num"};
    });
    std::string out =
        "<section id=\"variants\"><h2>Variants side by side</h2>\n<p>Latency is over successful "
        "requests only (\xE2\x80\x94: none succeeded), errors by cause";
    if (replicated)
      out += "; numbers are means over the replications, \xC2\xB1 the 95 % half-width";
    return out + ".</p>\n<div class=\"wide\">" + t.Render() + "</div>\n</section>\n";
  }

  std::string LatencyChart() const {
    BarChart chart;
    chart.title = "p99 latency per workload and variant";
    chart.y_label = "p99 (ms)";
    chart.groups = workloads_;
    chart.failed_label = "all failed";
    chart.reference_label = "SLO latency (p99)";
    for (const std::string& id : workloads_) {
      // The objective of the first variant that has the workload; drawn only for a p99 SLO, the
      // percentile the bars show.
      double slo = NAN;
      for (const Json* v : variants_) {
        const Json* objective = Get(FindBy(Get(*v, "workloads"), id, WorkloadId), "slo");
        if (objective == nullptr) continue;
        if (Number(Get(objective, "percentile")) == 99) slo = Number(Get(objective, "latency_ms"));
        break;
      }
      chart.group_reference.push_back(slo > 0 ? slo : NAN);
    }
    for (const Json* v : variants_) {
      chart.series.push_back(Name(*v));
      std::vector<double> values;
      std::vector<bool> failed;
      for (const std::string& id : workloads_) {
        const Json* w = FindBy(Get(*v, "workloads"), id, WorkloadId);
        values.push_back(Number(Get(Get(w, "latency_ms"), "p99")));
        // Requests came and none succeeded: the worst outcome, not a missing bar.
        failed.push_back(Number(Get(w, "requests")) > 0 && !(Number(Get(w, "completed")) > 0));
      }
      chart.values.push_back(std::move(values));
      chart.failed.push_back(std::move(failed));
    }
    return "<section id=\"latency\"><h2>p99 per variant</h2>\n<figure class=\"p99\">" +
           RenderBarChart(chart) +
           "<figcaption>Dashed: the workload's SLO latency, where its objective is a p99; a bar "
           "above it misses. All failed: requests came and none succeeded (no latency to draw). "
           "n/a: no request came.</figcaption></figure>\n</section>\n";
  }

  std::string Utilization() const {
    // One map per variant, shaped like its cluster (node × card), side by side on one scale.
    std::string maps;
    for (const Json* v : variants_) {
      if (Items(Get(*v, "cards")).empty()) continue;
      maps += RenderHeatMap(CardHeatMap(Get(*v, "cards"), Name(*v) + ": card utilization"));
    }
    std::string out =
        "<section id=\"utilization\"><h2>Card utilization</h2>\n<p>Busy: the fraction of the "
        "measured time a card had a request in service (what nvidia-smi shows), per variant, "
        "one row per node and one column per card; an empty cell: no such card on that node."
        "</p>\n";
    if (maps.empty()) return out + "<p>The document lists no GPU card.</p>\n</section>\n";
    return out + "<figure class=\"pair\">" + maps + "</figure>\n</section>\n";
  }

  std::string Assumptions() const {
    std::vector<std::pair<std::string, std::string>> rows;
    rows.emplace_back("scenario", Text(Get(doc_, "scenario")));
    rows.emplace_back("seed", Text(Get(doc_, "seed")));
    rows.emplace_back("replications", Text(Get(doc_, "replications")) +
                                          " (variants share seeds: common random numbers)");
    rows.emplace_back("simulated time", Short(Number(Get(doc_, "duration_s"))) +
                                            " s, of which warm-up " +
                                            Short(Number(Get(doc_, "warmup_s"))) + " s");
    rows.emplace_back("not in this document",
                      "the GPU catalog, prices and work per request live in the scenario file");
    std::string out = "<section id=\"assumptions\"><h2>Assumptions</h2>\n" + KeyValueTable(rows);
    Table descriptions;
    descriptions.Head({"variant", "description"});
    for (const Json* v : variants_)
      descriptions.Row().Cell(Name(*v)).Cell(Text(Get(*v, "description")));
    out += "<h3>Variants</h3>\n" + descriptions.Render();
    Table slos;
    slos.Head({"workload", "SLO percentile", "SLO latency", "error budget"});
    for (const Json& w : Items(Get(*variants_.front(), "workloads"))) {
      const Json* s = Get(w, "slo");
      slos.Row()
          .Cell(WorkloadId(w))
          .Cell("p" + Short(Number(Get(s, "percentile"))))
          .Cell(Ms(Number(Get(s, "latency_ms")), 0), "num")
          .Cell(Pct(Number(Get(s, "error_budget")), 2), "num");
    }
    if (!slos.empty()) out += "<h3>SLOs (base)</h3>\n" + slos.Render();
    return out + "</section>\n";
  }

  const Json& doc_;
  std::vector<const Json*> variants_;
  std::vector<std::string> workloads_;
};

}  // namespace

std::string ResultsPageBody(const Json& doc) {
  return ResultsPage(doc).Body();
}

}  // namespace knobsim::report
