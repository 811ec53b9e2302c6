// The workloads of the synthetic cluster (plan.h's BuildWorkloads): the fixed stories every
// export has (AddFixed: a service with an API key, a gateway with a JWT and a deploy token,
// coredns, etcd and qwen-chat StatefulSets, bare pods, an always-Pending 8-card Deployment, the
// device plugin's DaemonSet), then random Deployments from vocabulary.h's templates until the
// pod budget is spent.
//
// Contract: each workload's truth (traffic, memory profile) is drawn here; a GPU pool is planned
// to at most kPlannedFill of its units, so Pending pods appear only when the pod target exceeds
// what the pools hold. Draws come from the workloads' and the secrets' streams, in the order
// the workloads are made; every planted secret is recorded in plan.secrets.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "tools/gen-export/plan.h"
#include "tools/gen-export/random.h"
#include "tools/gen-export/text_encoding.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

constexpr double kPlannedFill = 0.8;  // of a GPU pool's units the workloads may ask for

int64_t VisibleQuotaMib(const Pool& pool, int units) {
  // cGPU's visible memory: floor(physical × units / card units) (docs/semantics.md Appendix B).
  if (pool.exclusive) return pool.gpu->memory_mib;
  return pool.gpu->memory_mib * units / pool.units;
}

Container MakeContainer(std::string_view name, std::string_view repo, std::string_view tag,
                        int port, Probe probe, bool by_digest) {
  Container c;
  c.name = std::string(name);
  c.repo = std::string(repo);
  c.tag = std::string(tag);
  c.port = port;
  c.probe = probe;
  c.by_digest = by_digest;
  return c;
}

class WorkloadBuilder {
 public:
  explicit WorkloadBuilder(Plan& plan)
      : plan_(plan),
        rng_(Stream(plan.o.seed, kWorkloadsStream)),
        secrets_(Stream(plan.o.seed, kSecretsStream)) {}

  void Build();

 private:
  bool HasNodes(int pool) const { return !plan_.pools[pool].nodes.empty(); }
  int SharedPoolFor(int preferred) const;
  Workload& Add(Kind kind, std::string ns, std::string name, int pool, int replicas);
  void AddTraffic(Workload& w, const GpuTemplate& t, double min_u, double max_u, bool over);
  Workload& AddShared(const GpuTemplate& t, std::string name, int pool, int replicas,
                      bool over_quota);
  Workload& AddWhole(const GpuTemplate& t, std::string name, int whole, int replicas);
  Workload& AddCpu(const CpuTemplate& t, std::string name, int replicas);
  std::string UniqueName(std::string_view ns, std::string_view base);
  std::string Secret(std::string value) {
    plan_.secrets.push_back(value);
    return value;
  }
  void AddFixed(int& budget);
  void AddRagApi(int pool);
  void AddLlmGateway();
  void AddCoreDns();
  void AddEtcd();
  void AddQwenChat();
  void AddCudaDebug(int pool);
  void AddBatchExporter(bool cpu);
  void AddLlm70b();
  void AddDevicePlugin(int sharing_nodes);
  void AddLlmRouter();
  void AddRandom(int budget);

  Plan& plan_;
  Rng rng_;
  Rng secrets_;
  std::set<std::string> names_;  // ns/name taken
  int shared_added_ = 0;
};

std::string WorkloadBuilder::UniqueName(std::string_view ns, std::string_view base) {
  std::string name(base);
  for (int k = 2; names_.count(fmt::format("{}/{}", ns, name)) > 0; ++k) {
    name = fmt::format("{}-{}", base, k);
  }
  names_.insert(fmt::format("{}/{}", ns, name));
  return name;
}

