#include "sim/io/results_json.h"

#include "sim/whatif/verdict.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "sim/io/json_numbers.h"
#include "sim/io/timeline_json.h"

namespace knobsim {

namespace {

using Json = nlohmann::ordered_json;

using json_numbers::Num;
using json_numbers::Seconds;

// How one replicated number is written: with one replication the value itself (counts stay
// integers), with several the mean, and the half-width goes to the sibling "ci95" object.
class Writer {
 public:
  explicit Writer(int replications) : replicated_(replications > 1) {}
  bool replicated() const { return replicated_; }

  Json Count(const MeanCi& m) const {
    return replicated_ ? Num(m.mean) : Json(static_cast<int64_t>(std::llround(m.mean)));
  }
  Json Real(const MeanCi& m) const { return Num(m.mean); }
  Json Ci(const MeanCi& m) const { return Num(m.half_width); }

 private:
  bool replicated_;
};

Json ErrorsJson(const ErrorStats& e, const Writer& w, bool ci) {
  auto f = [&](const MeanCi& m) { return ci ? w.Ci(m) : w.Count(m); };
  Json j;
  j["oom"] = f(e.oom);
  j["fake_ready"] = f(e.fake_ready);
  j["timeout"] = f(e.timeout);
  j["no_replica"] = f(e.no_replica);
  j["interrupted"] = f(e.interrupted);
  return j;
}

// Latency is over successes only: with none, there is no latency to report (null, not 0 ms).
Json LatencyJson(const WorkloadStats& s, const Writer& w, bool ci) {
  const bool any = s.latency_replications > 0;
  auto f = [&](const MeanCi& m) { return !any ? Json(nullptr) : ci ? w.Ci(m) : w.Real(m); };
  Json j;
  j["mean"] = f(s.latency_ms.mean);
  j["p50"] = f(s.latency_ms.p50);
  j["p90"] = f(s.latency_ms.p90);
  j["p99"] = f(s.latency_ms.p99);
  j["p999"] = f(s.latency_ms.p999);
  return j;
}

Json WorkloadJson(const WorkloadStats& s, const Writer& w) {
  const bool any = s.latency_replications > 0;
  Json j;
  j["name"] = s.name;
  j["namespace"] = s.namespace_;
  j["id"] = s.namespace_ + "/" + s.name;  // how whatif knobs and imports name a workload
  j["requests"] = w.Count(s.requests);
  j["completed"] = w.Count(s.completed);
  j["errors"] = ErrorsJson(s.errors, w, false);
  j["latency_ms"] = LatencyJson(s, w, false);
  j["throughput_rps"] = w.Real(s.throughput_rps);
  j["slo_met"] = s.slo_met;
  j["in_system_end"] = w.Count(s.in_system_end);
  j["in_system_mean"] = w.Real(s.in_system_mean);
  j["measured_s"] = w.Real(s.measured_s);
  j["time_in_system_mean_ms"] = w.Real(s.time_in_system_mean_ms);
  // Extras beyond the contract.
  j["error_ratio"] = w.Real(s.error_ratio);
  j["slo_latency_ms"] = any ? w.Real(s.slo_latency_ms) : Json(nullptr);
  Json slo;
  slo["percentile"] = Num(s.slo.percentile);
  slo["latency_ms"] =
      s.slo.latency > 0 ? Num(static_cast<double>(s.slo.latency) / kNanosPerMilli) : Json(nullptr);
  slo["error_budget"] = Num(s.slo.error_budget);
  j["slo"] = std::move(slo);
  if (w.replicated()) {
    j["slo_met_replications"] = s.slo_met_replications;
    Json ci;
    ci["requests"] = w.Ci(s.requests);
    ci["completed"] = w.Ci(s.completed);
    ci["errors"] = ErrorsJson(s.errors, w, true);
    ci["latency_ms"] = LatencyJson(s, w, true);
    ci["throughput_rps"] = w.Ci(s.throughput_rps);
    ci["in_system_end"] = w.Ci(s.in_system_end);
    ci["in_system_mean"] = w.Ci(s.in_system_mean);
    ci["measured_s"] = w.Ci(s.measured_s);
    ci["time_in_system_mean_ms"] = w.Ci(s.time_in_system_mean_ms);
    ci["error_ratio"] = w.Ci(s.error_ratio);
    ci["slo_latency_ms"] = any ? w.Ci(s.slo_latency_ms) : Json(nullptr);
    j["ci95"] = std::move(ci);
  }
  return j;
}

Json CardJson(const CardStats& c, const Writer& w) {
  Json j;
  j["node"] = c.node;
  j["index"] = c.index;
  j["gpu"] = c.gpu;
  j["busy"] = w.Real(c.busy);
  j["effective"] = w.Real(c.effective);
  j["switch_overhead"] = w.Real(c.switch_overhead);
  j["waste"] = w.Real(c.waste);
  j["memory_physical_mib"] = c.memory_physical_mib;
  j["memory_quota_mib"] = w.Count(c.memory_quota_mib);
  j["memory_used_mib"] = w.Real(c.memory_used_mib);
  j["memory_peak_mib"] = w.Count(c.memory_peak_mib);
  j["pods"] = c.pods;
  if (w.replicated()) {
    Json ci;
    ci["busy"] = w.Ci(c.busy);
    ci["effective"] = w.Ci(c.effective);
    ci["switch_overhead"] = w.Ci(c.switch_overhead);
    ci["waste"] = w.Ci(c.waste);
    ci["memory_quota_mib"] = w.Ci(c.memory_quota_mib);
    ci["memory_used_mib"] = w.Ci(c.memory_used_mib);
    ci["memory_peak_mib"] = w.Ci(c.memory_peak_mib);
    j["ci95"] = std::move(ci);
  }
  return j;
}

Json PodJson(const PodResult& p) {
  Json j;
  j["namespace"] = p.namespace_;
  j["name"] = p.name;
  j["workload"] = p.workload;
  j["node"] = p.node.empty() ? Json(nullptr) : Json(p.node);  // null: not placed (Pending)
  j["cards"] = p.cards;
  j["state"] = p.state;
  j["restarts"] = p.restarts;
  if (p.cards.size() > 1) {
    j["bottleneck_gbps"] = p.bottleneck_gbps;
    j["throughput_factor"] = p.throughput_factor;
  }
  j["message"] = p.message;
  return j;
}

Json ClusterJson(const ClusterResult& c) {
  Json j;
  j["gpu_mem_allocated_units"] = c.gpu_mem_allocated_units;
  j["gpu_mem_total_units"] = c.gpu_mem_total_units;
  j["allocation_ratio"] = Num(c.allocation_ratio);
  j["pending_pods"] = c.pending_pods;
  j["fake_ready_pods"] = c.fake_ready_pods;
  j["request_oom_errors"] = c.request_oom_errors;
  Json events = Json::array();
  for (const ClusterEvent& e : c.events) {
    Json ev;
    ev["time_s"] = Num(Seconds(e.time));
    ev["kind"] = e.kind;
    ev["pod"] = e.pod;
    ev["message"] = e.message;
    events.push_back(std::move(ev));
  }
  j["events"] = std::move(events);
  return j;
}


// Each replication's own value of the numbers a comparison pairs (knobsim diff): replication r
// of every variant ran with the same seed, so differences taken replication by replication
// cancel the common noise (common random numbers).
Json PerReplicationJson(const VariantSummary& v, size_t workload) {
  Json p99 = Json::array(), mean = Json::array(), errors = Json::array(), ratio = Json::array();
  for (const RunResult& run : v.runs) {
    const WorkloadResult& r = run.workloads[workload];
    const bool any = r.completed > 0;
    p99.push_back(any ? Num(r.latency_ms.p99) : Json(nullptr));
    mean.push_back(any ? Num(r.latency_ms.mean) : Json(nullptr));
    errors.push_back(r.errors.total());
    ratio.push_back(Num(r.error_ratio));
  }
  Json j;
  j["p99_ms"] = std::move(p99);
  j["mean_ms"] = std::move(mean);
  j["errors"] = std::move(errors);
  j["error_ratio"] = std::move(ratio);
  return j;
}

// What the variant breaks compared with the base (sim/whatif/verdict.h), as `knobsim whatif`
// prints it.
Json VerdictJson(const VerdictLines& verdict) {
  Json j;
  j["headline"] = verdict.headline;
  j["clean"] = verdict.clean;
  Json lines = Json::array();
  for (const VerdictLine& line : verdict.lines) {
    Json l;
    l["kind"] = line.kind;
    l["text"] = line.text;
    l["new"] = line.is_new;
    lines.push_back(std::move(l));
  }
  j["lines"] = std::move(lines);
  return j;
}

Json VariantJson(const VariantSummary& v, const Writer& w) {
  Json j;
  j["name"] = v.name;
  j["description"] = v.description;
  Json workloads = Json::array();
  for (size_t i = 0; i < v.workloads.size(); ++i) {
    Json wj = WorkloadJson(v.workloads[i], w);
    if (w.replicated() && !v.runs.empty()) wj["per_replication"] = PerReplicationJson(v, i);
    workloads.push_back(std::move(wj));
  }
  j["workloads"] = std::move(workloads);
  Json cards = Json::array();
  for (size_t i = 0; i < v.cards.size(); ++i) {
    Json cj = CardJson(v.cards[i], w);
    if (w.replicated() && !v.runs.empty()) {
      Json busy = Json::array();
      for (const RunResult& run : v.runs) busy.push_back(Num(run.cards[i].busy));
      cj["per_replication"] = Json{{"busy", std::move(busy)}};
    }
    cards.push_back(std::move(cj));
  }
  j["cards"] = std::move(cards);
  Json pods = Json::array();
  for (const PodResult& p : v.pods) pods.push_back(PodJson(p));
  j["pods"] = std::move(pods);
  j["cluster"] = ClusterJson(v.cluster);
  j["fragmentation"] = FragmentationToJson(v.fragmentation, &Num);
  // Replication 0's timeline, when the run collected one (`--timeline`, knobsim upgrade).
  if (!v.runs.empty() && v.runs.front().timeline.step > 0)
    j["timeline"] = TimelineToJson(v.runs.front().timeline);
  return j;
}

}  // namespace

nlohmann::ordered_json FragmentationToJson(const FragmentationResult& f,
                                           nlohmann::ordered_json (*number)(double)) {
  Json j;
  j["gpu_milli_total"] = number(f.gpu_milli_total);
  j["idle_milli"] = number(f.idle_milli);
  j["fragmented_milli"] = number(f.fragmented_milli);
  j["frag_ratio"] = number(f.frag_ratio);
  Json nodes = Json::array();
  for (const NodeFragmentation& n : f.nodes) {
    Json jn;
    jn["node"] = n.node;
    jn["idle_milli"] = number(n.idle_milli);
    jn["fragmented_milli"] = number(n.fragmented_milli);
    nodes.push_back(std::move(jn));
  }
  j["nodes"] = std::move(nodes);
  return j;
}

nlohmann::ordered_json ResultsToJson(const RunSetResult& results,
                                     std::string_view knobsim_version) {
  const Writer w(results.replications);
  Json j;
  j["schema"] = kResultsSchema;
  j["knobsim_version"] = knobsim_version;
  j["scenario"] = results.scenario;
  j["seed"] = results.seed;
  j["replications"] = results.replications;
  j["duration_s"] = Num(Seconds(results.duration));
  j["warmup_s"] = Num(Seconds(results.warmup));
  Json variants = Json::array();
  for (const VariantSummary& v : results.variants) {
    Json vj = VariantJson(v, w);
    vj["verdict"] = VerdictJson(LinesOf(JudgeVariant(results.variants.front(), v)));
    variants.push_back(std::move(vj));
  }
  j["variants"] = std::move(variants);
  return j;
}

std::string ResultsJsonText(const RunSetResult& results, std::string_view knobsim_version) {
  // Strings from input files may hold invalid UTF-8; replace rather than throw mid-write.
  return ResultsToJson(results, knobsim_version)
             .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

std::optional<InputError> WriteFileAtomically(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const char* what) {
    InputError e;
    e.file = path;
    e.message = std::string(what) + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return e;
  };
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return fail("cannot create file");
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  if (std::fclose(f) != 0 || !written || !flushed) return fail("cannot write file");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot replace file");
  return std::nullopt;
}

}  // namespace knobsim
