#include "sim/whatif/knobs.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "models/memory_isolation.h"
#include "sim/io/spelling.h"
#include "sim/io/yaml_fields.h"
#include "sim/quantity.h"
#include "sim/scheduler/card_placement.h"
#include "sim/text.h"
#include "sim/time_slice_rules.h"
#include "sim/variant.h"

namespace knobsim {
namespace {

enum class Target { kNone, kPool, kWorkload, kOptionalPool, kOptionalWorkload };

struct KnobKind {
  std::string_view name;
  Target target;
  std::string_view form;  // for hints
};

// Every knob, in the order docs/whatif.md lists them.
const std::vector<KnobKind>& Kinds() {
  static const std::vector<KnobKind> kinds = {
      {"policy", Target::kNone, "policy=0..5"},
      {"max_inst", Target::kNone, "max_inst=1..25"},
      {"switch_overhead", Target::kNone, "switch_overhead=0..1"},
      {"interference", Target::kNone, "interference=on|off"},
      {"time_slice", Target::kNone, "time_slice=QUANTUM[/SWITCH_COST]|off"},
      {"placement", Target::kPool, "placement:POOL=binpack|spread|..."},
      {"isolation", Target::kOptionalPool, "isolation[:POOL]=hard|soft"},
      {"sharing", Target::kPool, "sharing:POOL=cgpu|exclusive|timeslicing:N|mps:N"},
      {"quota", Target::kWorkload, "quota:WORKLOAD=N|peak|peak+10%|peak+2"},
      {"spread", Target::kWorkload, "spread:WORKLOAD=hostname:1|zone:1|KEY:SKEW[:MODE]|none"},
      {"replicas", Target::kWorkload, "replicas:WORKLOAD=N"},
      {"priority", Target::kWorkload, "priority:WORKLOAD=N"},
      {"nodes", Target::kPool, "nodes:POOL=N"},
      {"pool_min", Target::kPool, "pool_min:POOL=N"},
      {"pool_max", Target::kPool, "pool_max:POOL=N"},
      {"hpa_min", Target::kWorkload, "hpa_min:WORKLOAD=N"},
      {"hpa_max", Target::kWorkload, "hpa_max:WORKLOAD=N"},
      {"hpa_target", Target::kWorkload, "hpa_target:WORKLOAD=X"},
      {"hpa_scale_up_window", Target::kWorkload, "hpa_scale_up_window:WORKLOAD=DURATION"},
      {"hpa_scale_down_window", Target::kWorkload, "hpa_scale_down_window:WORKLOAD=DURATION"},
      {"traffic", Target::kOptionalWorkload, "traffic[:WORKLOAD]=FACTOR"},
      {"gpu_core", Target::kWorkload, "gpu_core:WORKLOAD=0..100"},
  };
  return kinds;
}

struct Failure {
  InputError error;
};

// One knob being turned into Variant fields; Fail() throws a Failure caught at the API edge.
class KnobParser {
 public:
  KnobParser(const Scenario& s, Variant* v) : s_(s), v_(*v) {}