Workload& WorkloadBuilder::Add(Kind kind, std::string ns, std::string name, int pool,
                               int replicas) {
  Workload w;
  w.kind = kind;
  w.ns = std::move(ns);
  w.name = std::move(name);
  w.pool = pool;
  w.replicas = replicas;
  w.labels["app"] = w.name;
  w.uid = rng_.Uuid();
  w.created = plan_.o.start_unix - kDay * rng_.Int(3, 40) - rng_.Int(0, kDay - 1);
  if (kind == Kind::kDeployment) {
    w.hash = rng_.Chars(kKubeAlphabet, rng_.Int(9, 10));
    w.rs_uid = rng_.Uuid();
    if (rng_.Chance(0.3)) {  // an older ReplicaSet kept at 0 replicas (revisionHistoryLimit)
      w.old_hash = rng_.Chars(kKubeAlphabet, 10);
      w.old_rs_uid = rng_.Uuid();
      w.revision = rng_.Int(2, 6);
    }
  } else if (kind != Kind::kBarePod) {
    w.revision_hash = fmt::format("{}-{}", w.name, rng_.Chars(kKubeAlphabet, 10));
  }
  w.truth.kind = std::string(KindName(kind));
  w.truth.namespace_ = w.ns;
  w.truth.name = w.name;
  w.truth.pool = pool >= 0 ? std::string(plan_.pools[pool].spec->name) : std::string();
  w.truth.replicas = replicas;
  plan_.workloads.push_back(std::move(w));
  return plan_.workloads.back();
}

// Per-pod load and memory, chosen so a full card stays below saturation: each pod's peak load on
// its card is its share of the card's units times u in [min_u, max_u].
void WorkloadBuilder::AddTraffic(Workload& w, const GpuTemplate& t, double min_u, double max_u,
                                 bool over) {
  const Pool& pool = plan_.pools[w.pool];
  TruthWorkload& tr = w.truth;
  tr.has_traffic = true;
  tr.work_s = std::round(rng_.Between(t.min_work, t.max_work) * 1e4) / 1e4;
  tr.amplitude = std::round(rng_.Between(0.3, 0.7) * 100) / 100;
  // Busy hours 10:00-22:00 in the cluster's time zone (UTC+8).
  tr.peak_at_s = ((rng_.Int(10, 22) - 8 + 24) % 24) * int64_t{3600};
  const double card_share =
      pool.exclusive ? 1.0 : static_cast<double>(w.units_per_card) / pool.units;
  const double peak_load = card_share * rng_.Between(min_u, max_u);
  const double pod_peak_rate = peak_load * pool.gpu->speed / tr.work_s;
  tr.pod_mean_rate = pod_peak_rate / (1 + tr.amplitude);
  tr.quota_mib = VisibleQuotaMib(pool, w.units_per_card);
  if (pool.exclusive) {
    // vLLM-like servers take most of the card at start-up and grow little with load.
    w.phi = rng_.Between(0.85, 0.93);
    w.rho = rng_.Between(0.9, 0.97);
  } else {
    w.phi = over ? rng_.Between(1.1, 1.45) : rng_.Between(0.55, 0.9);
    w.rho = rng_.Between(0.45, 0.8);
  }
  const double peak = w.phi * static_cast<double>(tr.quota_mib);
  tr.rest_mib = std::llround(w.rho * peak);
  tr.mib_per_rps = (peak - static_cast<double>(tr.rest_mib)) / pod_peak_rate;
  tr.over_quota = over;
}

Workload& WorkloadBuilder::AddShared(const GpuTemplate& t, std::string name, int pool, int replicas,
                                     bool over_quota) {
  const Pool& p = plan_.pools[pool];
  Workload& w = Add(Kind::kDeployment, std::string(t.ns), std::move(name), pool, replicas);
  const double scale = static_cast<double>(p.units) / 44.0;
  const int main_units =
      std::max(1, static_cast<int>(std::lround(rng_.Int(t.min_units, t.max_units) * scale)));
  const int side_units =
      t.sidecar_units > 0 ? std::max(1, static_cast<int>(std::lround(t.sidecar_units * scale))) : 0;
  w.gpu_count = t.gpu_count;
  w.units_per_card = main_units + side_units;
  Container c = MakeContainer(t.container, fmt::format("{}/{}", t.ns, t.repo), t.tag, t.port,
                              t.probe, t.by_digest);
  c.cpu_m = 250 * rng_.Int(2, 12);
  c.mem_mib = 1024 * rng_.Int(4, 16);
  c.gpu_mem = main_units * t.gpu_count;
  c.liveness = rng_.Chance(0.5);
  c.env = {{"MODEL_DIR", "/models/" + std::string(t.repo), "", ""},
           {"LOG_LEVEL", rng_.Chance(0.5) ? "info" : "warning", "", ""}};
  w.containers.push_back(std::move(c));
  if (side_units > 0) {  // a second GPU container: the v2 allocation lists both (§1.3)
    Container s = MakeContainer("tokenizer", fmt::format("{}/{}-tokenizer", t.ns, t.repo), t.tag,
                                9100, Probe::kNone, false);
    s.cpu_m = 500;
    s.mem_mib = 1024;
    s.gpu_mem = side_units * t.gpu_count;
    w.containers.push_back(std::move(s));
  }
  w.truth.gpu = true;
  w.truth.gpu_mem = w.units_per_card * w.gpu_count;
  w.truth.gpu_count = w.gpu_count;
  AddTraffic(w, t, 0.4, 0.85, over_quota);
  plan_.pools[pool].planned += static_cast<int64_t>(w.units_per_card) * w.gpu_count * replicas;
  return w;
}

