#include "sim/import/cluster_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/gpu_catalog.h"
#include "models/mig_profiles.h"
#include "sim/import/import_dra.h"
#include "sim/import/import_steps.h"
#include "sim/text.h"

namespace knobsim {

namespace import_text {

std::string FormatNumber(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string Mib(double mib) {
  return FormatNumber("%.0f MiB", mib);
}

std::string Seconds(double s) {
  if (s >= 1) return FormatNumber("%.4g s", s);
  return FormatNumber("%.4g ms", s * 1000);
}

std::string DnsLabel(std::string_view s) {
  std::string out;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    out.push_back(std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-');
  }
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && out.back() == '-') out.pop_back();
  while (!out.empty() && out.front() == '-') out.erase(out.begin());
  return out.empty() ? "x" : out;
}

std::vector<double> Bin(const std::vector<double>& times, const std::vector<double>& values,
                        double start, double bin, int bins) {
  std::vector<double> sum(bins, 0), n(bins, 0);
  for (size_t i = 0; i < times.size() && i < values.size(); ++i) {
    if (!std::isfinite(values[i])) continue;
    const double k = std::floor((times[i] - start) / bin);
    if (k < 0 || k >= bins) continue;
    sum[static_cast<size_t>(k)] += values[i];
    n[static_cast<size_t>(k)] += 1;
  }
  std::vector<double> out(bins, std::numeric_limits<double>::quiet_NaN());
  for (int k = 0; k < bins; ++k)
    if (n[k] > 0) out[k] = sum[k] / n[k];
  return out;
}

double MedianStep(const std::vector<double>& times) {
  std::vector<double> d;
  for (size_t i = 1; i < times.size(); ++i) d.push_back(times[i] - times[i - 1]);
  if (d.empty()) return 0;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

}  // namespace import_text

using namespace import_text;

const std::vector<std::string_view> kModelAwareHttpPaths = {
    "/v1/models",        // OpenAI-compatible servers (vLLM, TGI): lists loaded models
    "/v1/models/*",      // TF Serving model status, KServe v1 model readiness
    "/v2/health/ready",  // KServe v2 / Triton: every model ready
    "/v2/models/*",      // KServe v2 / Triton: one model ready
    "/health/ready",     // Triton-style aliases
    "/ready",            // TGI-style; llama.cpp server
};

Expected<ProbeRule> ParseProbeRule(std::string_view text) {
  auto fail = [&](std::string message, std::string hint) -> Expected<ProbeRule> {
    InputError e;
    e.path = "--probe-rule";
    e.message = Quote(std::string(text)) + " " + message;
    e.hint = std::move(hint);
    return e;
  };
  const auto eq = text.find('=');
  if (eq == std::string_view::npos)
    return fail("has no `=`", "write [NAMESPACE/]NAME=tcp or [NAMESPACE/]NAME=model");
  const std::string_view who = text.substr(0, eq), kind = text.substr(eq + 1);
  ProbeRule rule;
  if (kind == "tcp") {
    rule.probe = ReadinessKind::kTcp;
  } else if (kind == "model") {
    rule.probe = ReadinessKind::kModel;
  } else {
    return fail("names no probe kind", "the kind after `=` is tcp or model");
  }
  const auto slash = who.find('/');
  if (slash != std::string_view::npos) {
    rule.ns = std::string(who.substr(0, slash));
    rule.name = std::string(who.substr(slash + 1));
  } else {
    rule.name = std::string(who);
  }
  if (rule.name.empty() || rule.ns.empty() || rule.name.find('/') != std::string::npos)
    return fail("names no workload",
                "write [NAMESPACE/]NAME=KIND, e.g. ai-infer/ocr=tcp or *=model");
  return rule;
}

ReadinessKind ClassifyProbe(const Probe& probe, std::string* why) {
  auto say = [&](std::string text, ReadinessKind kind) {
    if (why) *why = std::move(text);
    return kind;
  };
  switch (probe.kind) {
    case ProbeKind::kNone:
      return say("no readiness probe: Ready once the container runs", ReadinessKind::kTcp);
    case ProbeKind::kTcpSocket:
      return say("readiness tcpSocket: port-only", ReadinessKind::kTcp);
    case ProbeKind::kGrpc:
      if (probe.grpc_service.empty())
        return say("readiness grpc without service: the server's health, port-only",
                   ReadinessKind::kTcp);
      return say("readiness grpc service " + probe.grpc_service + ": model-aware",
                 ReadinessKind::kModel);
    case ProbeKind::kExec:
      return say("readiness exec " + probe.exec_command + ": a command may test the model",
                 ReadinessKind::kModel);
    case ProbeKind::kHttpGet: {
      std::string path = probe.http_path.empty() ? "/" : probe.http_path;
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      for (std::string_view p : kModelAwareHttpPaths) {
        const bool prefix = p.back() == '*';
        const std::string_view stem = prefix ? p.substr(0, p.size() - 1) : p;
        if (prefix ? (path.size() > stem.size() && path.compare(0, stem.size(), stem) == 0)
                   : path == stem)
          return say("readiness httpGet " + path + ": a model-aware path", ReadinessKind::kModel);
      }
      return say("readiness httpGet " + path + ": not a model-aware path, port-only",
                 ReadinessKind::kTcp);
    }
  }
  return ReadinessKind::kModel;
}

GpuMemoryFit FitGpuMemory(double peak_mib, double rest_mib, int64_t context_mib, int concurrency) {
  GpuMemoryFit fit;
  const double ctx = static_cast<double>(context_mib);
  fit.weights_mib = static_cast<int64_t>(std::floor(std::max(0.0, rest_mib - ctx)));
  const double left = peak_mib - ctx - static_cast<double>(fit.weights_mib);
  fit.activation_mib =
      static_cast<int64_t>(std::ceil(std::max(0.0, left) / std::max(1, concurrency) - 1e-9));
  return fit;
}

TrafficCurve DownsampleTraffic(const std::vector<double>& times, const std::vector<double>& rates,
                               double start, double end, double piece_s, double flat_cv) {
  TrafficCurve curve;
  const int bins = std::max(1, static_cast<int>(std::ceil((end - start) / piece_s - 1e-9)));
  std::vector<double> mean = Bin(times, rates, start, piece_s, bins);
  double sum = 0;
  for (int k = 0; k < bins; ++k) {
    const double r = std::isfinite(mean[k]) ? mean[k] : 0;
    curve.pieces.push_back({static_cast<SimTime>(std::llround(k * piece_s)) * kNanosPerSecond, r});
    sum += r;
  }
  curve.mean = sum / bins;
  double var = 0;
  for (const RatePoint& p : curve.pieces) var += (p.rate - curve.mean) * (p.rate - curve.mean);
  const double sd = std::sqrt(var / bins);
  curve.flat = curve.mean <= 0 || sd <= flat_cv * curve.mean;
  return curve;
}

bool FitEligible(int policy, double switch_overhead, bool exclusive, int pods_on_card) {
  if (exclusive) return true;
  if (policy == 0 || policy == 3) return false;
  if (policy == 5 && switch_overhead > 0) return pods_on_card <= 1;
  return true;
}

namespace {

// The controller owning `pod` ("Kind/name"), or its own name: the workload it joins.
std::string OwnerOf(const PodSpec& pod) {
  for (const OwnerReference& o : pod.owner_references)
    if (o.controller) return o.kind + "/" + o.name;
  return "Pod/" + pod.name;
}

// DRA (import_dra.h): nodes whose DRA devices a scenario pool publishes get them as cards
// (their pools become `dra:` pools), and pods whose claim a scenario can say stay;
// every other pod with claims is left out, loudly, rather than run as a CPU-only pod, and every
// slice not turned into cards is counted. A node with device-plugin GPUs too keeps those.
KubeObjects WithScenarioDra(KubeObjects objects, std::vector<std::string>& warnings) {
  std::map<std::string, std::string> why_not;
  std::map<std::string, DraNodeGpus> gpus = DraGpuNodes(objects, &why_not);
  for (NodeSpec& n : objects.nodes) {
    const auto it = gpus.find(n.name);
    if (it == gpus.end()) continue;
    if (n.gpu_cards > 0) {
      why_not[n.name] = "it also offers device-plugin GPUs";
      gpus.erase(it);
      continue;
    }
    if (it->second.dynamic_mig && MigProfilesOf(GpuCatalogKey(it->second.product)).empty()) {
      why_not[n.name] = "DynamicMIG on " + it->second.product +
                        ", a card knobsim has no MIG "
                        "geometry for";
      gpus.erase(it);
      continue;
    }
    n.gpu_cards = it->second.count;
    if (n.gpu_model.empty()) n.gpu_model = it->second.product;
    n.gpu_schedule = "default";
    // The NVIDIA driver's MIG layout keys the pool (its cards stay the physical ones).
    if (!it->second.mig.empty()) n.mig = {MigStrategy::kMixed, it->second.mig};
  }
  // Slices of nodes not taken as DRA GPU nodes: out, so that the pools see the same nodes.
  std::erase_if(objects.resource_slices,
                [&](const ResourceSliceSpec& s) { return !gpus.count(s.node_name); });
  if (!why_not.empty()) {
    std::vector<std::string> parts;
    for (const auto& [node, why] : why_not) parts.push_back(node + ": " + why);
    warnings.push_back(std::to_string(why_not.size()) +
                       " node(s) publish DRA devices import does not turn into a `dra:` pool "
                       "(only the NVIDIA DRA driver's whole GPUs and MIG instances created ahead, "
                       "and HAMi's DRA driver's GPUs, are): " +
                       FirstNames(parts) + "; they import with the devices their capacity shows");
  }
  // A claim its pods share must belong to one workload: the scenario's claim is a workload's.
  std::map<std::string, std::set<std::string>> owners_of_claim;
  for (const PodSpec& p : objects.pods) {
    const std::string key = SharedClaimKey(p);
    if (!key.empty()) owners_of_claim[key].insert(OwnerOf(p));
  }
  std::vector<std::string> left_out;
  std::string first_why;
  const ExtendedResourceNodes extended_nodes = ExtendedResourceNodesOf(objects);
  size_t kept = 0;
  for (size_t i = 0; i < objects.pods.size(); ++i) {
    const PodSpec& p = objects.pods[i];
    bool keep = true;
    std::string extended_why;
    const bool extended =
        ExtendedResourceDraAsk(p, objects, extended_nodes, &extended_why).has_value();
    if (!extended_why.empty()) {
      keep = false;
      left_out.push_back(p.namespace_ + "/" + p.name);
      if (first_why.empty()) first_why = p.namespace_ + "/" + p.name + ": " + extended_why;
    } else if (extended && !p.node_name.empty() && !gpus.count(p.node_name)) {
      keep = false;
      left_out.push_back(p.namespace_ + "/" + p.name);
      if (first_why.empty())
        first_why = p.namespace_ + "/" + p.name + ": its node " + p.node_name +
                    " is not imported as a DRA GPU node";
    } else if (!p.resource_claims.empty()) {
      std::string why;
      keep = ScenarioDraAsk(p, objects, &why).has_value();
      if (const std::string key = SharedClaimKey(p);
          keep && !key.empty() && owners_of_claim.at(key).size() > 1) {
        keep = false;
        why = "claim " + key + " is shared by pods of " +
              std::to_string(owners_of_claim.at(key).size()) + " workloads";
      }
      if (keep && !p.node_name.empty() && !gpus.count(p.node_name)) {
        keep = false;
        why = "its node " + p.node_name + " is not imported as a DRA GPU node";
      }
      if (!keep) {
        left_out.push_back(p.namespace_ + "/" + p.name);
        if (first_why.empty()) first_why = p.namespace_ + "/" + p.name + ": " + why;
      }
    }
    if (!keep) continue;
    if (kept != i) {
      objects.pods[kept] = std::move(objects.pods[i]);
      if (i < objects.pod_sources.size()) objects.pod_sources[kept] = objects.pod_sources[i];
    }
    ++kept;
  }
  objects.pods.resize(kept);
  if (objects.pod_sources.size() > kept) objects.pod_sources.resize(kept);
  if (!left_out.empty()) {
    warnings.push_back(std::to_string(left_out.size()) +
                       " pod(s) ask devices through DRA resource claims a scenario cannot say (" +
                       FirstNames(left_out) + "; " + first_why +
                       "): they and their workloads are left out (knobsim schedule allocates "
                       "their claims)");
  }
  return objects;
}

}  // namespace

ImportModel ImportCluster(const KubeObjects& exported, const Metrics* metrics,
                          const ImportOptions& options) {
  std::vector<std::string> dra_warnings;
  const KubeObjects objects = WithScenarioDra(WithTemplatePods(exported), dra_warnings);
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  ImportModel model;
  model.warnings = std::move(dra_warnings);
  model.name = options.name;
  model.policy = options.policy;
  model.switch_overhead = options.switch_overhead;
  const NodeIndex nodes = PoolsFromNodes(objects, options, model);
  PodIndex pods = WorkloadsFromPods(objects, nodes, options, model);
  // Impossible evidence is flagged here, and the metrics corrected when it has to be.
  std::optional<Metrics> corrected;
  if (metrics) corrected = CheckEvidence(*metrics, nodes, pods, catalog, model);
  const Metrics* used = corrected ? &*corrected : metrics;
  if (used) {
    ImportMetrics(objects, *used, nodes, catalog, options, pods, model);
  } else {
    NoMetricsDefaults(model);
  }
  RunLength(options, used != nullptr, model);
  DecideIsolation(objects, used, nodes, pods, catalog, options, model);
  CurrentPods(objects, pods, model);
  KubeSection(objects, model);
  HpasFromObjects(objects, options, model);
  CronHpasFromObjects(objects, model);
  return model;
}

}  // namespace knobsim
