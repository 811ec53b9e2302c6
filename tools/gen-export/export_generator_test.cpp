#include "tools/gen-export/export_generator.h"

#include <doctest/doctest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

// The fixture's shape (20 nodes, 60 pods) over one day, so each case runs in well under a second.
GeneratorOptions Small(uint64_t seed = 1) {
  GeneratorOptions o;
  o.seed = seed;
  o.days = 1;
  o.step_s = 60;
  return o;
}

GeneratedCluster MustGenerate(const GeneratorOptions& o) {
  Expected<GeneratedCluster> cluster = Generate(o);
  if (!cluster.ok()) FAIL(cluster.error().path << ": " << cluster.error().message);
  return std::move(cluster.value());
}

json Prom(const GeneratedCluster& cluster, std::string_view metric) {
  std::ostringstream out;
  WritePromJson(cluster, metric, out);
  return json::parse(out.str());
}

std::vector<json> OfKind(const json& list, const std::string& kind) {
  std::vector<json> out;
  for (const json& item : list["items"]) {
    if (item["kind"] == kind) out.push_back(item);
  }
  return out;
}

std::string Annotation(const json& object, const std::string& key) {
  const json& meta = object["metadata"];
  if (!meta.contains("annotations") || !meta["annotations"].contains(key)) return "";
  return meta["annotations"][key].get<std::string>();
}

// Card index -> units a pod holds there, read back from whichever ACK form it carries (§1.3).
std::map<int, int> Allocation(const json& pod) {
  std::map<int, int> cards;
  const std::string v2 = Annotation(pod, "scheduler.framework.gpushare.allocation");
  if (!v2.empty()) {
    const json parsed = json::parse(v2);
    for (const auto& [container, per_card] : parsed.items()) {
      for (const auto& [card, units] : per_card.items()) {
        cards[std::stoi(card)] +=
            units.is_string() ? std::stoi(units.get<std::string>()) : units.get<int>();
      }
    }
    return cards;
  }
  const std::string idx = Annotation(pod, "ALIYUN_COM_GPU_MEM_IDX");
  if (!idx.empty()) cards[std::stoi(idx)] = std::stoi(Annotation(pod, "ALIYUN_COM_GPU_MEM_POD"));
  return cards;
}

int ContainerSum(const json& pod, const std::string& resource) {
  int sum = 0;
  for (const json& c : pod["spec"]["containers"]) {
    const json& limits = c["resources"]["limits"];
    if (limits.contains(resource)) sum += std::stoi(limits[resource].get<std::string>());
  }
  return sum;
}

