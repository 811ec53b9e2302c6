// End-to-end: `knobsim diff` on results the real binary writes.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

// One shared A10 pool and one inference service; `rate` and `label` vary between versions.
std::string Scenario(const std::string& name, const std::string& rate, const std::string& label) {
  return "name: " + name + R"(
node_pools:
  - {name: gpu, count: 2, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi}
workloads:
  - name: ocr
    namespace: ai
    replicas: 2
    labels: {app: ocr, team: )" +
         label + R"(}
    gpu_mem: 8
    gpu_memory: {weights: 3Gi, activation: 200Mi}
    traffic: {rate: )" +
         rate + R"(}
    work: {dist: exponential, mean: 40ms}
    slo: {percentile: 99, latency: 2s, error_budget: 1%}
run: {duration: 20m, warmup: 2m, seed: 7, replications: 4}
)";
}

std::string Results(const std::string& tag, const std::string& yaml) {
  const std::string scenario = TempPath(tag + ".yaml");
  const std::string json = TempPath(tag + ".json");
  std::ofstream(scenario) << yaml;
  const Outcome o = Run("run '" + scenario + "' --quiet --json '" + json + "'");
  std::remove(scenario.c_str());
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  return json;
}

TEST_CASE("diff: the same inputs twice give no difference at all") {
  const std::string a = Results("a", Scenario("gate", "12/s", "vision"));
  const std::string b = Results("b", Scenario("gate", "12/s", "vision"));
  const Outcome o = Run("diff '" + a + "' '" + b + "'");
  CHECK(o.exit_code == 0);
  CHECK(o.out == "knobsim diff: no difference at all\n");
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST_CASE("diff: a label nobody selects on passes; more load fails p99 and names the workload") {
  const std::string base = Results("base", Scenario("gate", "12/s", "vision"));
  const std::string label = Results("label", Scenario("gate", "12/s", "ocr-team"));
  const std::string load = Results("load", Scenario("gate", "20/s", "vision"));

  const Outcome same = Run("diff '" + base + "' '" + label + "'");
  CHECK(same.exit_code == 0);

  const Outcome worse = Run("diff '" + base + "' '" + load + "' --format markdown");
  CHECK(worse.exit_code == 1);
  CHECK(worse.out.starts_with("### knobsim: "));
  CHECK(worse.out.find("regression") != std::string::npos);
  CHECK(worse.out.find("**ai/ocr** (base): p99") != std::string::npos);
  CHECK(worse.out.find("breaks `p99:+10%`") != std::string::npos);

  // The same change read against a looser rule passes.
  CHECK(Run("diff '" + base + "' '" + load + "' --fail-on 'p99:+1000%'").exit_code == 0);

  const Outcome json = Run("diff '" + base + "' '" + load + "' --format json");
  CHECK(json.exit_code == 1);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc.at("schema") == "knobsim.diff/v1");
  CHECK(doc.at("regressions").get<int>() >= 1);
  bool paired = false;
  for (const auto& row : doc.at("rows"))
    if (row.at("metric") == "p99") paired = row.at("paired").get<bool>();
  CHECK(paired);  // 4 replications with the same seeds: the noise is the paired interval
  for (const std::string& f : {base, label, load}) std::remove(f.c_str());
}

TEST_CASE("diff --report writes the comparison as an HTML page, units and all") {
  const std::string base = Results("page-base", Scenario("gate", "12/s", "vision"));
  const std::string load = Results("page-load", Scenario("gate", "20/s", "vision"));
  const std::string page = TempPath("diff.html");
  const Outcome o =
      Run("diff '" + base + "' '" + load + "' --format markdown --report '" + page + "'");
  CHECK(o.exit_code == 1);
  CHECK(o.out.find(" ms \xE2\x86\x92 ") != std::string::npos);  // markdown with units
  const std::string html = ReadFile(page);
  CHECK(html.find("<h1>Comparison: gate \xE2\x86\x92 gate</h1>") != std::string::npos);
  CHECK(html.find("breaks <b>p99&#58;+10%</b>") != std::string::npos);
  CHECK(html.find("p99 before and after, per workload") != std::string::npos);
  CHECK(html.find(" ms</td>") != std::string::npos);
  const Outcome bad = Run("diff '" + base + "' '" + load + "' --report /nonexistent-dir/d.html");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  for (const std::string& f : {base, load, page}) std::remove(f.c_str());
}