  void Apply(const KnobText& k) {
    at_ = &k;
    const size_t eq = k.text.find('=');
    if (eq == std::string::npos) {
      Fail("expected KNOB=VALUE", "e.g. policy=3 or isolation:POOL=hard");
    }
    const std::string lhs(TrimSpace(std::string_view(k.text).substr(0, eq)));
    value_ = TrimSpace(std::string_view(k.text).substr(eq + 1));
    const size_t colon = lhs.find(':');
    key_ = lhs.substr(0, colon);
    const std::optional<std::string> target =
        colon == std::string::npos ? std::nullopt : std::optional(lhs.substr(colon + 1));

    const KnobKind* kind = nullptr;
    std::vector<std::string> names;
    for (const KnobKind& c : Kinds()) {
      names.emplace_back(c.name);
      if (c.name == key_) kind = &c;
    }
    if (kind == nullptr) Fail("unknown knob " + Quote(key_), SuggestName(key_, names, "knobs:"));
    if (value_.empty()) Fail("no value", "write " + std::string(kind->form));
    const bool takes_target = kind->target != Target::kNone;
    const bool needs_target = kind->target == Target::kPool || kind->target == Target::kWorkload;
    if (target && !takes_target) {
      Fail(key_ + " applies to the whole cluster and takes no target", std::string(kind->form));
    }
    if (!target && needs_target) Fail(key_ + " needs a target", "write " + std::string(kind->form));
    if (target && target->empty())
      Fail("empty target after " + Quote(key_ + ":"), std::string(kind->form));

    // The knob's slot: key plus target, so the same knob twice is caught.
    const std::string slot = key_ + ":" + target.value_or("");
    if (key_ != "spread" && !seen_.insert(slot).second) {
      Fail("the knob " + Quote(lhs) + " is given twice", "keep one value per knob and target");
    }

    if (key_ == "policy") {
      v_.policy = static_cast<SharingPolicy>(
          Int(0, 5, "cGPU POLICY is 0 (fixed equal slices) to 5 (native time-slicing)"));
    } else if (key_ == "max_inst") {
      v_.max_inst = Int(1, 25, "cGPU runs at most 25 instances per card");
    } else if (key_ == "switch_overhead") {
      const double x = Number();
      if (!(x >= 0 && x < 1))
        Fail(Quote(value_) + " is out of range", "switch_overhead is in [0, 1)");
      v_.switch_overhead = x;
    } else if (key_ == "time_slice") {
      v_.time_slice = TimeSlice();
    } else if (key_ == "placement") {
      const std::string pool = Pool(*target);
      if (pool != "*" && FindPool(pool)->gpu_type.empty()) {
        Fail("node pool " + Quote(pool) + " has no GPUs to place on");
      }
      v_.placement[pool] = Placement();
    } else if (key_ == "sharing") {
      const std::string pool = Pool(*target);
      if (pool != "*" && FindPool(pool)->gpu_type.empty()) {
        Fail("node pool " + Quote(pool) + " has no GPUs to share");
      }
      PoolSharingText parsed = ParsePoolSharing(value_);
      if (!parsed.knob) Fail(parsed.error, parsed.hint);
      for (const NodePool& p : s_.node_pools) {
        if (pool != "*" && p.name != pool) continue;
        if (auto problem = PoolSharingProblem(p, *parsed.knob)) Fail(problem->error, problem->hint);
      }
      v_.sharing[pool] = *parsed.knob;
    } else if (key_ == "isolation") {
      const std::string pool = target ? Pool(*target) : "*";
      const MemoryIsolation iso = Isolation();
      if (iso == MemoryIsolation::kHard && pool != "*" && !HasCgpuModule(*FindPool(pool))) {
        Fail("node pool " + Quote(pool) + " has no cGPU module to enforce hard isolation",
             "hard isolation needs ack.node.gpu.schedule cgpu or core_mem");
      }
      v_.memory_isolation[pool] = iso;
    } else if (key_ == "nodes") {
      v_.node_count[Pool(*target)] = Int(0, 1000000);
    } else if (key_ == "pool_min" || key_ == "pool_max") {
      PoolBound(Pool(*target), key_ == "pool_min");
    } else if (key_.rfind("hpa_", 0) == 0) {
      Hpa(Workload(*target));
    } else if (key_ == "replicas") {
      const std::string w = Workload(*target);
      // `*` leaves DaemonSets as they are (their count follows the nodes); naming one fails.
      ForEach(w, [&](const knobsim::Workload& wl) {
        if (wl.kind == "DaemonSet" && w != "*")
          Fail("workload " + Quote(wl.name) + " is a DaemonSet, whose pods follow the nodes",
               "change the nodes instead, e.g. nodes:POOL=N");
      });
      v_.replicas[w] = Int(0, 1000000);
    } else if (key_ == "priority") {
      v_.priority[Workload(*target)] =
          Int(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
              "a pod priority, e.g. a PriorityClass value such as 1000");
    } else if (key_ == "traffic") {
      Traffic(target ? Workload(*target) : "*");
    } else if (key_ == "gpu_core") {
      const std::string w = Workload(*target);
      const int pct = Int(0, 100, "aliyun.com/gpu-core.percentage is 0..100 per card");
      ForEach(w, [&](const knobsim::Workload& wl) {
        if (wl.whole_gpus > 0)
          Fail("workload " + Quote(wl.name) + " uses whole_gpus, which excludes gpu_core");
      });
      v_.gpu_core[w] = pct;
    } else if (key_ == "interference") {
      if (value_ != "on" && value_ != "off")
        Fail(Quote(value_) + " is not on or off", "write interference=off");
      if (value_ == "on" && !s_.cluster.interference) {
        Fail("the scenario names no interference model to turn on",
             "name one under cluster.interference");
      }
      v_.interference = value_ == "on";
    } else if (key_ == "quota") {
      Quota(Workload(*target));
    } else if (key_ == "spread") {
      Spread(Workload(*target), lhs);
    }
  }