Workload& WorkloadBuilder::AddWhole(const GpuTemplate& t, std::string name, int whole,
                                    int replicas) {
  Workload& w = Add(Kind::kDeployment, std::string(t.ns), std::move(name), kA100Pool, replicas);
  w.whole = whole;
  w.gpu_count = whole;
  Container c = MakeContainer(t.container, fmt::format("{}/{}", t.ns, t.repo), t.tag, t.port,
                              t.probe, t.by_digest);
  c.cpu_m = 1000 * rng_.Int(6, 12) * whole;
  c.mem_mib = 1024 * 32 * rng_.Int(1, 3) * whole;
  c.whole_gpus = whole;
  c.liveness = true;
  c.env = {{"VLLM_WORKER_MULTIPROC_METHOD", "spawn", "", ""},
           {"TENSOR_PARALLEL_SIZE", std::to_string(whole), "", ""}};
  w.containers.push_back(std::move(c));
  w.truth.gpu = true;
  w.truth.gpu_count = whole;
  w.truth.whole_gpus = whole;
  AddTraffic(w, t, 0.3, 0.8, false);
  plan_.pools[kA100Pool].planned += static_cast<int64_t>(whole) * replicas;
  return w;
}

Workload& WorkloadBuilder::AddCpu(const CpuTemplate& t, std::string name, int replicas) {
  Workload& w = Add(Kind::kDeployment, std::string(t.ns), std::move(name), kCpuPool, replicas);
  Container c = MakeContainer(t.container, fmt::format("{}/{}", t.ns, t.repo), t.tag, t.port,
                              t.probe, rng_.Chance(0.2));
  c.cpu_m = 50 * (rng_.Int(t.min_cpu_m, t.max_cpu_m) / 50);
  c.mem_mib = 64 * (rng_.Int(t.min_mem_mib, t.max_mem_mib) / 64);
  c.liveness = rng_.Chance(0.5);
  w.containers.push_back(std::move(c));
  return w;
}

// The preferred shared pool when it has nodes, else any shared pool that has; -1 when none.
int WorkloadBuilder::SharedPoolFor(int preferred) const {
  if (HasNodes(preferred)) return preferred;
  for (int p : {kL20Binpack, kA10Share, kL20Spread}) {
    if (HasNodes(p)) return p;
  }
  return -1;
}
// The workloads every export has (when the pools and the pod budget allow): the stories an
// importer must get right. Each story takes its pods from the budget in this order; when the
// budget cannot hold them all (plus ten for the random ones), a story that does not fit is left
// out.
void WorkloadBuilder::AddFixed(int& budget) {
  int sharing_nodes = 0;
  for (int p : {kL20Binpack, kL20Spread, kA10Share}) {
    sharing_nodes += static_cast<int>(plan_.pools[p].nodes.size());
  }
  const int shared = SharedPoolFor(kA10Share);
  const bool cpu = HasNodes(kCpuPool);
  const int fixed_pods = (cpu ? 2 + 2 + 3 : 0) + (HasNodes(kL20Binpack) ? 2 : 0) +
                         (shared >= 0 ? 2 + 1 : 0) + 1 + (HasNodes(kA100Pool) ? 1 : 0) +
                         sharing_nodes + (cpu && plan_.o.cpu_router ? 2 : 0) +
                         (HasNodes(kA100Pool) && plan_.o.request_truth ? 2 : 0);
  const bool all = budget >= fixed_pods + 10;
  auto take = [&](int pods) {
    if (!all && budget < pods) return false;
    budget -= pods;
    return true;
  };

  if (shared >= 0 && take(2)) AddRagApi(shared);
  if (cpu && take(2)) AddLlmGateway();
  if (cpu && take(2)) AddCoreDns();
  if (cpu && take(3)) AddEtcd();
  if (HasNodes(kL20Binpack) && take(2)) AddQwenChat();
  if (shared >= 0 && take(1)) AddCudaDebug(shared);
  if (take(1)) AddBatchExporter(cpu);
  if (HasNodes(kA100Pool) && take(1)) AddLlm70b();
  if (sharing_nodes > 0 && take(sharing_nodes)) AddDevicePlugin(sharing_nodes);
  if (cpu && plan_.o.cpu_router && take(2)) AddLlmRouter();
  // The request-level truth is about whole-GPU LLM servers: two of them, one A100 each.
  if (HasNodes(kA100Pool) && plan_.o.request_truth && take(2)) {
    const GpuTemplate& t = kWholeTemplates[0];
    AddWhole(t, UniqueName(t.ns, t.name), 1, 2);
  }
}

