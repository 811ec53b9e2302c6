// EvidenceFingerprint: the same evidence in any order has one name; any change to what it says
// gives another.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/evidence_fingerprint.h"

namespace knobsim {
namespace {

struct Evidence {
  KubeObjects objects;
  std::vector<PromResult> results;

  Evidence() {
    for (const char* name : {"n0", "n1"}) {
      NodeSpec n;
      n.name = name;
      objects.nodes.push_back(n);
    }
    for (const char* name : {"a", "b"}) {
      PodSpec p;
      p.name = name;
      p.node_name = "n0";
      objects.pods.push_back(p);
    }
    PromResult util{"util.json", {}, {}};
    util.series.push_back({{{"__name__", "DCGM_FI_DEV_GPU_UTIL"}, {"Hostname", "n0"}},
                           {100, 160, 220},
                           {10, 20, 30}});
    util.series.push_back(
        {{{"__name__", "DCGM_FI_DEV_GPU_UTIL"}, {"Hostname", "n1"}}, {100, 160, 220}, {0, 0, 5}});
    PromResult rate{"rate.json", {}, {}};
    rate.series.push_back({{{"__name__", "rps"}, {"pod", "a"}}, {100, 160}, {1.5, 2.5}});
    results = {util, rate};
  }
  std::string Fingerprint() const { return EvidenceFingerprint(objects, results); }
};

TEST_CASE("evidence fingerprint: the order objects, series and files were read in does not count") {
  const Evidence base;
  Evidence reordered;
  std::swap(reordered.objects.nodes[0], reordered.objects.nodes[1]);
  std::swap(reordered.objects.pods[0], reordered.objects.pods[1]);
  std::swap(reordered.results[0].series[0], reordered.results[0].series[1]);
  std::swap(reordered.results[0], reordered.results[1]);
  reordered.results[0].file = "elsewhere.json";  // a file's name is not evidence
  CHECK(reordered.Fingerprint() == base.Fingerprint());
}

TEST_CASE("evidence fingerprint: every change to what the evidence says gives another name") {
  const std::string base = Evidence{}.Fingerprint();
  struct Case {
    const char* change;
    void (*apply)(Evidence&);
  };
  const Case cases[] = {
      {"a node more", [](Evidence& e) { e.objects.nodes.push_back(e.objects.nodes[0]); }},
      {"a node renamed", [](Evidence& e) { e.objects.nodes[1].name = "n2"; }},
      {"a pod on another node", [](Evidence& e) { e.objects.pods[1].node_name = "n1"; }},
      {"a pod in another namespace", [](Evidence& e) { e.objects.pods[0].namespace_ = "prod"; }},
      {"a sample value", [](Evidence& e) { e.results[1].series[0].values[1] = 2.6; }},
      {"a sample time", [](Evidence& e) { e.results[1].series[0].times[1] = 161; }},
      {"a sample more",
       [](Evidence& e) {
         e.results[1].series[0].times.push_back(220);
         e.results[1].series[0].values.push_back(0);
       }},
      {"a label value", [](Evidence& e) { e.results[1].series[0].labels["pod"] = "b"; }},
      {"a series moved between metrics",
       [](Evidence& e) { e.results[0].series[1].labels["__name__"] = "rps"; }},
      {"a file left out", [](Evidence& e) { e.results.pop_back(); }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.change);
    Evidence e;
    c.apply(e);
    CHECK(e.Fingerprint() != base);
  }
}

TEST_CASE(
    "evidence fingerprint: kf1- and 16 lower-case hex digits, which IsEvidenceFingerprint "
    "accepts and nothing else") {
  const std::string f = Evidence{}.Fingerprint();
  CHECK(f.size() == 20);
  CHECK(IsEvidenceFingerprint(f));
  for (const char* bad : {"", "kf1-", "kf1-0123456789abcdeF", "kf2-0123456789abcdef",
                          "kf1-0123456789abcde", "kf1-../../etc/passwd", "kf1-0123456789abcdef0"})
    CHECK_FALSE(IsEvidenceFingerprint(bad));
}

}  // namespace
}  // namespace knobsim