  // traffic: a factor on the workload's (or every workload's) traffic.
  void Traffic(const std::string& w) {
    const double x = Number();
    if (!(x > 0) || !std::isfinite(x))
      Fail(Quote(value_) + " is not a positive factor", "e.g. traffic=1.5");
    // `*` leaves closed-loop jobs as they are (they send their own work); naming one fails.
    ForEach(w, [&](const knobsim::Workload& wl) {
      if (wl.closed_loop && w != "*")
        Fail("workload " + Quote(wl.name) + " is a closed_loop job: it has no traffic",
             "change its replicas, e.g. replicas:" + wl.name + "=N");
    });
    v_.traffic_scale[w] = x;
  }

  // pool_min / pool_max: an autoscaled pool's bounds, kept ordered with the other bound (the
  // knob given, else the scenario's).
  void PoolBound(const std::string& pool, bool is_min) {
    if (pool == "*") Fail("pool_min and pool_max name one pool", "write " + key_ + ":POOL=N");
    const NodePool& p = *FindPool(pool);
    if (!p.autoscaling)
      Fail("node pool " + Quote(pool) + " has no autoscaling",
           "give the pool autoscaling: {min, max} in the scenario");
    const int n = Int(is_min ? 0 : 1, 1000000);
    const auto other = [&](const std::map<std::string, int>& m, int base) {
      const auto it = m.find(pool);
      return it == m.end() ? base : it->second;
    };
    if (is_min && n > other(v_.pool_max, p.autoscaling->max))
      Fail("pool_min " + std::to_string(n) + " is above the pool's max " +
           std::to_string(other(v_.pool_max, p.autoscaling->max)));
    if (!is_min && n < other(v_.pool_min, p.autoscaling->min))
      Fail("pool_max " + std::to_string(n) + " is below the pool's min " +
           std::to_string(other(v_.pool_min, p.autoscaling->min)));
    (is_min ? v_.pool_min : v_.pool_max)[pool] = n;
  }

  // hpa_min / hpa_max / hpa_target / hpa_scale_up_window / hpa_scale_down_window: a
  // workload's HPA (`*`: every workload that has one), its bounds kept ordered with the other
  // bound (the knob given, else the scenario's), as the scenario's variant keys.
  void Hpa(const std::string& w) {
    const knobsim::Workload* named = nullptr;
    bool any = false;
    ForEach(w, [&](const knobsim::Workload& wl) {
      any = any || wl.hpa.has_value();
      if (wl.name == w) named = &wl;
    });
    if (w != "*" && !named->hpa)
      Fail("workload " + Quote(w) + " has no hpa", "give it hpa: in the scenario");
    if (!any) Fail("no workload has an hpa", "give one hpa: in the scenario");
    if (key_ == "hpa_min" || key_ == "hpa_max") {
      const bool is_min = key_ == "hpa_min";
      const int n = Int(is_min ? 0 : 1, 1000000);
      if (named != nullptr) {
        const auto other = [&](const std::map<std::string, int>& m, int base) {
          const auto it = m.find(w);
          return it == m.end() ? base : it->second;
        };
        const int max = other(v_.hpa_max_replicas, named->hpa->max_replicas);
        const int min = other(v_.hpa_min_replicas, named->hpa->min_replicas);
        if (is_min && n > max)
          Fail("hpa_min " + std::to_string(n) + " is above the HPA's max " + std::to_string(max));
        if (!is_min && n < min)
          Fail("hpa_max " + std::to_string(n) + " is below the HPA's min " + std::to_string(min));
      }
      (is_min ? v_.hpa_min_replicas : v_.hpa_max_replicas)[w] = n;
    } else if (key_ == "hpa_target") {
      const double x = Number();
      if (!(x > 0) || !std::isfinite(x))
        Fail(Quote(value_) + " is not a positive target",
             "in the first metric's unit: percent for a utilization, cores for cpu's average");
      v_.hpa_target[w] = x;
    } else {
      const Parsed<int64_t> d = ParseDuration(value_);
      if (!d.ok()) Fail(d.error, d.hint);
      if (!ValidStabilizationWindow(*d.value))
        Fail(Quote(value_) + " is not a stabilization window",
             "whole seconds from 0s to 1h, e.g. 5m");
      (key_ == "hpa_scale_up_window" ? v_.hpa_scale_up_window : v_.hpa_scale_down_window)[w] =
          *d.value;
    }
  }