TEST_CASE("diff: documents that cannot be compared exit 2 and say why") {
  const std::string a = Results("x", Scenario("gate", "12/s", "vision"));
  const std::string other = Results("y", Scenario("other", "12/s", "vision"));
  const Outcome renamed = Run("diff '" + a + "' '" + other + "'");
  CHECK(renamed.exit_code == 2);
  CHECK(renamed.err.find("different scenarios") != std::string::npos);
  CHECK(Run("diff '" + a + "' '" + other + "' --allow-scenario-change").exit_code == 0);

  const Outcome rule = Run("diff '" + a + "' '" + a + "' --fail-on 'p99:10%'");
  CHECK(rule.exit_code == 2);
  CHECK(rule.err.find("--fail-on: rule \"p99:10%\": the threshold needs a sign") !=
        std::string::npos);

  const std::string broken = TempPath("broken.json");
  std::ofstream(broken) << "{\"schema\": \"knobsim.results/v1\",\n \"variants\": [";
  const Outcome cut = Run("diff '" + a + "' '" + broken + "'");
  CHECK(cut.exit_code == 2);
  CHECK(cut.err.find(broken + ":2: invalid JSON") != std::string::npos);

  std::ofstream(broken)
      << "{\"schema\": \"knobsim.results/v2\", \"scenario\": \"gate\", \"variants\": []}";
  const Outcome v2 = Run("diff '" + a + "' '" + broken + "'");
  CHECK(v2.exit_code == 2);
  CHECK(v2.err.find("schema major") != std::string::npos);
  for (const std::string& f : {a, other, broken}) std::remove(f.c_str());
}

// A results document of the real binary, edited as a careless or hostile hand would edit it.
struct Crafted {
  std::string name;
  std::function<void(nlohmann::ordered_json&)> edit;
  std::string text_from = "",
              text_to = "";  // then a text replacement (numbers JSON writes, no double holds)
};

std::string WriteCrafted(const std::string& from, const Crafted& c) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(ReadFile(from));
  if (c.edit) c.edit(doc);
  std::string text = doc.dump(2);
  if (!c.text_from.empty()) {
    const size_t at = text.find(c.text_from);
    REQUIRE(at != std::string::npos);
    text.replace(at, c.text_from.size(), c.text_to);
  }
  const std::string path = TempPath("crafted.json");
  std::ofstream(path) << text;
  return path;
}

TEST_CASE(
    "diff: a results document not as knobsim writes it is bad input naming file, line, field") {
  const std::string good = Results("good", Scenario("gate", "12/s", "vision"));
  using Json = nlohmann::ordered_json;
  const auto workload = [](Json& d) -> Json& { return d["variants"][0]["workloads"][0]; };
  const std::vector<std::pair<Crafted, std::string>> cases = {
      {{"variants missing", [](Json& d) { d.erase("variants"); }}, ":1: variants: is missing"},
      {{"variants empty", [](Json& d) { d["variants"] = Json::array(); }},
       ": variants: is empty: a results document holds the base variant at least"},
      {{"variants an object", [](Json& d) { d["variants"] = Json::object(); }},
       ": variants: {} is not an array"},
      {{"variants a string", [](Json& d) { d["variants"] = "base"; }},
       ": variants: \"base\" is not an array"},
      {{"a count as a string", [&](Json& d) { workload(d)["errors"]["timeout"] = "5000"; }},
       ": variants[0].workloads[0].errors.timeout: \"5000\" is neither a number nor null"},
      {{"a latency as a string", [&](Json& d) { workload(d)["latency_ms"]["p99"] = "x"; }},
       ": variants[0].workloads[0].latency_ms.p99: \"x\" is neither a number nor null"},
      {{"a number out of range", [&](Json& d) { workload(d)["latency_ms"]["p99"] = 12345.5; },
        "12345.5", "1e400"},
       ": \"1e400\" is out of range for a number"},
      {{"a pod's node as a number", [](Json& d) { d["variants"][0]["pods"][0]["node"] = 5; }},
       ": variants[0].pods[0].node: 5 is neither a string nor null"},
      {{"a negative count", [](Json& d) { d["variants"][0]["cluster"]["pending_pods"] = -1; }},
       ": variants[0].cluster.pending_pods: -1 is out of range"},
      {{"a variant twice", [](Json& d) { d["variants"].push_back(d["variants"][0]); }},
       ": variants[1]: \"base\" is given twice (also variants[0])"},
      {{"not an object", [](Json& d) { d = Json::array({1}); }}, ": [1] is not an object"},
  };
  for (const auto& [crafted, expected] : cases) {
    CAPTURE(crafted.name);
    const std::string bad = WriteCrafted(good, crafted);
    for (const std::string& args :
         {"'" + good + "' '" + bad + "'", "'" + bad + "' '" + good + "'"}) {
      const Outcome o = Run("diff " + args);
      CHECK(o.exit_code == 2);
      CHECK(o.out.empty());
      CHECK_MESSAGE(o.err.find(bad + ":") != std::string::npos, o.err);
      CHECK_MESSAGE(o.err.find(expected) != std::string::npos, o.err);
      CHECK(o.err.find("json.exception") == std::string::npos);
    }
    std::remove(bad.c_str());
  }
  std::remove(good.c_str());
}

