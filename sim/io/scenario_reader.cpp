#include "sim/io/scenario_reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "sim/dns_label.h"
#include "sim/io/arrival_file.h"
#include "sim/io/evidence_fingerprint.h"
#include "sim/io/scenario_reader_internal.h"
#include "sim/io/spelling.h"
#include "sim/io/yaml_fields.h"
#include "sim/mig_layout.h"
#include "sim/scenario_objects.h"
#include "sim/scheduler/card_placement.h"
#include "sim/text.h"

namespace knobsim {
namespace scenario_internal {
namespace {

std::string DnsLabelHint(std::string_view s) {
  std::string fixed;
  for (char c : s) {
    fixed += c == '_' || c == '.' || c == ' '
                 ? '-'
                 : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  std::string hint =
      "names are DNS-1123 labels: lower-case letters, digits and '-', at most 63 characters";
  if (IsDnsLabel(fixed)) hint = "did you mean `" + fixed + "`? " + hint;
  return hint;
}

}  // namespace

std::string FormatDuration(SimTime ns) {
  const std::pair<SimTime, const char*> units[] = {{3600 * kNanosPerSecond, "h"},
                                                   {60 * kNanosPerSecond, "m"},
                                                   {kNanosPerSecond, "s"},
                                                   {kNanosPerMilli, "ms"},
                                                   {1000, "us"}};
  for (const auto& [size, name] : units) {
    if (ns != 0 && ns % size == 0) return std::to_string(ns / size) + name;
  }
  return std::to_string(ns) + "ns";
}

// ---- Values of the scenario only ------------------------------------------------------------

std::string Reader::Placement(const Field& f) const {
  const std::string text = Scalar(f, "a placement");
  if (auto p = NormalizePlacement(text)) return *p;
  Fail(f, Quote(text) + " is not a valid placement",
       SuggestName(text, PlacementNames(), "use one of"));
}

std::string Reader::DnsName(const Field& f) const {
  const std::string name = NonEmptyString(f);
  if (!IsDnsLabel(name)) Fail(f, Quote(name) + " is not a valid name", DnsLabelHint(name));
  return name;
}

// A file named in the scenario: relative paths are from the scenario's own folder.
std::string Reader::Beside(const std::string& path) const {
  const std::filesystem::path p(path);
  if (p.is_absolute() || file() == "-" || file().empty()) return path;
  return (std::filesystem::path(file()).parent_path() / p).string();
}

RunSettings Reader::ReadRun(const Field& f) const {
  Section s(*this, f, {"duration", "warmup", "seed", "replications", "start"});
  RunSettings r;
  if (auto v = s.Get("duration")) {
    r.duration = Duration(*v);
    if (r.duration <= 0) Fail(*v, "the run needs a positive duration");
  }
  if (auto v = s.Get("warmup")) r.warmup = Duration(*v);
  if (r.warmup >= r.duration) {
    const Field at = s.Get("warmup") ? *s.Get("warmup") : *s.Get("duration");
    Fail(at,
         "warmup (" + FormatDuration(r.warmup) + ") must be shorter than duration (" +
             FormatDuration(r.duration) + ")",
         "nothing would be measured");
  }
  if (auto v = s.Get("seed")) {
    const std::string text = Scalar(*v, "a whole number");
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), r.seed);
    if (ec != std::errc() || end != text.data() + text.size()) {
      Fail(*v, Quote(text) + " is not a seed", "a seed is a whole number from 0 to 2^64 - 1");
    }
  }
  if (auto v = s.Get("replications")) r.replications = Int(*v, 1);
  if (auto v = s.Get("start")) {
    const std::optional<double> at = ParseRfc3339(Scalar(*v, "an RFC 3339 instant"));
    if (!at || *at != std::floor(*at))
      Fail(*v, "not an RFC 3339 instant in whole seconds", "e.g. 2026-03-02T00:00:00+08:00");
    r.start_unix_s = static_cast<int64_t>(*at);
  }
  return r;
}

// More than a hint can use, and well below what listing a huge pool would cost.
constexpr size_t kMostHintedNodes = 100'000;

void Reader::KnowNodesOf(const NodePool& pool) const {
  const int named = std::min(pool.count, static_cast<int>(pool.nodes.size()));
  for (int i = 0; i < named; ++i) named_nodes_.insert(PoolNodeName(pool, i));
  if (pool.count > named) default_nodes_.push_back({pool.name, named, pool.count});
}

bool Reader::KnownNode(const std::string& name) const {
  if (named_nodes_.count(name)) return true;
  for (const DefaultNodeNames& d : default_nodes_) {
    // <pool>-<ordinal>, the ordinal written as std::to_string writes it (no sign, no leading 0).
    if (name.size() <= d.pool.size() + 1 || name.compare(0, d.pool.size(), d.pool) != 0 ||
        name[d.pool.size()] != '-')
      continue;
    const std::string_view digits = std::string_view(name).substr(d.pool.size() + 1);
    int ordinal = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
    if (ec != std::errc() || end != digits.data() + digits.size()) continue;
    if (std::to_string(ordinal) != digits) continue;
    if (ordinal >= d.from && ordinal < d.to) return true;
  }
  return false;
}

std::vector<std::string> Reader::HintedNodeNames() const {
  std::set<std::string> names = named_nodes_;
  for (const DefaultNodeNames& d : default_nodes_)
    for (int i = d.from; i < d.to && names.size() < kMostHintedNodes; ++i)
      names.insert(d.pool + "-" + std::to_string(i));
  return {names.begin(), names.end()};
}

Scenario Reader::Read(const YAML::Node& root) const {
  const Field top{root, "", LineOf(root, 1)};
  Section s(*this, top,
            {"name", "description", "gpu_types", "cluster", "node_pools", "workloads", "run",
             "variants", "kube", "evidence", "interference"});
  Scenario sc;
  sc.file = file();
  sc.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("description")) sc.description = String(*v);
  if (auto v = s.Get("evidence")) {
    sc.evidence = String(*v);
    if (!IsEvidenceFingerprint(sc.evidence))
      Fail(*v, Quote(sc.evidence) + " is not an evidence fingerprint",
           "`knobsim import` writes it (kf1- and 16 hex digits); leave it out in a scenario "
           "written by hand");
  }
  // Sections are read in dependency order, whatever their order in the file: pools need the
  // catalog, variants need pools and workloads.
  if (auto v = s.Get("gpu_types")) ReadGpuTypes(*v, sc.catalog);
  if (auto v = s.Get("cluster")) sc.cluster = ReadCluster(*v);
  if (auto v = s.Get("interference")) {
    if (sc.cluster.interference) {
      Fail(*v,
           "the interference model is named twice, here and under cluster:", "keep one of them");
    }
    sc.cluster.interference = ReadInterferenceSetup(*v);
  }
  interference_ = sc.cluster.interference;
  max_node_provision_time_ = sc.cluster.cluster_autoscaler.max_node_provision_time;
  if (auto v = s.Get("node_pools")) {
    for (const Field& item : Items(*v)) {
      NodePool p = ReadNodePool(item, sc.catalog);
      for (const NodePool& other : sc.node_pools) {
        if (other.name == p.name) {
          Fail(EntryOf(item, "name"), "duplicate node pool name " + Quote(p.name));
        }
      }
      sc.node_pools.push_back(std::move(p));
    }
  }
  AddMigInstanceTypes(sc);
  // Current pods name nodes; every node of every pool is known from here on.
  for (const NodePool& p : sc.node_pools) KnowNodesOf(p);
  if (auto v = s.Get("workloads")) {
    for (const Field& item : Items(*v)) {
      Workload w = ReadWorkload(item);
      for (const Workload& other : sc.workloads) {
        if (other.name == w.name) {
          Fail(EntryOf(item, "name"), "duplicate workload name " + Quote(w.name),
               "variants refer to workloads by name, so names are unique across namespaces");
        }
      }
      sc.workloads.push_back(std::move(w));
    }
  }
  if (auto v = s.Get("cluster"); v && sc.cluster.time_slice.enabled())
    CheckTimeSlice(sc, EntryOf(*v, "time_slice"));
  if (auto v = s.Get("run")) sc.run = ReadRun(*v);
  if (auto v = s.Get("kube")) sc.kube = ReadKube(*v);
  if (auto v = s.Get("variants")) {
    for (const Field& item : Items(*v)) {
      Variant variant = ReadVariant(item, sc);
      for (const Variant& other : sc.variants) {
        if (other.name == variant.name) {
          Fail(EntryOf(item, "name"), "duplicate variant name " + Quote(variant.name));
        }
      }
      sc.variants.push_back(std::move(variant));
    }
  }
  return sc;
}

}  // namespace scenario_internal

Expected<Scenario> ReadScenarioString(const std::string& yaml, const std::string& file_name) {
  Expected<YAML::Node> root = LoadSingleYamlDocument(
      yaml, file_name,
      {"scenario", "put variants under `variants:` instead of a new document", false});
  if (!root.ok()) return root.error();
  if (root->IsNull()) {
    return InputError{file_name, 0, "", "the file holds no scenario",
                      "a scenario needs at least `name:`"};
  }
  const scenario_internal::Reader reader(file_name);
  return reader.Catch<Scenario>([&] { return reader.Read(*root); });
}

Expected<Scenario> ReadScenarioFile(const std::string& path) {
  Expected<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.error();
  return ReadScenarioString(*text, path);
}

}  // namespace knobsim
