// `variants:`: each variant's knobs, checked against the pools and workloads they name
// (docs/scenario.md; scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

#include "sim/io/spelling.h"
#include "sim/quantity.h"
#include "sim/text.h"
#include "sim/variant.h"

namespace knobsim::scenario_internal {

namespace {

std::vector<std::string> PoolNames(const Scenario& sc) {
  std::vector<std::string> names;
  for (const NodePool& p : sc.node_pools) names.push_back(p.name);
  return names;
}

std::vector<std::string> WorkloadNames(const Scenario& sc) {
  std::vector<std::string> names;
  for (const Workload& w : sc.workloads) names.push_back(w.name);
  return names;
}

const NodePool* FindPool(const Scenario& sc, const std::string& name) {
  for (const NodePool& p : sc.node_pools) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const Workload* FindWorkload(const Scenario& sc, const std::string& name) {
  for (const Workload& w : sc.workloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

}  // namespace

Variant Reader::ReadVariant(const Field& f, const Scenario& sc) const {
  Section s(*this, f,
            {"name",
             "description",
             "policy",
             "max_inst",
             "switch_overhead",
             "time_slice",
             "placement",
             "memory_isolation",
             "sharing",
             "topology_spread",
             "gpu_mem",
             "gpu_core",
             "replicas",
             "priority",
             "node_count",
             "traffic_scale",
             "interference",
             "hpa_min_replicas",
             "hpa_max_replicas",
             "cron_hpa",
             "hpa_target",
             "hpa_scale_up_window",
             "hpa_scale_down_window",
             "pool_min",
             "pool_max"});
  Variant v;
  const Field name = s.Require("name");
  v.name = NonEmptyString(name);
  if (v.name == "base") Fail(name, "`base` is reserved for the scenario as written");
  const bool valid_name =
      std::isalnum(static_cast<unsigned char>(v.name[0])) &&
      std::all_of(v.name.begin(), v.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      });
  if (!valid_name) {
    Fail(name, Quote(v.name) + " is not a valid variant name",
         "use letters, digits, '-', '_' and '.', starting with a letter or digit");
  }
  if (auto x = s.Get("description")) v.description = String(*x);
  ReadVariantClusterKnobs(s, sc, v);
  ReadVariantPoolSharing(s, sc, v);
  ReadVariantWorkloadKnobs(s, sc, v);
  ReadVariantAutoscalerKnobs(s, sc, v);
  ReadVariantPoolSizes(s, sc, v);
  if (auto x = s.Get("traffic_scale")) {
    if (x->node.IsScalar()) {
      v.traffic_scale["*"] = Number(*x, 0, INFINITY, false, false);
    } else {
      for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
        for (const Workload& w : sc.workloads)
          if (w.name == key && w.closed_loop)
            Fail(value, "workload " + Quote(key) + " is a closed_loop job: it has no traffic",
                 "change its replicas, or its closed_loop in the scenario");
        v.traffic_scale[key] = Number(value, 0, INFINITY, false, false);
      }
    }
  }
  // Slice mode and a variant that changes how cards are shared: the variant's scenario must
  // still share its cards by slices only.
  if (sc.cluster.time_slice.enabled() || (v.time_slice && v.time_slice->enabled()))
    CheckTimeSlice(ApplyVariant(sc, v), s.Has("time_slice") ? *s.Get("time_slice") : f);
  return v;
}

std::vector<std::pair<std::string, Field>> Reader::KnobEntries(
    const Field& map, const std::vector<std::string>& names, std::string kind) const {
  auto entries = Entries(map);
  for (const auto& [key, value] : entries) {
    if (key == "*" || std::find(names.begin(), names.end(), key) != names.end()) continue;
    Fail(value, "unknown " + kind + " " + Quote(key), SuggestName(key, names, kind + "s:"));
  }
  return entries;
}

// The cluster's knobs: POLICY, max_inst, switch_overhead, the interference model on or off.
void Reader::ReadVariantClusterKnobs(const Section& s, const Scenario& sc, Variant& v) const {
  if (auto x = s.Get("policy")) v.policy = ReadPolicy(*x);
  if (auto x = s.Get("max_inst")) v.max_inst = ReadMaxInst(*x);
  if (auto x = s.Get("switch_overhead")) v.switch_overhead = Number(*x, 0, 1, false, true);
  if (auto x = s.Get("time_slice")) v.time_slice = ReadTimeSlice(*x, true);
  if (auto x = s.Get("interference")) {
    v.interference = Enum<bool>(*x, "interference", {{"on", true}, {"off", false}});
    if (*v.interference && !sc.cluster.interference) {
      Fail(*x, "there is no interference model to turn on", "name one under cluster.interference");
    }
  }
}

// Per pool: how cards are placed and whether memory is isolated.
void Reader::ReadVariantPoolSharing(const Section& s, const Scenario& sc, Variant& v) const {
  if (auto x = s.Get("placement")) {
    for (const auto& [key, value] : KnobEntries(*x, PoolNames(sc), "node pool")) {
      v.placement[key] = Placement(value);
    }
  }
  if (auto x = s.Get("sharing")) {
    for (const auto& [key, value] : KnobEntries(*x, PoolNames(sc), "node pool")) {
      const NodePool* p = FindPool(sc, key);
      if (p != nullptr && p->gpu_type.empty())
        Fail(value, "node pool " + Quote(key) + " has no GPUs to share");
      PoolSharingText parsed = ParsePoolSharing(String(value));
      if (!parsed.knob) Fail(value, parsed.error, parsed.hint);
      for (const NodePool& pool : sc.node_pools) {
        if (key != "*" && pool.name != key) continue;
        if (auto problem = PoolSharingProblem(pool, *parsed.knob))
          Fail(value, problem->error, problem->hint);
      }
      v.sharing[key] = *parsed.knob;
    }
  }
  if (auto x = s.Get("memory_isolation")) {
    for (const auto& [key, value] : KnobEntries(*x, PoolNames(sc), "node pool")) {
      const MemoryIsolation iso = Enum<MemoryIsolation>(
          value, "memory isolation",
          {{"hard", MemoryIsolation::kHard}, {"soft", MemoryIsolation::kSoft}});
      const NodePool* p = FindPool(sc, key);
      if (iso == MemoryIsolation::kHard && p != nullptr &&
          (p->gpu_type.empty() ||
           (p->schedule != GpuSchedule::kCgpu && p->schedule != GpuSchedule::kCoreMem))) {
        Fail(value, "node pool " + Quote(key) + " has no cGPU module to enforce hard isolation",
             "hard isolation needs ack.node.gpu.schedule cgpu or core_mem");
      }
      v.memory_isolation[key] = iso;
    }
  }
}

// Per workload: topology spread, the shared GPU's memory and core, replicas.
void Reader::ReadVariantWorkloadKnobs(const Section& s, const Scenario& sc, Variant& v) const {
  if (auto x = s.Get("topology_spread")) {
    // A "*" entry is expanded here, per workload, because a constraint's default selector is
    // the labels of the workload it lands on.
    std::optional<Field> star;
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      if (key == "*") {
        star = value;
      } else {
        v.topology_spread[key] = ReadSpreadList(value, FindWorkload(sc, key)->labels);
      }
    }
    if (star) {
      for (const Workload& w : sc.workloads) {
        if (!v.topology_spread.count(w.name)) {
          v.topology_spread[w.name] = ReadSpreadList(*star, w.labels);
        }
      }
    }
  }
  if (auto x = s.Get("gpu_mem")) {
    auto entries = KnobEntries(*x, WorkloadNames(sc), "workload");
    for (const auto& [key, value] : entries) {
      const int units = Unit(value, &ParseGpuMemUnits, "a quantity");
      if (units < 1) Fail(value, "a variant's gpu_mem must be at least 1");
      v.gpu_mem[key] = units;
      for (const Workload& w : sc.workloads) {
        // ApplyVariant gives a "*" only to workloads that already share GPUs.
        const bool applies =
            key == w.name || (key == "*" && (w.gpu_mem > 0 || w.hami.enabled()) &&
                              !std::any_of(entries.begin(), entries.end(),
                                           [&](const auto& e) { return e.first == w.name; }));
        if (!applies) continue;
        if (w.whole_gpus > 0) {
          Fail(value, "workload " + Quote(w.name) + " uses whole_gpus, which excludes gpu_mem");
        }
        CheckGpuMemSplit(value, units, w.gpu_count);
      }
    }
  }
  if (auto x = s.Get("gpu_core")) {
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      v.gpu_core[key] = Int(value, 0, 100);
      if (const Workload* w = FindWorkload(sc, key); w != nullptr && w->whole_gpus > 0) {
        Fail(value, "workload " + Quote(key) + " uses whole_gpus, which excludes gpu_core");
      }
    }
  }
  if (auto x = s.Get("replicas")) {
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      if (const Workload* w = FindWorkload(sc, key); w != nullptr && w->kind == "DaemonSet") {
        Fail(value, "workload " + Quote(key) + " is a DaemonSet, whose pods follow the nodes",
             "change the nodes (node_count) instead");
      }
      v.replicas[key] = Int(value, 0);
    }
  }
  if (auto x = s.Get("priority")) {
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      v.priority[key] =
          Int(value, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
    }
  }
}

