#include "sim/report/html_report.h"
#include "sim/report/svg_chart.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/text.h"

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

Json PlanOption(const std::string& id, double traffic, const std::string& gpu, int nodes,
                double ratio, bool feasible = true) {
  Json o;
  o["id"] = id;
  o["traffic"] = traffic;
  o["gpu_type"] = gpu;
  o["policy"] = 5;
  o["placement"] = "binpack";
  o["pricing"] = "on_demand";
  o["density"] = 2;
  o["feasible"] = feasible;
  o["reason"] = feasible ? Json(nullptr) : Json("max nodes 8 reached");
  o["pools"] = Json::array({{{"name", "gpu"},
                             {"instance_type", "ecs.gn7i"},
                             {"nodes", nodes},
                             {"cards", nodes},
                             {"monthly_cost", nullptr}}});
  o["monthly_cost"] = nullptr;
  o["currency"] = nullptr;
  o["binding_workload"] = "ai/<ocr&co>";
  o["worst_p99_ratio"] = ratio;
  o["workloads"] =
      Json::array({{{"name", "<ocr&co>"},
                    {"namespace", "ai"},
                    {"replicas", nodes * 2},
                    {"slo_percentile", 99},
                    {"slo_latency_ms", 200},
                    {"latency_ms", {{"p50", 50.0}, {"p99", ratio * 200}, {"p99_ci95", 3.0}}},
                    {"error_ratio", 0.0},
                    {"error_budget", 0.001},
                    {"slo_met_replications", 10},
                    {"slo_met", feasible}}});
  o["cards"] = Json::array();
  for (int n = 0; n < nodes; ++n) {
    for (int c = 0; c < 2; ++c) {
      o["cards"].push_back({{"node", "gpu-" + std::to_string(n)},
                            {"index", c},
                            {"gpu", gpu},
                            {"busy", 0.3 + 0.1 * n},
                            {"effective", 0.25},
                            {"headroom", 0.7 - 0.1 * n}});
    }
  }
  o["search"] =
      Json::array({{{"nodes", 1}, {"met", false}}, {{"nodes", nodes}, {"met", feasible}}});
  return o;
}

// Two traffic levels, no prices (the cost axis is nodes): at 1x A10 (2 nodes) is cheapest and
// L20 (3 nodes) is faster; at 2x only A10 fits.
Json PlanDoc() {
  Json d;
  d["schema"] = "knobsim.plan/v1";
  d["knobsim_version"] = "0.1.0";
  d["scenario"] = "plan <test>";
  d["command"] = "knobsim plan s.yaml --traffic 1,2 --json 'out&.json'";
  d["seed"] = 1;
  d["replications"] = 10;
  d["confidence"] = 0.95;
  d["duration_s"] = 600;
  d["warmup_s"] = 60;
  d["prices"] = nullptr;
  d["traffic_levels"] = {1, 2};
  d["grid"] = {{"gpu_types", {"A10", "L20"}},
               {"policies", {5}},
               {"placements", {"binpack"}},
               {"density", "auto"},
               {"pricing", {"on_demand"}}};
  d["options"] = Json::array(
      {PlanOption("x1/A10", 1, "A10", 2, 0.9), PlanOption("x1/L20", 1, "L20", 3, 0.6),
       PlanOption("x2/A10", 2, "A10", 4, 0.95), PlanOption("x2/L20", 2, "L20", 8, 1.4, false)});
  d["recommendations"] = Json::array({{{"traffic", 1},
                                       {"option", "x1/A10"},
                                       {"monthly_cost", nullptr},
                                       {"text", "At 1x traffic: 2 nodes of A10 <cheapest>."}},
                                      {{"traffic", 2},
                                       {"option", "x2/A10"},
                                       {"monthly_cost", nullptr},
                                       {"text", "At 2x traffic: 4 nodes of A10."}}});
  d["frontier"] = Json::array({{{"traffic", 1}, {"options", {"x1/A10", "x1/L20"}}},
                               {{"traffic", 2}, {"options", {"x2/A10"}}}});
  return d;
}

