#include "tools/gen-export/export_generator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numbers>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>
#include <utility>

#include "models/gpu_catalog.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

constexpr int64_t kDay = 86400;

// ---- Randomness --------------------------------------------------------------------------
//
// splitmix64 (Steele, Lea, Flood 2014) and our own mappings to ranges: the standard library's
// distributions are implementation-defined, and the same seed must give the same bytes.

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double ToUnit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

uint64_t HashText(std::string_view text) {  // FNV-1a, then mixed
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return Mix64(h);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix64(state_ += kGolden); }
  double Unit() { return ToUnit(Next()); }
  double Between(double lo, double hi) { return lo + (hi - lo) * Unit(); }
  // lo..hi inclusive; the modulo bias (< 2^-40 for our ranges) does not matter here.
  int Int(int lo, int hi) {
    return lo + static_cast<int>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(double p) { return Unit() < p; }
  std::string Chars(std::string_view alphabet, int n) {
    std::string s;
    s.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) s.push_back(alphabet[Next() % alphabet.size()]);
    return s;
  }
  std::string Hex(int n) { return Chars("0123456789abcdef", n); }
  // Random (version 4) UUID text, as Kubernetes writes metadata.uid.
  std::string Uuid() {
    const std::string h = Hex(32);
    const char variant = "89ab"[Next() % 4];
    return fmt::format("{}-{}-4{}-{}{}-{}", h.substr(0, 8), h.substr(8, 4), h.substr(13, 3),
                       variant, h.substr(17, 3), h.substr(20, 12));
  }

 private:
  uint64_t state_;
};

// One stream per purpose, so that a draw added for one thing does not move the others.
enum Purpose : uint64_t { kNodesStream = 1, kWorkloadsStream, kSecretsStream, kPodStreamBase };

Rng Stream(uint64_t seed, uint64_t purpose) {
  return Rng(Mix64(seed ^ Mix64(purpose * kGolden)));
}

// Noise as a function of (seed, series, instant) alone: a metric sampled every 5 minutes sees
// the same value at 12:05 as one sampled every minute.
double HashUnit(uint64_t seed, uint64_t series, int64_t t) {
  uint64_t h = Mix64(seed + kGolden);
  h = Mix64(h ^ (series * 0xD1B54A32D192ED03ull));
  h = Mix64(h ^ static_cast<uint64_t>(t));
  return ToUnit(h);
}

// Kubernetes' name suffix alphabet (apimachinery rand.SafeEncodeString: no vowels, no 0/1/3).
constexpr std::string_view kKubeAlphabet = "bcdfghjklmnpqrstvwxz2456789";
constexpr std::string_view kLowerAlnum = "0123456789abcdefghijklmnopqrstuvwxyz";
constexpr std::string_view kBase62 =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

std::string Base64Url(std::string_view bytes) {
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(buffer >> bits) & 63]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (6 - bits)) & 63]);
  return out;
}

// ---- Time --------------------------------------------------------------------------------

// RFC 3339 UTC from Unix seconds (H. Hinnant's civil_from_days), free of locale and time zone.
std::string Rfc3339(int64_t t) {
  int64_t days = t >= 0 ? t / kDay : (t - kDay + 1) / kDay;
  const int64_t secs = t - days * kDay;
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, m, d, secs / 3600, secs / 60 % 60,
                     secs % 60);
}

// ---- The cluster's vocabulary ------------------------------------------------------------

struct Instance {
  std::string_view name;
  int vcpu;
  int64_t cpu_alloc_m;  // ACK reserves a little for the kubelet: 16 -> 15890m (ack-cluster.json)
  int memory_gib;
  std::string_view gpu;  // catalog name; empty for CPU instances
  int gpus;
  int max_pods;
};

// How the pods of a pool carry their card allocation (semantics.md §1.3).
enum class Allocation { kNone, kV1, kV2, kV2Fraction };

struct PoolSpec {
  std::string_view name;
  Instance instance;
  std::string_view schedule;   // ack.node.gpu.schedule; empty on CPU nodes
  std::string_view placement;  // ack.node.gpu.placement; empty = label absent (binpack)
  Allocation allocation;
  int max_pod;          // ack.node.gpu.max-pod; 0 = absent
  bool process_metric;  // DCGM_CUSTOM_PROCESS_MEM_USED on these nodes
  double share;         // of the nodes beyond the first of each pool
};

// Instance names and shapes as Alibaba Cloud lists them (gn8is: L20, gn7i: A10, gn7e: A100
// 80 GB, g7: general purpose); cpu_alloc_m as ACK nodes report them.
constexpr PoolSpec kPoolSpecs[] = {
    {"cpu-general",
     {"ecs.g7.4xlarge", 16, 15890, 64, "", 0, 64},
     "",
     "",
     Allocation::kNone,
     0,
     false,
     0.20},
    {"gpu-l20-binpack",
     {"ecs.gn8is-2x.8xlarge", 32, 31600, 256, "L20", 2, 64},
     "cgpu",
     "binpack",
     Allocation::kV2,
     0,
     false,
     0.30},
    {"gpu-l20-spread",
     {"ecs.gn8is.4xlarge", 16, 15890, 128, "L20", 1, 64},
     "cgpu",
     "spread",
     Allocation::kV2Fraction,
     6,
     false,
     0.20},
    {"gpu-a10-share",
     {"ecs.gn7i-2x.8xlarge", 32, 31600, 128, "A10", 2, 64},
     "share",
     "",
     Allocation::kV1,
     0,
     true,
     0.20},
    {"gpu-a100",
     {"ecs.gn7e-c16g1.16xlarge", 64, 63280, 500, "A100-80G", 4, 110},
     "default",
     "",
     Allocation::kNone,
     0,
     false,
     0.10},
};
enum PoolIndex { kCpuPool, kL20Binpack, kL20Spread, kA10Share, kA100Pool, kPoolCount };
// With fewer nodes than pools, the pools that matter most for import come first.
constexpr int kPoolPriority[] = {kL20Binpack, kA10Share, kA100Pool, kCpuPool, kL20Spread};

struct GpuNames {
  std::string_view catalog;
  std::string_view node_label;  // aliyun.accelerator/nvidia_name
  std::string_view model_name;  // DCGM modelName
};
constexpr GpuNames kGpuNames[] = {
    {"L20", "NVIDIA-L20", "NVIDIA L20"},
    {"A10", "NVIDIA-A10", "NVIDIA A10"},
    {"A100-80G", "NVIDIA-A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"},
};

enum class Probe { kNone, kHealthz, kModels, kTcp, kGrpc, kExec };

struct GpuTemplate {
  std::string_view name, ns, repo, tag, container;
  int port;
  Probe probe;
  int min_units, max_units;   // per card on a 44-unit L20, scaled to the pool's card; whole
                              // cards for the exclusive templates
  double min_work, max_work;  // seconds per request on the A10
  int gpu_count;              // cards per pod (pod label aliyun.com/gpu-count)
  int sidecar_units;          // units per card of a second GPU container; 0 = none
  bool by_digest;
};

constexpr GpuTemplate kSharedTemplates[] = {
    {"embed", "ai-infer", "text-embed", "0.9.2", "embed", 8080, Probe::kHealthz, 2, 6, 0.01, 0.03,
     1, 0, false},
    {"rerank", "search", "bge-reranker", "1.2.0", "rerank", 9000, Probe::kGrpc, 4, 8, 0.02, 0.06, 1,
     2, false},
    {"asr", "speech", "whisper-asr", "1.4.0", "asr", 9000, Probe::kTcp, 4, 10, 0.2, 0.6, 1, 0,
     false},
    {"ocr", "ai-infer", "paddle-ocr", "2.7.1", "ocr", 8866, Probe::kExec, 3, 8, 0.05, 0.15, 1, 0,
     true},
    {"caption-vlm", "ai-infer", "qwen-vl", "1.1.0", "vlm", 8000, Probe::kModels, 8, 20, 0.4, 1.2, 1,
     0, false},
    {"translate", "ai-infer", "nllb-serve", "0.3.2", "translate", 8000, Probe::kModels, 6, 12, 0.1,
     0.3, 1, 0, false},
    {"tts", "speech", "cosyvoice", "2.0.1", "tts", 50000, Probe::kTcp, 4, 8, 0.3, 0.8, 1, 0, false},
    {"sd-webui", "imagegen", "sd-webui", "1.9.4-cu121", "webui", 7860, Probe::kHealthz, 10, 20, 2.0,
     5.0, 1, 0, true},
    {"yolo-detect", "vision", "yolov8-triton", "24.05-py3", "triton", 8001, Probe::kGrpc, 2, 6,
     0.005, 0.02, 1, 0, false},
    {"face-detect", "vision", "retinaface", "0.2.0", "detect", 8080, Probe::kExec, 2, 4, 0.01, 0.03,
     1, 0, false},
    {"llm-chat", "llm", "vllm-openai", "v0.4.2", "vllm", 8000, Probe::kModels, 16, 20, 0.5, 1.5, 2,
     0, false},
};

constexpr GpuTemplate kWholeTemplates[] = {
    {"llm-serving", "llm", "vllm-openai", "v0.4.2", "vllm", 8000, Probe::kModels, 1, 2, 0.5, 2.0, 1,
     0, false},
    {"embed-large", "search", "text-embeddings-inference", "1.2", "tei", 8080, Probe::kGrpc, 1, 1,
     0.02, 0.05, 1, 0, true},
};

struct CpuTemplate {
  std::string_view name, ns, repo, tag, container;
  int port;
  Probe probe;
  int min_cpu_m, max_cpu_m;
  int min_mem_mib, max_mem_mib;
};

constexpr CpuTemplate kCpuTemplates[] = {
    {"api-gateway", "web", "api-gateway", "3.14.2", "gateway", 8080, Probe::kHealthz, 200, 1000,
     256, 1024},
    {"web-frontend", "web", "nginx", "1.25.4", "nginx", 80, Probe::kTcp, 100, 500, 128, 512},
    {"order-service", "shop", "order-service", "2.3.0", "app", 8080, Probe::kHealthz, 200, 800, 512,
     1024},
    {"search-api", "search", "search-api", "1.8.3", "api", 9200, Probe::kGrpc, 200, 1000, 256,
     1024},
    {"report-worker", "data", "report", "1.0.7", "worker", 0, Probe::kExec, 100, 500, 256, 768},
};

constexpr std::string_view kRegistry = "registry-vpc.cn-hangzhou.aliyuncs.com";
constexpr std::string_view kRegion = "cn-hangzhou";
constexpr std::string_view kZones[] = {"cn-hangzhou-h", "cn-hangzhou-i", "cn-hangzhou-j"};
constexpr std::string_view kKubeletVersion = "v1.28.9-aliyun.1";
constexpr std::string_view kDriverVersion = "535.161.08";
constexpr std::string_view kGpuTaintKey = "nvidia.com/gpu";
constexpr std::string_view kPoolLabel = "alibabacloud.com/nodepool-id";

// ---- The plan: what exists, before it becomes JSON ----------------------------------------

struct Pool {
  const PoolSpec* spec = nullptr;
  std::string id;
  const GpuType* gpu = nullptr;
  const GpuNames* names = nullptr;
  int units = 0;  // per card; 0 on exclusive and CPU pools
  bool exclusive = false;
  std::vector<int> nodes;
  int64_t capacity = 0;  // units (shared) or cards (exclusive)
  int64_t planned = 0;   // what the workloads chosen so far ask for
};

struct Node {
  std::string name, ip, zone, uid, instance_id, machine_id, boot_id, system_uuid;
  int pool = 0;
  int ordinal = 0;  // within its pool
  int first_card = 0;
  int cards = 0;
  int64_t cap_mem_ki = 0, alloc_mem_ki = 0;
  int64_t cpu_free_m = 0, mem_free_mib = 0;
  int pods_free = 0;
  bool fb_per_pod = true;
  int64_t created = 0;
  std::vector<std::string> images;  // "repo:tag" of the containers placed here
};

struct Card {
  int node = 0;
  int index = 0;
  std::string uuid;
  int units_free = 0;
  int pods = 0;
  int64_t peak_mib = 0;  // Σ of its pods' peaks: soft isolation needs Σ ≤ physical
  bool whole = false;    // taken by an nvidia.com/gpu pod
};

struct Env {
  std::string name;
  std::string value;
  std::string secret_name, secret_key;  // valueFrom.secretKeyRef when set
};

struct Container {
  std::string name, repo, tag;
  bool by_digest = false;
  int port = 0;
  Probe probe = Probe::kNone;
  bool liveness = false;
  int64_t cpu_m = 0, mem_mib = 0;
  int gpu_mem = 0;  // units for the whole pod (all its cards)
  int whole_gpus = 0;
  std::vector<Env> env;
  std::vector<std::pair<std::string, std::string>> mounts;  // volume name -> path
};

struct Claim {
  std::string name, storage, storage_class;
};