// Per workload, of its HPA and CronHPA: the HPA's bounds and target, the CronHPA on or off.
void Reader::ReadVariantAutoscalerKnobs(const Section& s, const Scenario& sc, Variant& v) const {
  // The HPA knobs name workloads with an HPA.
  auto hpa_of = [&](const std::string& key, const Field& value) {
    if (key == "*") return;  // every workload that has one
    const Workload* w = FindWorkload(sc, key);
    if (w == nullptr || !w->hpa) Fail(value, "workload " + Quote(key) + " has no hpa");
  };
  if (auto x = s.Get("hpa_min_replicas")) {
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      v.hpa_min_replicas[key] = Int(value, 0);
      hpa_of(key, value);
    }
  }
  if (auto x = s.Get("hpa_max_replicas")) {
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      v.hpa_max_replicas[key] = Int(value, 1);
      hpa_of(key, value);
    }
  }
  if (auto x = s.Get("hpa_target")) {
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      v.hpa_target[key] = Number(value, 0, INFINITY, true, true);
      hpa_of(key, value);
    }
  }
  for (const char* name : {"hpa_scale_up_window", "hpa_scale_down_window"}) {
    auto x = s.Get(name);
    if (!x) continue;
    auto& knob = std::string_view(name) == "hpa_scale_up_window" ? v.hpa_scale_up_window
                                                                 : v.hpa_scale_down_window;
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      const SimTime window = Duration(value);
      if (!ValidStabilizationWindow(window))
        Fail(value, "a stabilization window is whole seconds from 0s to 1h");
      knob[key] = window;
      hpa_of(key, value);
    }
  }
  if (auto x = s.Get("cron_hpa")) {
    for (const auto& [key, value] : KnobEntries(*x, WorkloadNames(sc), "workload")) {
      v.cron_hpa[key] = Bool(value);
      const Workload* w = key == "*" ? nullptr : FindWorkload(sc, key);
      if (key != "*" && (w == nullptr || !w->cron_hpa))
        Fail(value, "workload " + Quote(key) + " has no cron_hpa");
    }
  }
}

