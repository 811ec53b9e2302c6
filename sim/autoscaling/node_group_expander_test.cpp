// Expander rules (node_group_expander.h), cases worked out from kubernetes/autoscaler's
// expander/waste/waste.go, mostpods/mostpods.go, priority/priority.go and factory/chain.go at
// commit f7bb0c36; the least-waste rows follow the shape of waste_test.go's TestLeastWaste*
// (a balanced option beats a cpu- or memory-heavy one; equal scores stay tied).
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/autoscaling/node_group_expander.h"

namespace knobsim::autoscaling {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

ExpansionOption Option(int group, int nodes, int pods, int64_t cpu_milli, int64_t memory_gib,
                       int64_t node_cpu_milli = 8000, int64_t node_memory_gib = 32,
                       std::optional<int> priority = std::nullopt) {
  ExpansionOption o;
  o.group = group;
  o.node_count = nodes;
  o.pods = pods;
  o.requested_cpu_milli = cpu_milli;
  o.requested_memory_bytes = memory_gib * kGiB;
  o.node_cpu_milli = node_cpu_milli;
  o.node_memory_bytes = node_memory_gib * kGiB;
  o.priority = priority;
  return o;
}

std::vector<int> All(const std::vector<ExpansionOption>& options) {
  std::vector<int> all;
  for (int i = 0; i < static_cast<int>(options.size()); ++i) all.push_back(i);
  return all;
}

TEST_CASE("expander chain: parsed as upstream's comma list, unknown names refused") {
  struct Case {
    const char* text;
    std::vector<ExpanderKind> chain;
    bool ok;
  };
  const Case cases[] = {
      {"least-waste", {ExpanderKind::kLeastWaste}, true},
      {"random", {ExpanderKind::kRandom}, true},
      {"priority,least-waste", {ExpanderKind::kPriority, ExpanderKind::kLeastWaste}, true},
      {"most-pods,random", {ExpanderKind::kMostPods, ExpanderKind::kRandom}, true},
      {"price", {}, false},
      {"least-nodes", {}, false},
      {"priority, least-waste", {}, false},  // upstream does not trim: " least-waste"
      {"", {}, false},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const ExpanderParse parsed = ParseExpanderChain(c.text);
    CHECK(parsed.error.empty() == c.ok);
    CHECK(parsed.chain == c.chain);
    if (c.ok) CHECK(ExpanderChainName(parsed.chain) == c.text);
  }
}

TEST_CASE("least-waste: the lowest wastedCPU + wastedMemory of capacity × nodes wins") {
  // 8 cpu / 32 GiB nodes. Option 0: 1 node, 4 cpu + 16 GiB asked → 0.5 + 0.5 = 1.0.
  // Option 1: 1 node, 7 cpu + 4 GiB → 0.125 + 0.875 = 1.0 (tied with 0).
  // Option 2: 2 nodes, 14 cpu + 60 GiB → 0.125 + 0.0625 = 0.1875 (wins).
  // Option 3: a 16 cpu / 64 GiB node for 4 cpu + 16 GiB → 0.75 + 0.75.
  const std::vector<ExpansionOption> options = {Option(0, 1, 2, 4000, 16), Option(1, 1, 2, 7000, 4),
                                                Option(2, 2, 4, 14000, 60),
                                                Option(3, 1, 2, 4000, 16, 16000, 64)};
  CHECK(BestOptions(ExpanderKind::kLeastWaste, options, All(options)) == std::vector<int>{2});
  CHECK(BestOptions(ExpanderKind::kLeastWaste, options, {0, 1, 3}) == std::vector<int>{0, 1});
  // GPUs play no part: two options alike but for their cards stay tied.
  CHECK(BestOptions(ExpanderKind::kLeastWaste, {Option(0, 1, 1, 2000, 8), Option(1, 1, 1, 2000, 8)},
                    {0, 1}) == std::vector<int>{0, 1});
  // An option without template capacity is skipped ("No node info for").
  CHECK(BestOptions(ExpanderKind::kLeastWaste,
                    {Option(0, 1, 1, 2000, 8, 0, 0), Option(1, 1, 1, 8000, 32)},
                    {0, 1}) == std::vector<int>{1});
}

TEST_CASE("most-pods: the options scheduling the most pods, ties kept") {
  const std::vector<ExpansionOption> options = {Option(0, 1, 3, 1, 1), Option(1, 2, 5, 1, 1),
                                                Option(2, 3, 5, 1, 1), Option(3, 1, 1, 1, 1)};
  CHECK(BestOptions(ExpanderKind::kMostPods, options, All(options)) == std::vector<int>{1, 2});
}

TEST_CASE("priority: the highest number wins, groups without one dropped, none: all kept") {
  const std::vector<ExpansionOption> options = {
      Option(0, 1, 1, 1, 1, 8000, 32, 10), Option(1, 1, 1, 1, 1, 8000, 32, 50),
      Option(2, 1, 1, 1, 1, 8000, 32, std::nullopt), Option(3, 1, 1, 1, 1, 8000, 32, 50)};
  CHECK(BestOptions(ExpanderKind::kPriority, options, All(options)) == std::vector<int>{1, 3});
  CHECK(BestOptions(ExpanderKind::kPriority, options, {0, 2}) == std::vector<int>{0});
  CHECK(BestOptions(ExpanderKind::kPriority, options, {2}) == std::vector<int>{2});
  // Negative priorities are numbers like any other.
  const std::vector<ExpansionOption> negative = {Option(0, 1, 1, 1, 1, 8000, 32, -5),
                                                 Option(1, 1, 1, 1, 1, 8000, 32, -1)};
  CHECK(BestOptions(ExpanderKind::kPriority, negative, All(negative)) == std::vector<int>{1});
}

TEST_CASE("chain: stops at one option, ties go to the random fallback, same stream same pick") {
  const std::vector<ExpansionOption> options = {Option(0, 1, 2, 4000, 16, 8000, 32, 10),
                                                Option(1, 1, 2, 4000, 16, 8000, 32, 10),
                                                Option(2, 2, 4, 14000, 60, 8000, 32, 1)};
  RandomStream never(1, "unused");
  // priority keeps 0 and 1; least-waste ties them; random picks one of the two.
  RandomStream a(7, "cluster-autoscaler/expander");
  RandomStream b(7, "cluster-autoscaler/expander");
  const int pick =
      ChooseExpansion(options, {ExpanderKind::kPriority, ExpanderKind::kLeastWaste}, a);
  CHECK((pick == 0 || pick == 1));
  CHECK(ChooseExpansion(options, {ExpanderKind::kPriority, ExpanderKind::kLeastWaste}, b) == pick);
  // least-waste alone: option 2, no draw needed.
  CHECK(ChooseExpansion(options, {ExpanderKind::kLeastWaste}, never) == 2);
  CHECK(ChooseExpansion({}, {ExpanderKind::kLeastWaste}, never) == -1);
  // Over many streams, random reaches every option.
  std::vector<int> seen(3, 0);
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomStream r(seed, "cluster-autoscaler/expander");
    ++seen[ChooseExpansion(options, {ExpanderKind::kRandom}, r)];
  }
  for (int n : seen) CHECK(n > 0);
}

}  // namespace
}  // namespace knobsim::autoscaling
