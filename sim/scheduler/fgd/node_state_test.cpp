#include "sim/scheduler/fgd/node_state.h"

#include <doctest/doctest.h>

#include "sim/scheduler/fgd/request.h"

namespace knobsim::fgd {
namespace {

ModelTable Models() {
  ModelTable m;
  m.Add("T4");
  m.Add("V100M16");
  m.Add("V100M32");
  m.Add("G2");
  return m;
}

NodeState Node(const char* model, std::initializer_list<int> free, int64_t cpu = 32000,
               int64_t mem = 1 << 20) {
  NodeState n;
  n.cpu_free = cpu;
  n.mem_free = mem;
  n.model = Models().Find(model);
  for (int f : free) n.free[n.cards++] = f;
  return n;
}

PodRequest Pod(int64_t cpu, int num_gpu, int milli, const char* spec = "", int64_t mem = 1024) {
  return MakeRequest({.cpu_milli = cpu,
                      .memory_mib = mem,
                      .num_gpu = num_gpu,
                      .gpu_milli = milli,
                      .gpu_spec = spec},
                     Models());
}

TEST_CASE("a row becomes the scheduler's tuple as pod_csv_to_yaml.py writes it (§1.2)") {
  const PodRequest shared = Pod(6000, 1, 460, "|V100M16||V100M32|");
  CHECK(shared.milli == 460);
  CHECK(shared.spec == "V100M16|V100M32");
  CHECK(shared.gpu_request() == 460);
  CHECK(shared.shared());
  CHECK(shared.models == 0b110);
  // A CPU-only row asks for no GPU, whatever its gpu_milli and gpu_spec say.
  const PodRequest cpu_only = Pod(4000, 0, 500, "T4");
  CHECK(cpu_only.milli == 0);
  CHECK(cpu_only.spec.empty());
  CHECK(cpu_only.models == kAnyModel);
  CHECK_FALSE(cpu_only.wants_gpu());
  CHECK(cpu_only.tag() == 0);
  // Shares above a card clamp to the card; multi-GPU pods ask for whole cards.
  CHECK(Pod(1000, 1, 1500).milli == 1000);
  CHECK(Pod(1000, 4, 1000).gpu_request() == 4000);
  CHECK(Pod(1000, 4, 1000).tag() == (uint64_t{1} << 4));
  CHECK(Pod(1000, 1, 1000).tag() == (uint64_t{1} << 1));
  CHECK(Pod(1000, 1, 300).tag() == 1);
}

TEST_CASE("a model constraint matches any listed alternative exactly; duplicates are harmless") {
  const ModelTable m = Models();
  CHECK(m.Mask("") == kAnyModel);
  CHECK(m.Mask("V100M16|V100M32|V100M32") == m.Mask("V100M16|V100M32"));
  CHECK(m.Mask("V100") == 0);  // no prefix matching
  CHECK(m.Mask("A10|T4") == 1);
}

TEST_CASE("filters: CPU, memory, pod count, then cards, model and card fit for GPU pods (§3)") {
  const NodeState t4 = Node("T4", {600, 1000}, 10000, 4096);
  CHECK(Feasible(t4, Pod(10000, 1, 1000)));
  CHECK_FALSE(Feasible(t4, Pod(10001, 1, 100)));            // CPU
  CHECK_FALSE(Feasible(t4, Pod(1000, 1, 100, "", 4097)));   // memory
  CHECK_FALSE(Feasible(t4, Pod(1000, 1, 700, "V100M16")));  // model
  CHECK(Feasible(t4, Pod(1000, 1, 700, "G2|T4")));
  CHECK_FALSE(Feasible(t4, Pod(1000, 2, 1000)));  // one whole card only
  NodeState full = t4;
  full.pods = kMaxPodsPerNode;
  CHECK_FALSE(Feasible(full, Pod(1000, 0, 0)));  // pods: 1001
  // A CPU-only pod goes anywhere its CPU and memory fit, cards or model notwithstanding.
  NodeState cpu_node = Node("T4", {});
  cpu_node.model = -1;
  CHECK(Feasible(cpu_node, Pod(1000, 0, 0, "G2")));
  CHECK_FALSE(Feasible(cpu_node, Pod(1000, 1, 100)));
}

TEST_CASE("a multi-GPU pod needs that many fully free cards") {
  CHECK(CardsFit(Node("G2", {1000, 999, 1000}), Pod(1000, 2, 1000)));
  CHECK_FALSE(CardsFit(Node("G2", {1000, 999}), Pod(1000, 2, 1000)));
  CHECK(CardsFit(Node("G2", {999, 600}), Pod(1000, 1, 600)));
}

TEST_CASE("whole-card pods take the lowest-indexed free cards") {
  const NodeState n = Node("G2", {300, 1000, 0, 1000, 1000});
  const CardTake take = LowestCards(n, Pod(1000, 2, 1000));
  CHECK(take[0] == 0);
  CHECK(take[1] == 1000);
  CHECK(take[2] == 0);
  CHECK(take[3] == 1000);
  CHECK(take[4] == 0);
}

TEST_CASE("best fit takes the tightest card that fits, the lowest index on ties") {
  CHECK(BestFitCard(Node("T4", {600, 1000}), 250) == 0);
  CHECK(BestFitCard(Node("T4", {1000, 1000, 500, 0}), 250) == 2);
  CHECK(BestFitCard(Node("T4", {700, 300, 700}), 500) == 0);
  CHECK(BestFitCard(Node("T4", {100, 200}), 500) == -1);
}

TEST_CASE("commit takes CPU, memory and the cards' shares and records the pod's tag") {
  NodeState n = Node("T4", {1000, 1000}, 8000, 4096);
  const PodRequest p = Pod(2000, 1, 250, "", 1024);
  Commit(n, p, OneCard(1, p));
  CHECK(n.cpu_free == 6000);
  CHECK(n.mem_free == 3072);
  CHECK(n.free[0] == 1000);
  CHECK(n.free[1] == 750);
  CHECK(n.pods == 1);
  CHECK(n.tags == 1);
  CHECK(n.gpu_free() == 1750);
  CHECK(n.full_cards() == 1);
}

}  // namespace
}  // namespace knobsim::fgd