// yaml-cpp keeps scalars untyped; a quoted scalar (tag "!") is a string, a plain one is read the
// way a YAML 1.2 core-schema reader would.
json FromYaml(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json object = json::object();
      for (const auto& kv : node) object[kv.first.as<std::string>()] = FromYaml(kv.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      json array = json::array();
      for (const auto& item : node) array.push_back(FromYaml(item));
      return array;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (node.Tag() == "!") return s;
      if (s == "true" || s == "false") return s == "true";
      int64_t i = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
      if (ec == std::errc() && end == s.data() + s.size()) return i;
      return s;
    }
    default:
      return nullptr;
  }
}

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("gen_export_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

TEST_CASE("the same seed gives byte-identical output and another seed a different cluster") {
  const GeneratedCluster a = MustGenerate(Small(7));
  const GeneratedCluster b = MustGenerate(Small(7));
  const GeneratedCluster c = MustGenerate(Small(8));
  CHECK(ExportJson(a) == ExportJson(b));
  CHECK(ExportYaml(a) == ExportYaml(b));
  CHECK(TruthJson(a).dump() == TruthJson(b).dump());
  std::ostringstream pa, pb;
  WritePromJson(a, kGpuUtilMetric, pa);
  WritePromJson(b, kGpuUtilMetric, pb);
  CHECK(pa.str() == pb.str());
  CHECK(ExportJson(a) != ExportJson(c));
}

TEST_CASE("the JSON export is kubectl's List: nodes first, then the other kinds, 4-space indent") {
  const GeneratedCluster cluster = MustGenerate(Small());
  json items = json::array();
  for (const json& n : cluster.nodes) items.push_back(n);
  for (const json& o : cluster.objects) items.push_back(o);
  const json list = {{"apiVersion", "v1"},
                     {"items", items},
                     {"kind", "List"},
                     {"metadata", {{"resourceVersion", ""}}}};
  CHECK(ExportJson(cluster) == list.dump(4) + "\n");
  // kubectl get nodes,pods,deploy,rs,sts,pdb,pvc,pv,sc,resourcequota prints kinds in that order.
  const std::vector<std::string> order = {"Node",
                                          "Pod",
                                          "Deployment",
                                          "ReplicaSet",
                                          "StatefulSet",
                                          "PodDisruptionBudget",
                                          "PersistentVolumeClaim",
                                          "PersistentVolume",
                                          "StorageClass",
                                          "ResourceQuota"};
  size_t rank = 0;
  for (const json& item : items) {
    const auto it = std::find(order.begin(), order.end(), item["kind"].get<std::string>());
    REQUIRE(it != order.end());
    const size_t r = static_cast<size_t>(it - order.begin());
    CHECK(r >= rank);
    rank = r;
  }
}

TEST_CASE("options that do not fit whole days are refused, naming the flag") {
  struct Case {
    const char* name;
    void (*edit)(GeneratorOptions&);
    const char* flag;
  };
  const Case cases[] = {
      {"no nodes", [](GeneratorOptions& o) { o.nodes = 0; }, "--nodes"},
      {"negative pods", [](GeneratorOptions& o) { o.pods = -1; }, "--pods"},
      {"a step that does not divide a day", [](GeneratorOptions& o) { o.step_s = 7; }, "--step"},
      {"a metrics step off the truth's grid", [](GeneratorOptions& o) { o.metrics_step_s = 90; },
       "--metrics-step"},
      {"a rate step off the truth's grid", [](GeneratorOptions& o) { o.rate_step_s = 150; },
       "--rate-step"},
      {"more metrics days than days", [](GeneratorOptions& o) { o.metrics_days = 2; },
       "--metrics-days"},
      {"noise above half", [](GeneratorOptions& o) { o.busy_noise = 0.6; }, "--busy-noise"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    GeneratorOptions o = Small();
    c.edit(o);
    Expected<GeneratedCluster> cluster = Generate(o);
    REQUIRE_FALSE(cluster.ok());
    CHECK(cluster.error().path == c.flag);
    CHECK_FALSE(cluster.error().message.empty());
  }
  CHECK(CheckOptions(Small()).ok());
}

TEST_CASE("the export holds the pods asked for, each bound one on a node of the export") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const json list = json::parse(ExportJson(cluster));
  CHECK(list["kind"] == "List");
  CHECK(list["apiVersion"] == "v1");
  std::set<std::string> nodes;
  for (const json& n : OfKind(list, "Node")) nodes.insert(n["metadata"]["name"].get<std::string>());
  CHECK(nodes.size() == 20);
  const std::vector<json> pods = OfKind(list, "Pod");
  CHECK(pods.size() == 60);
  int pending = 0;
  for (const json& pod : pods) {
    CAPTURE(pod["metadata"]["name"]);
    if (pod["spec"].contains("nodeName")) {
      CHECK(nodes.count(pod["spec"]["nodeName"].get<std::string>()) == 1);
      CHECK(pod["status"]["phase"] == "Running");
    } else {
      ++pending;
      CHECK(pod["status"]["phase"] == "Pending");
      CHECK(pod["status"]["conditions"][0]["reason"] == "Unschedulable");
      CHECK(Allocation(pod).empty());
    }
  }
  CHECK(pending >= 1);  // llm-70b asks for 8 whole cards; no node has them
}

TEST_CASE("no card holds more gpu-mem units than it has, and whole cards hold one pod") {
  for (uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    GeneratorOptions o = Small(seed);
    o.nodes = 40;
    o.pods = 200;
    o.with_metrics = false;
    const GeneratedCluster cluster = MustGenerate(o);
    const json list = json::parse(ExportJson(cluster));
    struct NodeCards {
      int cards = 0, units = 0, whole = 0;
    };
    std::map<std::string, NodeCards> node_cards;
    for (const json& n : OfKind(list, "Node")) {
      const json& cap = n["status"]["capacity"];
      NodeCards nc;
      if (cap.contains("aliyun.com/gpu-count")) {
        nc.cards = std::stoi(cap["aliyun.com/gpu-count"].get<std::string>());
        nc.units = std::stoi(cap["aliyun.com/gpu-mem"].get<std::string>()) / nc.cards;
      }
      if (cap.contains("nvidia.com/gpu")) {
        nc.whole = std::stoi(cap["nvidia.com/gpu"].get<std::string>());
      }
      node_cards[n["metadata"]["name"].get<std::string>()] = nc;
    }
    std::map<std::pair<std::string, int>, int> used;
    std::map<std::string, int> whole_used;
    for (const json& pod : OfKind(list, "Pod")) {
      if (!pod["spec"].contains("nodeName")) continue;
      CAPTURE(pod["metadata"]["name"]);
      const std::string node = pod["spec"]["nodeName"].get<std::string>();
      const int gpu_mem = ContainerSum(pod, "aliyun.com/gpu-mem");
      const int whole = ContainerSum(pod, "nvidia.com/gpu");
      const std::map<int, int> allocation = Allocation(pod);
      if (whole > 0) {
        CHECK(allocation.empty());  // exclusive pods carry no ACK annotation
        whole_used[node] += whole;
      }
      if (gpu_mem == 0) continue;
      int total = 0;
      for (const auto& [card, units] : allocation) {
        CHECK(card < node_cards[node].cards);
        used[{node, card}] += units;
        total += units;
      }
      CHECK(total == gpu_mem);
      const json& labels = pod["metadata"]["labels"];
      const int count = labels.contains("aliyun.com/gpu-count")
                            ? std::stoi(labels["aliyun.com/gpu-count"].get<std::string>())
                            : 1;
      CHECK(static_cast<int>(allocation.size()) == count);
    }
    for (const auto& [card, units] : used) {
      CAPTURE(card.first);
      CHECK(units <= node_cards[card.first].units);
    }
    for (const auto& [node, whole] : whole_used) CHECK(whole <= node_cards[node].whole);
    for (const TruthCard& card : cluster.truth.cards) {
      if (card.exclusive) CHECK(card.pods.size() <= 1);
      int units = 0;
      for (int p : card.pods) units += cluster.truth.pods[p].units_per_card;
      CHECK(units <= card.units);
    }
  }
}

TEST_CASE(
    "allocations come as v1, v2 and v2 \"used/total\"; multi-card pods carry the count label") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const json list = json::parse(ExportJson(cluster));
  int v1 = 0, v2 = 0, fraction = 0, multi = 0, whole_device = 0;
  for (const json& pod : OfKind(list, "Pod")) {
    const std::string v2_text = Annotation(pod, "scheduler.framework.gpushare.allocation");
    if (!Annotation(pod, "ALIYUN_COM_GPU_MEM_IDX").empty()) ++v1;
    if (!v2_text.empty()) {
      ++v2;
      if (v2_text.find('/') != std::string::npos) ++fraction;
      CHECK_FALSE(Annotation(pod, "gpushare.alibabacloud.com/device-resource").empty());
    }
    if (pod["metadata"]["labels"].contains("aliyun.com/gpu-count")) ++multi;
    if (pod["metadata"]["labels"].contains("ack.gpushare.placement")) ++whole_device;
  }
  CHECK(v1 > 0);
  CHECK(v2 > fraction);
  CHECK(fraction > 0);
  CHECK(multi > 0);
  CHECK(whole_device == 2);  // qwen-chat-0 and -1
}