// rag-api: a GPU service whose env holds an API key (the privacy tests' bait).
void WorkloadBuilder::AddRagApi(int pool) {
  GpuTemplate t{"rag-api", "ai-infer", "rag-server", "0.8.0", "rag", 8080, Probe::kHealthz,
                4,         8,          0.05,         0.2,     1,     0,    false};
  Workload& w = AddShared(t, UniqueName("ai-infer", "rag-api"), pool, 2, false);
  Container& c = w.containers[0];
  if (plan_.o.planted_secrets) {
    c.env.push_back({"OPENAI_API_KEY", Secret("sk-live-" + secrets_.Chars(kBase62, 48)), "", ""});
  } else {
    c.env.push_back({"OPENAI_API_KEY", "", "openai", "api-key"});
  }
  c.env.push_back({"REDIS_PASSWORD", "", "redis-auth", "password"});
}

// llm-gateway (CPU): the same key, a JWT, and a deploy token in an annotation.
void WorkloadBuilder::AddLlmGateway() {
  CpuTemplate t{"llm-gateway", "ai-infer", "llm-gateway", "1.6.0", "gateway", 8080,
                Probe::kTcp,   250,        500,           512,     1024};
  Workload& w = AddCpu(t, UniqueName("ai-infer", "llm-gateway"), 2);
  Container& c = w.containers[0];
  c.env.push_back({"UPSTREAM_URL", "http://rag-api.ai-infer.svc:8080", "", ""});
  if (!plan_.o.planted_secrets) {
    c.env.push_back({"OPENAI_API_KEY", "", "openai", "api-key"});
    return;
  }
  const std::string key = plan_.secrets.empty() ? Secret("sk-live-" + secrets_.Chars(kBase62, 48))
                                                : plan_.secrets.front();
  c.env.push_back({"OPENAI_API_KEY", key, "", ""});
  const std::string payload =
      Base64Url(fmt::format(R"({{"sub":"llm-gateway","iss":"auth.internal","iat":{},"exp":{}}})",
                            w.created, w.created + 365 * kDay));
  c.env.push_back({"SERVICE_JWT",
                   Secret("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + payload + "." +
                          secrets_.Chars(std::string(kBase62) + "-_", 43)),
                   "", ""});
  const std::string token = Secret("glpat-" + secrets_.Chars(kBase62, 20));
  w.annotations["ci.aliyun-devops.com/deploy-token"] = token;
  w.template_annotations["ci.aliyun-devops.com/deploy-token"] = token;
}

// coredns, as ACK installs it.
void WorkloadBuilder::AddCoreDns() {
  CpuTemplate t{"coredns",
                "kube-system",
                "acs/coredns",
                "v1.9.3.10-7dfca203-aliyun",
                "coredns",
                53,
                Probe::kHealthz,
                100,
                100,
                70,
                70};
  Workload& w = AddCpu(t, UniqueName("kube-system", "coredns"), 2);
  w.labels = {{"k8s-app", "kube-dns"}};
  w.containers[0].repo = "acs/coredns";
  w.containers[0].mem_mib = 70;
  w.containers[0].cpu_m = 100;
}