  // After every knob: slice mode still shares only the cards it slices (time_slice_rules.h),
  // blamed on the time_slice knob when there is one, else on the last knob.
  void CheckTimeSlice(const std::vector<KnobText>& knobs) {
    if (!v_.time_slice && !s_.cluster.time_slice.enabled()) return;
    const std::string why = TimeSliceRefusal(ApplyVariant(s_, v_));
    if (why.empty()) return;
    at_ = &knobs.back();
    for (const KnobText& k : knobs)
      if (k.text.rfind("time_slice", 0) == 0) at_ = &k;
    Fail(TimeSliceRefusalMessage(why), kTimeSliceRefusalHint);
  }

  [[noreturn]] void Fail(std::string message, std::string hint = "") const {
    InputError e{at_->file, at_->line,
                 at_->path.empty() ? at_->text : at_->path + " " + Quote(at_->text),
                 std::move(message), std::move(hint)};
    throw Failure{std::move(e)};
  }

 private:
  static bool HasCgpuModule(const NodePool& p) {
    return !p.gpu_type.empty() &&
           (p.schedule == GpuSchedule::kCgpu || p.schedule == GpuSchedule::kCoreMem);
  }

  int Int(int lo, int hi, std::string_view hint = "") const { return IntOf(value_, lo, hi, hint); }

  int IntOf(const std::string& text, int lo, int hi, std::string_view hint = "") const {
    int x = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
    if (ec == std::errc::result_out_of_range)
      Fail(Quote(text) + " is too large", std::string(hint));
    if (ec != std::errc() || end != text.data() + text.size()) {
      Fail(Quote(text) + " is not a whole number", std::string(hint));
    }
    if (x < lo || x > hi) {
      Fail(Quote(text) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi),
           std::string(hint));
    }
    return x;
  }

  // `off`, or QUANTUM[/SWITCH_COST] as Go durations (`2ms/50us`).
  TimeSliceKnobs TimeSlice() const {
    if (value_ == "off") return TimeSliceKnobs{};
    const size_t slash = value_.find('/');
    TimeSliceKnobs t;
    const std::string quantum = value_.substr(0, slash);
    const Parsed<int64_t> q = ParseDuration(quantum);
    if (!q.ok()) Fail(q.error, q.hint);
    t.quantum = *q.value;
    if (t.quantum < kMinTimeSliceQuantum)
      Fail("a time slice of " + quantum + " is too short", kTimeSliceTooShortHint);
    if (slash != std::string::npos) {
      const Parsed<int64_t> c = ParseDuration(value_.substr(slash + 1));
      if (!c.ok()) Fail(c.error, c.hint);
      t.switch_cost = *c.value;
    }
    return t;
  }

  double Number() const {
    double x = 0;
    const auto [end, ec] = std::from_chars(value_.data(), value_.data() + value_.size(), x);
    if (ec != std::errc() || end != value_.data() + value_.size()) {
      Fail(Quote(value_) + " is not a number");
    }
    return x;
  }

  std::string Placement() const {
    if (std::optional<std::string> p = NormalizePlacement(value_)) return *p;
    Fail(Quote(value_) + " is not a placement",
         SuggestName(value_, PlacementNames(), "use one of"));
  }

  MemoryIsolation Isolation() const {
    if (value_ == "hard") return MemoryIsolation::kHard;
    if (value_ == "soft") return MemoryIsolation::kSoft;
    Fail(Quote(value_) + " is not an isolation",
         SuggestName(value_, {"hard", "soft"}, "use one of"));
  }

  const NodePool* FindPool(const std::string& name) const {
    for (const NodePool& p : s_.node_pools) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }

  std::string Pool(const std::string& name) const {
    if (name == "*" || FindPool(name) != nullptr) return name;
    std::vector<std::string> names;
    for (const NodePool& p : s_.node_pools) names.push_back(p.name);
    Fail("unknown node pool " + Quote(name), SuggestName(name, names, "node pools:"));
  }