TEST_CASE("the truth's mean busy is the utilization metric's mean within the noise") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const json prom = Prom(cluster, kGpuUtilMetric);
  std::map<std::pair<std::string, std::string>, std::vector<std::vector<std::string>>> by_card;
  for (const json& s : prom["data"]["result"]) {
    std::vector<std::string> values;
    for (const json& v : s["values"]) values.push_back(v[1].get<std::string>());
    by_card[{s["metric"]["Hostname"].get<std::string>(), s["metric"]["gpu"].get<std::string>()}]
        .push_back(values);
  }
  REQUIRE(by_card.size() == cluster.truth.cards.size());
  int busy_cards = 0;
  for (const TruthCard& card : cluster.truth.cards) {
    CAPTURE(card.node);
    CAPTURE(card.index);
    const auto& series = by_card[{card.node, std::to_string(card.index)}];
    // dcgm-exporter repeats the card's value once per pod on a shared card.
    CHECK(series.size() == std::max<size_t>(1, card.pods.size()));
    for (const auto& s : series) CHECK(s == series.front());
    double sum = 0;
    for (const std::string& v : series.front()) sum += std::stod(v);
    const double mean = sum / static_cast<double>(series.front().size()) / 100;
    CHECK(std::fabs(mean - card.mean_busy) < 0.008);
    if (card.mean_busy > 0.1) ++busy_cards;
  }
  CHECK(busy_cards > 5);
}

