// The cluster's vocabulary: the node pools, instance types, GPU names, workload templates and
// fixed strings of the synthetic ACK cluster (tools/gen-export/README.md, "What the cluster
// holds").
//
// Contract: data only, constant for every seed. Changing an entry changes every export, so the
// fixture tools/knobsim/testdata/export20 has to be regenerated after a deliberate change.
// Internal to tools/gen-export.
#pragma once

#include <cstdint>
#include <string_view>

namespace knobsim::gen_export {

inline constexpr int64_t kDay = 86400;

struct Instance {
  std::string_view name;
  int vcpu;
  int64_t cpu_alloc_m;  // ACK reserves a little for the kubelet: 16 -> 15890m (ack-cluster.json)
  int memory_gib;
  std::string_view gpu;  // catalog name; empty for CPU instances
  int gpus;
  int max_pods;
};

// How the pods of a pool carry their card allocation (docs/semantics.md §1.3).
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
inline constexpr PoolSpec kPoolSpecs[] = {
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
inline constexpr int kPoolPriority[] = {kL20Binpack, kA10Share, kA100Pool, kCpuPool, kL20Spread};

struct GpuNames {
  std::string_view catalog;
  std::string_view node_label;  // aliyun.accelerator/nvidia_name
  std::string_view model_name;  // DCGM modelName
};
inline constexpr GpuNames kGpuNames[] = {
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

inline constexpr GpuTemplate kSharedTemplates[] = {
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

inline constexpr GpuTemplate kWholeTemplates[] = {
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

inline constexpr CpuTemplate kCpuTemplates[] = {
    {"api-gateway", "web", "api-gateway", "3.14.2", "gateway", 8080, Probe::kHealthz, 200, 1000,
     256, 1024},
    {"web-frontend", "web", "nginx", "1.25.4", "nginx", 80, Probe::kTcp, 100, 500, 128, 512},
    {"order-service", "shop", "order-service", "2.3.0", "app", 8080, Probe::kHealthz, 200, 800, 512,
     1024},
    {"search-api", "search", "search-api", "1.8.3", "api", 9200, Probe::kGrpc, 200, 1000, 256,
     1024},
    {"report-worker", "data", "report", "1.0.7", "worker", 0, Probe::kExec, 100, 500, 256, 768},
};

inline constexpr std::string_view kRegistry = "registry-vpc.cn-hangzhou.aliyuncs.com";
inline constexpr std::string_view kRegion = "cn-hangzhou";
inline constexpr std::string_view kZones[] = {"cn-hangzhou-h", "cn-hangzhou-i", "cn-hangzhou-j"};
inline constexpr std::string_view kKubeletVersion = "v1.28.9-aliyun.1";
inline constexpr std::string_view kDriverVersion = "535.161.08";
inline constexpr std::string_view kGpuTaintKey = "nvidia.com/gpu";
inline constexpr std::string_view kPoolLabel = "alibabacloud.com/nodepool-id";

}  // namespace knobsim::gen_export
