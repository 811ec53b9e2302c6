#include "sim/io/run_result_json.h"

#include "sim/io/results_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

namespace knobsim {

namespace {

using Json = nlohmann::ordered_json;

// An integer >= 0, whether parsed from text (unsigned) or built in memory (signed).
bool NonNegative(const Json& j) {
  return j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0);
}

// Reading: every accessor knows the field path of the object it reads, so that a bad value
// anywhere deep in a shard names its place ("jobs[3].result.workloads[0].histogram.count").
// A failure unwinds to RunResultFromJson as this exception and becomes its InputError.
struct Bad {
  InputError error;
};

class Obj {
 public:
  Obj(const Json& json, std::string path, const std::string& file)
      : json_(json), path_(std::move(path)), file_(file) {
    if (!json_.is_object()) Fail(path_, "is not an object");
  }

  [[noreturn]] void Fail(const std::string& path, const std::string& message) const {
    InputError e;
    e.file = file_;
    e.path = path;
    e.message = message;
    throw Bad{std::move(e)};
  }

  std::string Path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const Json& At(const std::string& key) const {
    const auto it = json_.find(key);
    if (it == json_.end()) Fail(Path(key), "is missing");
    return *it;
  }

  Obj Child(const std::string& key) const { return Obj(At(key), Path(key), file_); }

  std::string Str(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_string()) Fail(Path(key), "is not a string");
    return j.get<std::string>();
  }

  bool Bool(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_boolean()) Fail(Path(key), "is not true or false");
    return j.get<bool>();
  }

  int64_t Int(const std::string& key) const {
    const Json& j = At(key);
    if (j.is_number_unsigned()) {
      if (j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        Fail(Path(key), "is too large");
      }
      return static_cast<int64_t>(j.get<uint64_t>());
    }
    if (!j.is_number_integer()) Fail(Path(key), "is not an integer");
    return j.get<int64_t>();
  }

  int Int32(const std::string& key) const {
    const int64_t v = Int(key);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
      Fail(Path(key), "is out of range");
    }
    return static_cast<int>(v);
  }

  uint64_t Uint(const std::string& key) const {
    const Json& j = At(key);
    if (!NonNegative(j)) Fail(Path(key), "is not a non-negative integer");
    return j.get<uint64_t>();
  }

  double Real(const std::string& key) const {
    double v = 0;
    if (!ReadExactDouble(At(key), &v)) {
      Fail(Path(key), "is not a number (nor \"NaN\", \"Infinity\", \"-Infinity\")");
    }
    return v;
  }

  // Calls f(Obj, index) for each element of the array `key`.
  template <class F>
  void Each(const std::string& key, F f) const {
    const Json& j = At(key);
    if (!j.is_array()) Fail(Path(key), "is not an array");
    for (size_t i = 0; i < j.size(); ++i) {
      f(Obj(j[i], Path(key) + "[" + std::to_string(i) + "]", file_));
    }
  }

  std::vector<std::string> Strings(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_array()) Fail(Path(key), "is not an array");
    std::vector<std::string> out;
    for (size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_string()) Fail(Path(key) + "[" + std::to_string(i) + "]", "is not a string");
      out.push_back(j[i].get<std::string>());
    }
    return out;
  }

  std::vector<int> Ints(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_array()) Fail(Path(key), "is not an array");
    std::vector<int> out;
    for (size_t i = 0; i < j.size(); ++i) {
      const bool ok = j[i].is_number_integer() && j[i].get<int64_t>() >= 0 &&
                      j[i].get<int64_t>() <= std::numeric_limits<int>::max();
      if (!ok) Fail(Path(key) + "[" + std::to_string(i) + "]", "is not a card index");
      out.push_back(static_cast<int>(j[i].get<int64_t>()));
    }
    return out;
  }

  const Json& json() const { return json_; }
  const std::string& path() const { return path_; }

 private:
  const Json& json_;
  std::string path_;
  const std::string& file_;
};