TEST_CASE("diff: a variant BASE has and NEW lacks fails the gate; one only NEW has is listed") {
  const std::string base = Results("vbase", Scenario("gate", "12/s", "vision"));
  using Json = nlohmann::ordered_json;
  const std::string two = WriteCrafted(base, {"two variants", [](Json& d) {
                                                Json v = d["variants"][0];
                                                v["name"] = "spread";
                                                d["variants"].push_back(v);
                                              }});
  const std::string with_spread = TempPath("with-spread.json");
  std::rename(two.c_str(), with_spread.c_str());
  const Outcome gone = Run("diff '" + with_spread + "' '" + base + "'");
  CHECK(gone.exit_code == 1);
  CHECK(gone.out.find("1 regression (variant missing from NEW)") != std::string::npos);
  CHECK(gone.out.find("spread") != std::string::npos);
  const Outcome added = Run("diff '" + base + "' '" + with_spread + "'");
  CHECK(added.exit_code == 0);
  CHECK(added.out.find("in NEW only") != std::string::npos);
  // Comparing only the variants both have is a choice made on the command line.
  CHECK(Run("diff '" + with_spread + "' '" + base + "' --variant base").exit_code == 0);
  for (const std::string& f : {base, with_spread}) std::remove(f.c_str());
}

TEST_CASE("diff --format markdown: names from the input cannot break the table or ping anyone") {
  const std::string base = Results("mbase", Scenario("gate", "12/s", "vision"));
  using Json = nlohmann::ordered_json;
  const auto rename = [](Json& d) {
    for (Json& v : d["variants"]) {
      v["name"] = "b|<i>x</i>";
      for (Json& w : v["workloads"]) w["id"] = "ai/@team\n`ocr`|*";
    }
  };
  const std::string a = WriteCrafted(base, {"names", rename});
  const std::string named_base = TempPath("named-base.json");
  std::rename(a.c_str(), named_base.c_str());
  const std::string b = WriteCrafted(base, {"names and more errors", [&](Json& d) {
                                              rename(d);
                                              d["variants"][0]["workloads"][0]["errors"]["oom"] = 7;
                                            }});
  const Outcome o = Run("diff '" + named_base + "' '" + b + "' --format markdown");
  CHECK(o.exit_code == 1);
  CHECK(o.out.find("@team") == std::string::npos);
  CHECK(o.out.find("@\xE2\x81\xA0team") != std::string::npos);
  CHECK(o.out.find("<i>") == std::string::npos);
  CHECK(o.out.find("b\\|&lt;i&gt;x&lt;/i&gt;") != std::string::npos);
  CHECK(o.out.find("ai/@\xE2\x81\xA0team \\`ocr\\`\\|\\*") != std::string::npos);
  // Every table row still has its 8 cells: 9 unescaped pipes.
  for (size_t at = o.out.find("\n| "); at != std::string::npos; at = o.out.find("\n| ", at + 1)) {
    const std::string row = o.out.substr(at + 1, o.out.find('\n', at + 1) - at - 1);
    size_t pipes = 0;
    for (size_t i = 0; i < row.size(); ++i)
      pipes += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
    CHECK_MESSAGE(pipes == 9, row);
  }
  for (const std::string& f : {base, named_base, b}) std::remove(f.c_str());
}

}  // namespace
}  // namespace knobsim::e2e