Json Workload(const std::string& name, double p99, bool met, double oom = 0) {
  return {
      {"name", name},
      {"namespace", "default"},
      {"id", "default/" + name},
      {"requests", 1000},
      {"completed", 1000 - oom},
      {"errors", {{"oom", oom}, {"fake_ready", 0}, {"timeout", 0}, {"no_replica", 0}}},
      {"latency_ms",
       {{"mean", p99 / 3}, {"p50", p99 / 4}, {"p90", p99 / 2}, {"p99", p99}, {"p999", p99 * 2}}},
      {"throughput_rps", 10},
      {"slo_met", met},
      {"error_ratio", oom / 1000},
      {"slo_latency_ms", p99},
      {"slo", {{"percentile", 99}, {"latency_ms", 100}, {"error_budget", 0.01}}}};
}

Json ResultsDoc() {
  Json base = {
      {"name", "base"},
      {"description", "the scenario as written"},
      {"workloads", Json::array({Workload("ocr", 80, true), Workload("a<b>", 40, true)})},
      {"cards", Json::array({{{"node", "n0"}, {"index", 0}, {"busy", 0.4}},
                             {{"node", "n0"}, {"index", 1}, {"busy", 0.2}}})},
      {"pods", Json::array({{{"namespace", "default"},
                             {"name", "ocr-0"},
                             {"workload", "ocr"},
                             {"node", "n0"},
                             {"cards", {0}},
                             {"state", "Running"},
                             {"message", ""}}})},
      {"cluster", {{"pending_pods", 0}, {"fake_ready_pods", 0}, {"events", Json::array()}}}};
  Json bad = base;
  bad["name"] = "policy=3";
  bad["workloads"] = Json::array({Workload("ocr", 180, false), Workload("a<b>", 40, true, 50)});
  bad["workloads"][1]["slo_met"] = false;
  bad["pods"].push_back(
      {{"namespace", "default"},
       {"name", "ocr-1"},
       {"workload", "ocr"},
       {"node", nullptr},
       {"cards", Json::array()},
       {"state", "Pending"},
       {"message", "0/1 nodes are available: 1 Insufficient aliyun.com/gpu-mem."}});
  bad["workloads"][0]["latency_ms"]["p99"] = nullptr;
  bad["workloads"][0]["slo_latency_ms"] = nullptr;
  // The verdicts as sim/whatif/verdict_json.cpp writes them (sim/whatif/verdict.h words them).
  base["verdict"] = {
      {"headline", "every SLO met (2 workloads); no Pending, fake-Ready or OOM pods"},
      {"clean", true},
      {"lines", Json::array()}};
  bad["verdict"] = {
      {"headline", "2 of 2 workloads miss their SLO (2 newly)"},
      {"clean", false},
      {"lines", Json::array({{{"kind", "SLO"},
                              {"text",
                               "default/ocr: no request completed (p99 target 100 ms) "
                               "(newly missing; base meets it)"},
                              {"new", true}},
                             {{"kind", "Pending"},
                              {"text",
                               "default/ocr-1: 0/1 nodes are available: 1 Insufficient "
                               "aliyun.com/gpu-mem. (new)"},
                              {"new", true}},
                             {{"kind", "OOM"},
                              {"text", "default/a<b>: 50 request(s) failed with CUDA OOM (new)"},
                              {"new", true}}})}};
  Json d = {{"schema", "knobsim.results/v1"},
            {"knobsim_version", "0.1.0"},
            {"scenario", "quick"},
            {"seed", 1},
            {"replications", 1},
            {"duration_s", 600},
            {"warmup_s", 60}};
  d["variants"] = Json::array({base, bad});
  return d;
}

TEST_CASE("a document of another schema is not a knobsim results document") {
  auto refused = [](const Json& doc) {
    const Expected<std::string> page = RenderReport(doc);
    return page ? std::string() : page.error().message;
  };
  CHECK(refused(Json{{"schema", "something/v9"}}).find("not a knobsim results document") !=
        std::string::npos);
  CHECK(refused(Json::array({1, 2})).find("not a knobsim results document") != std::string::npos);
  CHECK(refused(Json{{"schema", "knobsim.plan/v1"}, {"options", "none"}}) ==
        "not a valid knobsim.plan/v1 document: \"options\" is not an array");
  CHECK(refused(Json{{"schema", "knobsim.results/v1"}}) ==
        "not a valid knobsim.results/v1 document: \"variants\" is not an array");
}