enum class Kind { kDeployment, kStatefulSet, kDaemonSet, kBarePod };

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kDeployment:
      return "Deployment";
    case Kind::kStatefulSet:
      return "StatefulSet";
    case Kind::kDaemonSet:
      return "DaemonSet";
    case Kind::kBarePod:
      return "Pod";
  }
  return "";
}

struct Workload {
  Kind kind = Kind::kDeployment;
  std::string ns, name;
  int pool = -1;  // -1: any node whose taints it tolerates
  int replicas = 1;
  std::vector<Container> containers;
  int gpu_count = 1;
  int units_per_card = 0;     // all GPU containers together, on each card
  int whole = 0;              // nvidia.com/gpu per pod
  bool whole_device = false;  // pod label ack.gpushare.placement: require-whole-device
  bool tolerate_all = false;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;           // on the controller
  std::map<std::string, std::string> template_annotations;  // on its pods
  std::string uid, hash, rs_uid, old_hash, old_rs_uid, revision_hash;
  int revision = 1;
  std::vector<Claim> claims;
  std::string restart_policy = "Always";
  std::string service_name;  // StatefulSet
  std::string last_applied;  // bare pods applied with kubectl apply
  int64_t created = 0;
  double phi = 0, rho = 0;  // memory peak / quota and rest / peak
  TruthWorkload truth;
  std::vector<int> pods;
};

struct PodPlan {
  int workload = 0;
  int ordinal = 0;
  std::string name, uid, ip;
  int node = -1;
  std::vector<int> cards;
  int64_t mem_offset = 0;
  int64_t created = 0;
  int restarts = 0;
  std::string message;  // FailedScheduling text when Pending
};

struct Plan {
  GeneratorOptions o;
  GpuCatalog catalog = GpuCatalog::BuiltIn();
  std::string cluster_id;
  std::vector<Pool> pools;
  std::vector<Node> nodes;
  std::vector<Card> cards;
  std::vector<Workload> workloads;
  std::vector<PodPlan> pods;
  std::vector<std::string> secrets;
  std::map<std::string, std::string> digests;  // repo:tag -> sha256 hex
  int64_t now = 0;                             // when the export is taken
};

std::string Digest(Plan& plan, const std::string& repo, const std::string& tag) {
  const std::string key = repo + ":" + tag;
  auto it = plan.digests.find(key);
  if (it != plan.digests.end()) return it->second;
  Rng rng(HashText(key) ^ plan.o.seed);
  return plan.digests[key] = rng.Hex(64);
}

std::string ImageRef(Plan& plan, const Container& c) {
  const std::string repo = fmt::format("{}/{}", kRegistry, c.repo);
  if (c.by_digest) return repo + "@sha256:" + Digest(plan, c.repo, c.tag);
  return repo + ":" + c.tag;
}

// ---- Nodes -------------------------------------------------------------------------------

std::vector<int> NodesPerPool(int n) {
  std::vector<int> count(kPoolCount, 0);
  if (n < kPoolCount) {
    for (int i = 0; i < n; ++i) count[kPoolPriority[i]] = 1;
    return count;
  }
  // One node each, the rest by share with the largest remainders (ties: pool order).
  std::vector<double> exact(kPoolCount);
  int given = kPoolCount;
  for (int p = 0; p < kPoolCount; ++p) {
    exact[p] = kPoolSpecs[p].share * (n - kPoolCount);
    count[p] = 1 + static_cast<int>(std::floor(exact[p]));
    given += static_cast<int>(std::floor(exact[p]));
  }
  std::vector<int> order(kPoolCount);
  for (int p = 0; p < kPoolCount; ++p) order[p] = p;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return exact[a] - std::floor(exact[a]) > exact[b] - std::floor(exact[b]);
  });
  for (int i = 0; given < n; ++i, ++given) ++count[order[i % kPoolCount]];
  return count;
}

void BuildNodes(Plan& plan) {
  Rng rng = Stream(plan.o.seed, kNodesStream);
  plan.cluster_id = "c" + rng.Hex(32);
  const std::vector<int> counts = NodesPerPool(plan.o.nodes);
  for (int p = 0; p < kPoolCount; ++p) {
    Pool pool;
    pool.spec = &kPoolSpecs[p];
    pool.id = "np" + rng.Hex(32);
    if (!pool.spec->instance.gpu.empty()) {
      pool.gpu = plan.catalog.Find(pool.spec->instance.gpu);
      for (const GpuNames& names : kGpuNames) {
        if (names.catalog == pool.spec->instance.gpu) pool.names = &names;
      }
      pool.exclusive = pool.spec->schedule == "default";
      if (!pool.exclusive) pool.units = CardMemoryUnits(pool.gpu->memory_mib);
    }
    plan.pools.push_back(pool);
  }
  for (int p = 0; p < kPoolCount; ++p) {
    Pool& pool = plan.pools[p];
    const Instance& inst = pool.spec->instance;
    for (int k = 0; k < counts[p]; ++k) {
      const int i = static_cast<int>(plan.nodes.size());
      Node node;
      node.ip = fmt::format("10.0.{}.{}", 1 + i / 240, 10 + i % 240);
      node.name = fmt::format("{}.{}", kRegion, node.ip);
      node.zone = std::string(kZones[k % 3]);
      node.uid = rng.Uuid();
      node.instance_id = "i-bp1" + rng.Chars(kLowerAlnum, 17);
      node.machine_id = rng.Hex(32);
      node.boot_id = rng.Uuid();
      node.system_uuid = rng.Uuid();
      node.pool = p;
      node.ordinal = k;
      // NVML-like capacity (the kernel keeps ~2.5 %) and the kubelet's reservations.
      node.cap_mem_ki = static_cast<int64_t>(inst.memory_gib * 1048576.0 * 0.9745);
      node.alloc_mem_ki = node.cap_mem_ki - std::min<int64_t>(node.cap_mem_ki / 8, 20 * 1048576);
      node.cpu_free_m = inst.cpu_alloc_m;
      node.mem_free_mib = node.alloc_mem_ki / 1024;
      node.pods_free = inst.max_pods;
      node.fb_per_pod = k % 2 == 0;
      node.created = plan.o.start_unix - kDay * (60 + rng.Int(0, 30)) - rng.Int(0, kDay - 1);
      node.first_card = static_cast<int>(plan.cards.size());
      node.cards = inst.gpus;
      for (int c = 0; c < inst.gpus; ++c) {
        Card card;
        card.node = i;
        card.index = c;
        card.uuid = "GPU-" + rng.Uuid();
        card.units_free = pool.units;
        plan.cards.push_back(card);
      }
      pool.capacity += pool.exclusive ? inst.gpus : static_cast<int64_t>(inst.gpus) * pool.units;
      pool.nodes.push_back(i);
      plan.nodes.push_back(std::move(node));
    }
  }
}

// ---- Workloads ---------------------------------------------------------------------------

constexpr double kPlannedFill = 0.8;  // of a GPU pool's units the workloads may ask for

