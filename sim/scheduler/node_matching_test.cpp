#include "sim/scheduler/node_matching.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim {
namespace {

TEST_CASE("a toleration matches a taint when effect, key and value (for Equal) agree") {
  const Taint taint{"gpu", "a100", "NoSchedule"};
  struct Case {
    const char* what;
    Toleration toleration;
    bool tolerates;
  };
  const std::vector<Case> cases = {
      {"same key, value and effect", {"gpu", "Equal", "a100", "NoSchedule", {}}, true},
      {"empty operator means Equal", {"gpu", "", "a100", "NoSchedule", {}}, true},
      {"empty effect covers every effect", {"gpu", "Equal", "a100", "", {}}, true},
      {"other value", {"gpu", "Equal", "t4", "NoSchedule", {}}, false},
      {"other effect", {"gpu", "Equal", "a100", "NoExecute", {}}, false},
      {"other key", {"zone", "Equal", "a100", "NoSchedule", {}}, false},
      {"Exists ignores the value", {"gpu", "Exists", "", "NoSchedule", {}}, true},
      {"empty key with Exists tolerates everything", {"", "Exists", "", "", {}}, true},
      {"empty key with Exists still checks the effect", {"", "Exists", "", "NoExecute", {}}, false},
      {"unknown operator tolerates nothing", {"gpu", "Lt", "a100", "NoSchedule", {}}, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK(ToleratesTaint(c.toleration, taint) == c.tolerates);
  }
}

TEST_CASE("only NoSchedule and NoExecute taints can be untolerated, the first one is reported") {
  const std::vector<Taint> taints = {
      {"soft", "", "PreferNoSchedule"}, {"a", "1", "NoSchedule"}, {"b", "2", "NoExecute"}};
  const Taint* first = FindUntoleratedTaint({}, taints);
  REQUIRE(first != nullptr);
  CHECK(first->key == "a");

  const Taint* second = FindUntoleratedTaint({{"a", "Exists", "", "", {}}}, taints);
  REQUIRE(second != nullptr);
  CHECK(second->key == "b");

  CHECK(FindUntoleratedTaint({{"a", "Exists", "", "", {}}, {"b", "Equal", "2", "", {}}}, taints) ==
        nullptr);
  CHECK(FindUntoleratedTaint({}, {{"soft", "", "PreferNoSchedule"}}) == nullptr);
}

TEST_CASE("node selector operators In, NotIn, Exists, DoesNotExist, Gt and Lt") {
  const Labels labels = {{"zone", "a"}, {"cores", "64"}, {"name", "big"}};
  struct Case {
    NodeSelectorRequirement r;
    bool matches;
  };
  const std::vector<Case> cases = {
      {{"zone", "In", {"a", "b"}}, true},
      {{"zone", "In", {"b"}}, false},
      {{"missing", "In", {"a"}}, false},
      {{"zone", "In", {}}, false},  // malformed: In needs values
      {{"zone", "NotIn", {"b"}}, true},
      {{"zone", "NotIn", {"a"}}, false},
      {{"missing", "NotIn", {"a"}}, true},  // NotIn holds on nodes without the label
      {{"zone", "Exists", {}}, true},
      {{"missing", "Exists", {}}, false},
      {{"zone", "Exists", {"a"}}, false},  // malformed: Exists takes no values
      {{"missing", "DoesNotExist", {}}, true},
      {{"zone", "DoesNotExist", {}}, false},
      {{"cores", "Gt", {"32"}}, true},
      {{"cores", "Gt", {"64"}}, false},
      {{"cores", "Lt", {"65"}}, true},
      {{"cores", "Lt", {"64"}}, false},
      {{"cores", "Gt", {"-1"}}, true},
      {{"cores", "Gt", {"+63"}}, true},
      {{"name", "Gt", {"1"}}, false},        // non-integer label: no match
      {{"cores", "Gt", {"1.5"}}, false},     // non-integer bound: no match
      {{"cores", "Gt", {"1", "2"}}, false},  // Gt takes exactly one value
      {{"missing", "Lt", {"1"}}, false},
      {{"zone", "Like", {"a"}}, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.r.key);
    CAPTURE(c.r.op);
    CHECK(MatchesNodeSelectorRequirement(c.r, labels) == c.matches);
  }
}

TEST_CASE("nodeSelector and required terms must both hold; terms OR, expressions AND") {
  NodeSpec node;
  node.labels = {{"zone", "a"}, {"gpu", "a100"}};
  PodSpec pod;
  CHECK(MatchesNodeSelectorAndAffinity(pod, node));  // nothing asked

  pod.node_selector = {{"zone", "a"}};
  CHECK(MatchesNodeSelectorAndAffinity(pod, node));
  pod.node_selector = {{"zone", "b"}};
  CHECK_FALSE(MatchesNodeSelectorAndAffinity(pod, node));
  pod.node_selector = {{"zone", "a"}, {"missing", ""}};
  CHECK_FALSE(MatchesNodeSelectorAndAffinity(pod, node));

  pod.node_selector = {{"zone", "a"}};
  pod.node_affinity.required_terms = {
      {{"gpu", "In", {"t4"}}},                              // fails
      {{"gpu", "In", {"a100"}}, {"zone", "NotIn", {"a"}}},  // fails (AND)
  };
  CHECK_FALSE(MatchesNodeSelectorAndAffinity(pod, node));
  pod.node_affinity.required_terms.push_back({{"gpu", "Exists", {}}});  // holds (OR)
  CHECK(MatchesNodeSelectorAndAffinity(pod, node));

  // The selector still applies when a term holds.
  pod.node_selector = {{"zone", "b"}};
  CHECK_FALSE(MatchesNodeSelectorAndAffinity(pod, node));

  // An empty term matches no node.
  pod.node_selector.clear();
  pod.node_affinity.required_terms = {{}};
  CHECK_FALSE(MatchesNodeSelectorAndAffinity(pod, node));
}

TEST_CASE("preferred affinity weight sums the weights of the matching terms") {
  NodeSpec node;
  node.labels = {{"zone", "a"}, {"gpu", "a100"}};
  PodSpec pod;
  CHECK(PreferredAffinityWeight(pod, node) == 0);
  pod.node_affinity.preferred = {
      {10, {{"zone", "In", {"a"}}}},
      {30, {{"gpu", "In", {"a100"}}, {"zone", "In", {"a"}}}},
      {50, {{"gpu", "In", {"t4"}}}},
      {70, {}},  // empty preference: skipped
  };
  CHECK(PreferredAffinityWeight(pod, node) == 40);
}

TEST_CASE("label selectors: matchLabels AND matchExpressions, empty matches everything") {
  const Labels labels = {{"app", "web"}, {"tier", "front"}};
  struct Case {
    const char* what;
    LabelSelector s;
    bool matches;
  };
  const std::vector<Case> cases = {
      {"empty", {}, true},
      {"matchLabels equal", {{{"app", "web"}}, {}}, true},
      {"matchLabels differ", {{{"app", "db"}}, {}}, false},
      {"matchLabels missing", {{{"x", "y"}}, {}}, false},
      {"In", {{}, {{"tier", "In", {"back", "front"}}}}, true},
      {"In missing", {{}, {{"x", "In", {"a"}}}}, false},
      {"NotIn", {{}, {{"tier", "NotIn", {"back"}}}}, true},
      {"NotIn hit", {{}, {{"tier", "NotIn", {"front"}}}}, false},
      {"NotIn missing key", {{}, {{"x", "NotIn", {"a"}}}}, true},
      {"Exists", {{}, {{"app", "Exists", {}}}}, true},
      {"DoesNotExist", {{}, {{"app", "DoesNotExist", {}}}}, false},
      {"labels and expressions", {{{"app", "web"}}, {{"tier", "In", {"back"}}}}, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK(MatchesLabelSelector(c.s, labels) == c.matches);
  }
}

}  // namespace
}  // namespace knobsim

namespace knobsim {
namespace {

TEST_CASE("matchFields metadata.name selects the node by name, not by a label") {
  NodeSpec a, b;
  a.name = "gpu-a";
  b.name = "gpu-b";
  b.labels["metadata.name"] = "gpu-a";  // a label of that name is not the field
  PodSpec pod;
  pod.node_affinity.required_terms = {{{"metadata.name", "In", {"gpu-a"}}}};
  CHECK(MatchesNodeSelectorAndAffinity(pod, a));
  CHECK_FALSE(MatchesNodeSelectorAndAffinity(pod, b));
}

}  // namespace
}  // namespace knobsim