TEST_CASE("FB_USED holds per-pod values on some nodes and the repeated card total on others") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const GroundTruth& t = cluster.truth;
  const json prom = Prom(cluster, kFbUsedMetric);
  std::map<std::string, std::vector<std::string>> by_pod;  // ns/pod@node/gpu -> values
  for (const json& s : prom["data"]["result"]) {
    if (!s["metric"].contains("pod")) continue;
    std::vector<std::string> values;
    for (const json& v : s["values"]) values.push_back(v[1].get<std::string>());
    by_pod[s["metric"]["namespace"].get<std::string>() + "/" +
           s["metric"]["pod"].get<std::string>() + "@" +
           s["metric"]["Hostname"].get<std::string>() + "/" +
           s["metric"]["gpu"].get<std::string>()] = values;
  }
  const int64_t start = t.end_unix - 86400;
  int per_pod_shared = 0, total_shared = 0, single = 0;
  for (const TruthCard& card : t.cards) {
    if (card.pods.empty()) continue;
    CAPTURE(card.node);
    std::vector<std::vector<std::string>> series;
    for (int p : card.pods) {
      series.push_back(by_pod[t.pods[p].namespace_ + "/" + t.pods[p].name + "@" + card.node + "/" +
                              std::to_string(card.index)]);
      REQUIRE(series.back().size() == 1440);
    }
    for (size_t i = 0; i < 1440; i += 97) {
      const int64_t ts = start + static_cast<int64_t>(i) * 60;
      int64_t total = 0;
      for (int p : card.pods) total += PodCardMemoryMib(t, p, ts);
      for (size_t k = 0; k < card.pods.size(); ++k) {
        const int64_t expected =
            card.fb_used == "per_pod" ? PodCardMemoryMib(t, card.pods[k], ts) : total;
        CHECK(std::stoll(series[k][i]) == expected);
      }
    }
    if (card.pods.size() == 1) {
      ++single;
    } else if (card.fb_used == "per_pod") {
      // Per-pod series must differ somewhere, or the import would take them for a total.
      bool differ = false;
      for (size_t k = 1; k < series.size(); ++k) differ = differ || series[k] != series[0];
      CHECK(differ);
      ++per_pod_shared;
    } else {
      ++total_shared;
    }
  }
  CHECK(per_pod_shared > 0);
  CHECK(total_shared > 0);
  CHECK(single > 0);
}