Json HistogramJson(const LatencyHistogram& h) {
  const LatencyHistogram::Contents c = h.contents();
  Json j;
  j["count"] = c.count;
  j["zero_count"] = c.zero_count;
  j["min"] = ExactDouble(c.min);
  j["max"] = ExactDouble(c.max);
  Json buckets = Json::array();
  for (const auto& [bucket, n] : c.buckets) buckets.push_back(Json::array({bucket, n}));
  j["buckets"] = std::move(buckets);
  return j;
}

LatencyHistogram ReadHistogram(const Obj& o) {
  LatencyHistogram::Contents c;
  c.count = o.Uint("count");
  c.zero_count = o.Uint("zero_count");
  c.min = o.Real("min");
  c.max = o.Real("max");
  const Json& buckets = o.At("buckets");
  if (!buckets.is_array()) o.Fail(o.Path("buckets"), "is not an array");
  for (size_t i = 0; i < buckets.size(); ++i) {
    const Json& pair = buckets[i];
    const bool ok = pair.is_array() && pair.size() == 2 && NonNegative(pair[0]) &&
                    NonNegative(pair[1]) &&
                    pair[0].get<uint64_t>() < static_cast<uint64_t>(LatencyHistogram::BucketCount());
    if (!ok) {
      o.Fail(o.Path("buckets") + "[" + std::to_string(i) + "]",
             "is not a [bucket, count] pair with bucket in 0.." +
                 std::to_string(LatencyHistogram::BucketCount() - 1));
    }
    c.buckets.emplace_back(static_cast<int>(pair[0].get<uint64_t>()), pair[1].get<uint64_t>());
  }
  std::string why;
  std::optional<LatencyHistogram> h = LatencyHistogram::FromContents(c, &why);
  if (!h) o.Fail(o.path(), why);
  return std::move(*h);
}

Json WorkloadJson(const WorkloadResult& w) {
  Json j;
  j["name"] = w.name;
  j["namespace"] = w.namespace_;
  j["requests"] = w.requests;
  j["completed"] = w.completed;
  Json e;
  e["oom"] = w.errors.oom;
  e["fake_ready"] = w.errors.fake_ready;
  e["timeout"] = w.errors.timeout;
  e["no_replica"] = w.errors.no_replica;
  e["interrupted"] = w.errors.interrupted;
  j["errors"] = std::move(e);
  Json l;
  l["mean"] = ExactDouble(w.latency_ms.mean);
  l["p50"] = ExactDouble(w.latency_ms.p50);
  l["p90"] = ExactDouble(w.latency_ms.p90);
  l["p99"] = ExactDouble(w.latency_ms.p99);
  l["p999"] = ExactDouble(w.latency_ms.p999);
  j["latency_ms"] = std::move(l);
  j["throughput_rps"] = ExactDouble(w.throughput_rps);
  j["slo_met"] = w.slo_met;
  j["slo_latency_ms"] = ExactDouble(w.slo_latency_ms);
  j["error_ratio"] = ExactDouble(w.error_ratio);
  j["in_system_end"] = w.in_system_end;
  j["in_system_mean"] = ExactDouble(w.in_system_mean);
  j["measured_s"] = ExactDouble(w.measured_s);
  j["time_in_system_mean_ms"] = ExactDouble(w.time_in_system_mean_ms);
  j["histogram"] = HistogramJson(w.histogram);
  return j;
}