int64_t VisibleQuotaMib(const Pool& pool, int units) {
  // cGPU's visible memory: floor(physical × units / card units) (semantics.md Appendix B).
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
// importer must get right.
void WorkloadBuilder::AddFixed(int& budget) {
  const GeneratorOptions& o = plan_.o;
  int sharing_nodes = 0;
  for (int p : {kL20Binpack, kL20Spread, kA10Share}) {
    sharing_nodes += static_cast<int>(plan_.pools[p].nodes.size());
  }
  const int shared = SharedPoolFor(kA10Share);
  const bool cpu = HasNodes(kCpuPool);
  const int fixed_pods = (cpu ? 2 + 2 + 3 : 0) + (HasNodes(kL20Binpack) ? 2 : 0) +
                         (shared >= 0 ? 2 + 1 : 0) + 1 + (HasNodes(kA100Pool) ? 1 : 0) +
                         sharing_nodes;
  const bool all = budget >= fixed_pods + 10;
  auto take = [&](int pods) {
    if (!all && budget < pods) return false;
    budget -= pods;
    return true;
  };

  // rag-api: a GPU service whose env holds an API key (the privacy tests' bait).
  if (shared >= 0 && take(2)) {
    GpuTemplate t{"rag-api", "ai-infer", "rag-server", "0.8.0", "rag", 8080, Probe::kHealthz,
                  4,         8,          0.05,         0.2,     1,     0,    false};
    Workload& w = AddShared(t, UniqueName("ai-infer", "rag-api"), shared, 2, false);
    Container& c = w.containers[0];
    if (o.planted_secrets) {
      c.env.push_back({"OPENAI_API_KEY", Secret("sk-live-" + secrets_.Chars(kBase62, 48)), "", ""});
    } else {
      c.env.push_back({"OPENAI_API_KEY", "", "openai", "api-key"});
    }
    c.env.push_back({"REDIS_PASSWORD", "", "redis-auth", "password"});
  }
  // llm-gateway (CPU): the same key, a JWT, and a deploy token in an annotation.
  if (cpu && take(2)) {
    CpuTemplate t{"llm-gateway", "ai-infer", "llm-gateway", "1.6.0", "gateway", 8080,
                  Probe::kTcp,   250,        500,           512,     1024};
    Workload& w = AddCpu(t, UniqueName("ai-infer", "llm-gateway"), 2);
    Container& c = w.containers[0];
    c.env.push_back({"UPSTREAM_URL", "http://rag-api.ai-infer.svc:8080", "", ""});
    if (o.planted_secrets) {
      const std::string key = plan_.secrets.empty()
                                  ? Secret("sk-live-" + secrets_.Chars(kBase62, 48))
                                  : plan_.secrets.front();
      c.env.push_back({"OPENAI_API_KEY", key, "", ""});
      const std::string payload = Base64Url(
          fmt::format(R"({{"sub":"llm-gateway","iss":"auth.internal","iat":{},"exp":{}}})",
                      w.created, w.created + 365 * kDay));
      c.env.push_back({"SERVICE_JWT",
                       Secret("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + payload + "." +
                              secrets_.Chars(std::string(kBase62) + "-_", 43)),
                       "", ""});
      const std::string token = Secret("glpat-" + secrets_.Chars(kBase62, 20));
      w.annotations["ci.aliyun-devops.com/deploy-token"] = token;
      w.template_annotations["ci.aliyun-devops.com/deploy-token"] = token;
    } else {
      c.env.push_back({"OPENAI_API_KEY", "", "openai", "api-key"});
    }
  }
  // coredns, as ACK installs it.
  if (cpu && take(2)) {
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
  if (cpu && take(3)) {
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
  if (HasNodes(kL20Binpack) && take(2)) {
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
  // Bare pods: a GPU debugging shell, and a CPU exporter applied by hand with a password.
  if (shared >= 0 && take(1)) {
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
    Workload& w = Add(Kind::kBarePod, "ai-infer", UniqueName("ai-infer", "cuda-debug"), shared, 1);
    w.labels = {{"run", w.name}};
    w.units_per_card = std::max(1, plan_.pools[shared].units / 22);
    Container c = MakeContainer("shell", "ai-infer/cuda", t.tag, 0, Probe::kNone, false);
    c.cpu_m = 1000;
    c.mem_mib = 4096;
    c.gpu_mem = w.units_per_card;
    c.env = {{"NVIDIA_DRIVER_CAPABILITIES", "compute,utility", "", ""}};
    w.containers.push_back(std::move(c));
    w.truth.gpu = true;
    w.truth.gpu_mem = w.units_per_card;
    w.truth.quota_mib = VisibleQuotaMib(plan_.pools[shared], w.units_per_card);
    w.truth.rest_mib = 600;  // an idle CUDA context and a few tensors, no traffic
    plan_.pools[shared].planned += w.units_per_card;
  }
  if (take(1)) {
    Workload& w =
        Add(Kind::kBarePod, "data", UniqueName("data", "batch-exporter"), cpu ? kCpuPool : -1, 1);
    w.labels = {{"run", w.name}};
    w.tolerate_all = !cpu;
    Container c = MakeContainer("exporter", "data/batch-exporter", "0.6.0", 0, Probe::kNone, false);
    c.cpu_m = 500;
    c.mem_mib = 1024;
    json env = json::array();
    if (o.planted_secrets) {
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
    // kubectl apply keeps the whole manifest, env values included, in an annotation.
    const json container = {{"env", env},
                            {"image", fmt::format("{}/data/batch-exporter:0.6.0", kRegistry)},
                            {"name", "exporter"},
                            {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}}}}};
    const json manifest = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"annotations", json::object()}, {"name", w.name}, {"namespace", "data"}}},
        {"spec", {{"containers", json::array({container})}}}};
    w.last_applied = manifest.dump() + "\n";
    w.restart_policy = "Never";
    w.containers.push_back(std::move(c));
  }
  // llm-70b asks for 8 whole cards; no node has them, so it stays Pending with the scheduler's
  // message (§3.7).
  if (HasNodes(kA100Pool) && take(1)) {
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
  if (sharing_nodes > 0 && take(sharing_nodes)) {
    Workload& w = Add(Kind::kDaemonSet, "kube-system",
                      UniqueName("kube-system", "gpushare-device-plugin-ds"), -1, sharing_nodes);
    w.labels = {{"app", "gpushare"}, {"component", "gpushare-device-plugin"}};
    w.tolerate_all = true;
    Container c = MakeContainer("gpushare", "acs/gpushare-device-plugin", "v1.0.1-3d0fa7c-aliyun",
                                0, Probe::kNone, false);
    c.cpu_m = 100;
    c.mem_mib = 300;
    c.env = {{"KUBECONFIG", "/etc/kubernetes/kubelet.conf", "", ""}};
    w.containers.push_back(std::move(c));
  }
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

void WorkloadBuilder::Build() {
  int budget = plan_.o.pods;
  AddFixed(budget);
  AddRandom(budget);
}

// ---- Placement ---------------------------------------------------------------------------

// The pod's peak memory on each of its cards, with its own offset (TruthPod::mem_offset_mib).
int64_t PeakCardMib(const Workload& w, int64_t offset) {
  const TruthWorkload& t = w.truth;
  return t.rest_mib + offset + std::llround(t.mib_per_rps * t.pod_mean_rate * (1 + t.amplitude));
}

class Placer {
 public:
  explicit Placer(Plan& plan) : plan_(plan) {}
  void PlaceAll();

 private:
  bool Tolerates(const Workload& w, const Node& node) const {
    return w.tolerate_all || w.pool == node.pool ||
           (w.pool < 0 && plan_.pools[node.pool].gpu == nullptr);
  }
  // Cards for the pod on `node` by the pool's placement rule; empty when it does not fit.
  std::vector<int> Cards(const Workload& w, const Node& node, int64_t peak) const;
  void Place(PodPlan& pod);
  std::string Unschedulable(const Workload& w) const;

  Plan& plan_;
};

std::vector<int> Placer::Cards(const Workload& w, const Node& node, int64_t peak) const {
  const Pool& pool = plan_.pools[node.pool];
  std::vector<int> fit;
  for (int c = node.first_card; c < node.first_card + node.cards; ++c) {
    const Card& card = plan_.cards[c];
    if (w.whole > 0) {
      if (card.pods == 0) fit.push_back(c);
      continue;
    }
    if (card.whole || card.units_free < w.units_per_card) continue;
    if (w.whole_device && card.units_free != pool.units) continue;
    if (pool.spec->max_pod > 0 && card.pods >= pool.spec->max_pod) continue;
    // Soft isolation: the card's real total must stay within its physical memory.
    if (card.peak_mib + peak > pool.gpu->memory_mib) continue;
    fit.push_back(c);
  }
  const int need = w.whole > 0 ? w.whole : w.gpu_count;
  if (static_cast<int>(fit.size()) < need) return {};
  if (w.whole == 0) {
    // binpack: the fullest card that fits; spread: the emptiest (semantics.md §1.5).
    const bool spread = pool.spec->placement == "spread";
    std::stable_sort(fit.begin(), fit.end(), [&](int a, int b) {
      const int fa = plan_.cards[a].units_free, fb = plan_.cards[b].units_free;
      return spread ? fa > fb : fa < fb;
    });
  }
  fit.resize(static_cast<size_t>(need));
  std::sort(fit.begin(), fit.end());
  return fit;
}

void Placer::Place(PodPlan& pod) {
  const Workload& w = plan_.workloads[pod.workload];
  int64_t cpu = 0, mem = 0;
  for (const Container& c : w.containers) {
    cpu += c.cpu_m;
    mem += c.mem_mib;
  }
  const bool gpu = w.units_per_card > 0 || w.whole > 0;
  const int64_t peak = w.whole > 0 ? 0 : PeakCardMib(w, pod.mem_offset);
  // kube-scheduler spreads (LeastAllocated); we take the fitting node with the most GPU units
  // (or CPU) left, the lowest index on ties, so the placement is easy to reproduce.
  int best = -1;
  std::vector<int> best_cards;
  double best_score = -1;
  auto consider = [&](int n) {
    const Node& node = plan_.nodes[n];
    if (!Tolerates(w, node)) return;
    if (node.cpu_free_m < cpu || node.mem_free_mib < mem || node.pods_free < 1) return;
    std::vector<int> cards;
    if (gpu) {
      cards = Cards(w, node, peak);
      if (cards.empty()) return;
    }
    double score = static_cast<double>(node.cpu_free_m) /
                   static_cast<double>(plan_.pools[node.pool].spec->instance.cpu_alloc_m);
    if (gpu && node.cards > 0) {
      double free = 0;
      for (int c = node.first_card; c < node.first_card + node.cards; ++c) {
        const Card& card = plan_.cards[c];
        free += w.whole > 0 ? (card.pods == 0 ? 1.0 : 0.0)
                            : static_cast<double>(card.units_free) /
                                  static_cast<double>(plan_.pools[node.pool].units);
      }
      score = free / node.cards;
    }
    if (score > best_score) {
      best = n;
      best_score = score;
      best_cards = std::move(cards);
    }
  };
  if (w.pool >= 0) {
    for (int n : plan_.pools[w.pool].nodes) consider(n);
  } else {
    for (int n = 0; n < static_cast<int>(plan_.nodes.size()); ++n) consider(n);
  }
  if (best < 0) {
    pod.message = Unschedulable(w);
    return;
  }
  Node& node = plan_.nodes[best];
  node.cpu_free_m -= cpu;
  node.mem_free_mib -= mem;
  node.pods_free -= 1;
  for (const Container& c : w.containers) {
    const std::string image = c.repo + ":" + c.tag;
    if (std::find(node.images.begin(), node.images.end(), image) == node.images.end()) {
      node.images.push_back(image);
    }
  }
  for (int c : best_cards) {
    Card& card = plan_.cards[c];
    card.pods += 1;
    if (w.whole > 0) {
      card.whole = true;
    } else {
      card.units_free -= w.units_per_card;
      card.peak_mib += peak;
    }
  }
  pod.node = best;
  pod.cards = std::move(best_cards);
}

// The scheduler's FailedScheduling message (semantics.md §3.7), in the simple form that
// applies here: the pool's nodes lack the resource, the others do not match the selector.
std::string Placer::Unschedulable(const Workload& w) const {
  const int total = static_cast<int>(plan_.nodes.size());
  const int in_pool = w.pool >= 0 ? static_cast<int>(plan_.pools[w.pool].nodes.size()) : total;
  std::string resource = "cpu";
  if (w.whole > 0) {
    resource = "nvidia.com/gpu";
  } else if (w.units_per_card > 0) {
    resource = "aliyun.com/gpu-mem";
  }
  std::string reasons = fmt::format("{} Insufficient {}", in_pool, resource);
  std::string preemption = fmt::format("{} No preemption victims found for incoming pod", in_pool);
  if (total > in_pool) {
    reasons +=
        fmt::format(", {} node(s) didn't match Pod's node affinity/selector", total - in_pool);
    preemption += fmt::format(", {} Preemption is not helpful for scheduling", total - in_pool);
  }
  return fmt::format("0/{} nodes are available: {}. preemption: 0/{} nodes are available: {}.",
                     total, reasons, total, preemption);
}

void Placer::PlaceAll() {
  // DaemonSet pods first (the DaemonSet controller binds them to their node directly), then
  // the workloads in the order they were made.
  for (int wi = 0; wi < static_cast<int>(plan_.workloads.size()); ++wi) {
    Workload& w = plan_.workloads[wi];
    std::vector<int> ds_nodes;
    if (w.kind == Kind::kDaemonSet) {
      for (int n = 0; n < static_cast<int>(plan_.nodes.size()); ++n) {
        const Pool& pool = plan_.pools[plan_.nodes[n].pool];
        if (pool.gpu != nullptr && !pool.exclusive) ds_nodes.push_back(n);
      }
      w.replicas = static_cast<int>(ds_nodes.size());
      w.truth.replicas = w.replicas;
    }
    Rng names = Stream(plan_.o.seed, kPodStreamBase + (uint64_t{1} << 40) + wi);
    std::set<std::string> suffixes;
    for (int r = 0; r < w.replicas; ++r) {
      const int index = static_cast<int>(plan_.pods.size());
      PodPlan pod;
      pod.workload = wi;
      pod.ordinal = r;
      std::string suffix;
      do {
        suffix = names.Chars(kKubeAlphabet, 5);
      } while (!suffixes.insert(suffix).second);
      switch (w.kind) {
        case Kind::kDeployment:
          pod.name = fmt::format("{}-{}-{}", w.name, w.hash, suffix);
          break;
        case Kind::kStatefulSet:
          pod.name = fmt::format("{}-{}", w.name, r);
          break;
        case Kind::kDaemonSet:
          pod.name = fmt::format("{}-{}", w.name, suffix);
          break;
        case Kind::kBarePod:
          pod.name = w.name;
          break;
      }
      pod.uid = names.Uuid();
      pod.ip = fmt::format("172.{}.{}.{}", 16 + index / 65024, index / 254 % 256, 1 + index % 254);
      // Distinct per pod (index × 37 mod 211 repeats only 211 pods apart), so two pods of one
      // workload on one card never report identical memory.
      pod.mem_offset = w.truth.has_traffic ? (int64_t{index} * 37) % 211 : 0;
      pod.created = w.created + names.Int(0, 2 * static_cast<int>(kDay));
      pod.created = std::min(pod.created, plan_.o.start_unix - 3600);
      pod.restarts = names.Chance(0.1) ? names.Int(1, 3) : 0;
      if (w.kind == Kind::kDaemonSet) {
        Node& node = plan_.nodes[ds_nodes[r]];
        const Container& c = w.containers[0];
        node.cpu_free_m -= c.cpu_m;
        node.mem_free_mib -= c.mem_mib;
        node.pods_free -= 1;
        node.images.push_back(c.repo + ":" + c.tag);
        pod.node = ds_nodes[r];
      } else {
        Place(pod);
      }
      w.pods.push_back(index);
      plan_.pods.push_back(std::move(pod));
    }
  }
}

// ---- Kubernetes objects ------------------------------------------------------------------

std::string Cpu(int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : fmt::format("{}m", milli);
}
std::string Mem(int64_t mib) {
  return mib % 1024 == 0 ? fmt::format("{}Gi", mib / 1024) : fmt::format("{}Mi", mib);
}

json ProbeJson(Probe probe, int port, bool liveness) {
  json p = {{"failureThreshold", 3},
            {"periodSeconds", 10},
            {"successThreshold", 1},
            {"timeoutSeconds", 1}};
  p["initialDelaySeconds"] = liveness ? 60 : 10;
  switch (probe) {
    case Probe::kHealthz:
      p["httpGet"] = {{"path", "/healthz"}, {"port", port}, {"scheme", "HTTP"}};
      break;
    case Probe::kModels:
      p["httpGet"] = {{"path", "/v1/models"}, {"port", port}, {"scheme", "HTTP"}};
      break;
    case Probe::kTcp:
      p["tcpSocket"] = {{"port", port}};
      break;
    case Probe::kGrpc:
      p["grpc"] = {{"port", port}, {"service", ""}};
      break;
    case Probe::kExec:
      p["exec"] = {{"command",
                    port > 0 ? json::array({"/bin/sh", "-c",
                                            fmt::format("curl -sf http://127.0.0.1:{}/ping", port)})
                             : json::array({"/bin/sh", "-c", "test -f /tmp/ready"})}};
      break;
    case Probe::kNone:
      break;
  }
  return p;
}

class ObjectWriter {
 public:
  explicit ObjectWriter(Plan& plan) : plan_(plan) {}
  json NodeJson(int n);
  json PodJson(int p);
  json DeploymentJson(const Workload& w);
  std::vector<json> ReplicaSetJson(const Workload& w);
  json StatefulSetJson(const Workload& w);
  void ClaimsJson(const Workload& w, std::vector<json>& pvcs, std::vector<json>& pvs);
  json PdbJson(const Workload& w, const json& budget);
  std::vector<json> StorageClassJson() const;
  std::vector<json> QuotaJson();

 private:
  json ContainerJson(const Container& c, const std::string& api_volume);
  json PodSpecJson(const Workload& w, const PodPlan* pod, Rng* rng);
  json TemplateJson(const Workload& w, bool with_hash);
  json Meta(const std::string& ns, const std::string& name, const std::string& uid, int64_t created,
            Rng& rng);
  int Running(const Workload& w) const {
    int n = 0;
    for (int p : w.pods) n += plan_.pods[p].node >= 0 ? 1 : 0;
    return n;
  }

  Plan& plan_;
};

json ObjectWriter::Meta(const std::string& ns, const std::string& name, const std::string& uid,
                        int64_t created, Rng& rng) {
  json m = {{"name", name},
            {"uid", uid},
            {"creationTimestamp", Rfc3339(created)},
            {"resourceVersion", std::to_string(rng.Int(100000000, 119999999))}};
  if (!ns.empty()) m["namespace"] = ns;
  return m;
}

json ObjectWriter::NodeJson(int n) {
  const Node& node = plan_.nodes[n];
  const Pool& pool = plan_.pools[node.pool];
  const Instance& inst = pool.spec->instance;
  Rng rng = Stream(plan_.o.seed, kPodStreamBase + (uint64_t{2} << 40) + n);
  json labels = {{"ack.aliyun.com", plan_.cluster_id},
                 {std::string(kPoolLabel), pool.id},
                 {"beta.kubernetes.io/arch", "amd64"},
                 {"beta.kubernetes.io/instance-type", inst.name},
                 {"beta.kubernetes.io/os", "linux"},
                 {"failure-domain.beta.kubernetes.io/region", kRegion},
                 {"failure-domain.beta.kubernetes.io/zone", node.zone},
                 {"kubernetes.io/arch", "amd64"},
                 {"kubernetes.io/hostname", node.name},
                 {"kubernetes.io/os", "linux"},
                 {"node.csi.alibabacloud.com/disktype.cloud_essd", "available"},
                 {"node.kubernetes.io/instance-type", inst.name},
                 {"topology.diskplugin.csi.alibabacloud.com/zone", node.zone},
                 {"topology.kubernetes.io/region", kRegion},
                 {"topology.kubernetes.io/zone", node.zone}};
  json capacity = {{"cpu", std::to_string(inst.vcpu)},
                   {"ephemeral-storage", "123329516Ki"},
                   {"hugepages-1Gi", "0"},
                   {"hugepages-2Mi", "0"},
                   {"memory", fmt::format("{}Ki", node.cap_mem_ki)},
                   {"pods", std::to_string(inst.max_pods)}};
  json allocatable = capacity;
  allocatable["cpu"] = Cpu(inst.cpu_alloc_m);
  allocatable["ephemeral-storage"] = "113659787795";
  allocatable["memory"] = fmt::format("{}Ki", node.alloc_mem_ki);
  json spec = {{"providerID", fmt::format("{}.{}", kRegion, node.instance_id)}};
  if (pool.gpu != nullptr) {
    labels["ack.node.gpu.schedule"] = pool.spec->schedule;
    if (!pool.spec->placement.empty()) labels["ack.node.gpu.placement"] = pool.spec->placement;
    if (pool.spec->max_pod > 0) labels["ack.node.gpu.max-pod"] = std::to_string(pool.spec->max_pod);
    labels["aliyun.accelerator/nvidia_count"] = std::to_string(inst.gpus);
    labels["aliyun.accelerator/nvidia_mem"] = fmt::format("{}MiB", pool.gpu->memory_mib);
    labels["aliyun.accelerator/nvidia_name"] = pool.names->node_label;
    for (json* r : {&capacity, &allocatable}) {
      if (pool.exclusive) {
        (*r)["nvidia.com/gpu"] = std::to_string(inst.gpus);
      } else {
        // The device plugin patches both (semantics.md §1.1); nvidia.com/gpu reads 0 here.
        (*r)["aliyun.com/gpu-count"] = std::to_string(inst.gpus);
        (*r)["aliyun.com/gpu-mem"] = std::to_string(inst.gpus * pool.units);
        (*r)["nvidia.com/gpu"] = "0";
      }
    }
    spec["taints"] =
        json::array({{{"effect", "NoSchedule"}, {"key", kGpuTaintKey}, {"value", "present"}}});
  } else {
    labels["workload-type"] = "general";
  }
  json meta = Meta("", node.name, node.uid, node.created, rng);
  meta["labels"] = labels;
  meta["annotations"] = {
      {"csi.volume.kubernetes.io/nodeid",
       fmt::format(R"({{"diskplugin.csi.alibabacloud.com":"{}"}})", node.instance_id)},
      {"node.alpha.kubernetes.io/ttl", "0"},
      {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}};
  const std::string heartbeat = Rfc3339(plan_.now - rng.Int(5, 50));
  const std::string since = Rfc3339(node.created + 32);
  auto condition = [&](const char* type, const char* status, const char* reason,
                       const char* message) {
    return json{{"lastHeartbeatTime", heartbeat},
                {"lastTransitionTime", since},
                {"message", message},
                {"reason", reason},
                {"status", status},
                {"type", type}};
  };
  json images = json::array();
  std::vector<std::string> names = node.images;
  names.push_back("acs/coredns:v1.9.3.10-7dfca203-aliyun");
  names.push_back("acs/kube-proxy:v1.28.9-aliyun.1");
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& image : names) {
    const size_t colon = image.rfind(':');
    const std::string repo = image.substr(0, colon), tag = image.substr(colon + 1);
    Rng size(HashText(image));
    images.push_back(
        {{"names",
          {fmt::format("{}/{}@sha256:{}", kRegistry, repo, Digest(plan_, repo, tag)),
           fmt::format("{}/{}", kRegistry, image)}},
         {"sizeBytes", int64_t{size.Int(12, 12000)} * 1048576 + size.Int(0, 1048575)}});
  }
  json status = {{"addresses",
                  {{{"address", node.ip}, {"type", "InternalIP"}},
                   {{"address", node.name}, {"type", "Hostname"}}}},
                 {"allocatable", allocatable},
                 {"capacity", capacity},
                 {"conditions",
                  {condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                             "kubelet has sufficient memory available"),
                   condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                             "kubelet has no disk pressure"),
                   condition("PIDPressure", "False", "KubeletHasSufficientPID",
                             "kubelet has sufficient PID available"),
                   condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")}},
                 {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
                 {"images", images},
                 {"nodeInfo",
                  {{"architecture", "amd64"},
                   {"bootID", node.boot_id},
                   {"containerRuntimeVersion", "containerd://1.6.28"},
                   {"kernelVersion", "5.10.134-16.1.al8.x86_64"},
                   {"kubeProxyVersion", kKubeletVersion},
                   {"kubeletVersion", kKubeletVersion},
                   {"machineID", node.machine_id},
                   {"operatingSystem", "linux"},
                   {"osImage", "Alibaba Cloud Linux 3.2104 U9 (OpenAnolis Edition)"},
                   {"systemUUID", node.system_uuid}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", meta},
          {"spec", spec},
          {"status", status}};
}

json ObjectWriter::ContainerJson(const Container& c, const std::string& api_volume) {
  json requests = {{"cpu", Cpu(c.cpu_m)}, {"memory", Mem(c.mem_mib)}};
  json limits = {{"memory", Mem(c.mem_mib)}};
  // Extended resources go in limits; the API server copies them to requests (§1.1).
  if (c.gpu_mem > 0) {
    limits["aliyun.com/gpu-mem"] = std::to_string(c.gpu_mem);
    requests["aliyun.com/gpu-mem"] = std::to_string(c.gpu_mem);
  }
  if (c.whole_gpus > 0) {
    limits["nvidia.com/gpu"] = std::to_string(c.whole_gpus);
    requests["nvidia.com/gpu"] = std::to_string(c.whole_gpus);
  }
  json j = {{"image", ImageRef(plan_, c)},
            {"imagePullPolicy", "IfNotPresent"},
            {"name", c.name},
            {"resources", {{"limits", limits}, {"requests", requests}}},
            {"terminationMessagePath", "/dev/termination-log"},
            {"terminationMessagePolicy", "File"}};
  if (c.port > 0) {
    j["ports"] = json::array({{{"containerPort", c.port},
                               {"name", c.probe == Probe::kGrpc ? "grpc" : "http"},
                               {"protocol", "TCP"}}});
  }
  if (c.probe != Probe::kNone) j["readinessProbe"] = ProbeJson(c.probe, c.port, false);
  if (c.liveness && c.port > 0) j["livenessProbe"] = ProbeJson(Probe::kTcp, c.port, true);
  if (!c.env.empty()) {
    json env = json::array();
    for (const Env& e : c.env) {
      if (!e.secret_name.empty()) {
        env.push_back(
            {{"name", e.name},
             {"valueFrom", {{"secretKeyRef", {{"key", e.secret_key}, {"name", e.secret_name}}}}}});
      } else {
        env.push_back({{"name", e.name}, {"value", e.value}});
      }
    }
    j["env"] = env;
  }
  json mounts = json::array();
  for (const auto& [volume, path] : c.mounts) {
    mounts.push_back({{"mountPath", path}, {"name", volume}});
  }
  if (!api_volume.empty()) {
    mounts.push_back({{"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
                      {"name", api_volume},
                      {"readOnly", true}});
  }
  if (!mounts.empty()) j["volumeMounts"] = mounts;
  return j;
}

// The pod spec of a template (pod == nullptr) or of one pod, with what admission and the
// scheduler add to a pod: the service-account volume, default tolerations, nodeName.
json ObjectWriter::PodSpecJson(const Workload& w, const PodPlan* pod, Rng* rng) {
  const std::string api_volume = pod ? "kube-api-access-" + rng->Chars(kKubeAlphabet, 5) : "";
  json containers = json::array();
  for (const Container& c : w.containers) containers.push_back(ContainerJson(c, api_volume));
  json spec = {{"containers", containers},
               {"dnsPolicy", "ClusterFirst"},
               {"enableServiceLinks", true},
               {"restartPolicy", w.restart_policy},
               {"schedulerName", "default-scheduler"},
               {"securityContext", json::object()},
               {"serviceAccountName", "default"},
               {"terminationGracePeriodSeconds", 30}};
  if (pod) {
    spec["preemptionPolicy"] = "PreemptLowerPriority";
    spec["priority"] = 0;
    spec["serviceAccount"] = "default";
    if (pod->node >= 0) spec["nodeName"] = plan_.nodes[pod->node].name;
  }
  json tolerations = json::array();
  if (w.tolerate_all) {
    tolerations.push_back({{"operator", "Exists"}});
  } else if (w.pool >= 0 && plan_.pools[w.pool].gpu != nullptr) {
    tolerations.push_back(
        {{"effect", "NoSchedule"}, {"key", kGpuTaintKey}, {"operator", "Exists"}});
  }
  if (pod) {
    for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      tolerations.push_back({{"effect", "NoExecute"},
                             {"key", key},
                             {"operator", "Exists"},
                             {"tolerationSeconds", 300}});
    }
  }
  if (!tolerations.empty()) spec["tolerations"] = tolerations;
  if (w.pool >= 0 && w.kind != Kind::kDaemonSet) {
    spec["nodeSelector"] = {{std::string(kPoolLabel), plan_.pools[w.pool].id}};
  }
  if (w.kind == Kind::kDaemonSet && pod && pod->node >= 0) {
    // The DaemonSet controller pins each pod to its node with matchFields (§5.3).
    spec["affinity"] = {{"nodeAffinity",
                         {{"requiredDuringSchedulingIgnoredDuringExecution",
                           {{"nodeSelectorTerms",
                             {{{"matchFields",
                                {{{"key", "metadata.name"},
                                  {"operator", "In"},
                                  {"values", {plan_.nodes[pod->node].name}}}}}}}}}}}}};
  }
  if (w.kind == Kind::kStatefulSet && pod) {
    spec["hostname"] = pod->name;
    spec["subdomain"] = w.service_name;
  }
  json volumes = json::array();
  if (pod) {
    for (const Claim& claim : w.claims) {
      volumes.push_back(
          {{"name", claim.name},
           {"persistentVolumeClaim",
            {{"claimName", fmt::format("{}-{}-{}", claim.name, w.name, pod->ordinal)}}}});
    }
    volumes.push_back(
        {{"name", api_volume},
         {"projected",
          {{"defaultMode", 420},
           {"sources",
            {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
             {{"configMap",
               {{"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}},
                {"name", "kube-root-ca.crt"}}}},
             {{"downwardAPI",
               {{"items",
                 {{{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}},
                   {"path", "namespace"}}}}}}}}}}}});
  }
  if (!volumes.empty()) spec["volumes"] = volumes;
  return spec;
}

json ObjectWriter::TemplateJson(const Workload& w, bool with_hash) {
  json labels = w.labels;
  if (with_hash) labels["pod-template-hash"] = w.hash;
  json meta = {{"creationTimestamp", nullptr}, {"labels", labels}};
  if (!w.template_annotations.empty()) meta["annotations"] = w.template_annotations;
  return {{"metadata", meta}, {"spec", PodSpecJson(w, nullptr, nullptr)}};
}

json ObjectWriter::PodJson(int p) {
  const PodPlan& pod = plan_.pods[p];
  const Workload& w = plan_.workloads[pod.workload];
  Rng rng = Stream(plan_.o.seed, kPodStreamBase + p);
  json meta = Meta(w.ns, pod.name, pod.uid, pod.created, rng);
  json labels = w.labels;
  json owner;
  switch (w.kind) {
    case Kind::kDeployment:
      labels["pod-template-hash"] = w.hash;
      meta["generateName"] = fmt::format("{}-{}-", w.name, w.hash);
      owner = {{"kind", "ReplicaSet"},
               {"name", fmt::format("{}-{}", w.name, w.hash)},
               {"uid", w.rs_uid}};
      break;
    case Kind::kStatefulSet:
      labels["controller-revision-hash"] = w.revision_hash;
      labels["statefulset.kubernetes.io/pod-name"] = pod.name;
      labels["apps.kubernetes.io/pod-index"] = std::to_string(pod.ordinal);
      meta["generateName"] = w.name + "-";
      owner = {{"kind", "StatefulSet"}, {"name", w.name}, {"uid", w.uid}};
      break;
    case Kind::kDaemonSet:
      labels["controller-revision-hash"] = w.revision_hash.substr(w.revision_hash.rfind('-') + 1);
      labels["pod-template-generation"] = "1";
      meta["generateName"] = w.name + "-";
      owner = {{"kind", "DaemonSet"}, {"name", w.name}, {"uid", w.uid}};
      break;
    case Kind::kBarePod:
      break;
  }
  if (owner.is_object()) {
    owner["apiVersion"] = "apps/v1";
    owner["blockOwnerDeletion"] = true;
    owner["controller"] = true;
    meta["ownerReferences"] = json::array({owner});
  }
  if (w.gpu_count > 1 && w.whole == 0) labels["aliyun.com/gpu-count"] = std::to_string(w.gpu_count);
  if (w.whole_device) labels["ack.gpushare.placement"] = "require-whole-device";
  meta["labels"] = labels;
  json annotations = w.template_annotations;
  if (!w.last_applied.empty()) {
    annotations["kubectl.kubernetes.io/last-applied-configuration"] = w.last_applied;
  }
  // The scheduler's card allocation (semantics.md §1.3) in the form the pool's scheduler writes.
  if (pod.node >= 0 && w.units_per_card > 0) {
    const Node& node = plan_.nodes[pod.node];
    const Pool& pool = plan_.pools[node.pool];
    const std::string assume_time = fmt::format("{}{:09}", pod.created + rng.Int(1, 5),
                                                static_cast<int64_t>(rng.Int(0, 999999999)));
    if (pool.spec->allocation == Allocation::kV1) {
      annotations["ALIYUN_COM_GPU_MEM_IDX"] = std::to_string(plan_.cards[pod.cards[0]].index);
      annotations["ALIYUN_COM_GPU_MEM_POD"] = std::to_string(w.units_per_card);
      annotations["ALIYUN_COM_GPU_MEM_DEV"] = std::to_string(pool.units);
      annotations["ALIYUN_COM_GPU_MEM_ASSIGNED"] = "true";
      annotations["ALIYUN_COM_GPU_MEM_ASSUME_TIME"] = assume_time;
    } else {
      json allocation = json::object();
      for (size_t ci = 0; ci < w.containers.size(); ++ci) {
        const Container& c = w.containers[ci];
        if (c.gpu_mem == 0) continue;
        json per_card = json::object();
        for (int card : pod.cards) {
          const int units = c.gpu_mem / w.gpu_count;
          const std::string index = std::to_string(plan_.cards[card].index);
          if (pool.spec->allocation == Allocation::kV2Fraction) {
            per_card[index] = fmt::format("{}/{}", units, pool.units);
          } else {
            per_card[index] = units;
          }
        }
        allocation[std::to_string(ci)] = per_card;
      }
      json devices = json::object();
      for (int c = 0; c < node.cards; ++c) devices[std::to_string(c)] = pool.units;
      annotations["scheduler.framework.gpushare.allocation"] = allocation.dump();
      annotations["gpushare.alibabacloud.com/device-resource"] = devices.dump();
      annotations["scheduler.framework.gpushare.assigned"] = "true";
      annotations["scheduler.framework.gpushare.assume-time"] = assume_time;
    }
  }
  if (!annotations.empty()) meta["annotations"] = annotations;

  json status;
  const std::string created = Rfc3339(pod.created);
  const std::string started = Rfc3339(pod.created + 2);
  if (pod.node >= 0) {
    const Node& node = plan_.nodes[pod.node];
    const std::string ready = Rfc3339(pod.created + 49);
    json conditions = json::array();
    for (const auto& [type, at] : {std::pair{"Initialized", started},
                                   {"Ready", ready},
                                   {"ContainersReady", ready},
                                   {"PodScheduled", created}}) {
      conditions.push_back({{"lastProbeTime", nullptr},
                            {"lastTransitionTime", at},
                            {"status", "True"},
                            {"type", type}});
    }
    json statuses = json::array();
    for (const Container& c : w.containers) {
      json s = {{"containerID", "containerd://" + rng.Hex(64)},
                {"image", ImageRef(plan_, c)},
                {"imageID",
                 fmt::format("{}/{}@sha256:{}", kRegistry, c.repo, Digest(plan_, c.repo, c.tag))},
                {"lastState", json::object()},
                {"name", c.name},
                {"ready", true},
                {"restartCount", pod.restarts},
                {"started", true},
                {"state", {{"running", {{"startedAt", Rfc3339(pod.created + 21)}}}}}};
      statuses.push_back(s);
    }
    status = {{"conditions", conditions},
              {"containerStatuses", statuses},
              {"hostIP", node.ip},
              {"hostIPs", {{{"ip", node.ip}}}},
              {"phase", "Running"},
              {"podIP", pod.ip},
              {"podIPs", {{{"ip", pod.ip}}}},
              {"qosClass", "Burstable"},
              {"startTime", started}};
  } else {
    status = {{"conditions",
               {{{"lastProbeTime", nullptr},
                 {"lastTransitionTime", created},
                 {"message", pod.message},
                 {"reason", "Unschedulable"},
                 {"status", "False"},
                 {"type", "PodScheduled"}}}},
              {"phase", "Pending"},
              {"qosClass", "Burstable"}};
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", meta},
          {"spec", PodSpecJson(w, &pod, &rng)},
          {"status", status}};
}

json ObjectWriter::DeploymentJson(const Workload& w) {
  Rng rng(Mix64(HashText(w.uid)));
  const int running = Running(w);
  // The Deployment predates its ReplicaSets: one rollout every few days.
  json meta = Meta(w.ns, w.name, w.uid, w.created - w.revision * 5 * kDay, rng);
  meta["labels"] = w.labels;
  meta["generation"] = w.revision;
  json annotations = w.annotations;
  annotations["deployment.kubernetes.io/revision"] = std::to_string(w.revision);
  meta["annotations"] = annotations;
  json status = {{"observedGeneration", w.revision},
                 {"replicas", w.replicas},
                 {"updatedReplicas", w.replicas},
                 {"readyReplicas", running},
                 {"availableReplicas", running}};
  if (running < w.replicas) status["unavailableReplicas"] = w.replicas - running;
  const std::string at = Rfc3339(w.created + 60);
  status["conditions"] = {
      {{"lastTransitionTime", at},
       {"lastUpdateTime", at},
       {"message", running == w.replicas ? "Deployment has minimum availability."
                                         : "Deployment does not have minimum availability."},
       {"reason",
        running == w.replicas ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable"},
       {"status", running == w.replicas ? "True" : "False"},
       {"type", "Available"}},
      {{"lastTransitionTime", at},
       {"lastUpdateTime", at},
       {"message",
        fmt::format("ReplicaSet \"{}-{}\" has successfully progressed.", w.name, w.hash)},
       {"reason", "NewReplicaSetAvailable"},
       {"status", "True"},
       {"type", "Progressing"}}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", meta},
          {"spec",
           {{"progressDeadlineSeconds", 600},
            {"replicas", w.replicas},
            {"revisionHistoryLimit", 10},
            {"selector", {{"matchLabels", w.labels}}},
            {"strategy",
             {{"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}},
              {"type", "RollingUpdate"}}},
            {"template", TemplateJson(w, false)}}},
          {"status", status}};
}

std::vector<json> ObjectWriter::ReplicaSetJson(const Workload& w) {
  Rng rng(Mix64(HashText(w.rs_uid)));
  std::vector<json> out;
  const int running = Running(w);
  auto one = [&](const std::string& hash, const std::string& uid, int replicas, int revision,
                 int ready) {
    json labels = w.labels;
    labels["pod-template-hash"] = hash;
    // The current ReplicaSet was made with its pods' rollout; the previous one a rollout before.
    json meta = Meta(w.ns, fmt::format("{}-{}", w.name, hash), uid,
                     w.created - (w.revision - revision) * 5 * kDay, rng);
    meta["labels"] = labels;
    meta["generation"] = 1;
    meta["annotations"] = {
        {"deployment.kubernetes.io/desired-replicas", std::to_string(w.replicas)},
        {"deployment.kubernetes.io/max-replicas",
         std::to_string(w.replicas + (w.replicas + 3) / 4)},
        {"deployment.kubernetes.io/revision", std::to_string(revision)}};
    meta["ownerReferences"] = json::array({{{"apiVersion", "apps/v1"},
                                            {"blockOwnerDeletion", true},
                                            {"controller", true},
                                            {"kind", "Deployment"},
                                            {"name", w.name},
                                            {"uid", w.uid}}});
    json tmpl = TemplateJson(w, true);
    tmpl["metadata"]["labels"]["pod-template-hash"] = hash;
    json status = {{"observedGeneration", 1}, {"replicas", replicas}};
    if (replicas > 0) {
      status["availableReplicas"] = ready;
      status["fullyLabeledReplicas"] = replicas;
      status["readyReplicas"] = ready;
    }
    out.push_back(
        {{"apiVersion", "apps/v1"},
         {"kind", "ReplicaSet"},
         {"metadata", meta},
         {"spec",
          {{"replicas", replicas}, {"selector", {{"matchLabels", labels}}}, {"template", tmpl}}},
         {"status", status}});
  };
  if (!w.old_hash.empty()) one(w.old_hash, w.old_rs_uid, 0, w.revision - 1, 0);
  one(w.hash, w.rs_uid, w.replicas, w.revision, running);
  return out;
}

json ObjectWriter::StatefulSetJson(const Workload& w) {
  Rng rng(Mix64(HashText(w.uid)));
  const int running = Running(w);
  json meta = Meta(w.ns, w.name, w.uid, w.created, rng);
  meta["labels"] = w.labels;
  meta["generation"] = 1;
  json claims = json::array();
  for (const Claim& c : w.claims) {
    claims.push_back({{"apiVersion", "v1"},
                      {"kind", "PersistentVolumeClaim"},
                      {"metadata", {{"creationTimestamp", nullptr}, {"name", c.name}}},
                      {"spec",
                       {{"accessModes", {"ReadWriteOnce"}},
                        {"resources", {{"requests", {{"storage", c.storage}}}}},
                        {"storageClassName", c.storage_class},
                        {"volumeMode", "Filesystem"}}},
                      {"status", {{"phase", "Pending"}}}});
  }
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", meta},
          {"spec",
           {{"persistentVolumeClaimRetentionPolicy",
             {{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}}},
            {"podManagementPolicy", "OrderedReady"},
            {"replicas", w.replicas},
            {"revisionHistoryLimit", 10},
            {"selector", {{"matchLabels", w.labels}}},
            {"serviceName", w.service_name},
            {"template", TemplateJson(w, false)},
            {"updateStrategy", {{"rollingUpdate", {{"partition", 0}}}, {"type", "RollingUpdate"}}},
            {"volumeClaimTemplates", claims}}},
          {"status",
           {{"availableReplicas", running},
            {"collisionCount", 0},
            {"currentReplicas", w.replicas},
            {"currentRevision", w.revision_hash},
            {"observedGeneration", 1},
            {"readyReplicas", running},
            {"replicas", w.replicas},
            {"updateRevision", w.revision_hash},
            {"updatedReplicas", w.replicas}}}};
}

// Claims `<template>-<statefulset>-<ordinal>` and the disks provisioned for them (ACK names a
// dynamically provisioned disk volume after the disk, d-...).
void ObjectWriter::ClaimsJson(const Workload& w, std::vector<json>& pvcs, std::vector<json>& pvs) {
  Rng rng(Mix64(HashText(w.uid) + 7));
  for (const Claim& c : w.claims) {
    for (int p : w.pods) {
      const PodPlan& pod = plan_.pods[p];
      const std::string claim = fmt::format("{}-{}-{}", c.name, w.name, pod.ordinal);
      const std::string claim_uid = rng.Uuid();
      const std::string volume = "d-bp1" + rng.Chars(kLowerAlnum, 15);
      const std::string zone = pod.node >= 0 ? plan_.nodes[pod.node].zone : std::string(kZones[0]);
      const bool bound = pod.node >= 0;
      json meta = Meta(w.ns, claim, claim_uid, pod.created, rng);
      meta["labels"] = w.labels;
      meta["finalizers"] = {"kubernetes.io/pvc-protection"};
      json annotations = {
          {"volume.beta.kubernetes.io/storage-provisioner", "diskplugin.csi.alibabacloud.com"},
          {"volume.kubernetes.io/storage-provisioner", "diskplugin.csi.alibabacloud.com"}};
      if (bound) {
        annotations["pv.kubernetes.io/bind-completed"] = "yes";
        annotations["pv.kubernetes.io/bound-by-controller"] = "yes";
        annotations["volume.kubernetes.io/selected-node"] = plan_.nodes[pod.node].name;
      }
      meta["annotations"] = annotations;
      json spec = {{"accessModes", {"ReadWriteOnce"}},
                   {"resources", {{"requests", {{"storage", c.storage}}}}},
                   {"storageClassName", c.storage_class},
                   {"volumeMode", "Filesystem"}};
      json status = {{"phase", bound ? "Bound" : "Pending"}};
      if (bound) {
        spec["volumeName"] = volume;
        status["accessModes"] = {"ReadWriteOnce"};
        status["capacity"] = {{"storage", c.storage}};
      }
      pvcs.push_back({{"apiVersion", "v1"},
                      {"kind", "PersistentVolumeClaim"},
                      {"metadata", meta},
                      {"spec", spec},
                      {"status", status}});
      if (!bound) continue;  // WaitForFirstConsumer: no disk until the pod has a node
      const bool retain = c.storage_class.find("retain") != std::string::npos;
      json pv_meta = Meta("", volume, rng.Uuid(), pod.created + 20, rng);
      pv_meta["annotations"] = {
          {"pv.kubernetes.io/provisioned-by", "diskplugin.csi.alibabacloud.com"}};
      pv_meta["finalizers"] = {"kubernetes.io/pv-protection",
                               "external-attacher/diskplugin-csi-alibabacloud-com"};
      pv_meta["labels"] = {{"topology.kubernetes.io/region", kRegion},
                           {"topology.kubernetes.io/zone", zone}};
      json requirement = {{"key", "topology.diskplugin.csi.alibabacloud.com/zone"},
                          {"operator", "In"},
                          {"values", json::array({zone})}};
      json term = {{"matchExpressions", json::array({requirement})}};
      json zone_affinity = {{"required", {{"nodeSelectorTerms", json::array({term})}}}};
      pvs.push_back({{"apiVersion", "v1"},
                     {"kind", "PersistentVolume"},
                     {"metadata", pv_meta},
                     {"spec",
                      {{"accessModes", {"ReadWriteOnce"}},
                       {"capacity", {{"storage", c.storage}}},
                       {"claimRef",
                        {{"apiVersion", "v1"},
                         {"kind", "PersistentVolumeClaim"},
                         {"name", claim},
                         {"namespace", w.ns},
                         {"resourceVersion", std::to_string(rng.Int(100000000, 119999999))},
                         {"uid", claim_uid}}},
                       {"csi",
                        {{"driver", "diskplugin.csi.alibabacloud.com"},
                         {"fsType", "ext4"},
                         {"volumeAttributes",
                          {{"storage.kubernetes.io/csiProvisionerIdentity",
                            "1710123456789-8081-diskplugin.csi.alibabacloud.com"},
                           {"type", "cloud_essd"}}},
                         {"volumeHandle", volume}}},
                       {"nodeAffinity", zone_affinity},
                       {"persistentVolumeReclaimPolicy", retain ? "Retain" : "Delete"},
                       {"storageClassName", c.storage_class},
                       {"volumeMode", "Filesystem"}}},
                     {"status", {{"phase", "Bound"}}}});
    }
  }
}

// status as the disruption controller computes it (semantics.md §4.1).
json ObjectWriter::PdbJson(const Workload& w, const json& budget) {
  Rng rng(Mix64(HashText(w.uid) + 11));
  const int running = Running(w);
  int desired = 0;
  if (budget.contains("minAvailable")) {
    const json& v = budget["minAvailable"];
    if (v.is_string()) {
      const int percent = std::stoi(v.get<std::string>());
      desired = (w.replicas * percent + 99) / 100;  // percentages round up
    } else {
      desired = v.get<int>();
    }
  } else {
    desired = std::max(0, w.replicas - budget["maxUnavailable"].get<int>());
  }
  json meta = Meta(w.ns, w.name + "-pdb", rng.Uuid(), w.created + 5, rng);
  meta["generation"] = 1;
  json spec = budget;
  spec["selector"] = {{"matchLabels", w.labels}};
  const int allowed = std::max(0, running - desired);
  const std::string at = Rfc3339(plan_.now - 3600);
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", meta},
          {"spec", spec},
          {"status",
           {{"conditions",
             {{{"lastTransitionTime", at},
               {"message", ""},
               {"observedGeneration", 1},
               {"reason", allowed > 0 ? "SufficientPods" : "InsufficientPods"},
               {"status", allowed > 0 ? "True" : "False"},
               {"type", "DisruptionAllowed"}}}},
            {"currentHealthy", running},
            {"desiredHealthy", desired},
            {"disruptionsAllowed", allowed},
            {"expectedPods", w.replicas},
            {"observedGeneration", 1}}}};
}

std::vector<json> ObjectWriter::StorageClassJson() const {
  std::vector<json> out;
  for (const auto& [name, policy] :
       {std::pair{"alicloud-disk-essd", "Delete"}, {"alicloud-disk-essd-retain", "Retain"}}) {
    Rng rng(HashText(name) ^ plan_.o.seed);
    out.push_back({{"allowVolumeExpansion", true},
                   {"apiVersion", "storage.k8s.io/v1"},
                   {"kind", "StorageClass"},
                   {"metadata",
                    {{"creationTimestamp", Rfc3339(plan_.o.start_unix - 90 * kDay)},
                     {"name", name},
                     {"resourceVersion", std::to_string(rng.Int(1000, 9999))},
                     {"uid", rng.Uuid()}}},
                   {"parameters", {{"fstype", "ext4"}, {"type", "cloud_essd"}}},
                   {"provisioner", "diskplugin.csi.alibabacloud.com"},
                   {"reclaimPolicy", policy},
                   {"volumeBindingMode", "WaitForFirstConsumer"}});
  }
  return out;
}

// One quota per namespace (kube-system excepted) with headroom over what its pods use.
std::vector<json> ObjectWriter::QuotaJson() {
  struct Used {
    int64_t pods = 0, cpu_m = 0, mem_mib = 0, gpu_mem = 0, gpus = 0;
  };
  std::map<std::string, Used> used;
  for (const PodPlan& pod : plan_.pods) {
    const Workload& w = plan_.workloads[pod.workload];
    if (w.ns == "kube-system") continue;
    Used& u = used[w.ns];
    u.pods += 1;
    for (const Container& c : w.containers) {
      u.cpu_m += c.cpu_m;
      u.mem_mib += c.mem_mib;
      u.gpu_mem += c.gpu_mem;
      u.gpus += c.whole_gpus;
    }
  }
  std::vector<json> out;
  for (const auto& [ns, u] : used) {
    Rng rng(HashText(ns) ^ plan_.o.seed);
    auto headroom = [](int64_t v, int64_t unit) { return (v * 3 / 2 / unit + 1) * unit; };
    json hard = {{"pods", std::to_string(headroom(u.pods, 10))},
                 {"requests.cpu", Cpu(headroom(u.cpu_m, 1000))},
                 {"requests.memory", Mem(headroom(u.mem_mib, 1024))},
                 {"limits.memory", Mem(headroom(u.mem_mib, 1024))}};
    json current = {{"pods", std::to_string(u.pods)},
                    {"requests.cpu", Cpu(u.cpu_m)},
                    {"requests.memory", Mem(u.mem_mib)},
                    {"limits.memory", Mem(u.mem_mib)}};
    if (u.gpu_mem > 0) {
      hard["requests.aliyun.com/gpu-mem"] = std::to_string(headroom(u.gpu_mem, 4));
      current["requests.aliyun.com/gpu-mem"] = std::to_string(u.gpu_mem);
    }
    if (u.gpus > 0) {
      hard["requests.nvidia.com/gpu"] = std::to_string(headroom(u.gpus, 1));
      current["requests.nvidia.com/gpu"] = std::to_string(u.gpus);
    }
    json meta = Meta(ns, ns + "-quota", rng.Uuid(), plan_.o.start_unix - 80 * kDay, rng);
    out.push_back({{"apiVersion", "v1"},
                   {"kind", "ResourceQuota"},
                   {"metadata", meta},
                   {"spec", {{"hard", hard}}},
                   {"status", {{"hard", hard}, {"used", current}}}});
  }
  return out;
}

// ---- Curves ------------------------------------------------------------------------------

double DiurnalFactor(const TruthWorkload& w, int64_t t) {
  const int64_t since_peak = ((t - w.peak_at_s) % kDay + kDay) % kDay;
  return 1 + w.amplitude * std::cos(2 * std::numbers::pi * static_cast<double>(since_peak) /
                                    static_cast<double>(kDay));
}

// ---- Ground truth ------------------------------------------------------------------------

void FillTruth(Plan& plan, GroundTruth& truth, const std::vector<int>& pod_order,
               const std::vector<int>& workload_order) {
  const GeneratorOptions& o = plan.o;
  truth.start_unix = o.start_unix;
  truth.end_unix = o.start_unix + o.days * kDay;
  truth.step_s = o.step_s;
  std::vector<int> workload_index(plan.workloads.size());
  for (size_t i = 0; i < workload_order.size(); ++i) {
    workload_index[workload_order[i]] = static_cast<int>(i);
    Workload& w = plan.workloads[workload_order[i]];
    w.truth.running = 0;
    for (int p : w.pods) w.truth.running += plan.pods[p].node >= 0 ? 1 : 0;
    w.truth.mean_rate = w.truth.pod_mean_rate * w.truth.running;
    truth.workloads.push_back(w.truth);
  }
  // Cards in export order: by node name, then index.
  std::vector<int> node_order(plan.nodes.size());
  for (size_t i = 0; i < node_order.size(); ++i) node_order[i] = static_cast<int>(i);
  std::sort(node_order.begin(), node_order.end(),
            [&](int a, int b) { return plan.nodes[a].name < plan.nodes[b].name; });
  std::vector<int> card_index(plan.cards.size(), -1);
  for (int n : node_order) {
    const Node& node = plan.nodes[n];
    const Pool& pool = plan.pools[node.pool];
    for (int c = node.first_card; c < node.first_card + node.cards; ++c) {
      card_index[c] = static_cast<int>(truth.cards.size());
      TruthCard card;
      card.node = node.name;
      card.index = plan.cards[c].index;
      card.uuid = plan.cards[c].uuid;
      card.gpu_type = pool.gpu->name;
      card.speed = pool.gpu->speed;
      card.units = pool.units;
      card.memory_mib = pool.gpu->memory_mib;
      card.exclusive = pool.exclusive;
      card.fb_used = node.fb_per_pod ? "per_pod" : "card_total";
      card.process_metric = pool.spec->process_metric && o.process_metric;
      truth.cards.push_back(card);
    }
  }
  for (int p : pod_order) {
    const PodPlan& pod = plan.pods[p];
    const Workload& w = plan.workloads[pod.workload];
    TruthPod t;
    t.namespace_ = w.ns;
    t.name = pod.name;
    t.workload = workload_index[pod.workload];
    t.node = pod.node >= 0 ? plan.nodes[pod.node].name : "";
    for (int c : pod.cards) {
      t.cards.push_back(card_index[c]);
      truth.cards[card_index[c]].pods.push_back(static_cast<int>(truth.pods.size()));
    }
    t.units_per_card = w.whole > 0 ? 0 : w.units_per_card;
    t.mem_offset_mib = pod.mem_offset;
    truth.pods.push_back(std::move(t));
  }
  // The curves repeat every day and the grid divides the day, so one day of the grid gives the
  // whole window's means and peaks exactly.
  const int per_day = static_cast<int>(kDay / o.step_s);
  std::vector<std::vector<double>> factor(truth.workloads.size());
  for (size_t wi = 0; wi < truth.workloads.size(); ++wi) {
    if (!truth.workloads[wi].has_traffic) continue;
    factor[wi].resize(per_day);
    for (int i = 0; i < per_day; ++i) {
      factor[wi][i] = DiurnalFactor(truth.workloads[wi], o.start_unix + int64_t{i} * o.step_s);
    }
  }
  for (TruthCard& card : truth.cards) {
    double sum = 0, peak = 0;
    for (int i = 0; i < per_day; ++i) {
      double load = 0;
      for (int p : card.pods) {
        const TruthWorkload& w = truth.workloads[truth.pods[p].workload];
        if (w.has_traffic) load += w.pod_mean_rate * factor[truth.pods[p].workload][i] * w.work_s;
      }
      const double busy = std::min(1.0, load / card.speed);
      sum += busy;
      peak = std::max(peak, busy);
    }
    card.mean_busy = sum / per_day;
    card.peak_busy = peak;
  }
  // Memory grows with the rate, so it peaks where the rate does on the grid; the expression is
  // PodCardMemoryMib's, operation for operation, so the metric's maximum equals it exactly.
  std::vector<double> top(truth.workloads.size(), 1.0);
  for (size_t wi = 0; wi < truth.workloads.size(); ++wi) {
    if (!factor[wi].empty()) top[wi] = *std::max_element(factor[wi].begin(), factor[wi].end());
  }
  for (const TruthPod& pod : truth.pods) {
    TruthWorkload& w = truth.workloads[pod.workload];
    if (pod.node.empty() || !w.gpu || w.rest_mib == 0) continue;
    const double rate = w.has_traffic ? w.pod_mean_rate * top[pod.workload] : 0.0;
    const int64_t peak = w.rest_mib + pod.mem_offset_mib + std::llround(w.mib_per_rps * rate);
    w.peak_mib = std::max(w.peak_mib, peak * static_cast<int64_t>(pod.cards.size()));
  }
  for (TruthWorkload& w : truth.workloads) {
    if (w.peak_mib > 0) w.over_quota = w.peak_mib > w.quota_mib * std::max(1, w.gpu_count);
  }
  truth.planted_secrets = plan.secrets;
  std::sort(truth.planted_secrets.begin(), truth.planted_secrets.end());
  truth.planted_secrets.erase(
      std::unique(truth.planted_secrets.begin(), truth.planted_secrets.end()),
      truth.planted_secrets.end());
}

// ---- YAML --------------------------------------------------------------------------------
//
// kubectl's block style. Strings stay plain where no YAML reader could take them for anything
// else; the rest are double-quoted with JSON escapes (a subset of YAML's).

bool LooksLikeOtherType(std::string_view s) {
  static const char* const kWords[] = {"true", "false", "yes", "no",   "on",
                                       "off",  "y",     "n",   "null", "~"};
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : kWords) {
    if (lower == word) return true;
  }
  const char first = s.front();
  return (first >= '0' && first <= '9') || first == '+' || first == '-' || first == '.';
}

bool PlainSafe(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
  if (LooksLikeOtherType(s)) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("-_./:@+=() ").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return s.find(": ") == std::string_view::npos && s.find(" #") == std::string_view::npos;
}

void YamlScalar(const json& v, std::string& out) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (PlainSafe(s)) {
      out += s;
    } else {
      out += v.dump();
    }
  } else {
    out += v.dump();
  }
}