// etcd: a 3-replica StatefulSet on Retain volumes with a "51%" PDB (§4.1, Appendix B).
void WorkloadBuilder::AddEtcd() {
  Workload& w = Add(Kind::kStatefulSet, "infra", UniqueName("infra", "etcd"), kCpuPool, 3);
  Container c = MakeContainer("etcd", "infra/etcd", "3.5.12-0", 2379, Probe::kExec, false);
  c.cpu_m = 500;
  c.mem_mib = 2048;
  c.liveness = true;
  c.mounts = {{"data", "/var/lib/etcd"}};
  w.containers.push_back(std::move(c));
  w.claims = {{"data", "20Gi", "alicloud-disk-essd-retain"}};
  w.service_name = "etcd-headless";
}

// qwen-chat: a GPU StatefulSet that takes whole L20 cards through gpu-mem (single-pod cards),
// with a model cache on Delete volumes.
void WorkloadBuilder::AddQwenChat() {
  const Pool& pool = plan_.pools[kL20Binpack];
  GpuTemplate t{"qwen-chat", "llm", "vllm-openai", "v0.4.2", "vllm", 8000, Probe::kModels,
                44,          44,    0.3,           0.9,      1,      0,    false};
  Workload& w = Add(Kind::kStatefulSet, "llm", UniqueName("llm", "qwen-chat"), kL20Binpack, 2);
  w.units_per_card = pool.units;
  w.whole_device = true;
  Container c = MakeContainer("vllm", "llm/vllm-openai", "v0.4.2", 8000, Probe::kModels, false);
  c.cpu_m = 8000;
  c.mem_mib = 64 * 1024;
  c.gpu_mem = pool.units;
  c.mounts = {{"model-cache", "/root/.cache/huggingface"}};
  w.containers.push_back(std::move(c));
  w.claims = {{"model-cache", "100Gi", "alicloud-disk-essd"}};
  w.service_name = "qwen-chat";
  w.truth.gpu = true;
  w.truth.gpu_mem = pool.units;
  AddTraffic(w, t, 0.4, 0.8, false);
  plan_.pools[kL20Binpack].planned += 2LL * pool.units;
}

// A bare GPU debugging shell: one unit's worth of a 22-unit card, no traffic.
void WorkloadBuilder::AddCudaDebug(int pool) {
  GpuTemplate t{"cuda-debug",
                "ai-infer",
                "cuda",
                "12.2.0-devel-ubuntu22.04",
                "shell",
                0,
                Probe::kNone,
                2,
                2,
                0.01,
                0.01,
                1,
                0,
                false};
  Workload& w = Add(Kind::kBarePod, "ai-infer", UniqueName("ai-infer", "cuda-debug"), pool, 1);
  w.labels = {{"run", w.name}};
  w.units_per_card = std::max(1, plan_.pools[pool].units / 22);
  Container c = MakeContainer("shell", "ai-infer/cuda", t.tag, 0, Probe::kNone, false);
  c.cpu_m = 1000;
  c.mem_mib = 4096;
  c.gpu_mem = w.units_per_card;
  c.env = {{"NVIDIA_DRIVER_CAPABILITIES", "compute,utility", "", ""}};
  w.containers.push_back(std::move(c));
  w.truth.gpu = true;
  w.truth.gpu_mem = w.units_per_card;
  w.truth.quota_mib = VisibleQuotaMib(plan_.pools[pool], w.units_per_card);
  w.truth.rest_mib = 600;  // an idle CUDA context and a few tensors, no traffic
  plan_.pools[pool].planned += w.units_per_card;
}

// kubectl apply keeps the whole manifest, env values included, in an annotation: the
// last-applied-configuration of the batch-exporter pod with the given env.
std::string BatchExporterLastApplied(const std::string& name, const json& env) {
  const json container = {{"env", env},
                          {"image", fmt::format("{}/data/batch-exporter:0.6.0", kRegistry)},
                          {"name", "exporter"},
                          {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}}}}};
  const json manifest = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"annotations", json::object()}, {"name", name}, {"namespace", "data"}}},
      {"spec", {{"containers", json::array({container})}}}};
  return manifest.dump() + "\n";
}