TEST_CASE("a plan page says the recommendation per traffic level and draws every chart") {
  const std::string html = RenderReport(PlanDoc()).value();
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("At 1x traffic&#58; 2 nodes of A10 &lt;cheapest&gt;.") != std::string::npos);
  CHECK(html.find("At 2x traffic&#58; 4 nodes of A10.") != std::string::npos);
  // A frontier per level, p99 against traffic, a heat map per recommendation.
  CHECK(Count(html, "<svg class=\"chart\"") == 2 + 1 + 2);
  CHECK(html.find("no-data") == std::string::npos);
  CHECK(html.find("nodes (no prices given)") != std::string::npos);
  // The infeasible option is named with its reason, not drawn.
  CHECK(html.find("x2/L20 (max nodes 8 reached)") != std::string::npos);
  // At 1x: one dominated point? none — both options are on the frontier: 2 frontier points + the
  // recommended ring; at 2x one frontier point + the ring.
  CHECK(html.find("knobsim plan s.yaml --traffic 1,2 --json &#39;out&amp;.json&#39;") !=
        std::string::npos);
  CHECK(html.find("Capacity plan: plan &lt;test&gt;") != std::string::npos);
}

TEST_CASE("every name from the document is escaped and the page holds no script and no URL") {
  for (const Json& doc : {PlanDoc(), ResultsDoc()}) {
    const std::string html = RenderReport(doc).value();
    REQUIRE(!html.empty());
    CHECK(html.find("<ocr") == std::string::npos);
    CHECK(html.find("a<b>") == std::string::npos);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("://") == std::string::npos);
    CHECK(html.find("xmlns") == std::string::npos);
    CHECK(html.find("src=") == std::string::npos);
    CHECK(html.find("href=") == std::string::npos);
  }
}

TEST_CASE("a results page shows each variant's verdict against the base, as the document says") {
  const std::string html = RenderReport(ResultsDoc()).value();
  CHECK(html.find("every SLO met (2 workloads); no Pending, fake-Ready or OOM pods") !=
        std::string::npos);
  CHECK(html.find("2 of 2 workloads miss their SLO (2 newly)") != std::string::npos);
  CHECK(html.find("default/ocr&#58; no request completed (p99 target 100 ms) (newly missing; base "
                  "meets it)") != std::string::npos);
  CHECK(html.find("default/ocr-1&#58; 0/1 nodes are available&#58; 1 Insufficient "
                  "aliyun.com/gpu-mem. (new)") != std::string::npos);
  CHECK(html.find("default/a&lt;b&gt;&#58; 50 request(s) failed with CUDA OOM (new)") !=
        std::string::npos);
  // p99 per variant (bars), and per variant its cards' busy shaped like its cluster (node ×
  // card heat maps, side by side).
  CHECK(Count(html, "<svg class=\"chart\"") == 3);
  CHECK(html.find("base&#58; card utilization") != std::string::npos);
  CHECK(Count(html, "class=\"mark bar\"") == 3);  // ocr has no p99 in policy=3
  CHECK(Count(html, "class=\"mark cell\"") == 4);
  CHECK(html.find(">n/a<") != std::string::npos);
}

TEST_CASE("a document with gaps renders with gaps, never an exception") {
  Json plan = {{"schema", "knobsim.plan/v1"},
               {"options", Json::array({Json::object(), 3, {{"id", 7}, {"pools", "x"}}})},
               {"recommendations", "x"},
               {"frontier", {{"traffic", "1"}}},
               {"traffic_levels", {1, "two"}}};
  CHECK(!RenderReport(plan).value().empty());
  Json results = {
      {"schema", "knobsim.results/v1"},
      {"variants", Json::array({Json::object(),
                                {{"name", 3}, {"workloads", {{{"latency_ms", "fast"}}}}},
                                {{"cards", {{{"busy", "x"}, {"index", -1}}}}}})}};
  CHECK(!RenderReport(results).value().empty());
  Json empty = {{"schema", "knobsim.results/v1"}, {"variants", Json::array()}};
  CHECK(RenderReport(empty).value().find("holds no variant") != std::string::npos);
}