TEST_CASE("each workload's peak memory is the maximum of its pods' memory over the window") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const GroundTruth& t = cluster.truth;
  std::vector<int64_t> peak(t.workloads.size(), 0);
  for (int p = 0; p < static_cast<int>(t.pods.size()); ++p) {
    for (int64_t ts = t.start_unix; ts < t.end_unix; ts += t.step_s) {
      peak[t.pods[p].workload] =
          std::max(peak[t.pods[p].workload],
                   PodCardMemoryMib(t, p, ts) * static_cast<int64_t>(t.pods[p].cards.size()));
    }
  }
  int over = 0;
  for (size_t w = 0; w < t.workloads.size(); ++w) {
    CAPTURE(t.workloads[w].name);
    CHECK(peak[w] == t.workloads[w].peak_mib);
    if (t.workloads[w].over_quota) {
      ++over;
      CHECK(t.workloads[w].peak_mib > t.workloads[w].quota_mib * t.workloads[w].gpu_count);
    }
  }
  CHECK(over > 0);  // the quickstart story: quotas below the real peak
}

TEST_CASE("request rates sum per workload to the truth's mean rate") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const GroundTruth& t = cluster.truth;
  const json prom = Prom(cluster, kRequestRateMetric);
  std::map<std::string, double> mean_by_pod;
  for (const json& s : prom["data"]["result"]) {
    CHECK(s["metric"]["__name__"] == kRequestRateMetric);
    double sum = 0;
    for (const json& v : s["values"]) sum += std::stod(v[1].get<std::string>());
    mean_by_pod[s["metric"]["namespace"].get<std::string>() + "/" +
                s["metric"]["pod"].get<std::string>()] = sum / 1440;
  }
  std::vector<double> measured(t.workloads.size(), 0);
  for (const TruthPod& pod : t.pods)
    measured[pod.workload] += mean_by_pod[pod.namespace_ + "/" + pod.name];
  int checked = 0;
  for (size_t w = 0; w < t.workloads.size(); ++w) {
    if (!t.workloads[w].has_traffic || t.workloads[w].running == 0) continue;
    CAPTURE(t.workloads[w].name);
    CHECK(measured[w] == doctest::Approx(t.workloads[w].mean_rate).epsilon(0.02));
    ++checked;
  }
  CHECK(checked >= 5);
}

TEST_CASE("metrics are query_range responses: matrix, string values, float-second timestamps") {
  GeneratorOptions o = Small();
  o.metrics_step_s = 300;
  o.rate_step_s = 600;
  const GeneratedCluster cluster = MustGenerate(o);
  for (const std::string& metric : MetricNames(cluster)) {
    CAPTURE(metric);
    const json prom = Prom(cluster, metric);
    CHECK(prom["status"] == "success");
    CHECK(prom["data"]["resultType"] == "matrix");
    REQUIRE_FALSE(prom["data"]["result"].empty());
    const int step = metric == kRequestRateMetric ? 600 : 300;
    for (const json& s : prom["data"]["result"]) {
      CHECK(s["metric"]["__name__"] == metric);
      const json& values = s["values"];
      REQUIRE(values.size() == static_cast<size_t>(86400 / step));
      CHECK(values[0][0].get<int64_t>() == cluster.truth.end_unix - 86400);
      CHECK(values[1][0].get<int64_t>() - values[0][0].get<int64_t>() == step);
      CHECK(values[0][1].is_string());
    }
  }
  const std::vector<std::string> names = MetricNames(cluster);
  CHECK(std::find(names.begin(), names.end(), kProcessMemMetric) != names.end());
}

TEST_CASE("metrics sampled at a coarser step agree with the fine ones at shared instants") {
  GeneratorOptions fine = Small();
  GeneratorOptions coarse = Small();
  coarse.metrics_step_s = 600;
  const json a = Prom(MustGenerate(fine), kGpuUtilMetric);
  const json b = Prom(MustGenerate(coarse), kGpuUtilMetric);
  REQUIRE(a["data"]["result"].size() == b["data"]["result"].size());
  for (size_t s = 0; s < a["data"]["result"].size(); ++s) {
    const json& va = a["data"]["result"][s]["values"];
    const json& vb = b["data"]["result"][s]["values"];
    for (size_t i = 0; i < vb.size(); i += 13) CHECK(vb[i] == va[i * 10]);
  }
}