WorkloadResult ReadWorkload(const Obj& o) {
  WorkloadResult w;
  w.name = o.Str("name");
  w.namespace_ = o.Str("namespace");
  w.requests = o.Int("requests");
  w.completed = o.Int("completed");
  const Obj e = o.Child("errors");
  w.errors.oom = e.Int("oom");
  w.errors.fake_ready = e.Int("fake_ready");
  w.errors.timeout = e.Int("timeout");
  w.errors.no_replica = e.Int("no_replica");
  w.errors.interrupted = e.Int("interrupted");
  const Obj l = o.Child("latency_ms");
  w.latency_ms.mean = l.Real("mean");
  w.latency_ms.p50 = l.Real("p50");
  w.latency_ms.p90 = l.Real("p90");
  w.latency_ms.p99 = l.Real("p99");
  w.latency_ms.p999 = l.Real("p999");
  w.throughput_rps = o.Real("throughput_rps");
  w.slo_met = o.Bool("slo_met");
  w.slo_latency_ms = o.Real("slo_latency_ms");
  w.error_ratio = o.Real("error_ratio");
  w.in_system_end = o.Int("in_system_end");
  w.in_system_mean = o.Real("in_system_mean");
  w.measured_s = o.Real("measured_s");
  w.time_in_system_mean_ms = o.Real("time_in_system_mean_ms");
  w.histogram = ReadHistogram(o.Child("histogram"));
  return w;
}

Json CardJson(const CardResult& c) {
  Json j;
  j["node"] = c.node;
  j["index"] = c.index;
  j["gpu"] = c.gpu;
  j["busy"] = ExactDouble(c.busy);
  j["effective"] = ExactDouble(c.effective);
  j["switch_overhead"] = ExactDouble(c.switch_overhead);
  j["waste"] = ExactDouble(c.waste);
  j["memory_physical_mib"] = c.memory_physical_mib;
  j["memory_quota_mib"] = c.memory_quota_mib;
  j["memory_used_mib"] = ExactDouble(c.memory_used_mib);
  j["memory_peak_mib"] = c.memory_peak_mib;
  j["pods"] = c.pods;
  return j;
}

CardResult ReadCard(const Obj& o) {
  CardResult c;
  c.node = o.Str("node");
  c.index = o.Int32("index");
  c.gpu = o.Str("gpu");
  c.busy = o.Real("busy");
  c.effective = o.Real("effective");
  c.switch_overhead = o.Real("switch_overhead");
  c.waste = o.Real("waste");
  c.memory_physical_mib = o.Int("memory_physical_mib");
  c.memory_quota_mib = o.Int("memory_quota_mib");
  c.memory_used_mib = o.Real("memory_used_mib");
  c.memory_peak_mib = o.Int("memory_peak_mib");
  c.pods = o.Strings("pods");
  return c;
}

Json PodJson(const PodResult& p) {
  Json j;
  j["namespace"] = p.namespace_;
  j["name"] = p.name;
  j["workload"] = p.workload;
  j["node"] = p.node;
  j["cards"] = p.cards;
  j["state"] = p.state;
  j["restarts"] = p.restarts;
  j["message"] = p.message;
  j["bottleneck_gbps"] = ExactDouble(p.bottleneck_gbps);
  j["throughput_factor"] = ExactDouble(p.throughput_factor);
  return j;
}

PodResult ReadPod(const Obj& o) {
  PodResult p;
  p.namespace_ = o.Str("namespace");
  p.name = o.Str("name");
  p.workload = o.Str("workload");
  p.node = o.Str("node");
  p.cards = o.Ints("cards");
  p.state = o.Str("state");
  p.restarts = o.Int32("restarts");
  p.message = o.Str("message");
  p.bottleneck_gbps = o.Real("bottleneck_gbps");
  p.throughput_factor = o.Real("throughput_factor");
  return p;
}

Json ClusterJson(const ClusterResult& c) {
  Json j;
  j["gpu_mem_allocated_units"] = c.gpu_mem_allocated_units;
  j["gpu_mem_total_units"] = c.gpu_mem_total_units;
  j["allocation_ratio"] = ExactDouble(c.allocation_ratio);
  j["pending_pods"] = c.pending_pods;
  j["fake_ready_pods"] = c.fake_ready_pods;
  j["request_oom_errors"] = c.request_oom_errors;
  Json events = Json::array();
  for (const ClusterEvent& e : c.events) {
    Json ev;
    ev["time_ns"] = e.time;
    ev["kind"] = e.kind;
    ev["pod"] = e.pod;
    ev["message"] = e.message;
    events.push_back(std::move(ev));
  }
  j["events"] = std::move(events);
  return j;
}

