// ACK's allocation annotations: v1, v2, v3 and their order.
#include <doctest/doctest.h>

#include <string>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The 20-node ACK export ----------------------------------------------------------------

TEST_CASE("extender pods carry their card and units in the v1 annotations") {
  const PodSpec& p = PodNamed(Cluster(), "asr-5b7c9d8e6f-h3j5k");
  CHECK(p.namespace_ == "ai-infer");
  CHECK(p.node_name == "cn-hangzhou.10.0.2.21");
  CHECK(p.phase == "Running");
  CHECK(p.gpu_mem == 6);
  CHECK(p.requests.at("aliyun.com/gpu-mem") == 6);
  CHECK(p.requests.at("cpu") == 1500);
  CHECK(p.requests.at("memory") == 6 * kGi);
  CHECK(p.allocated_mem == std::map<int, int>{{0, 6}});
  CHECK(p.allocated_core.empty());
  REQUIRE(p.tolerations.size() == 3);
  CHECK(p.tolerations[0].key == "nvidia.com/gpu");
  CHECK(p.tolerations[0].op == "Exists");
  CHECK(p.tolerations[1].toleration_seconds == 300);
}

TEST_CASE("framework pods carry v2 allocations, including the allocated/total string form") {
  const PodSpec& rerank = PodNamed(Cluster(), "rerank-7c8d9e6f5-m2n4p");
  REQUIRE(rerank.container_gpus.size() == 2);
  CHECK(rerank.container_gpus[0].gpu_mem == 6);
  CHECK(rerank.container_gpus[1].gpu_mem == 2);
  CHECK(rerank.gpu_mem == 8);
  CHECK(rerank.num_containers == 2);
  CHECK(rerank.allocated_mem == std::map<int, int>{{1, 8}});

  const PodSpec& tagger = PodNamed(Cluster(), "video-tagger-5d6e7f8a9-c3v5b");
  CHECK(tagger.gpu_count == 2);
  CHECK(tagger.allocated_mem == std::map<int, int>{{0, 8}, {1, 8}});

  const PodSpec& qwen = PodNamed(Cluster(), "qwen-7b-chat-1");
  CHECK(qwen.gpu_core == 50);
  CHECK(qwen.container_gpus[0].gpu_core == 50);
  CHECK(qwen.allocated_mem == std::map<int, int>{{0, 20}});
  CHECK(qwen.allocated_core == std::map<int, int>{{0, 50}});
  CHECK(qwen.priority == 1000);
}

TEST_CASE("a pod with the v3 gpumemory annotation reads like v2") {
  const PodSpec& p = PodNamed(Cluster(), "caption-8b9c0d1e2-t6y8u");
  CHECK(p.allocated_mem == std::map<int, int>{{1, 5}});
}

TEST_CASE("v2 allocation wins over v1; an empty v2 falls back to v1") {
  const std::string pod = R"(kind: Pod
metadata:
  name: p
  annotations:
    ALIYUN_COM_GPU_MEM_IDX: "1"
    ALIYUN_COM_GPU_MEM_POD: "4"
ANNOTATION
spec:
  containers:
  - name: c
    resources: {limits: {aliyun.com/gpu-mem: 4}}
)";
  auto read = [&](const std::string& extra) {
    std::string text = pod;
    text.replace(text.find("ANNOTATION"), 10, extra);
    return MustRead(text).pods[0];
  };
  CHECK(read("    scheduler.framework.gpushare.allocation: '{\"0\":{\"3\":4}}'").allocated_mem ==
        std::map<int, int>{{3, 4}});
  CHECK(read("    scheduler.framework.gpushare.allocation: '{}'").allocated_mem ==
        std::map<int, int>{{1, 4}});
  CHECK(read("    x: y").allocated_mem == std::map<int, int>{{1, 4}});
  // The countable form counts device ids.
  CHECK(read("    gpushare.alibabacloud.com/gpumemory: '{\"0\":{\"2\":[\"a\",\"b\"]}}'")
            .allocated_mem == std::map<int, int>{{2, 2}});
}

TEST_CASE("a v1 annotation without the unit count takes the pod's own request") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata:
  name: p
  annotations: {ALIYUN_COM_GPU_MEM_IDX: "0"}
spec:
  containers:
  - name: c
    resources: {limits: {aliyun.com/gpu-mem: 7}}
)");
  CHECK(p.allocated_mem == std::map<int, int>{{0, 7}});
}

}  // namespace
}  // namespace knobsim