  // The workload's name (Variant maps key workloads by name; the scenario reader keeps names
  // unique across namespaces), or "*".
  std::string Workload(const std::string& ref) const {
    if (ref == "*") return ref;
    const size_t slash = ref.find('/');
    std::vector<const knobsim::Workload*> found;
    for (const knobsim::Workload& w : s_.workloads) {
      const bool match = slash == std::string::npos ? w.name == ref
                                                    : w.namespace_ == ref.substr(0, slash) &&
                                                          w.name == ref.substr(slash + 1);
      if (match) found.push_back(&w);
    }
    if (found.size() == 1) return found[0]->name;
    std::vector<std::string> names;
    for (const knobsim::Workload& w : s_.workloads) names.push_back(w.namespace_ + "/" + w.name);
    if (found.size() > 1) {
      Fail("workload name " + Quote(ref) + " is in several namespaces", "write NAMESPACE/" + ref);
    }
    if (slash != std::string::npos) {
      // The right name in the wrong namespace is the likeliest slip.
      for (const knobsim::Workload& w : s_.workloads) {
        if (w.name == ref.substr(slash + 1)) {
          Fail("unknown workload " + Quote(ref),
               "did you mean `" + w.namespace_ + "/" + w.name + "`?");
        }
      }
    }
    std::vector<std::string> bare;
    for (const knobsim::Workload& w : s_.workloads) bare.push_back(w.name);
    std::string hint = SuggestName(ref, slash == std::string::npos ? bare : names, "");
    if (hint.empty() || hint.rfind("did you", 0) != 0) hint = "workloads: " + Join(names);
    Fail("unknown workload " + Quote(ref), hint);
  }

  // Calls f for every workload a key stands for: itself, or with "*" those ApplyVariant gives
  // a "*" entry (`gpu_sharing_only`: the ones that already share GPUs).
  template <class F>
  void ForEach(const std::string& key, F f, bool gpu_sharing_only = false) const {
    for (const knobsim::Workload& w : s_.workloads) {
      const bool shares = w.gpu_mem > 0 || w.hami.enabled();
      if (key == w.name || (key == "*" && (!gpu_sharing_only || shares))) f(w);
    }
  }

  void Quota(const std::string& key) {
    const std::string forms = "write units (quota:W=6), peak, peak+10% or peak+2";
    if (!std::isdigit(static_cast<unsigned char>(value_[0])) && value_.rfind("peak", 0) != 0) {
      const std::string word = value_.substr(0, value_.find('+'));
      Fail(Quote(value_) + " is not a quota",
           EditDistance(word, "peak") <= 2 ? "did you mean `peak`?" : forms);
    }
    if (value_.rfind("peak", 0) != 0) {
      const int units = IntOf(value_, 1, 1000000,
                              "a quota is whole gpu-mem units (GiB), or peak, peak+10%, peak+2");
      ForEach(
          key, [&](const knobsim::Workload& w) { CheckQuota(w, units); }, true);
      v_.gpu_mem[key] = units;
      if (key != "*") explicit_quota_.insert(key);
      return;
    }
    // peak, peak+P% or peak+N: resolved per workload now, since every workload's peak differs.
    double extra_percent = 0;
    int extra_units = 0;
    const std::string rest = value_.substr(4);
    if (!rest.empty()) {
      if (rest[0] != '+') Fail(Quote(value_) + " is not a quota", "write peak, peak+10% or peak+2");
      std::string amount = rest.substr(1);
      if (!amount.empty() && amount.back() == '%') {
        amount.pop_back();
        double x = 0;
        const auto [end, ec] = std::from_chars(amount.data(), amount.data() + amount.size(), x);
        if (ec != std::errc() || end != amount.data() + amount.size() || !(x >= 0) || x > 1000) {
          Fail(Quote(value_) + " is not a quota",
               "the margin is a percentage 0..1000, e.g. peak+10%");
        }
        extra_percent = x;
      } else {
        extra_units =
            IntOf(amount, 0, 1000, "the margin is whole units (peak+2) or a percentage (peak+10%)");
      }
    }
    ForEach(
        key,
        [&](const knobsim::Workload& w) {
          Expected<int> units = PeakQuotaUnits(s_, w, extra_percent, extra_units);
          if (!units.ok()) Fail(units.error().message, units.error().hint);
          CheckQuota(w, *units);
          // A "*" entry never overrides a workload's own quota knob, whatever their order.
          if (key == "*" && explicit_quota_.count(w.name)) return;
          v_.gpu_mem[w.name] = *units;
        },
        true);
    if (key != "*") explicit_quota_.insert(key);
  }

