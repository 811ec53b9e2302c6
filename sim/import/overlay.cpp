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

// Where each part of the merged scenario came from in the overlay: the merged document's field
// path of a value the overlay set, and the overlay's node of it, in merge order (a later entry
// wins). The scenario reader checks the merged text, so its errors name merged paths; this is
// how they get the overlay's line back.
using Origins = std::vector<std::pair<std::string, YAML::Node>>;

// Copies every key of `from` into `to` (at merged path `to_path`) except `skip`, replacing what
// `to` holds.
void AddKeys(YAML::Node to, const YAML::Node& from, const std::set<std::string>& skip,
             const std::string& to_path, Origins& origins) {
  for (const auto& kv : from) {
    const std::string key = kv.first.as<std::string>();
    if (skip.count(key)) continue;
    to[key] = YAML::Clone(kv.second);
    origins.emplace_back(to_path + "." + key, kv.second);
  }
}

// The overlay line of the merged path `path`: the origin that covers most of it, then as far
// into that overlay node as the rest of the path goes. 0 when the overlay did not set it.
int OverlayLineOf(const Origins& origins, const std::string& path) {
  const std::pair<std::string, YAML::Node>* best = nullptr;
  for (const auto& origin : origins) {
    const std::string& p = origin.first;
    const bool covers = path.compare(0, p.size(), p) == 0 &&
                        (path.size() == p.size() || path[p.size()] == '.' || path[p.size()] == '[');
    if (covers && (best == nullptr || p.size() >= best->first.size())) best = &origin;
  }
  if (best == nullptr) return 0;
  // Nodes are rebound with reset(): yaml-cpp's operator= assigns *through* a node (it would
  // rewrite the overlay tree) and throws when the right side is a missing key's zombie node.
  YAML::Node node;
  node.reset(best->second);
  int line = node.Mark().line;
  // The rest of the path: ".key" and "[i]" steps. A key that itself holds dots (a label such as
  // ack.node.gpu.placement) is found as the longest run of steps naming a key of the map.
  size_t i = best->first.size();
  while (i < path.size()) {
    YAML::Node next;
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos || !node.IsSequence()) break;
      const std::string digits = path.substr(i + 1, close - i - 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) break;
      const size_t index = std::stoul(digits);
      if (index >= node.size()) break;
      next.reset(node[index]);
      i = close + 1;
    } else {
      if (!node.IsMap()) break;
      const YAML::Node& lookup = node;  // const: operator[] must not insert
      // Longest key first: "a.b.c" before "a.b" before "a".
      size_t end = path.find('[', i + 1);
      if (end == std::string::npos) end = path.size();
      bool found = false;
      while (end > i + 1) {
        const std::string key = path.substr(i + 1, end - i - 1);
        const YAML::Node child = lookup[key];
        if (child.IsDefined()) {
          next.reset(child);
          found = true;
          break;
        }
        const size_t dot = path.rfind('.', end - 1);
        if (dot == std::string::npos || dot <= i) break;
        end = dot;
      }
      if (!found) break;
      i = end;
    }
    node.reset(next);
    if (node.Mark().line >= 0) line = node.Mark().line;
  }
  return line >= 0 ? line + 1 : 0;
}

void MergeNodePools(YAML::Node scenario, const YAML::Node& pools, const std::string& file,
                    Origins& origins) {
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
    for (size_t j = 0; j < target.size(); ++j) {
      YAML::Node pool = target[j];
      if (pool["name"] && pool["name"].as<std::string>() == name) {
        AddKeys(pool, entry, {"name"}, "node_pools[" + std::to_string(j) + "]", origins);
        merged = true;
      }
    }
    if (!merged) {
      target.push_back(YAML::Clone(entry));
      origins.emplace_back("node_pools[" + std::to_string(target.size() - 1) + "]", entry);
    }
  }
}

void MergeWorkloads(YAML::Node scenario, const YAML::Node& workloads, const std::string& file,
                    Origins& origins) {
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
      for (size_t j = 0; j < target.size(); ++j) {
        YAML::Node w = target[j];
        const std::string wname = w["name"] ? w["name"].as<std::string>() : "";
        const std::string wns = w["namespace"] ? w["namespace"].as<std::string>() : "default";
        known.push_back(wns + "/" + wname);
        if ((name == "*" || name == wname) && (ns.empty() || ns == wns)) {
          AddKeys(w, entry, {"name", "namespace"}, "workloads[" + std::to_string(j) + "]",
                  origins);
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
  // The overlay as every YAML file is read (LoadSingleYamlDocument): syntax errors with the
  // line, a second document refused, tags that change a value refused, and a stray `,` an error
  // rather than yaml-cpp 0.7's endless read (found by tools/fuzz/overlay_fuzz.cpp).
  const Expected<YAML::Node> overlay_root = LoadSingleYamlDocument(
      overlay_yaml, overlay_file, {"overlay", "an overlay is one document", true});
  if (!overlay_root) return overlay_root.error();
  YAML::Node scenario;
  try {
    scenario = YAML::Load(scenario_yaml);  // WriteScenarioYaml's own output
  } catch (const YAML::Exception& e) {
    return InputError{"the imported scenario", e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                      "invalid YAML: " + e.msg, ""};
  }
  Origins origins;
  try {
    // An empty overlay changes nothing.
    const YAML::Node overlay =
        overlay_root->IsNull() ? YAML::Node(YAML::NodeType::Map) : *overlay_root;
    ExpectMap(overlay_file, overlay, "");
    for (const auto& kv : overlay) {
      const std::string key = kv.first.as<std::string>();
      const YAML::Node value = kv.second;
      if (key == "name" || key == "description") {
        scenario[key] = Scalar(overlay_file, value, key);
        origins.emplace_back(key, value);
      } else if (key == "cluster" || key == "run") {
        ExpectMap(overlay_file, value, key);
        if (!scenario[key]) scenario[key] = YAML::Node(YAML::NodeType::Map);
        AddKeys(scenario[key], value, {}, key, origins);
      } else if (key == "gpu_types" || key == "variants") {
        ExpectList(overlay_file, value, key);
        scenario[key] = YAML::Clone(value);
        origins.emplace_back(key, value);
      } else if (key == "node_pools") {
        MergeNodePools(scenario, value, overlay_file, origins);
      } else if (key == "workloads") {
        MergeWorkloads(scenario, value, overlay_file, origins);
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
  // merged document's; where the overlay set the value, the error points at the overlay's line,
  // else at the merge (no line: it is a line of no file the user has).
  Expected<Scenario> check = ReadScenarioString(text, overlay_file + " (merged with the import)");
  if (!check) {
    InputError e = check.error();
    e.line = OverlayLineOf(origins, e.path);
    if (e.line > 0) e.file = overlay_file;
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