// Per pool: its node count, or an autoscaled pool's bounds.
void Reader::ReadVariantPoolSizes(const Section& s, const Scenario& sc, Variant& v) const {
  if (auto x = s.Get("node_count")) {
    for (const auto& [key, value] : KnobEntries(*x, PoolNames(sc), "node pool")) {
      v.node_count[key] = Int(value, 0);
    }
  }
  // pool_min / pool_max: an autoscaled pool's bounds; the pair must stay ordered.
  std::map<std::string, Field> bound_fields;
  for (const char* knob : {"pool_min", "pool_max"}) {
    const auto x = s.Get(knob);
    if (!x) continue;
    const bool is_min = std::string_view(knob) == "pool_min";
    for (const auto& [key, value] : KnobEntries(*x, PoolNames(sc), "node pool")) {
      (is_min ? v.pool_min : v.pool_max)[key] = Int(value, is_min ? 0 : 1);
      bound_fields.insert_or_assign(key, value);
    }
  }
  for (const auto& [key, field] : bound_fields) {
    for (const NodePool& p : sc.node_pools) {
      if (key != "*" && p.name != key) continue;
      if (!p.autoscaling) {
        if (key == "*") continue;
        Fail(field, "node pool " + Quote(key) + " has no autoscaling");
      }
      const auto bound = [&](const std::map<std::string, int>& m, int base) {
        if (auto it = m.find(p.name); it != m.end()) return it->second;
        if (auto it = m.find("*"); it != m.end()) return it->second;
        return base;
      };
      const int min = bound(v.pool_min, p.autoscaling->min);
      const int max = bound(v.pool_max, p.autoscaling->max);
      if (min > max) {
        Fail(field, "pool " + Quote(p.name) + ": min " + std::to_string(min) + " is above max " +
                        std::to_string(max));
      }
    }
  }
}

}  // namespace knobsim::scenario_internal