// A bare CPU exporter applied by hand with a database password (on any node without a CPU pool).
void WorkloadBuilder::AddBatchExporter(bool cpu) {
  Workload& w =
      Add(Kind::kBarePod, "data", UniqueName("data", "batch-exporter"), cpu ? kCpuPool : -1, 1);
  w.labels = {{"run", w.name}};
  w.tolerate_all = !cpu;
  Container c = MakeContainer("exporter", "data/batch-exporter", "0.6.0", 0, Probe::kNone, false);
  c.cpu_m = 500;
  c.mem_mib = 1024;
  json env = json::array();
  if (plan_.o.planted_secrets) {
    const std::string password = Secret(secrets_.Chars(kBase62, 12) + "-Pa55");
    const std::string url = "postgres://exporter:" + password + "@pg.internal:5432/metrics";
    c.env = {{"DB_PASSWORD", password, "", ""}, {"DATABASE_URL", url, "", ""}};
    env = {{{"name", "DB_PASSWORD"}, {"value", password}},
           {{"name", "DATABASE_URL"}, {"value", url}}};
  } else {
    c.env = {{"DB_PASSWORD", "", "pg-exporter", "password"}};
    env = {{{"name", "DB_PASSWORD"},
            {"valueFrom", {{"secretKeyRef", {{"key", "password"}, {"name", "pg-exporter"}}}}}}};
  }
  w.last_applied = BatchExporterLastApplied(w.name, env);
  w.restart_policy = "Never";
  w.containers.push_back(std::move(c));
}

// llm-70b asks for 8 whole cards; no node has them, so it stays Pending with the scheduler's
// message (§3.7).
void WorkloadBuilder::AddLlm70b() {
  Workload& w = Add(Kind::kDeployment, "llm", UniqueName("llm", "llm-70b"), kA100Pool, 1);
  w.whole = 8;
  w.gpu_count = 8;
  Container c = MakeContainer("vllm", "llm/vllm-openai", "v0.4.2", 8000, Probe::kModels, false);
  c.cpu_m = 32000;
  c.mem_mib = 256 * 1024;
  c.whole_gpus = 8;
  w.containers.push_back(std::move(c));
  w.truth.gpu = true;
  w.truth.gpu_count = 8;
  w.truth.whole_gpus = 8;
}

// The device plugin's DaemonSet, one pod on each sharing node.
void WorkloadBuilder::AddDevicePlugin(int sharing_nodes) {
  Workload& w = Add(Kind::kDaemonSet, "kube-system",
                    UniqueName("kube-system", "gpushare-device-plugin-ds"), -1, sharing_nodes);
  w.labels = {{"app", "gpushare"}, {"component", "gpushare-device-plugin"}};
  w.tolerate_all = true;
  Container c = MakeContainer("gpushare", "acs/gpushare-device-plugin", "v1.0.1-3d0fa7c-aliyun", 0,
                              Probe::kNone, false);
  c.cpu_m = 100;
  c.mem_mib = 300;
  c.env = {{"KUBECONFIG", "/etc/kubernetes/kubelet.conf", "", ""}};
  w.containers.push_back(std::move(c));
}

