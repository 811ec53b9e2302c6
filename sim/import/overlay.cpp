#include "sim/import/overlay.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "sim/io/scenario_reader.h"
#include "sim/io/yaml_fields.h"
#include "sim/text.h"

namespace knobsim {

namespace {

// An overlay problem at a node of the overlay file.
struct OverlayFailure {
  InputError error;
};

[[noreturn]] void Fail(const std::string& file, const YAML::Node& at, const std::string& path,
                       const std::string& message, const std::string& hint = "") {
  InputError e;
  e.file = file;
  e.line = at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
  e.path = path;
  e.message = message;
  e.hint = hint;
  throw OverlayFailure{e};
}

void ExpectMap(const std::string& file, const YAML::Node& node, const std::string& path) {
  if (!node.IsMap()) Fail(file, node, path, "expected a mapping");
  std::set<std::string> seen;
  for (const auto& kv : node) {
    // `{a: 1}: 2` and `[a]: 2` are keys in YAML, but no key of a scenario (found by
    // tools/fuzz/overlay_fuzz.cpp: yaml-cpp's conversion error escaped the reader).
    if (!kv.first.IsScalar())
      Fail(file, kv.first, path, "a key must be a plain name, not a mapping or a list");
    const std::string key = kv.first.as<std::string>();
    if (!seen.insert(key).second) Fail(file, kv.first, path + "." + key, "duplicate key");
  }
}

void ExpectList(const std::string& file, const YAML::Node& node, const std::string& path) {
  if (!node.IsSequence()) Fail(file, node, path, "expected a list");
}

std::string Scalar(const std::string& file, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) Fail(file, node, path, "expected a string");
  return node.as<std::string>();
}

// Copies every key of `from` into `to` except `skip`, replacing what `to` holds.
void AddKeys(YAML::Node to, const YAML::Node& from, const std::set<std::string>& skip) {
  for (const auto& kv : from) {
    const std::string key = kv.first.as<std::string>();
    if (skip.count(key)) continue;
    to[key] = YAML::Clone(kv.second);
  }
}

void MergeNodePools(YAML::Node scenario, const YAML::Node& pools, const std::string& file) {
  ExpectList(file, pools, "node_pools");
  if (!scenario["node_pools"]) scenario["node_pools"] = YAML::Node(YAML::NodeType::Sequence);
  YAML::Node target = scenario["node_pools"];
  for (size_t i = 0; i < pools.size(); ++i) {
    const std::string path = "node_pools[" + std::to_string(i) + "]";
    const YAML::Node entry = pools[i];
    ExpectMap(file, entry, path);
    if (!entry["name"]) Fail(file, entry, path, "missing required key `name`");
    const std::string name = Scalar(file, entry["name"], path + ".name");
    bool merged = false;
    for (YAML::Node pool : target) {
      if (pool["name"] && pool["name"].as<std::string>() == name) {
        AddKeys(pool, entry, {"name"});
        merged = true;
      }
    }
    if (!merged) target.push_back(YAML::Clone(entry));
  }
}

void MergeWorkloads(YAML::Node scenario, const YAML::Node& workloads, const std::string& file) {
  ExpectList(file, workloads, "workloads");
  YAML::Node target = scenario["workloads"];
  for (size_t i = 0; i < workloads.size(); ++i) {
    const std::string path = "workloads[" + std::to_string(i) + "]";
    const YAML::Node entry = workloads[i];
    ExpectMap(file, entry, path);
    if (!entry["name"])
      Fail(file, entry, path, "missing required key `name`",
           "name an imported workload, or \"*\" for every one");
    const std::string name = Scalar(file, entry["name"], path + ".name");
    std::string ns;
    if (entry["namespace"]) ns = Scalar(file, entry["namespace"], path + ".namespace");
    int matched = 0;
    std::vector<std::string> known;
    if (target && target.IsSequence()) {
      for (YAML::Node w : target) {
        const std::string wname = w["name"] ? w["name"].as<std::string>() : "";
        const std::string wns = w["namespace"] ? w["namespace"].as<std::string>() : "default";
        known.push_back(wns + "/" + wname);
        if ((name == "*" || name == wname) && (ns.empty() || ns == wns)) {
          AddKeys(w, entry, {"name", "namespace"});
          ++matched;
        }
      }
    }
    if (matched == 0) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      Fail(file, entry["name"], path + ".name",
           "matches no imported workload" + (ns.empty() ? "" : " in namespace " + ns),
           list.empty() ? "the manifests hold no workload" : "imported: " + list);
    }
  }
}

}  // namespace