bool IsBlock(const json& v) {
  return (v.is_object() || v.is_array()) && !v.empty();
}

void YamlNode(const json& v, int indent, std::string& out);
void YamlMap(const json& v, int indent, bool first_inline, std::string& out);

// One "- item" of a block sequence.
void YamlItem(const json& item, int indent, std::string& out) {
  out.append(static_cast<size_t>(indent), ' ');
  if (item.is_object() && !item.empty()) {
    out += "- ";
    YamlMap(item, indent + 2, true, out);
  } else if (item.is_array() && !item.empty()) {
    out += "-\n";
    YamlNode(item, indent + 2, out);
  } else {
    out += "- ";
    if (item.is_object()) {
      out += "{}";
    } else if (item.is_array()) {
      out += "[]";
    } else {
      YamlScalar(item, out);
    }
    out += '\n';
  }
}

// A mapping whose first line may already be started (after "- ").
void YamlMap(const json& v, int indent, bool first_inline, std::string& out) {
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!(first && first_inline)) out.append(static_cast<size_t>(indent), ' ');
    first = false;
    YamlScalar(json(it.key()), out);
    const json& value = it.value();
    if (!IsBlock(value)) {
      out += ": ";
      if (value.is_object()) {
        out += "{}";
      } else if (value.is_array()) {
        out += "[]";
      } else {
        YamlScalar(value, out);
      }
      out += '\n';
    } else if (value.is_object()) {
      out += ":\n";
      YamlMap(value, indent + 2, false, out);
    } else {
      out += ":\n";
      YamlNode(value, indent, out);  // kubectl puts a mapping's sequence at the key's indent
    }
  }
}