TEST_CASE("the timeline draws replicas and nodes only where an autoscaler moved them") {
  // Two steps: the HPA's wanted replicas 1 -> 3, the pool 1 -> 3 nodes; a fixed pool beside.
  auto point = [](double t, double desired, double available) {
    return Json{{"t_s", t},
                {"arrivals", 10},
                {"completed", 10},
                {"errors", {}},
                {"latency_ms", {{"p99", 50.0}}},
                {"available_mean", available},
                {"desired_mean", desired},
                {"pending_mean", desired - available}};
  };
  auto nodes = [](double t, double n) { return Json{{"t_s", t}, {"nodes_mean", n}}; };
  auto doc = [&](double second_desired, double second_nodes) {
    Json timeline = {
        {"step_s", 60.0},
        {"end_s", 120.0},
        {"replications", 1},
        {"workloads",
         Json::array({{{"name", "chat"},
                       {"namespace", "default"},
                       {"desired", 1},
                       {"points", Json::array({point(0, 1, 1), point(60, second_desired, 1)})}}})},
        {"cards", Json::array()},
        {"node_pools",
         Json::array(
             {{{"name", "gpu"}, {"points", Json::array({nodes(0, 1), nodes(60, second_nodes)})}},
              {{"name", "cpu"}, {"points", Json::array({nodes(0, 2), nodes(60, 2)})}}})}};
    return Json{{"schema", "knobsim.results/v1"},
                {"scenario", "s"},
                {"variants", Json::array({{{"name", "base"}, {"timeline", timeline}}})}};
  };
  const std::string moved = RenderReport(doc(3, 3)).value();
  CHECK(moved.find("base&#58; replicas and nodes over time") != std::string::npos);
  CHECK(moved.find("nodes of gpu") != std::string::npos);
  CHECK(moved.find("nodes of cpu") == std::string::npos);  // it never changed
  CHECK(moved.find("default/chat wanted") != std::string::npos);
  CHECK(moved.find("default/chat Pending") != std::string::npos);  // the replicas waiting
  const std::string still = RenderReport(doc(1, 1)).value();
  CHECK(still.find("replicas and nodes over time") == std::string::npos);
}

TEST_CASE("over time: a pair of small charts per workload, each variant in its colour") {
  // Two variants with timelines, the second placed third in the document (its colour is that
  // of its place, as on the p99 bars); two workloads, the second only in one variant.
  auto workload = [](const std::string& name, double p99) {
    return Json{{"name", name},
                {"namespace", "ai"},
                {"desired", 2},
                {"points", Json::array({{{"t_s", 0.0},
                                         {"arrivals", 5},
                                         {"errors", {{"oom", 3}}},
                                         {"latency_ms", {{"p99", p99}}},
                                         {"available_mean", 2.0}}})}};
  };
  auto results = [](const std::string& name) {
    return Json{{"name", name},       {"namespace", "ai"},
                {"id", "ai/" + name}, {"requests", 5},
                {"completed", 5},     {"slo", {{"percentile", 99}, {"latency_ms", 300}}}};
  };
  auto variant = [&](const std::string& name, Json workloads) {
    Json v = {{"name", name}, {"workloads", Json::array()}};
    for (const Json& w : workloads) v["workloads"].push_back(results(w["name"]));
    v["timeline"] = {{"step_s", 60.0}, {"workloads", workloads}};
    return v;
  };
  const Json doc = {
      {"schema", "knobsim.results/v1"},
      {"scenario", "s"},
      {"variants",
       Json::array({variant("base", Json::array({workload("ocr", 120), workload("asr", 400)})),
                    Json{{"name", "no-timeline"}},
                    variant("more", Json::array({workload("ocr", 90)}))})}};
  const std::string html = RenderReport(doc).value();
  CHECK(html.find("ai/ocr&#58; p99 per step") != std::string::npos);
  CHECK(html.find("ai/asr&#58; available \xC3\xB7 wanted") != std::string::npos);
  CHECK(html.find("<figure class=\"pair\">") != std::string::npos);
  // Variant colours by place in the document: base the first, "more" the third.
  CHECK(html.find("data-series=\"more\" x=") != std::string::npos);
  for (size_t at = html.find("data-series=\"more\""); at != std::string::npos;
       at = html.find("data-series=\"more\"", at + 1)) {
    CHECK(html.substr(at, 120).find(report::SeriesColor(2)) != std::string::npos);
  }
  // The SLO of a p99 objective on the workload's chart, the causes in their own colours.
  CHECK(html.find(">SLO</text>") != std::string::npos);
  CHECK(html.find("data-series=\"oom\"") != std::string::npos);
  CHECK(html.find("fill=\"" + report::CauseColor("oom") + "\"") != std::string::npos);
}