Expected<std::string> ApplyOverlay(const std::string& scenario_yaml,
                                   const std::string& overlay_yaml,
                                   const std::string& overlay_file) {
  // The overlay is read as every YAML input is (LoadSingleYamlDocument): its syntax errors with
  // the line, a second document refused, and a stray `,` an error rather than yaml-cpp 0.7's
  // endless read (found by tools/fuzz/overlay_fuzz.cpp).
  Expected<YAML::Node> doc = LoadSingleYamlDocument(
      overlay_yaml, overlay_file, {"scenario overlay", "an overlay is one document", true});
  if (!doc.ok()) return doc.error();
  YAML::Node scenario;
  try {
    scenario = YAML::Load(scenario_yaml);
  } catch (const YAML::Exception& e) {
    return InputError{overlay_file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                      "invalid YAML: " + e.msg, ""};
  }
  try {
    // An empty overlay changes nothing.
    const YAML::Node overlay = doc->IsNull() ? YAML::Node(YAML::NodeType::Map) : *doc;
    ExpectMap(overlay_file, overlay, "");
    for (const auto& kv : overlay) {
      const std::string key = kv.first.as<std::string>();
      const YAML::Node value = kv.second;
      if (key == "name" || key == "description") {
        scenario[key] = Scalar(overlay_file, value, key);
      } else if (key == "cluster" || key == "run") {
        ExpectMap(overlay_file, value, key);
        if (!scenario[key]) scenario[key] = YAML::Node(YAML::NodeType::Map);
        AddKeys(scenario[key], value, {});
      } else if (key == "gpu_types" || key == "variants") {
        ExpectList(overlay_file, value, key);
        scenario[key] = YAML::Clone(value);
      } else if (key == "node_pools") {
        MergeNodePools(scenario, value, overlay_file);
      } else if (key == "workloads") {
        MergeWorkloads(scenario, value, overlay_file);
      } else {
        Fail(overlay_file, kv.first, key, "unknown overlay key",
             "an overlay holds name, description, gpu_types, cluster, node_pools, workloads, run, "
             "variants");
      }
    }
  } catch (const OverlayFailure& f) {
    return f.error;
  }
  YAML::Emitter out;
  out << scenario;
  const std::string text =
      std::string("# imported, merged with an overlay (knobsim import --overlay)\n") + out.c_str() +
      "\n";
  // All validation in one place: the merged text must be a scenario. Its field paths are the
  // merged document's; the line is left out (it is no line of the overlay).
  Expected<Scenario> check = ReadScenarioString(text, overlay_file + " (merged with the import)");
  if (!check) {
    InputError e = check.error();
    e.line = 0;
    return e;
  }
  return text;
}

Expected<std::string> ApplyOverlayFile(const std::string& scenario_yaml,
                                       const std::string& overlay_path) {
  const Expected<std::string> overlay = ReadFileText(overlay_path);
  if (!overlay) return ReadErrorAs(overlay.error(), "the overlay");
  if (overlay->find_first_not_of(" \t\r\n") == std::string::npos) {
    return InputError{overlay_path, 0, "", "the overlay is empty (an empty file or a closed stdin)",
                      "give the YAML keys to lay over the imported scenario"};
  }
  return ApplyOverlay(scenario_yaml, *overlay, overlay_path);
}

}  // namespace knobsim