  void CheckQuota(const knobsim::Workload& w, int units) const {
    if (w.whole_gpus > 0)
      Fail("workload " + Quote(w.name) + " uses whole_gpus, which excludes a gpu-mem quota");
    if (w.gpu_count > 1 && units % w.gpu_count != 0) {
      Fail("invalid replica for resource aliyun.com/gpu-mem, because " + std::to_string(units) +
               " / " + std::to_string(w.gpu_count) + " is not a whole number",
           "workload " + Quote(w.name) + " spreads its quota over " + std::to_string(w.gpu_count) +
               " cards");
    }
  }

  void Spread(const std::string& key, const std::string& lhs) {
    std::vector<std::string> parts;
    std::stringstream ss(value_);
    for (std::string part; std::getline(ss, part, ':');) parts.push_back(part);
    const std::string form =
        "write hostname:1, zone:1 or KEY:MAXSKEW[:DoNotSchedule|ScheduleAnyway]";
    if (value_ == "none") {
      ForEach(key, [&](const knobsim::Workload& w) { v_.topology_spread[w.name].clear(); });
      if (!seen_.insert(lhs + "=none").second || spread_keys_.count(lhs)) {
        Fail("spread none cannot be combined with other spread knobs for the same workload");
      }
      return;
    }
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty())
      Fail(Quote(value_) + " is not a spread", form);
    TopologySpreadConstraint c;
    c.topology_key = parts[0] == "hostname" ? kHostnameLabel
                     : parts[0] == "zone"   ? kZoneLabel
                                            : parts[0];
    c.max_skew = IntOf(parts[1], 1, 1000000, "max skew is a whole number >= 1");
    if (parts.size() == 3) {
      if (parts[2] != "DoNotSchedule" && parts[2] != "ScheduleAnyway") {
        Fail(Quote(parts[2]) + " is not a whenUnsatisfiable",
             SuggestName(parts[2], {"DoNotSchedule", "ScheduleAnyway"}, "use one of"));
      }
      c.when_unsatisfiable = parts[2];
    }
    if (seen_.count(lhs + "=none"))
      Fail("spread none cannot be combined with other spread knobs for the same workload");
    if (!spread_keys_.insert(lhs + "|" + c.topology_key).second) {
      Fail("two spread knobs for " + Quote(lhs.substr(7)) + " over " + c.topology_key,
           "one constraint per topology key");
    }
    spread_keys_.insert(lhs);
    ForEach(key, [&](const knobsim::Workload& w) {
      // The selector is the workload's own labels, as Kubernetes users write it for a Deployment.
      TopologySpreadConstraint own = c;
      own.label_selector = LabelSelector{};
      own.label_selector.match_labels = w.labels;
      auto& list = v_.topology_spread[w.name];
      // A "*" constraint and a workload's own knob add up; the same key twice keeps the workload's.
      if (key == "*" && std::any_of(list.begin(), list.end(), [&](const auto& x) {
            return x.topology_key == own.topology_key;
          })) {
        return;
      }
      if (key != "*") {
        list.erase(
            std::remove_if(list.begin(), list.end(),
                           [&](const auto& x) { return x.topology_key == own.topology_key; }),
            list.end());
      }
      list.push_back(std::move(own));
    });
  }

  const Scenario& s_;
  Variant& v_;
  const KnobText* at_ = nullptr;
  std::string key_, value_;
  std::set<std::string> seen_, spread_keys_, explicit_quota_;
};

