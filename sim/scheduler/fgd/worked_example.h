// Test fixture: the hand-computed example of docs/fgd-policies.md §6 (three nodes, three typical
// pod types, pods P and Q), shared by the fragmentation and policy tests.
#pragma once

#include <vector>

#include "sim/scheduler/fgd/fragmentation.h"
#include "sim/scheduler/fgd/node_state.h"
#include "sim/scheduler/fgd/request.h"

namespace knobsim::fgd::testing {

struct WorkedExample {
  ModelTable models;
  std::vector<TypicalPod> types;  // A, B, C
  NodeState n1, n2, n3;
  PodRequest p, q;

  WorkedExample() {
    models.Add("T4");
    models.Add("V100M16");
    models.Add("P100");
    types = {Type(4000, 500, 1, 0.5), Type(8000, 1000, 1, 0.3), Type(2000, 0, 0, 0.2)};
    n1 = Node("T4", 10000, {600, 1000}, 1);                          // tags: share
    n2 = Node("V100M16", 6000, {1000, 1000, 500, 0}, 1 | (1 << 1));  // share, 1-gpu
    n3 = Node("P100", 20000, {1000, 1000}, 0);
    p = Pod(2000, 1, 250, "T4|V100M16");
    q = Pod(8000, 1, 1000, "");
  }

  static TypicalPod Type(int64_t cpu, int milli, int num_gpu, double p) {
    TypicalPod t;
    t.cpu = cpu;
    t.milli = milli;
    t.num_gpu = num_gpu;
    t.p = p;
    return t;
  }

  NodeState Node(const char* model, int64_t cpu, std::initializer_list<int> free,
                 uint64_t tags) const {
    NodeState n;
    n.cpu_free = cpu;
    n.mem_free = int64_t{1} << 30;  // memory ample
    n.model = models.Find(model);
    for (int f : free) n.free[n.cards++] = f;
    n.tags = tags;
    return n;
  }

  PodRequest Pod(int64_t cpu, int num_gpu, int milli, const char* spec) const {
    return MakeRequest({.cpu_milli = cpu, .num_gpu = num_gpu, .gpu_milli = milli, .gpu_spec = spec},
                       models);
  }
};

}  // namespace knobsim::fgd::testing