TEST_CASE("the YAML export holds the same objects as the JSON export") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const json list = json::parse(ExportJson(cluster));
  const std::vector<YAML::Node> docs = YAML::LoadAll(ExportYaml(cluster));
  REQUIRE(docs.size() == 2);
  json from_yaml = json::array();
  for (const YAML::Node& doc : docs) {
    const json l = FromYaml(doc);
    CHECK(l["kind"] == "List");
    for (const json& item : l["items"]) from_yaml.push_back(item);
  }
  CHECK(FromYaml(docs[0])["items"].size() == 20);  // the nodes, then everything else
  REQUIRE(from_yaml.size() == list["items"].size());
  for (size_t i = 0; i < from_yaml.size(); ++i) {
    CAPTURE(list["items"][i]["metadata"]["name"]);
    CHECK(from_yaml[i] == list["items"][i]);
  }
}

TEST_CASE("planted secrets are in the export and listed in truth.json") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const std::string text = ExportJson(cluster);
  const std::string yaml = ExportYaml(cluster);
  const json truth = TruthJson(cluster);
  const json& secrets = truth["planted_secrets"];
  REQUIRE(secrets.size() == 4);
  int api_key = 0, jwt = 0, token = 0;
  for (const json& s : secrets) {
    const std::string secret = s.get<std::string>();
    CAPTURE(secret);
    CHECK(text.find(secret) != std::string::npos);
    CHECK(yaml.find(secret) != std::string::npos);
    api_key += secret.rfind("sk-live-", 0) == 0;
    jwt += secret.rfind("eyJ", 0) == 0 && std::count(secret.begin(), secret.end(), '.') == 2;
    token += secret.rfind("glpat-", 0) == 0;
  }
  CHECK(api_key == 1);
  CHECK(jwt == 1);
  CHECK(token == 1);
  // The password also sits in an env value, a URL and the last-applied annotation.
  CHECK(text.find("DB_PASSWORD") != std::string::npos);
  CHECK(text.find("kubectl.kubernetes.io/last-applied-configuration") != std::string::npos);

  GeneratorOptions clean = Small();
  clean.planted_secrets = false;
  const GeneratedCluster without = MustGenerate(clean);
  CHECK(TruthJson(without)["planted_secrets"].empty());
  CHECK(ExportJson(without).find("sk-live-") == std::string::npos);
  CHECK(ExportJson(without).find("secretKeyRef") != std::string::npos);
}

