// The plan: the cluster the generator decides on before any of it becomes JSON, and the steps
// that fill it in, in order.
//
//   BuildNodes      the pools, their nodes and cards            (cluster_builder.cpp)
//   BuildWorkloads  the fixed stories and the random Deployments (workload_builder.cpp)
//   PlaceAll        the pods, each bound to a node and cards    (placement.cpp)
//   FillTruth       GroundTruth in the export's order            (truth.cpp)
//
// Contract: each step reads what the earlier ones wrote and draws from its own random streams
// (random.h), so the plan is a pure function of the options. ObjectWriter (object_writer.h)
// turns the finished plan into Kubernetes objects. Internal to tools/gen-export.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/gpu_catalog.h"
#include "tools/gen-export/export_generator.h"
#include "tools/gen-export/vocabulary.h"

namespace knobsim::gen_export {

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

inline std::string_view KindName(Kind kind) {
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
  std::string message;         // FailedScheduling text when Pending
  bool request_truth = false;  // alone on every card it holds: exact request-level truth
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

// The image's sha256, made up once per repo:tag and remembered in plan.digests.
std::string Digest(Plan& plan, const std::string& repo, const std::string& tag);
// The container's image as the pod spec names it: by tag, or by digest when c.by_digest.
std::string ImageRef(Plan& plan, const Container& c);

// The node pools, their nodes and cards (with fewer nodes than pools, the pools that matter
// most for import come first).
void BuildNodes(Plan& plan);
// The workloads every export has, then random Deployments until plan.o.pods is spent.
void BuildWorkloads(Plan& plan);
// Every pod of every workload, bound to a node and cards or left Pending with the scheduler's
// message.
void PlaceAll(Plan& plan);
// The ground truth of the placed plan, its pods and workloads in the given (export) orders.
void FillTruth(Plan& plan, GroundTruth& truth, const std::vector<int>& pod_order,
               const std::vector<int>& workload_order);

// The diurnal curve's factor at t: 1 + amplitude × cos(2π (t − peak_at) / 1 day) (truth.cpp).
double DiurnalFactor(const TruthWorkload& w, int64_t t);

// With options.request_truth, between PlaceAll and FillTruth (request_truth.cpp): marks the
// running GPU pods with traffic that are alone on every card they hold, draws their workloads'
// service cv² and lowers those workloads' rates so that bursts stay below saturation.
void ChooseRequestTruth(Plan& plan);
// After FillTruth: the backtest windows, the cards' idle floors, and each marked pod's requests
// simulated over the metrics window (Lindley), with its cards' mean and peak busy.
void SimulateRequests(const GeneratorOptions& o, GroundTruth& truth);

}  // namespace knobsim::gen_export