// Deployments until the pod budget is spent: about a quarter on CPU, the rest on the GPU pools
// in proportion to the units they have left (at most kPlannedFill of each pool is asked for).
void WorkloadBuilder::AddRandom(int budget) {
  const bool cpu = HasNodes(kCpuPool);
  int guard = 0;
  while (budget > 0 && guard++ < 1000000) {
    std::vector<std::pair<int, double>> room;  // pool, weight
    double total = 0;
    for (int p : {kL20Binpack, kL20Spread, kA10Share, kA100Pool}) {
      const Pool& pool = plan_.pools[p];
      const double left =
          kPlannedFill * static_cast<double>(pool.capacity) - static_cast<double>(pool.planned);
      const double min_ask = pool.exclusive ? 1.0 : 2.0;
      if (left >= min_ask) {
        const double weight = pool.exclusive ? left * 8 : left;
        room.emplace_back(p, weight);
        total += weight;
      }
    }
    const int replicas = std::min(budget, rng_.Int(1, 5));
    if (room.empty() || (cpu && rng_.Chance(0.25))) {
      if (!cpu && room.empty()) {
        // Nowhere left: the rest are GPU pods that will wait (Pending), as in a full cluster.
        const int p = SharedPoolFor(kA10Share);
        if (p < 0) {
          const GpuTemplate& t = kWholeTemplates[0];
          AddWhole(t, UniqueName(t.ns, t.name), 1, replicas);
        } else {
          const GpuTemplate& t = kSharedTemplates[0];
          AddShared(t, UniqueName(t.ns, t.name), p, replicas, false);
        }
        budget -= replicas;
        continue;
      }
      const CpuTemplate& t = kCpuTemplates[rng_.Int(0, std::size(kCpuTemplates) - 1)];
      AddCpu(t, UniqueName(t.ns, t.name), replicas);
      budget -= replicas;
      continue;
    }
    double pick = rng_.Unit() * total;
    int pool_index = room.back().first;
    for (const auto& [p, weight] : room) {
      if (pick < weight) {
        pool_index = p;
        break;
      }
      pick -= weight;
    }
    Pool& pool = plan_.pools[pool_index];
    const double left =
        kPlannedFill * static_cast<double>(pool.capacity) - static_cast<double>(pool.planned);
    if (pool.exclusive) {
      const GpuTemplate& t = kWholeTemplates[rng_.Int(0, std::size(kWholeTemplates) - 1)];
      int whole = rng_.Int(t.min_units, t.max_units);
      int n = replicas;
      while (n > 0 && n * whole > left) --n;
      if (n == 0) {
        whole = 1;
        n = 1;
      }
      AddWhole(t, UniqueName(t.ns, t.name), whole, n);
      budget -= n;
      continue;
    }
    // Multi-card templates need two cards per node and the v2 annotations that can say so.
    std::vector<const GpuTemplate*> fits;
    for (const GpuTemplate& t : kSharedTemplates) {
      if (t.gpu_count > pool.spec->instance.gpus) continue;
      if (t.gpu_count > 1 && pool.spec->allocation == Allocation::kV1) continue;
      fits.push_back(&t);
    }
    const GpuTemplate& t = *fits[rng_.Next() % fits.size()];
    const bool over = ++shared_added_ == 2 || rng_.Chance(0.2);
    Workload& w = AddShared(t, UniqueName(t.ns, t.name), pool_index, replicas, over);
    // Trim the replicas to the room left (the template's units were drawn inside AddShared).
    const int64_t per_pod = static_cast<int64_t>(w.units_per_card) * w.gpu_count;
    int n = replicas;
    while (n > 1 && static_cast<double>(per_pod * n) > left) --n;
    pool.planned -= per_pod * (replicas - n);
    w.replicas = n;
    w.truth.replicas = n;
    budget -= n;
  }
}

// llm-router (options.cpu_router): a CPU-only service in front of the LLMs with a request-rate
// series and no GPU. knobsim serves requests on GPUs only, so the import leaves its traffic out
// with a warning; its rate follows the fluid curve (README.md "Request-level truth").
void WorkloadBuilder::AddLlmRouter() {
  CpuTemplate t{"llm-router",    "llm", "llm-router", "0.3.1", "router", 8080,
                Probe::kHealthz, 500,   1000,         512,     1024};
  Workload& w = AddCpu(t, UniqueName("llm", "llm-router"), 2);
  TruthWorkload& tr = w.truth;
  tr.has_traffic = true;
  tr.cpu_only = true;
  tr.amplitude = std::round(rng_.Between(0.3, 0.7) * 100) / 100;
  tr.peak_at_s = ((rng_.Int(10, 22) - 8 + 24) % 24) * int64_t{3600};
  tr.pod_mean_rate = std::round(rng_.Between(5, 20) * 100) / 100;
}

void WorkloadBuilder::Build() {
  int budget = plan_.o.pods;
  AddFixed(budget);
  AddRandom(budget);
}

}  // namespace

void BuildWorkloads(Plan& plan) {
  WorkloadBuilder(plan).Build();
}

}  // namespace knobsim::gen_export