void YamlNode(const json& v, int indent, std::string& out) {
  if (v.is_object() && !v.empty()) {
    YamlMap(v, indent, false, out);
    return;
  }
  if (v.is_array() && !v.empty()) {
    for (const json& item : v) YamlItem(item, indent, out);
    return;
  }
  out.append(static_cast<size_t>(indent), ' ');
  YamlScalar(v, out);
  out += '\n';
}

// ---- Prometheus --------------------------------------------------------------------------

struct Series {
  std::map<std::string, std::string> labels;
  int card = -1;  // truth indices; -1 where not applicable
  int pod = -1;
};

std::string FormatRate(double v) {
  std::string s = fmt::format("{:.4f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

const GpuNames& NamesOf(const std::string& gpu_type) {
  for (const GpuNames& n : kGpuNames) {
    if (n.catalog == gpu_type) return n;
  }
  return kGpuNames[0];
}

std::map<std::string, std::string> CardLabels(std::string_view metric, const TruthCard& card,
                                              const std::string& node_ip) {
  return {{"__name__", std::string(metric)},
          {"DCGM_FI_DRIVER_VERSION", std::string(kDriverVersion)},
          {"Hostname", card.node},
          {"UUID", card.uuid},
          {"device", fmt::format("nvidia{}", card.index)},
          {"gpu", std::to_string(card.index)},
          {"instance", node_ip + ":9400"},
          {"job", "ack-prometheus-gpu-exporter"},
          {"modelName", std::string(NamesOf(card.gpu_type).model_name)}};
}

}  // namespace

// ---- Public API --------------------------------------------------------------------------

std::optional<InputError> CheckOptions(const GeneratorOptions& o) {
  auto bad = [](std::string flag, std::string message) {
    InputError e;
    e.path = std::move(flag);
    e.message = std::move(message);
    return std::optional<InputError>(std::move(e));
  };
  auto divides_day = [](int step) { return step >= 1 && step <= kDay && kDay % step == 0; };
  if (o.nodes < 1 || o.nodes > 20000) return bad("--nodes", "must be between 1 and 20000");
  if (o.pods < 0 || o.pods > 200000) return bad("--pods", "must be between 0 and 200000");
  if (o.days < 1 || o.days > 366) return bad("--days", "must be between 1 and 366");
  if (!divides_day(o.step_s)) {
    return bad("--step", fmt::format("{} s does not divide a day (86400 s)", o.step_s));
  }
  if (o.start_unix < 0 || o.start_unix > 253402300799 - 400 * kDay) {
    return bad("--start", "must be a Unix time between 1970 and 9998");
  }
  const int metrics_step = o.metrics_step_s == 0 ? o.step_s : o.metrics_step_s;
  const int rate_step = o.rate_step_s == 0 ? metrics_step : o.rate_step_s;
  for (const auto& [flag, step] :
       {std::pair{"--metrics-step", metrics_step}, {"--rate-step", rate_step}}) {
    if (!divides_day(step) || step % o.step_s != 0) {
      return bad(flag, fmt::format("{} s must divide a day and be a multiple of --step ({} s)",
                                   step, o.step_s));
    }
  }
  if (o.metrics_days < 0 || o.metrics_days > o.days) {
    return bad("--metrics-days", fmt::format("must be between 0 and --days ({})", o.days));
  }
  if (!(o.busy_noise >= 0 && o.busy_noise <= 0.5)) {
    return bad("--busy-noise", "must be between 0 and 0.5");
  }
  return std::nullopt;
}

Expected<GeneratedCluster> Generate(const GeneratorOptions& options) {
  if (std::optional<InputError> error = CheckOptions(options)) return *error;
  Plan plan;
  plan.o = options;
  plan.now = options.start_unix + options.days * kDay;
  BuildNodes(plan);
  WorkloadBuilder(plan).Build();
  Placer(plan).PlaceAll();

  GeneratedCluster out;
  out.options = options;
  ObjectWriter writer(plan);
  std::vector<int> node_order(plan.nodes.size());
  for (size_t i = 0; i < node_order.size(); ++i) node_order[i] = static_cast<int>(i);
  std::sort(node_order.begin(), node_order.end(),
            [&](int a, int b) { return plan.nodes[a].name < plan.nodes[b].name; });
  for (int n : node_order) out.nodes.push_back(writer.NodeJson(n));

  // kubectl lists each kind by namespace, then name (the API server's key order).
  std::vector<int> pod_order(plan.pods.size());
  for (size_t i = 0; i < pod_order.size(); ++i) pod_order[i] = static_cast<int>(i);
  auto pod_key = [&](int p) {
    return std::tie(plan.workloads[plan.pods[p].workload].ns, plan.pods[p].name);
  };
  std::sort(pod_order.begin(), pod_order.end(),
            [&](int a, int b) { return pod_key(a) < pod_key(b); });
  std::vector<int> workload_order(plan.workloads.size());
  for (size_t i = 0; i < workload_order.size(); ++i) workload_order[i] = static_cast<int>(i);
  std::sort(workload_order.begin(), workload_order.end(), [&](int a, int b) {
    return std::tie(plan.workloads[a].ns, plan.workloads[a].name) <
           std::tie(plan.workloads[b].ns, plan.workloads[b].name);
  });

  std::vector<json> deployments, replica_sets, stateful_sets, pdbs, pvcs, pvs;
  for (int wi : workload_order) {
    const Workload& w = plan.workloads[wi];
    if (w.kind == Kind::kDeployment) {
      deployments.push_back(writer.DeploymentJson(w));
      for (json& rs : writer.ReplicaSetJson(w)) replica_sets.push_back(std::move(rs));
    } else if (w.kind == Kind::kStatefulSet) {
      stateful_sets.push_back(writer.StatefulSetJson(w));
      writer.ClaimsJson(w, pvcs, pvs);
      if (w.name.rfind("etcd", 0) == 0) {
        pdbs.push_back(writer.PdbJson(w, {{"minAvailable", "51%"}}));
      } else {
        pdbs.push_back(writer.PdbJson(w, {{"maxUnavailable", 1}}));
      }
    }
  }
  auto by_name = [](const json& a, const json& b) {
    const json& ma = a["metadata"];
    const json& mb = b["metadata"];
    return std::make_pair(ma.value("namespace", ""), ma["name"].get<std::string>()) <
           std::make_pair(mb.value("namespace", ""), mb["name"].get<std::string>());
  };
  for (std::vector<json>* list : {&replica_sets, &pvcs, &pvs}) {
    std::sort(list->begin(), list->end(), by_name);
  }
  for (int p : pod_order) out.objects.push_back(writer.PodJson(p));
  for (std::vector<json>* list :
       {&deployments, &replica_sets, &stateful_sets, &pdbs, &pvcs, &pvs}) {
    for (json& j : *list) out.objects.push_back(std::move(j));
  }
  for (json& j : writer.StorageClassJson()) out.objects.push_back(std::move(j));
  for (json& j : writer.QuotaJson()) out.objects.push_back(std::move(j));

  FillTruth(plan, out.truth, pod_order, workload_order);
  return out;
}

double PodRate(const GroundTruth& truth, int pod, int64_t t) {
  const TruthPod& p = truth.pods[pod];
  const TruthWorkload& w = truth.workloads[p.workload];
  if (!w.has_traffic || p.node.empty()) return 0;
  return w.pod_mean_rate * DiurnalFactor(w, t);
}

double CardBusy(const GroundTruth& truth, int card, int64_t t) {
  const TruthCard& c = truth.cards[card];
  double load = 0;
  for (int p : c.pods)
    load += PodRate(truth, p, t) * truth.workloads[truth.pods[p].workload].work_s;
  return std::min(1.0, load / c.speed);
}

int64_t PodCardMemoryMib(const GroundTruth& truth, int pod, int64_t t) {
  const TruthPod& p = truth.pods[pod];
  const TruthWorkload& w = truth.workloads[p.workload];
  if (p.node.empty() || !w.gpu) return 0;
  return w.rest_mib + p.mem_offset_mib + std::llround(w.mib_per_rps * PodRate(truth, pod, t));
}

// Byte for byte what ListOf(all items).dump(4) gives, without copying every object into one
// document first (that copy cost more than the rest of a 10 000-pod export).
std::string ExportJson(const GeneratedCluster& cluster) {
  std::string out = "{\n    \"apiVersion\": \"v1\",\n    \"items\": [";
  bool first = true;
  for (const std::vector<json>* list : {&cluster.nodes, &cluster.objects}) {
    for (const json& item : *list) {
      out += first ? "\n        " : ",\n        ";
      first = false;
      const std::string text = item.dump(4);
      for (char c : text) {
        out += c;
        if (c == '\n') out += "        ";
      }
    }
  }
  out += first ? "],\n" : "\n    ],\n";
  out +=
      "    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";
  return out;
}

std::string ExportYaml(const GeneratedCluster& cluster) {
  std::string out;
  for (const std::vector<json>* list : {&cluster.nodes, &cluster.objects}) {
    if (list == &cluster.objects) out += "---\n";
    out += "apiVersion: v1\nitems:";
    out += list->empty() ? " []\n" : "\n";
    for (const json& item : *list) YamlItem(item, 0, out);
    out += "kind: List\nmetadata:\n  resourceVersion: \"\"\n";
  }
  return out;
}

nlohmann::json TruthJson(const GeneratedCluster& cluster) {
  const GeneratorOptions& o = cluster.options;
  const GroundTruth& t = cluster.truth;
  const int metrics_step = o.metrics_step_s == 0 ? o.step_s : o.metrics_step_s;
  json workloads = json::array();
  for (const TruthWorkload& w : t.workloads) {
    json j = {{"kind", w.kind}, {"namespace", w.namespace_}, {"name", w.name},
              {"pool", w.pool}, {"replicas", w.replicas},    {"running", w.running},
              {"gpu", w.gpu}};
    if (w.gpu) {
      j["gpu_mem"] = w.gpu_mem;
      j["gpu_count"] = w.gpu_count;
      j["whole_gpus"] = w.whole_gpus;
      j["memory"] = {{"rest_mib", w.rest_mib},
                     {"mib_per_rps", w.mib_per_rps},
                     {"quota_mib_per_card", w.quota_mib},
                     {"peak_mib", w.peak_mib},
                     {"over_quota", w.over_quota}};
    }
    if (w.has_traffic) {
      j["work_s"] = w.work_s;
      j["pod_mean_rate_per_s"] = w.pod_mean_rate;
      j["mean_rate_per_s"] = w.mean_rate;
      j["amplitude"] = w.amplitude;
      j["peak_at_s"] = w.peak_at_s;
    }
    workloads.push_back(j);
  }
  json pods = json::array();
  for (const TruthPod& p : t.pods) {
    json cards = json::array();
    for (int c : p.cards) cards.push_back({{"node", t.cards[c].node}, {"gpu", t.cards[c].index}});
    pods.push_back({{"namespace", p.namespace_},
                    {"name", p.name},
                    {"workload", t.workloads[p.workload].name},
                    {"node", p.node.empty() ? json(nullptr) : json(p.node)},
                    {"cards", cards},
                    {"units_per_card", p.units_per_card},
                    {"mem_offset_mib", p.mem_offset_mib}});
  }
  json cards = json::array();
  for (const TruthCard& c : t.cards) {
    json names = json::array();
    for (int p : c.pods) names.push_back(t.pods[p].namespace_ + "/" + t.pods[p].name);
    cards.push_back({{"node", c.node},
                     {"gpu", c.index},
                     {"uuid", c.uuid},
                     {"gpu_type", c.gpu_type},
                     {"speed", c.speed},
                     {"units", c.units},
                     {"memory_mib", c.memory_mib},
                     {"exclusive", c.exclusive},
                     {"pods", names},
                     {"fb_used", c.fb_used},
                     {"process_metric", c.process_metric},
                     {"mean_busy", c.mean_busy},
                     {"peak_busy", c.peak_busy}});
  }
  json metrics = nullptr;
  if (o.with_metrics) {
    const int days = o.metrics_days == 0 ? o.days : o.metrics_days;
    json files = json::array();
    for (const std::string& name : MetricNames(cluster)) files.push_back("prom/" + name + ".json");
    metrics = {{"files", files},
               {"start_unix", t.end_unix - days * kDay},
               {"days", days},
               {"step_s", metrics_step},
               {"rate_step_s", o.rate_step_s == 0 ? metrics_step : o.rate_step_s},
               {"gpu_util", kGpuUtilMetric},
               {"fb_used", kFbUsedMetric},
               {"process_mem", o.process_metric ? json(kProcessMemMetric) : json(nullptr)},
               {"request_rate", kRequestRateMetric},
               {"busy_noise", o.busy_noise}};
  }
  // Every option, so that the files can be made again byte for byte.
  return {{"generator",
           {{"nodes", o.nodes},
            {"pods", o.pods},
            {"seed", o.seed},
            {"days", o.days},
            {"step_s", o.step_s},
            {"start_unix", o.start_unix},
            {"with_metrics", o.with_metrics},
            {"metrics_step_s", o.metrics_step_s},
            {"rate_step_s", o.rate_step_s},
            {"metrics_days", o.metrics_days},
            {"process_metric", o.process_metric},
            {"planted_secrets", o.planted_secrets},
            {"busy_noise", o.busy_noise}}},
          {"window",
           {{"start_unix", t.start_unix},
            {"end_unix", t.end_unix},
            {"start", Rfc3339(t.start_unix)},
            {"end", Rfc3339(t.end_unix)},
            {"step_s", t.step_s}}},
          {"reference_gpu", "A10"},
          {"model",
           {{"rate", "mean x (1 + amplitude x cos(2 pi (t - peak_at) / 86400)) per running pod"},
            {"busy", "min(1, sum over the card's pods of rate x work_s / speed)"},
            {"memory", "per card: rest_mib + mem_offset_mib + mib_per_rps x rate, whole MiB"}}},
          {"metrics", metrics},
          {"workloads", workloads},
          {"pods", pods},
          {"cards", cards},
          {"planted_secrets", t.planted_secrets}};
}

std::vector<std::string> MetricNames(const GeneratedCluster& cluster) {
  std::vector<std::string> names = {std::string(kGpuUtilMetric), std::string(kFbUsedMetric)};
  bool process = false;
  for (const TruthCard& c : cluster.truth.cards)
    process = process || (c.process_metric && !c.pods.empty());
  if (process) names.emplace_back(kProcessMemMetric);
  names.emplace_back(kRequestRateMetric);
  return names;
}

void WritePromJson(const GeneratedCluster& cluster, std::string_view metric, std::ostream& out) {
  const GeneratorOptions& o = cluster.options;
  const GroundTruth& t = cluster.truth;
  const int metrics_step = o.metrics_step_s == 0 ? o.step_s : o.metrics_step_s;
  const int step =
      metric == kRequestRateMetric && o.rate_step_s != 0 ? o.rate_step_s : metrics_step;
  const int days = o.metrics_days == 0 ? o.days : o.metrics_days;
  const int64_t start = t.end_unix - days * kDay;
  const int64_t samples = days * kDay / step;
  std::map<std::string, std::string> node_ip;
  for (const json& node : cluster.nodes) {
    node_ip[node["metadata"]["name"].get<std::string>()] =
        node["status"]["addresses"][0]["address"].get<std::string>();
  }
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> pod_info;
  for (const json& obj : cluster.objects) {
    if (obj["kind"] != "Pod") continue;
    const json& m = obj["metadata"];
    const json& status = obj["status"];
    pod_info[{m["namespace"].get<std::string>(), m["name"].get<std::string>()}] = {
        obj["spec"]["containers"][0]["name"].get<std::string>(), status.value("podIP", "")};
  }

  std::vector<Series> series;
  if (metric == kRequestRateMetric) {
    for (size_t p = 0; p < t.pods.size(); ++p) {
      const TruthPod& pod = t.pods[p];
      if (pod.node.empty() || !t.workloads[pod.workload].has_traffic) continue;
      const auto& [container, ip] = pod_info[{pod.namespace_, pod.name}];
      series.push_back({{{"__name__", std::string(metric)},
                         {"namespace", pod.namespace_},
                         {"pod", pod.name},
                         {"container", container},
                         {"instance", ip + ":8080"},
                         {"job", "kubernetes-pods"}},
                        -1,
                        static_cast<int>(p)});
    }
  } else {
    for (size_t c = 0; c < t.cards.size(); ++c) {
      const TruthCard& card = t.cards[c];
      const bool process = metric == kProcessMemMetric;
      if (process && !card.process_metric) continue;
      if (card.pods.empty()) {
        if (!process)
          series.push_back({CardLabels(metric, card, node_ip[card.node]), static_cast<int>(c), -1});
        continue;
      }
      for (int p : card.pods) {
        const TruthPod& pod = t.pods[p];
        Series s{CardLabels(metric, card, node_ip[card.node]), static_cast<int>(c), p};
        s.labels["namespace"] = pod.namespace_;
        s.labels["pod"] = pod.name;
        s.labels["container"] = pod_info[{pod.namespace_, pod.name}].first;
        if (process) s.labels["pid"] = std::to_string(1000 + 97 * p % 30000);
        series.push_back(std::move(s));
      }
    }
  }

  out << R"({"status":"success","data":{"resultType":"matrix","result":[)";
  std::string buffer;
  std::vector<std::string> card_values;  // one card's util strings, shared by its pod series
  int cached_card = -1;
  for (size_t si = 0; si < series.size(); ++si) {
    const Series& s = series[si];
    buffer.clear();
    if (si > 0) buffer += ',';
    buffer += R"({"metric":)";
    buffer += json(s.labels).dump();
    buffer += R"(,"values":[)";
    auto value_at = [&](int64_t ts) -> std::string {
      if (metric == kGpuUtilMetric) {
        const double noise = (2 * HashUnit(o.seed, 0x100000000ull + s.card, ts) - 1) * o.busy_noise;
        const double busy = std::clamp(CardBusy(t, s.card, ts) + noise, 0.0, 1.0);
        return std::to_string(std::lround(100 * busy));
      }
      if (metric == kRequestRateMetric) {
        // A 1-minute rate() of Poisson counts: sd sqrt(rate / 60) (Box-Muller on hashed bits).
        const double rate = PodRate(t, s.pod, ts);
        const double u1 = std::max(HashUnit(o.seed, 0x200000000ull + s.pod, ts), 1e-12);
        const double u2 = HashUnit(o.seed, 0x300000000ull + s.pod, ts);
        const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
        return FormatRate(std::max(0.0, rate + z * std::sqrt(rate / 60)));
      }
      if (s.pod < 0) return "0";
      const TruthCard& card = t.cards[s.card];
      if (metric == kFbUsedMetric && card.fb_used == "card_total") {
        int64_t total = 0;
        for (int p : card.pods) total += PodCardMemoryMib(t, p, ts);
        return std::to_string(total);
      }
      return std::to_string(PodCardMemoryMib(t, s.pod, ts));
    };
    const bool reuse = metric == kGpuUtilMetric && s.card == cached_card;
    if (metric == kGpuUtilMetric && !reuse) card_values.clear();
    for (int64_t i = 0; i < samples; ++i) {
      const int64_t ts = start + i * step;
      if (i > 0) buffer += ',';
      buffer += '[';
      buffer += std::to_string(ts);
      buffer += ",\"";
      if (metric == kGpuUtilMetric) {
        if (!reuse) card_values.push_back(value_at(ts));
        buffer += card_values[static_cast<size_t>(i)];
      } else {
        buffer += value_at(ts);
      }
      buffer += "\"]";
    }
    if (metric == kGpuUtilMetric) cached_card = s.card;
    buffer += "]}";
    out << buffer;
  }
  out << "]}}\n";
}

namespace {

// Writes through a temporary file in the same directory and renames it into place.
std::optional<InputError> WriteAtomically(const std::filesystem::path& path,
                                          const std::function<void(std::ostream&)>& fill,
                                          std::vector<WrittenFile>& written) {
  const std::filesystem::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  auto fail = [&](const std::string& what) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    InputError e;
    e.file = path.string();
    e.message = what;
    return std::optional<InputError>(std::move(e));
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail("cannot create the file");
    fill(out);
    out.flush();
    if (!out) return fail("write failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return fail("cannot rename into place: " + ec.message());
  written.push_back({path.string(), std::filesystem::file_size(path, ec)});
  return std::nullopt;
}

}  // namespace

Expected<std::vector<WrittenFile>> WriteExport(const GeneratedCluster& cluster,
                                               const std::string& dir, ExportFormat format) {
  namespace fs = std::filesystem;
  std::vector<WrittenFile> written;
  std::error_code ec;
  const fs::path root(dir);
  fs::create_directories(root, ec);
  if (!ec && cluster.options.with_metrics) fs::create_directories(root / "prom", ec);
  if (ec) {
    InputError e;
    e.file = dir;
    e.message = "cannot create the directory: " + ec.message();
    return e;
  }
  if (format != ExportFormat::kYaml) {
    if (auto e = WriteAtomically(
            root / "export.json", [&](std::ostream& out) { out << ExportJson(cluster); },
            written)) {
      return *e;
    }
  }
  if (format != ExportFormat::kJson) {
    if (auto e = WriteAtomically(
            root / "export.yaml", [&](std::ostream& out) { out << ExportYaml(cluster); },
            written)) {
      return *e;
    }
  }
  if (auto e = WriteAtomically(
          root / "truth.json",
          [&](std::ostream& out) { out << TruthJson(cluster).dump(2) << "\n"; }, written)) {
    return *e;
  }
  if (cluster.options.with_metrics) {
    for (const std::string& metric : MetricNames(cluster)) {
      if (auto e = WriteAtomically(
              root / "prom" / (metric + ".json"),
              [&](std::ostream& out) { WritePromJson(cluster, metric, out); }, written)) {
        return *e;
      }
    }
  }
  return written;
}

}  // namespace knobsim::gen_export
