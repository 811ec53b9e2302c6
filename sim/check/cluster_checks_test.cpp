#include "sim/check/cluster_checks.h"

#include <doctest/doctest.h>

namespace knobsim {
namespace {

CheckPod Pod(const std::string& ns, const std::string& name, const std::string& node,
             const std::string& kind, int gpu_mem) {
  CheckPod p;
  p.spec.namespace_ = ns;
  p.spec.name = name;
  p.spec.node_name = node;
  p.spec.phase = "Running";
  p.spec.ready_status = "True";
  p.spec.gpu_mem = gpu_mem;
  p.spec.requests[kGpuMemResource] = gpu_mem;
  p.spec.requests["cpu"] = 1000;
  p.workload_kind = kind;
  p.workload = name.substr(0, name.find('-'));
  p.workload_key = kind + "/" + ns + "/" + p.workload;
  p.workload_replicas = 2;
  return p;
}

CheckInput Cluster() {
  CheckInput in;
  in.origin = "scenario";
  CheckNode n;
  n.name = "g1";
  n.gpu_type = "A10";
  n.card_mib = 23028;
  n.card_units = 22;
  n.schedule = "cgpu";
  n.cgpu_module = true;
  in.nodes = {n};
  n.name = "g2";
  in.nodes.push_back(n);
  in.pods = {Pod("ai", "ocr-0", "g1", "Deployment", 4), Pod("ai", "ocr-1", "g1", "Deployment", 4),
             Pod("ai", "db-0", "g2", "StatefulSet", 8)};
  ResourceQuotaSpec q;
  q.namespace_ = "ai";
  q.name = "gpu";
  q.hard = {{"requests.aliyun.com/gpu-mem", 20}, {"limits.cpu", 1}};
  in.resource_quotas = {q};
  return in;
}

std::vector<Finding> Of(const CheckReport& r, const std::string& id) {
  std::vector<Finding> out;
  for (const Finding& f : r.findings)
    if (f.id == id) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE(
    "quota-headroom: a drain recreates a node's Deployment pods before the evicted ones are gone") {
  CheckOptions o;
  o.simulate = false;
  CheckInput in = Cluster();
  // used 16 (summed: 4 + 4 + 8); draining g1 recreates both ocr pods at once: 16 + 8 = 24 > 20.
  // The StatefulSet pod on g2 is recreated only after it is gone: no surge. limits.cpu is not
  // judged.
  std::vector<Finding> f = Of(RunChecks(in, o), "quota-headroom");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::kWarning);
  CHECK(f[0].message.find(
            "used 16 (summed from the pods) + 8 for the Deployment pods a drain of g1") !=
        std::string::npos);
  in.resource_quotas[0].hard["requests.aliyun.com/gpu-mem"] = 24;
  CHECK(Of(RunChecks(in, o), "quota-headroom").empty());
  // status.used wins over the sum when the export has it.
  in.resource_quotas[0].used["requests.aliyun.com/gpu-mem"] = 17;
  REQUIRE(Of(RunChecks(in, o), "quota-headroom").size() == 1);
}

TEST_CASE("quota-headroom: fixing an over-quota pod needs the raise plus the rollout's surge") {
  CheckOptions o;
  o.simulate = false;
  CheckInput in = Cluster();
  in.resource_quotas[0].hard["requests.aliyun.com/gpu-mem"] = 30;
  CheckPod& p = in.pods[0];
  p.memory = {true, 9812, 9000, 0, 4, 4186, "test"};
  in.have_memory = true;
  // raise 10 - 4 = 6; rollout: maxSurge 25 % of 2 = 1 pod at 10 → 16 + 6 + 10 = 32 > 30.
  const CheckReport r = RunChecks(in, o);
  std::vector<Finding> f = Of(r, "quota-headroom");
  REQUIRE(f.size() == 1);
  CHECK(
      f[0].message.find("needs 6 more, and the rollout surges up to 10: used 16 + 16 > hard 30") !=
      std::string::npos);
  // The same pod is critical in quota-vs-peak with the analytic consequence (no simulation).
  std::vector<Finding> q = Of(r, "quota-vs-peak");
  REQUIRE(q.size() == 1);
  CHECK(q[0].severity == Severity::kCritical);
  CHECK(q[0].consequence_kind == "analytic");
  CHECK(q[0].consequence.find("CUDA OOM at load") != std::string::npos);
  CHECK(r.findings.front().id == "quota-vs-peak");  // critical first
}

TEST_CASE("quota-vs-peak thresholds: 90 % warns, 100 % is critical, below 90 % is silent") {
  CheckOptions o;
  o.simulate = false;
  CheckInput in = Cluster();
  in.resource_quotas.clear();
  in.pods[0].memory = {true, 3768, 1000, 0, 4, 4186, "t"};  // 90.0 %
  in.pods[1].memory = {true, 3700, 1000, 0, 4, 4186, "t"};  // 88 %
  in.pods[2].memory = {true, 8373, 8000, 0, 8, 8373, "t"};  // 100 %, under load
  in.have_memory = true;
  const CheckReport r = RunChecks(in, o);
  std::vector<Finding> q = Of(r, "quota-vs-peak");
  REQUIRE(q.size() == 2);
  CHECK(q[0].severity == Severity::kCritical);
  CHECK(q[0].objects.front().name == "db-0");
  CHECK(q[0].consequence.find("CUDA OOM under load") != std::string::npos);
  CHECK(q[1].severity == Severity::kWarning);
  CHECK(q[1].objects.front().name == "ocr-0");
  // Missing inputs are named: no PDB, no image, no ResourceQuota.
  int skipped = 0;
  for (const Finding& f : r.findings)
    if (!f.skipped.empty()) {
      CHECK(f.severity == Severity::kInfo);
      ++skipped;
    }
  CHECK(skipped == 3);
}

TEST_CASE("cgpu-isolation names soft nodes per pool and the over-quota pods on them") {
  CheckOptions o;
  o.simulate = false;
  CheckInput in = Cluster();
  in.nodes[0].pool = in.nodes[1].pool = "a10";
  in.nodes[0].isolation = in.nodes[1].isolation = MemoryIsolation::kSoft;
  in.nodes[0].isolation_why = in.nodes[1].isolation_why = "buggy";
  in.pods[2].memory = {true, 9000, 8000, 0, 8, 8373, "t"};
  in.have_memory = true;
  std::vector<Finding> f = Of(RunChecks(in, o), "cgpu-isolation");
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].objects.size() == 3);
  CHECK(f[0].objects[2].ToString() == "Pod ai/db-0");
  CHECK(f[0].message.find("on 2 nodes of pool a10: over-quota pods run unnoticed: ai/db-0") !=
        std::string::npos);
  // A node with cgpu.disable.isolation=true stays soft after the upgrade: its own group.
  in.nodes[1].isolation_label_off = true;
  f = Of(RunChecks(in, o), "cgpu-isolation");
  REQUIRE(f.size() == 2);
}

}  // namespace knobsim