bool LabelsMatch(const Labels& labels, const std::map<std::string, std::string>& selector) {
  for (const auto& [k, v] : selector) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace

Expected<int64_t> PeakPodMemoryPerCardMib(const Workload& w, const GpuType& gpu) {
  if (w.concurrency == 0) {
    return InputError{"", 0, "",
                      "workload " + Quote(w.name) +
                          " has unlimited concurrency, so its peak GPU memory has no bound",
                      "give the quota in units (quota:" + w.name + "=N) or set its concurrency"};
  }
  const int64_t m = std::max(1, w.gpu_count);
  const int64_t context = w.memory.context_mib.value_or(gpu.context_mib);
  const int64_t weights = (w.memory.weights_mib + m - 1) / m;
  const int64_t activation = (w.memory.activation_mib + m - 1) / m;
  const int64_t in_flight = static_cast<int64_t>(w.concurrency) * std::max(1, w.batching.max_batch);
  return context + weights + activation * in_flight;
}

int UnitsToHoldMib(int64_t mib, int64_t physical_mib) {
  const int card_units = CardMemoryUnits(physical_mib);
  for (int u = 1; u < card_units; ++u) {
    if (VisibleQuotaMib(physical_mib, u, card_units) >= mib) return u;
  }
  return std::max(1, card_units);
}

Expected<int> PeakQuotaUnits(const Scenario& s, const Workload& w, double extra_percent,
                             int extra_units) {
  std::vector<const GpuType*> types;
  for (const NodePool& p : s.node_pools) {
    if (p.gpu_type.empty() || p.schedule == GpuSchedule::kDefault) continue;
    if (!LabelsMatch(p.labels, w.node_selector)) continue;
    const GpuType* t = s.catalog.Find(p.gpu_type);
    if (t != nullptr && std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
  }
  if (types.empty()) {
    return InputError{"", 0, "",
                      "no shared-GPU node pool can hold workload " + Quote(w.name) +
                          ", so it has no card to compute a peak quota on",
                      "give the quota in units (quota:" + w.name + "=N)"};
  }
  int best = 0;
  for (const GpuType* t : types) {
    Expected<int64_t> peak = PeakPodMemoryPerCardMib(w, *t);
    if (!peak.ok()) return peak.error();
    // The margin is on memory (peak+10% of 23490 MiB is 25839 MiB), rounded up to a MiB.
    const auto with_margin = static_cast<int64_t>(
        std::ceil(static_cast<double>(*peak) * (100.0 + extra_percent) / 100.0 - 1e-9));
    const int card_units = CardMemoryUnits(t->memory_mib);
    const int per_card =
        std::min(card_units, UnitsToHoldMib(with_margin, t->memory_mib) + extra_units);
    best = std::max(best, per_card);
  }
  return best * std::max(1, w.gpu_count);
}

Expected<Variant> VariantFromKnobs(const Scenario& s, const std::vector<KnobText>& knobs,
                                   std::string name) {
  Variant v;
  v.name = std::move(name);
  std::vector<std::string> texts;
  for (const KnobText& k : knobs) texts.push_back(k.text);
  v.description = "knobs: " + Join(texts);
  KnobParser parser(s, &v);
  try {
    for (const KnobText& k : knobs) parser.Apply(k);
    if (!knobs.empty()) parser.CheckTimeSlice(knobs);
  } catch (const Failure& f) {
    return f.error;
  }
  return v;
}

std::string KnobVariantName(const std::vector<std::string>& knobs) {
  std::string name;
  for (size_t i = 0; i < knobs.size(); ++i) name += (i > 0 ? "," : "") + knobs[i];
  return name;
}

// ---- The knobs file ------------------------------------------------------------------------

namespace {

class FileReader {
 public:
  FileReader(std::string file, const Scenario& s) : file_(std::move(file)), s_(s) {}

  std::vector<Variant> Read(const YAML::Node& root) {
    if (!root.IsDefined() || root.IsNull())
      Fail(1, "", "the file is empty", "write `variants:` with at least one variant");
    if (!root.IsMap()) Fail(Line(root), "", "expected a mapping with `variants:`");
    CheckKeys(root, "", {"variants"});
    const YAML::Node list = root["variants"];
    if (!list) Fail(Line(root), "", "missing `variants:`");
    std::vector<Variant> out;
    if (list.IsSequence()) {
      for (size_t i = 0; i < list.size(); ++i) {
        const YAML::Node item = list[i];
        const std::string path = "variants[" + std::to_string(i) + "]";
        if (!item.IsMap()) Fail(Line(item), path, "expected {name, knobs}");
        CheckKeys(item, path, {"name", "description", "knobs"});
        if (!item["name"]) Fail(Line(item), path, "missing `name`");
        if (!item["knobs"]) Fail(Line(item), path, "missing `knobs`");
        out.push_back(ReadVariant(Scalar(item["name"], path + ".name"), item["knobs"],
                                  path + ".knobs", item["description"], path));
      }
    } else if (list.IsMap()) {
      for (const auto& kv : list) {
        const std::string name = Scalar(kv.first, "variants");
        const std::string path = "variants." + name;
        // {description, knobs} when it has either key; otherwise the mapping is the knobs.
        // (Nodes are const and never assigned: yaml-cpp's operator= writes through to the
        // document, and a non-const operator[] inserts.)
        const YAML::Node value = kv.second;
        const bool section = value.IsMap() && (value["knobs"] || value["description"]);
        if (section) {
          CheckKeys(value, path, {"description", "knobs"});
          if (!value["knobs"]) Fail(Line(value), path, "missing `knobs`");
        }
        const YAML::Node knobs = section ? value["knobs"] : value;
        const YAML::Node description = section ? value["description"] : YAML::Node();
        out.push_back(
            ReadVariant(name, knobs, path + (section ? ".knobs" : ""), description, path));
      }
    } else {
      Fail(Line(list), "variants", "expected a list of {name, knobs} or a mapping name: knobs");
    }
    if (out.empty()) Fail(Line(list), "variants", "no variants", "list at least one");
    for (size_t i = 0; i < out.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (out[i].name == out[j].name)
          Fail(lines_[i], "variants", "duplicate variant name " + Quote(out[i].name));
      }
    }
    return out;
  }

  [[noreturn]] void Fail(int line, std::string path, std::string message,
                         std::string hint = "") const {
    throw Failure{InputError{file_, line, std::move(path), std::move(message), std::move(hint)}};
  }

 private:
  static int Line(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

  void CheckKeys(const YAML::Node& map, const std::string& path,
                 const std::vector<std::string>& known) const {
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      const std::string where = path.empty() ? key : path + "." + key;
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        Fail(Line(kv.first), where, "unknown key " + Quote(key),
             SuggestName(key, known, "known keys:"));
      }
      if (!seen.insert(key).second) Fail(Line(kv.first), where, "duplicate key " + Quote(key));
    }
  }

  std::string Scalar(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) Fail(Line(n), path, "expected a string");
    return n.Scalar();
  }

  Variant ReadVariant(const std::string& name, const YAML::Node& knobs, const std::string& path,
                      const YAML::Node& description, const std::string& variant_path) {
    const int line = Line(knobs);
    if (name == "base") Fail(line, variant_path, "`base` is reserved for the scenario as written");
    const bool valid =
        !name.empty() && std::isalnum(static_cast<unsigned char>(name[0])) &&
        std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
        });
    if (!valid) {
      Fail(line, variant_path, Quote(name) + " is not a valid variant name",
           "use letters, digits and - _ . starting with a letter or digit");
    }
    std::vector<KnobText> texts;
    if (knobs.IsSequence()) {
      for (size_t i = 0; i < knobs.size(); ++i) {
        const std::string p = path + "[" + std::to_string(i) + "]";
        if (!knobs[i].IsScalar())
          Fail(Line(knobs[i]), p, "expected a knob KEY=VALUE",
               "quote knobs with special characters");
        texts.push_back({knobs[i].Scalar(), file_, Line(knobs[i]), p});
      }
    } else if (knobs.IsMap()) {
      std::set<std::string> seen;
      for (const auto& kv : knobs) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
        const std::string p = path + "." + key;
        if (!kv.second.IsScalar()) Fail(Line(kv.second), p, "expected a knob value");
        if (!seen.insert(key).second) Fail(Line(kv.first), p, "duplicate knob " + Quote(key));
        texts.push_back({key + "=" + kv.second.Scalar(), file_, Line(kv.first), p});
      }
    } else {
      Fail(line, path, "expected a list of knobs (KEY=VALUE) or a mapping KEY: VALUE");
    }
    if (texts.empty()) Fail(line, path, "a variant needs at least one knob");
    Expected<Variant> v = VariantFromKnobs(s_, texts, name);
    if (!v.ok()) throw Failure{v.error()};
    if (description && !description.IsNull())
      v->description = Scalar(description, variant_path + ".description");
    lines_.push_back(line);
    return *v;
  }

  std::string file_;
  const Scenario& s_;
  std::vector<int> lines_;
};

}  // namespace

Expected<std::vector<Variant>> ReadKnobsString(const std::string& yaml, const std::string& file,
                                               const Scenario& s) {
  // One document: a second one (a `---` and more variants, perhaps with a typo) is an error
  // rather than dropped; tags and yaml-cpp's stuck documents as every YAML reader has them.
  const Expected<YAML::Node> root = LoadSingleYamlDocument(
      yaml, file, {"knobs", "put every variant under the one `variants:`", true});
  if (!root) return root.error();
  FileReader reader(file, s);
  try {
    return reader.Read(*root);
  } catch (const Failure& f) {
    return f.error;
  } catch (const YAML::Exception& e) {  // a yaml-cpp surprise while reading still names the place
    return InputError{file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", e.msg, ""};
  }
}

Expected<std::vector<Variant>> ReadKnobsFile(const std::string& path, const Scenario& s) {
  const Expected<std::string> text = ReadFileText(path);
  if (!text) return ReadErrorAs(text.error(), "the knobs file");
  return ReadKnobsString(*text, path, s);
}

}  // namespace knobsim