TEST_CASE("owners resolve: pods to ReplicaSets to Deployments, claims to volumes and classes") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const json list = json::parse(ExportJson(cluster));
  std::map<std::string, json> by_key;  // kind/ns/name
  for (const json& item : list["items"]) {
    const json& m = item["metadata"];
    by_key[item["kind"].get<std::string>() + "/" + m.value("namespace", "") + "/" +
           m["name"].get<std::string>()] = item;
  }
  auto find = [&](const std::string& kind, const std::string& ns, const std::string& name) {
    auto it = by_key.find(kind + "/" + ns + "/" + name);
    return it == by_key.end() ? json() : it->second;
  };
  int via_rs = 0;
  for (const json& pod : OfKind(list, "Pod")) {
    const json& m = pod["metadata"];
    if (!m.contains("ownerReferences")) continue;
    const json& owner = m["ownerReferences"][0];
    const std::string ns = m["namespace"].get<std::string>();
    if (owner["kind"] == "ReplicaSet") {
      const json rs = find("ReplicaSet", ns, owner["name"].get<std::string>());
      REQUIRE(rs.is_object());
      CHECK(rs["metadata"]["uid"] == owner["uid"]);
      CHECK(owner["name"].get<std::string>() ==
            rs["metadata"]["ownerReferences"][0]["name"].get<std::string>() + "-" +
                m["labels"]["pod-template-hash"].get<std::string>());
      const json& rs_owner = rs["metadata"]["ownerReferences"][0];
      const json deploy = find("Deployment", ns, rs_owner["name"].get<std::string>());
      REQUIRE(deploy.is_object());
      CHECK(deploy["metadata"]["uid"] == rs_owner["uid"]);
      ++via_rs;
    } else if (owner["kind"] == "StatefulSet") {
      const json sts = find("StatefulSet", ns, owner["name"].get<std::string>());
      REQUIRE(sts.is_object());
      CHECK(sts["metadata"]["uid"] == owner["uid"]);
      for (const json& volume : pod["spec"]["volumes"]) {
        if (!volume.contains("persistentVolumeClaim")) continue;
        const std::string claim = volume["persistentVolumeClaim"]["claimName"].get<std::string>();
        CHECK(claim == volume["name"].get<std::string>() + "-" + m["name"].get<std::string>());
        const json pvc = find("PersistentVolumeClaim", ns, claim);
        REQUIRE(pvc.is_object());
        const json pv = find("PersistentVolume", "", pvc["spec"]["volumeName"].get<std::string>());
        REQUIRE(pv.is_object());
        CHECK(pv["spec"]["claimRef"]["uid"] == pvc["metadata"]["uid"]);
        CHECK(find("StorageClass", "", pv["spec"]["storageClassName"].get<std::string>())
                  .is_object());
      }
    }
  }
  CHECK(via_rs > 10);
  std::set<std::string> policies;
  for (const json& pv : OfKind(list, "PersistentVolume")) {
    policies.insert(pv["spec"]["persistentVolumeReclaimPolicy"].get<std::string>());
  }
  CHECK(policies == std::set<std::string>{"Delete", "Retain"});
  const json pdb = find("PodDisruptionBudget", "infra", "etcd-pdb");
  REQUIRE(pdb.is_object());
  CHECK(pdb["spec"]["minAvailable"] == "51%");
  CHECK(pdb["status"]["desiredHealthy"] == 2);  // ceil(51 % of 3), docs/semantics.md Appendix B
  CHECK(pdb["status"]["disruptionsAllowed"] == 1);
  CHECK(OfKind(list, "ResourceQuota").size() >= 5);
}

TEST_CASE("readiness probes of every kind and images by tag and by digest appear") {
  const GeneratedCluster cluster = MustGenerate(Small());
  const json list = json::parse(ExportJson(cluster));
  std::set<std::string> probes;
  int by_digest = 0, by_tag = 0;
  for (const json& pod : OfKind(list, "Pod")) {
    for (const json& c : pod["spec"]["containers"]) {
      const std::string image = c["image"].get<std::string>();
      (image.find("@sha256:") != std::string::npos ? by_digest : by_tag) += 1;
      if (!c.contains("readinessProbe")) continue;
      const json& p = c["readinessProbe"];
      for (const char* kind : {"tcpSocket", "grpc", "exec"}) {
        if (p.contains(kind)) probes.insert(kind);
      }
      if (p.contains("httpGet"))
        probes.insert("httpGet " + p["httpGet"]["path"].get<std::string>());
    }
  }
  CHECK(probes == std::set<std::string>{"exec", "grpc", "httpGet /healthz", "httpGet /v1/models",
                                        "tcpSocket"});
  CHECK(by_digest > 0);
  CHECK(by_tag > 0);
}