TEST_CASE("a check document becomes a page of findings by severity") {
  const Json doc = {
      {"schema", "knobsim.check/v1"},
      {"source", "export.json"},
      {"origin", "export"},
      {"summary", {{"critical", 1}, {"warning", 1}, {"info", 0}}},
      {"consequence_note", "simulated"},
      {"findings",
       Json::array(
           {{{"id", "quota-vs-peak"},
             {"severity", "critical"},
             {"objects", Json::array({{{"kind", "Pod"}, {"namespace", "ai"}, {"name", "ocr<0>"}}})},
             {"message", "peak above quota"},
             {"consequence", "pod FakeReady"},
             {"consequence_kind", "simulated"}},
            {{"id", "port-only-probe"},
             {"severity", "warning"},
             {"objects", Json::array()},
             {"message", "tcp probe"},
             {"consequence", nullptr},
             {"skipped", "no metrics"}}})},
      {"warnings", Json::array({"one warning"})}};
  const std::string html = RenderReport(doc).value();
  CHECK(html.find("1 critical, 1 warning, 0 info") != std::string::npos);
  CHECK(html.find("class=\"verdict bad\"") != std::string::npos);
  CHECK(html.find("Pod ai/ocr&lt;0&gt;") != std::string::npos);
  CHECK(html.find("pod FakeReady (simulated)") != std::string::npos);
  CHECK(html.find("skipped&#58; no metrics") != std::string::npos);
  CHECK(html.find("<h3>critical</h3>") < html.find("<h3>warning</h3>"));
  CHECK(html.find("one warning") != std::string::npos);
  Json clean = doc;
  clean["summary"]["critical"] = 0;
  clean["findings"] = Json::array();
  CHECK(RenderReport(clean).value().find("No finding") != std::string::npos);
}

TEST_CASE("a diff document becomes a page with the broken rules first and every number") {
  const Json doc = {{"schema", "knobsim.diff/v1"},
                    {"base_scenario", "s"},
                    {"new_scenario", "s"},
                    {"variants", Json::array({"base"})},
                    {"regressions", 1},
                    {"verdict", "1 regression (p99:+10%)"},
                    {"rows", Json::array({{{"variant", "base"},
                                           {"subject", "ai/ocr"},
                                           {"metric", "p99"},
                                           {"base", 100.0},
                                           {"new", 130.0},
                                           {"noise", 2.0},
                                           {"rule", "p99:+10%"},
                                           {"shown",
                                            {{"base", "100 ms"},
                                             {"new", "130 ms"},
                                             {"change", "+30 ms (+30 %)"},
                                             {"noise",
                                              "\xC2\xB1"
                                              "2 ms"}}}},
                                          {{"variant", "base"},
                                           {"subject", "ai/asr"},
                                           {"metric", "p99"},
                                           {"base", 50.0},
                                           {"new", 49.0},
                                           {"noise", 0.0},
                                           {"rule", nullptr}}})}};
  const std::string html = RenderReport(doc).value();
  CHECK(html.find("class=\"verdict bad\"") != std::string::npos);
  CHECK(html.find("ai/ocr (base)&#58; p99 100 ms \xE2\x86\x92 130 ms (+30 ms (+30 %), noise "
                  "\xC2\xB1"
                  "2 ms) breaks <b>p99&#58;+10%</b>") != std::string::npos);
  CHECK(html.find("p99 before and after, per workload") != std::string::npos);
  CHECK(html.find(">49<") != std::string::npos);  // a row without its shown text: the number
  CHECK(RenderReport(Json{{"schema", "knobsim.diff/v1"}, {"rows", 3}}).error().message ==
        "not a valid knobsim.diff/v1 document: \"rows\" is not an array");
}

TEST_CASE("the same document gives the same page") {
  CHECK(RenderReport(PlanDoc()).value() == RenderReport(PlanDoc()).value());
  CHECK(RenderReport(ResultsDoc()).value() == RenderReport(ResultsDoc()).value());
}

TEST_CASE("WriteReportFile writes the page whole or says why not") {
  const std::string path = "/tmp/knobsim-report-test-" + std::to_string(::getpid()) + ".html";
  REQUIRE(WriteReportFile(ResultsDoc(), path).ok());
  CHECK(*ReadFileText(path) == RenderReport(ResultsDoc()).value());
  std::remove(path.c_str());

  const auto unwritable = WriteReportFile(ResultsDoc(), "/nonexistent-dir/report.html");
  REQUIRE_FALSE(unwritable.ok());
  CHECK(unwritable.ToString().find("/nonexistent-dir/report.html") != std::string::npos);
  const auto unknown = WriteReportFile(Json{{"schema", "x"}}, path);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.ToString().find("not a knobsim results document") != std::string::npos);
  std::ifstream none(path);
  CHECK(!none.good());
}

}  // namespace
}  // namespace knobsim