ClusterResult ReadCluster(const Obj& o) {
  ClusterResult c;
  c.gpu_mem_allocated_units = o.Int("gpu_mem_allocated_units");
  c.gpu_mem_total_units = o.Int("gpu_mem_total_units");
  c.allocation_ratio = o.Real("allocation_ratio");
  c.pending_pods = o.Int32("pending_pods");
  c.fake_ready_pods = o.Int32("fake_ready_pods");
  c.request_oom_errors = o.Int("request_oom_errors");
  o.Each("events", [&c](const Obj& e) {
    ClusterEvent ev;
    ev.time = e.Int("time_ns");
    ev.kind = e.Str("kind");
    ev.pod = e.Str("pod");
    ev.message = e.Str("message");
    c.events.push_back(std::move(ev));
  });
  return c;
}


FragmentationResult ReadFragmentation(const Obj& o) {
  FragmentationResult f;
  f.gpu_milli_total = o.Real("gpu_milli_total");
  f.idle_milli = o.Real("idle_milli");
  f.fragmented_milli = o.Real("fragmented_milli");
  f.frag_ratio = o.Real("frag_ratio");
  o.Each("nodes", [&f](const Obj& n) {
    NodeFragmentation nf;
    nf.node = n.Str("node");
    nf.idle_milli = n.Real("idle_milli");
    nf.fragmented_milli = n.Real("fragmented_milli");
    f.nodes.push_back(std::move(nf));
  });
  return f;
}

}  // namespace

Json ExactDouble(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return x;
}

bool ReadExactDouble(const Json& json, double* out) {
  if (json.is_number()) {
    *out = json.get<double>();
    return true;
  }
  if (!json.is_string()) return false;
  const std::string& s = json.get_ref<const std::string&>();
  if (s == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
  } else if (s == "Infinity") {
    *out = std::numeric_limits<double>::infinity();
  } else if (s == "-Infinity") {
    *out = -std::numeric_limits<double>::infinity();
  } else {
    return false;
  }
  return true;
}

Json RunResultToJson(const RunResult& r) {
  Json j;
  Json workloads = Json::array();
  for (const WorkloadResult& w : r.workloads) workloads.push_back(WorkloadJson(w));
  j["workloads"] = std::move(workloads);
  Json cards = Json::array();
  for (const CardResult& c : r.cards) cards.push_back(CardJson(c));
  j["cards"] = std::move(cards);
  Json pods = Json::array();
  for (const PodResult& p : r.pods) pods.push_back(PodJson(p));
  j["pods"] = std::move(pods);
  j["cluster"] = ClusterJson(r.cluster);
  j["events_processed"] = r.events_processed;
  j["requests_simulated"] = r.requests_simulated;
  j["fragmentation"] = FragmentationToJson(r.fragmentation, &ExactDouble);
  // RunResult::timeline is not carried: the commands that shard (run, replay, plan) never
  // collect one; `knobsim upgrade` does not shard.
  j["end_ns"] = r.end;
  return j;
}

Expected<RunResult> RunResultFromJson(const Json& json, const std::string& file,
                                      const std::string& path) {
  try {
    const Obj o(json, path, file);
    RunResult r;
    o.Each("workloads", [&r](const Obj& w) { r.workloads.push_back(ReadWorkload(w)); });
    o.Each("cards", [&r](const Obj& c) { r.cards.push_back(ReadCard(c)); });
    o.Each("pods", [&r](const Obj& p) { r.pods.push_back(ReadPod(p)); });
    r.cluster = ReadCluster(o.Child("cluster"));
    r.events_processed = o.Uint("events_processed");
    r.requests_simulated = o.Uint("requests_simulated");
    r.fragmentation = ReadFragmentation(o.Child("fragmentation"));
    r.end = o.Int("end_ns");
    return r;
  } catch (const Bad& bad) {
    return bad.error;
  }
}

}  // namespace knobsim