TEST_CASE("WriteExport writes every file whole and leaves no temporary file behind") {
  TempDir dir("write");
  GeneratorOptions o = Small();
  o.metrics_step_s = 600;
  const GeneratedCluster cluster = MustGenerate(o);
  Expected<std::vector<WrittenFile>> written =
      WriteExport(cluster, dir.path.string(), ExportFormat::kBoth);
  REQUIRE(written.ok());
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path)) {
    if (entry.is_regular_file()) {
      names.insert(std::filesystem::relative(entry.path(), dir.path).string());
    }
  }
  CHECK(names == std::set<std::string>{
                     "export.json", "export.yaml", "truth.json", "prom/DCGM_FI_DEV_GPU_UTIL.json",
                     "prom/DCGM_FI_DEV_FB_USED.json", "prom/DCGM_CUSTOM_PROCESS_MEM_USED.json",
                     "prom/http_requests_per_second.json"});
  CHECK(written->size() == names.size());
  for (const WrittenFile& f : *written) CHECK(std::filesystem::file_size(f.path) == f.bytes);
  std::ifstream in(dir.path / "export.json");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == ExportJson(cluster));

  // A directory where a file should be is an error naming it, not a crash.
  TempDir blocked("blocked");
  std::filesystem::create_directories(blocked.path / "truth.json");
  Expected<std::vector<WrittenFile>> refused =
      WriteExport(cluster, blocked.path.string(), ExportFormat::kJson);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().file == (blocked.path / "truth.json").string());
}

TEST_CASE("a small cluster keeps its promises with fewer nodes than pools") {
  for (int nodes : {1, 2, 3, 5}) {
    CAPTURE(nodes);
    GeneratorOptions o = Small();
    o.nodes = nodes;
    o.pods = 12;
    const GeneratedCluster cluster = MustGenerate(o);
    CHECK(cluster.nodes.size() == static_cast<size_t>(nodes));
    CHECK(cluster.truth.pods.size() == 12);
    const json prom = Prom(cluster, kGpuUtilMetric);
    CHECK(prom["status"] == "success");
  }
}

// tools/knobsim/testdata/export20 is checked in; the generator must still write it byte for byte
// from the options its truth.json records (README.md says how it was made).
std::string FixtureDir() {
  const std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "../knobsim/testdata/export20/";
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("the checked-in export20 fixture is what the generator writes") {
  const std::string truth_text = ReadText(FixtureDir() + "truth.json");
  REQUIRE_FALSE(truth_text.empty());
  const json g = json::parse(truth_text)["generator"];
  GeneratorOptions o;
  o.nodes = g["nodes"];
  o.pods = g["pods"];
  o.seed = g["seed"];
  o.days = g["days"];
  o.step_s = g["step_s"];
  o.start_unix = g["start_unix"];
  o.with_metrics = g["with_metrics"];
  o.metrics_step_s = g["metrics_step_s"];
  o.rate_step_s = g["rate_step_s"];
  o.metrics_days = g["metrics_days"];
  o.process_metric = g["process_metric"];
  o.planted_secrets = g["planted_secrets"];
  o.busy_noise = g["busy_noise"];
  const GeneratedCluster cluster = MustGenerate(o);
  CHECK(TruthJson(cluster).dump(2) + "\n" == truth_text);
  CHECK(ExportJson(cluster) == ReadText(FixtureDir() + "export.json"));
  CHECK(ExportYaml(cluster) == ReadText(FixtureDir() + "export.yaml"));
  std::ostringstream rates;
  WritePromJson(cluster, kRequestRateMetric, rates);
  CHECK(rates.str() == ReadText(FixtureDir() + "prom/http_requests_per_second.json"));
}

TEST_CASE("a large cluster gets unique names and fills its pods") {
  GeneratorOptions o = Small();
  o.nodes = 300;
  o.pods = 3000;
  o.with_metrics = false;
  const GeneratedCluster cluster = MustGenerate(o);
  std::set<std::string> pods;
  for (const TruthPod& p : cluster.truth.pods) pods.insert(p.namespace_ + "/" + p.name);
  CHECK(pods.size() == 3000);
  int bound = 0;
  for (const TruthPod& p : cluster.truth.pods) bound += p.node.empty() ? 0 : 1;
  CHECK(bound > 2900);
  std::set<std::string> uids;
  for (const json& item : cluster.objects) uids.insert(item["metadata"]["uid"].get<std::string>());
  CHECK(uids.size() == cluster.objects.size());
}

}  // namespace
}  // namespace knobsim::gen_export
