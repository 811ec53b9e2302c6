// The HPA replica calculation against upstream's own test table: kubernetes/kubernetes
// pkg/controller/podautoscaler/replica_calculator_test.go, read through the code-search index
// (newest stored version, file id 51982554829, 94 147 characters: the one whose harness passes
// Tolerances per call and whose resource cases are the TestReplicaCalcResourceScale table; the
// index gave that version no commit id). The older names of the resource cases, and
// TestReplicaCalcScaleUpCMExternal / ...NoLabels that the newest version dropped, are from the
// version with one function per case (file id 112302491, 70 395 characters); the stored version
// with a commit id, 5f3bc7cdab9b2544f0389b9a83c88fa15b793b7a, is older still (53 344 characters,
// one tolerance) and has the same numbers. Semantics checked against replica_calculator.go (file
// id 4233727116, the version with Tolerances.isWithin and groupPods returning the unready,
// missing and ignored sets) and metrics/utilization.go.
//
// Upstream's harness, as reproduced by the builders below:
//  * pods test-pod-0 .. test-pod-(n-1), n = max(currentReplicas, len(podPhase)); phase Running,
//    Ready condition True, unless the case says otherwise;
//  * status.startTime is always set, to the zero time.Time unless podStartTime gives one:
//    hotCPUCreationTime() = time.Now(), coolCPUCreationTime() = time.Now() - 3 min;
//  * the Ready condition has no LastTransitionTime (the zero time);
//  * every sample has Timestamp tc.timestamp, which no case sets (the zero time), and, for the
//    resource metrics API, Window 1 min;
//  * two containers per pod, each requesting requests[i] (so a pod requests 2 × requests[i]),
//    pods past len(requests) request nothing; a pod's usage is the sum of its containers'
//    levels, and a pod whose metrics lack a container is left out of the resource metrics
//    (missing); a ContainerResource case reads one container's level and request;
//  * the calculator is built with defaultTestingCPUInitializationPeriod = 2 min and
//    defaultTestingDelayOfInitialReadinessStatus = 10 s, and called with
//    Tolerances{defaultTestingTolerance = 0.1, 0.1} unless a case gives its own.
// Here the zero time.Time is SimTime 0 and time.Now() is kNow, one hour later: every relation
// the cases rely on (zero time + 2 min is long past, start + 10 s is after a zero transition, a
// zero-time sample is earlier than a zero transition + 1 min) holds as it does upstream.
//
// Not translated:
//  * TestReplicaCalcDisjointResourcesMetrics, TestReplicaCalcSuperfluousMetrics: upstream's
//    metrics API returns samples for pods that the lister does not know; a PodSample is always a
//    listed pod. Superfluous is run with its extra samples dropped (upstream ignores them in the
//    utilization too: no request matches them), Disjoint as a pod without a sample, which fails
//    here too, with another message ("did not receive metrics" instead of "no metrics returned
//    matched known pods").
//  * TestReplicaCalcEmptyMetrics: upstream fails in the metrics client ("no metrics returned
//    from resource metrics API"); here every pod is missing a sample, which fails too; only
//    !ok() is checked.
//  * TestCalculateRequests, TestCalculatePodRequestsFromContainers_NonExistentContainer: pod-level
//    requests, restartable init containers and container lookup are the caller's business (a
//    PodSample carries the pod's request already summed).
//  * The timestamps upstream checks (outTimestamp == tc.timestamp): the API returns none.
//  * TestReplicaCalcExternalMetricUsageOverflow: the capped sum (MaxInt64 when the values
//    overflow) is made by the caller of ValueMetricReplicas; the case runs with that sum given.
//  * No upstream case calls GetRawResourceReplicas (a Resource metric with an AverageValue
//    target), so PlainMetricReplicas is only run with cpu = false here.
//  * TestGroupPods checks groupPods' four sets directly; the API has no groupPods, so each pod is
//    classified from two calculations with a probe pod (ClassifyPod below); "void" becomes the
//    calculator's error on an empty pod list.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/autoscaling/replica_calculator.h"
#include "sim/event_queue.h"

namespace knobsim::autoscaling {
namespace {

constexpr SimTime kSecond = kNanosPerSecond;
constexpr SimTime kMinute = 60 * kSecond;
constexpr SimTime kGoZeroTime = 0;                // time.Time{}
constexpr SimTime kNow = 3600 * kSecond;          // time.Now()
constexpr SimTime kHotCpu = kNow;                 // hotCPUCreationTime()
constexpr SimTime kCoolCpu = kNow - 3 * kMinute;  // coolCPUCreationTime()

constexpr int kContainersPerPod = 2;  // numContainersPerPod
constexpr ApiPodPhase kRunning = ApiPodPhase::kRunning;
constexpr ApiPodPhase kPending = ApiPodPhase::kPending;
constexpr ApiPodPhase kFailed = ApiPodPhase::kFailed;
constexpr ApiPodPhase kSucceeded = ApiPodPhase::kSucceeded;

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr int32_t kMaxInt32 = std::numeric_limits<int32_t>::max();

// defaultTestingCPUInitializationPeriod, defaultTestingDelayOfInitialReadinessStatus.
const ReadinessSettings kReadiness{2 * kMinute, 10 * kSecond};
// Tolerances{defaultTestingTolerance, defaultTestingTolerance}.
const Tolerances kDefaultTolerances{0.1, 0.1};

// One upstream replicaCalcTestCase's pods and samples, built by chained setters.
struct Fixture {
  explicit Fixture(int32_t current) : current_replicas(current) {}

  int32_t current_replicas = 0;
  // Resource cases: each container's request (milli, "1.0" = 1000) and each container's level.
  std::vector<int64_t> requests;
  std::vector<std::vector<int64_t>> levels;
  int container = 0;  // 0: the whole pod; 1 or 2: "container1" / "container2" only
  // Pods (custom) metric cases: one level per pod.
  std::vector<int64_t> metric_levels;
  std::vector<bool> ready;  // podReadiness: ConditionTrue / ConditionFalse
  std::vector<SimTime> start;
  std::vector<ApiPodPhase> phase;
  std::vector<bool> deleting;

  Fixture& WithRequests(std::vector<int64_t> v) {
    requests = std::move(v);
    return *this;
  }
  Fixture& WithLevels(std::vector<std::vector<int64_t>> v) {
    levels = std::move(v);
    return *this;
  }
  Fixture& InContainer(int c) {
    container = c;
    return *this;
  }
  Fixture& WithMetricLevels(std::vector<int64_t> v) {
    metric_levels = std::move(v);
    return *this;
  }
  Fixture& WithReady(std::vector<bool> v) {
    ready = std::move(v);
    return *this;
  }
  Fixture& WithStart(std::vector<SimTime> v) {
    start = std::move(v);
    return *this;
  }
  Fixture& WithPhase(std::vector<ApiPodPhase> v) {
    phase = std::move(v);
    return *this;
  }
  Fixture& WithDeleting(std::vector<bool> v) {
    deleting = std::move(v);
    return *this;
  }
};

// makePodMetricLevels: every container of pod i reports levels[i].
std::vector<std::vector<int64_t>> PodLevels(std::initializer_list<int64_t> levels) {
  std::vector<std::vector<int64_t>> out;
  for (int64_t l : levels) out.push_back(std::vector<int64_t>(kContainersPerPod, l));
  return out;
}

std::vector<int64_t> Requests(int pods, int64_t milli) {
  return std::vector<int64_t>(static_cast<size_t>(pods), milli);
}

size_t PodCount(const Fixture& f) {
  return std::max(static_cast<size_t>(f.current_replicas), f.phase.size());
}

// prepareTestClientSet plus the metrics clients' answers, as PodSamples.
std::vector<PodSample> Pods(const Fixture& f) {
  std::vector<PodSample> pods;
  for (size_t i = 0; i < PodCount(f); ++i) {
    PodSample p;
    p.name = "test-pod-" + std::to_string(i);
    p.phase = f.phase.empty() ? kRunning : f.phase[i];
    p.deleting = !f.deleting.empty() && f.deleting[i];
    p.ready = i < f.ready.size() ? f.ready[i] : true;
    p.ready_transition = kGoZeroTime;
    p.start_time = f.start.empty() ? kGoZeroTime : f.start[i];
    p.sample_time = kGoZeroTime;
    p.sample_window = kMinute;
    if (i < f.requests.size())
      p.request = f.container == 0 ? kContainersPerPod * f.requests[i] : f.requests[i];
    if (i < f.levels.size()) {
      const std::vector<int64_t>& c = f.levels[i];
      if (f.container == 0) {
        // getPodMetrics: a container without the resource drops the whole pod.
        if (c.size() == static_cast<size_t>(kContainersPerPod)) {
          int64_t sum = 0;
          for (int64_t v : c) sum += v;
          p.value = sum;
        }
      } else if (static_cast<size_t>(f.container) <= c.size()) {
        p.value = c[static_cast<size_t>(f.container) - 1];
      }
    }
    if (i < f.metric_levels.size()) p.value = f.metric_levels[i];
    pods.push_back(p);
  }
  return pods;
}

// getReadyPodsCount: Running pods whose Ready condition is True.
int32_t ReadyPods(const Fixture& f) {
  int32_t n = 0;
  for (const PodSample& p : Pods(f))
    if (p.phase == kRunning && p.ready == true) ++n;
  return n;
}

// GetResourceReplicas (CPU) with upstream's expectations.
void ExpectResource(const Fixture& f, int32_t target_utilization, int32_t want_replicas,
                    int32_t want_utilization, int64_t want_raw,
                    const Tolerances& tolerances = kDefaultTolerances) {
  const ReplicaProposal p = ResourceReplicas(f.current_replicas, target_utilization, true, Pods(f),
                                             tolerances, kReadiness, kNow);
  CAPTURE(p.error);
  REQUIRE(p.ok());
  CHECK(p.replicas == want_replicas);
  CHECK(p.usage == want_utilization);
  CHECK(p.raw_usage == want_raw);
}

// GetMetricReplicas (a Pods metric).
void ExpectPodsMetric(const Fixture& f, int64_t target, int32_t want_replicas, int64_t want_usage,
                      const Tolerances& tolerances = kDefaultTolerances) {
  const ReplicaProposal p =
      PlainMetricReplicas(f.current_replicas, target, false, Pods(f), tolerances, kReadiness, kNow);
  CAPTURE(p.error);
  REQUIRE(p.ok());
  CHECK(p.replicas == want_replicas);
  CHECK(p.usage == want_usage);
}

// GetObjectMetricReplicas / GetExternalMetricReplicas: `usage` is the object's value or the
// external values' sum.
void ExpectValueMetric(const Fixture& f, int64_t usage, int64_t target, int32_t want_replicas,
                       int64_t want_usage, const Tolerances& tolerances = kDefaultTolerances) {
  const ReplicaProposal p =
      ValueMetricReplicas(f.current_replicas, usage, target, ReadyPods(f), tolerances);
  CAPTURE(p.error);
  REQUIRE(p.ok());
  CHECK(p.replicas == want_replicas);
  CHECK(p.usage == want_usage);
}

// GetObjectPerPodMetricReplicas / GetExternalPerPodMetricReplicas (statusReplicas is the
// harness's currentReplicas).
void ExpectAverageValueMetric(int32_t status_replicas, int64_t usage, int64_t target_per_pod,
                              int32_t want_replicas, int64_t want_usage,
                              const Tolerances& tolerances = kDefaultTolerances) {
  const ReplicaProposal p =
      AverageValueMetricReplicas(status_replicas, usage, target_per_pod, tolerances);
  CAPTURE(p.error);
  REQUIRE(p.ok());
  CHECK(p.replicas == want_replicas);
  CHECK(p.usage == want_usage);
}

// ---------------------------------------------------------------------------------------------
// Resource (CPU Utilization) cases: TestReplicaCalcResourceScale's table in the newest version,
// one function each in the older one (both names given).

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUp (upstream replica_calculator_test.go; "
    "TestReplicaCalcResourceScale/scale up)") {
  ExpectResource(Fixture(3).WithRequests(Requests(3, 1000)).WithLevels(PodLevels({300, 500, 700})),
                 30, 5, 50, kContainersPerPod * 500);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcContainerScaleUp (upstream replica_calculator_test.go; "
    "TestReplicaCalcResourceScale/scale up: container metric)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels({{1000, 300}, {1000, 500}, {1000, 700}})
                     .InContainer(2),
                 30, 5, 50, 500);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpUnreadyLessScale (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale up: unready pod scales "
    "less)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({300, 500, 700}))
                     .WithReady({false, true, true}),
                 30, 4, 60, kContainersPerPod * 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpContainerHotCpuLessScale (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale up: hot-CPU container "
    "scales less)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels({{0, 300}, {0, 500}, {0, 700}})
                     .InContainer(2)
                     .WithStart({kHotCpu, kCoolCpu, kCoolCpu}),
                 30, 4, 60, 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpHotCpuLessScale (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale up: hot-CPU pod scales "
    "less)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({300, 500, 700}))
                     .WithStart({kHotCpu, kCoolCpu, kCoolCpu}),
                 30, 4, 60, kContainersPerPod * 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpUnreadyNoScale (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/no scale: unready pods "
    "ignored)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({400, 500, 700}))
                     .WithReady({true, false, false}),
                 30, 3, 40, kContainersPerPod * 400);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleHotCpuNoScale (upstream replica_calculator_test.go; "
    "TestReplicaCalcResourceScale/no scale: hot-CPU pods ignored)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({400, 500, 700}))
                     .WithReady({true, false, false})
                     .WithStart({kCoolCpu, kHotCpu, kHotCpu}),
                 30, 3, 40, kContainersPerPod * 400);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpIgnoresFailedPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale up: failed pods "
    "ignored)") {
  ExpectResource(Fixture(2)
                     .WithRequests(Requests(4, 1000))
                     .WithLevels(PodLevels({500, 700}))
                     .WithReady({true, true, false, false})
                     .WithPhase({kRunning, kRunning, kFailed, kFailed}),
                 30, 4, 60, kContainersPerPod * 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingContainerMetricScaleUpIgnoresFailedPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale up: failed pods ignored "
    "with missing container metric)") {
  ExpectResource(Fixture(2)
                     .WithRequests(Requests(4, 1000))
                     .WithLevels({{1000, 500}, {9000, 700}, {1000}, {9000}})
                     .InContainer(2)
                     .WithReady({true, true, false, false})
                     .WithPhase({kRunning, kRunning, kFailed, kFailed}),
                 30, 4, 60, 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpContainerIgnoresFailedPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale up: container metrics "
    "with failed pods ignored)") {
  ExpectResource(Fixture(2)
                     .WithRequests(Requests(4, 1000))
                     .WithLevels({{1000, 500}, {9000, 700}})
                     .InContainer(2)
                     .WithReady({true, true, false, false})
                     .WithPhase({kRunning, kRunning, kFailed, kFailed}),
                 30, 4, 60, 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpIgnoresDeletionPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale up: pods being deleted "
    "are ignored)") {
  ExpectResource(Fixture(2)
                     .WithRequests(Requests(4, 1000))
                     .WithLevels(PodLevels({500, 700}))
                     .WithReady({true, true, false, false})
                     .WithPhase({kRunning, kRunning, kRunning, kRunning})
                     .WithDeleting({false, false, true, true}),
                 30, 4, 60, kContainersPerPod * 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpContainerIgnoresDeletionPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale up: container metrics "
    "with pods being deleted ignored)") {
  ExpectResource(Fixture(2)
                     .WithRequests(Requests(4, 1000))
                     .WithLevels(PodLevels({500, 700}))
                     .InContainer(1)
                     .WithReady({true, true, false, false})
                     .WithPhase({kRunning, kRunning, kRunning, kRunning})
                     .WithDeleting({false, false, true, true}),
                 30, 4, 60, 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDown (upstream replica_calculator_test.go; "
    "TestReplicaCalcResourceScale/scale down)") {
  ExpectResource(
      Fixture(5).WithRequests(Requests(5, 1000)).WithLevels(PodLevels({100, 300, 500, 250, 250})),
      50, 3, 28, kContainersPerPod * 280);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcContainerScaleDown (upstream replica_calculator_test.go; "
    "TestReplicaCalcResourceScale/scale down: container metric)") {
  ExpectResource(Fixture(5)
                     .WithRequests(Requests(5, 1000))
                     .WithLevels({{1000, 100}, {1000, 300}, {1000, 500}, {1000, 250}, {1000, 250}})
                     .InContainer(2),
                 50, 3, 28, 280);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownExcludeUnreadyPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: exclude unready "
    "pods)") {
  ExpectResource(Fixture(5)
                     .WithRequests(Requests(5, 1000))
                     .WithLevels(PodLevels({100, 300, 500, 250, 250}))
                     .WithReady({true, true, true, false, false}),
                 50, 2, 30, kContainersPerPod * 300);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownContainerExcludeUnreadyPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: container metric "
    "excludes unready pods)") {
  ExpectResource(Fixture(5)
                     .WithRequests(Requests(5, 1000))
                     .WithLevels({{1000, 100}, {1000, 300}, {1000, 500}, {1000, 250}, {1000, 250}})
                     .InContainer(2)
                     .WithReady({true, true, true, false, false}),
                 50, 2, 30, 300);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownExcludeUnscheduledPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: exclude "
    "unscheduled pods)") {
  ExpectResource(Fixture(5)
                     .WithRequests(Requests(5, 1000))
                     .WithLevels(PodLevels({100}))
                     .WithReady({true, false, false, false, false})
                     .WithPhase({kRunning, kPending, kPending, kPending, kPending}),
                 50, 1, 10, kContainersPerPod * 100);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownContainerExcludeUnscheduledPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: container metric "
    "excludes unscheduled pods)") {
  ExpectResource(Fixture(5)
                     .WithRequests(Requests(5, 1000))
                     .WithLevels({{1000, 100}, {1000, 300}, {1000, 500}, {1000, 250}, {1000, 250}})
                     .InContainer(2)
                     .WithReady({true, false, false, false, false})
                     .WithPhase({kRunning, kPending, kPending, kPending, kPending}),
                 50, 1, 10, 100);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownIgnoreHotCpuPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: ignore hot-CPU "
    "pods)") {
  ExpectResource(Fixture(5)
                     .WithRequests(Requests(5, 1000))
                     .WithLevels(PodLevels({100, 300, 500, 250, 250}))
                     .WithStart({kCoolCpu, kCoolCpu, kCoolCpu, kHotCpu, kHotCpu}),
                 50, 2, 30, kContainersPerPod * 300);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownContainerIgnoreHotCpuPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: container metric "
    "ignores hot-CPU pods)") {
  ExpectResource(
      Fixture(5)
          .WithRequests(Requests(5, 1000))
          .WithLevels({{1000, 100}, {1000, 300}, {1000, 500}, {1000, 1000}, {1000, 1000}})
          .InContainer(2)
          .WithStart({kCoolCpu, kCoolCpu, kCoolCpu, kHotCpu, kHotCpu}),
      50, 2, 30, 300);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownIgnoresFailedPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: failed pods "
    "ignored)") {
  ExpectResource(
      Fixture(5)
          .WithRequests(Requests(7, 1000))
          .WithLevels(PodLevels({100, 300, 500, 250, 250}))
          .WithReady({true, true, true, true, true, false, false})
          .WithPhase({kRunning, kRunning, kRunning, kRunning, kRunning, kFailed, kFailed}),
      50, 3, 28, kContainersPerPod * 280);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownContainerIgnoresFailedPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: container metric "
    "with failed pods ignored)") {
  ExpectResource(
      Fixture(5)
          .WithRequests(Requests(7, 1000))
          .WithLevels({{1000, 100}, {1000, 300}, {1000, 500}, {1000, 250}, {1000, 250}})
          .InContainer(2)
          .WithReady({true, true, true, true, true, false, false})
          .WithPhase({kRunning, kRunning, kRunning, kRunning, kRunning, kFailed, kFailed}),
      50, 3, 28, 280);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownIgnoresDeletionPods (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: pods being "
    "deleted are ignored)") {
  ExpectResource(
      Fixture(5)
          .WithRequests(Requests(7, 1000))
          .WithLevels(PodLevels({100, 300, 500, 250, 250}))
          .WithReady({true, true, true, true, true, false, false})
          .WithPhase({kRunning, kRunning, kRunning, kRunning, kRunning, kRunning, kRunning})
          .WithDeleting({false, false, false, false, false, true, true}),
      50, 3, 28, kContainersPerPod * 280);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownIgnoresDeletionPods_StillRunning (upstream "
    "replica_calculator_test.go; TestReplicaCalcResourceScale/scale down: still-running "
    "pods being deleted are ignored; kubernetes issue 83561)") {
  ExpectResource(
      Fixture(5)
          .WithRequests(Requests(7, 1000))
          .WithLevels({{1000, 100}, {1000, 300}, {1000, 500}, {1000, 250}, {1000, 250}})
          .InContainer(2)
          .WithReady({true, true, true, true, true, false, false})
          .WithPhase({kRunning, kRunning, kRunning, kRunning, kRunning, kRunning, kRunning})
          .WithDeleting({false, false, false, false, false, true, true}),
      50, 3, 28, 280);
}

// ---------------------------------------------------------------------------------------------
// Tolerance, missing metrics, errors (resource).

TEST_CASE("ReplicaCalc: TestReplicaCalcTolerance (upstream replica_calculator_test.go)") {
  ExpectResource(
      Fixture(3).WithRequests({900, 1000, 1100}).WithLevels(PodLevels({1010, 1030, 1020})), 100, 3,
      102, kContainersPerPod * 1020);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcConfigurableTolerance (upstream "
    "replica_calculator_test.go)") {
  const Fixture base = Fixture(3).WithRequests({900, 1000, 1100});
  SUBCASE("Outside of a 0% tolerance") {
    Fixture f = base;
    f.levels = PodLevels({909, 1010, 1111});
    ExpectResource(f, 100, 4, 101, kContainersPerPod * 1010, Tolerances{0.0, 0.0});
  }
  SUBCASE("Within a 200% scale-up tolerance") {
    Fixture f = base;
    f.levels = PodLevels({1890, 1910, 1900});
    ExpectResource(f, 100, 3, 190, kContainersPerPod * 1900, Tolerances{0.1, 2.0});
  }
  SUBCASE("Outside 8% scale-up tolerance (and superfuous scale-down tolerance)") {
    Fixture f = base;
    f.levels = PodLevels({1100, 1080, 1090});
    ExpectResource(f, 100, 4, 109, kContainersPerPod * 1090, Tolerances{2.0, 0.08});
  }
  SUBCASE("Within a 36% scale-down tolerance") {
    Fixture f = base;
    f.levels = PodLevels({660, 640, 650});
    ExpectResource(f, 100, 3, 65, kContainersPerPod * 650, Tolerances{0.36, 0.1});
  }
  SUBCASE("Outside a 34% scale-down tolerance") {
    Fixture f = base;
    f.levels = PodLevels({660, 640, 650});
    ExpectResource(f, 100, 2, 65, kContainersPerPod * 650, Tolerances{0.34, 0.1});
  }
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcSuperfluousMetrics (upstream replica_calculator_test.go; "
    "the samples of the two unlisted pods dropped)") {
  // Upstream's levels are 4000, 9500, 3000, 7000, 3200, 2000 for four listed pods.
  ExpectResource(
      Fixture(4).WithRequests(Requests(4, 1000)).WithLevels(PodLevels({4000, 9500, 3000, 7000})),
      100, 24, 587, kContainersPerPod * 5875);
}

TEST_CASE("ReplicaCalc: TestReplicaCalcMissingMetrics (upstream replica_calculator_test.go)") {
  ExpectResource(Fixture(4).WithRequests(Requests(4, 1000)).WithLevels(PodLevels({400, 95})), 100,
                 3, 24, 495);
}

TEST_CASE("ReplicaCalc: TestReplicaCalcEmptyMetrics (upstream replica_calculator_test.go)") {
  const Fixture f = Fixture(4).WithRequests(Requests(3, 1000)).WithLevels(PodLevels({}));
  const ReplicaProposal p = ResourceReplicas(f.current_replicas, 100, true, Pods(f),
                                             kDefaultTolerances, kReadiness, kNow);
  CHECK_FALSE(p.ok());
}

TEST_CASE("ReplicaCalc: TestReplicaCalcEmptyCPURequest (upstream replica_calculator_test.go)") {
  const Fixture f = Fixture(1).WithRequests({}).WithLevels(PodLevels({200}));
  const ReplicaProposal p = ResourceReplicas(f.current_replicas, 100, true, Pods(f),
                                             kDefaultTolerances, kReadiness, kNow);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error.find("missing request for") != std::string::npos);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcDisjointResourcesMetrics (upstream "
    "replica_calculator_test.go; the sample of an-older-pod-name cannot be given, so the "
    "listed pod has none)") {
  const Fixture f = Fixture(1).WithRequests({1000});
  const ReplicaProposal p = ResourceReplicas(f.current_replicas, 100, true, Pods(f),
                                             kDefaultTolerances, kReadiness, kNow);
  CHECK_FALSE(p.ok());
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsNoChangeEq (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(2).WithRequests(Requests(2, 1000)).WithLevels(PodLevels({1000})), 100, 2,
                 100, kContainersPerPod * 1000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsNoChangeGt (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(2).WithRequests(Requests(2, 1000)).WithLevels(PodLevels({1900})), 100, 2,
                 190, kContainersPerPod * 1900);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsNoChangeLt (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(2).WithRequests(Requests(2, 1000)).WithLevels(PodLevels({600})), 100, 2,
                 60, kContainersPerPod * 600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsUnreadyChange (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({100, 450}))
                     .WithReady({false, true, true}),
                 50, 3, 45, kContainersPerPod * 450);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsHotCpuNoChange (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({100, 450}))
                     .WithStart({kHotCpu, kCoolCpu, kCoolCpu}),
                 50, 3, 45, kContainersPerPod * 450);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsUnreadyScaleUp (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({100, 2000}))
                     .WithReady({false, true, true}),
                 50, 4, 200, kContainersPerPod * 2000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsHotCpuScaleUp (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(3)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({100, 2000}))
                     .WithReady({false, true, true})
                     .WithStart({kHotCpu, kCoolCpu, kCoolCpu}),
                 50, 4, 200, kContainersPerPod * 2000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsUnreadyScaleDown (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(4)
                     .WithRequests(Requests(4, 1000))
                     .WithLevels(PodLevels({100, 100, 100}))
                     .WithReady({false, true, true, true}),
                 50, 3, 10, kContainersPerPod * 100);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcMissingMetricsScaleDownTargetOver100 (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(4)
                     .WithRequests({1000, 1000, 2000, 2000})
                     .WithLevels(PodLevels({200, 100, 100}))
                     .WithReady({false, true, true, true}),
                 300, 2, 6, kContainersPerPod * 100);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcDuringRollingUpdateWithMaxSurge (upstream "
    "replica_calculator_test.go)") {
  ExpectResource(Fixture(2)
                     .WithRequests(Requests(3, 1000))
                     .WithLevels(PodLevels({100, 100}))
                     .WithPhase({kRunning, kRunning, kRunning}),
                 50, 2, 10, kContainersPerPod * 100);
}

// TestComputedToleranceAlgImplementation: a target just past the tolerance scales down by one
// pod, one just inside it does not.
TEST_CASE(
    "ReplicaCalc: TestReplicaCalcComputedToleranceAlgImplementation (upstream "
    "replica_calculator_test.go)") {
  const int32_t start_pods = 10;
  const int64_t total_used = start_pods * 150;                           // 150 mCPU per pod
  const int32_t total_requested = static_cast<int32_t>(2 * total_used);  // twice the use
  const double requested_to_used = static_cast<double>(total_requested / total_used);
  const int32_t per_pod_requested = total_requested / start_pods;  // per container

  Fixture f(start_pods);
  for (int32_t d : {100, -100, 10, -10, 2, -2, 1, -1, 0, 0})
    f.requests.push_back(per_pod_requested + d);
  f.levels = std::vector<std::vector<int64_t>>(
      static_cast<size_t>(start_pods), std::vector<int64_t>(kContainersPerPod, total_used / 10));
  const int32_t want_utilization = static_cast<int32_t>(total_used * 100) / total_requested;
  const int64_t want_raw = kContainersPerPod * total_used / 10;

  // Past the tolerance: (1 - 0.1) breached by a hundredth.
  double target = std::abs(1 / (requested_to_used * (1 - 0.1))) + .01;
  int32_t target_percent = static_cast<int32_t>(target * 100);
  const double used_ratio =
      static_cast<double>(total_used) / (static_cast<double>(total_requested) * target);
  const int32_t final_pods = static_cast<int32_t>(std::ceil(used_ratio * start_pods));
  CHECK(target_percent == 56);
  CHECK(final_pods == 9);
  ExpectResource(f, target_percent, final_pods, want_utilization, want_raw);

  // Within it: no scaling.
  target = std::abs(1 / (requested_to_used * (1 - 0.1))) + .004;
  target_percent = static_cast<int32_t>(target * 100);
  CHECK(target_percent == 55);
  ExpectResource(f, target_percent, start_pods, want_utilization, want_raw);
}

// ---------------------------------------------------------------------------------------------
// Pods (custom) metrics: GetMetricReplicas, cpu = false (readiness is not looked at).

TEST_CASE("ReplicaCalc: TestReplicaCalcScaleUpCM (upstream replica_calculator_test.go)") {
  ExpectPodsMetric(Fixture(3).WithMetricLevels({20000, 10000, 30000}), 15000, 4, 20000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpCMUnreadyHotCpuNoLessScale (upstream "
    "replica_calculator_test.go)") {
  ExpectPodsMetric(Fixture(3)
                       .WithMetricLevels({50000, 10000, 30000})
                       .WithReady({true, true, false})
                       .WithStart({kCoolCpu, kCoolCpu, kHotCpu}),
                   15000, 6, 30000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpCMUnreadyHotCpuScaleWouldScaleDown (upstream "
    "replica_calculator_test.go)") {
  ExpectPodsMetric(Fixture(3)
                       .WithMetricLevels({50000, 15000, 30000})
                       .WithReady({false, true, false})
                       .WithStart({kHotCpu, kCoolCpu, kHotCpu}),
                   15000, 7, 31666);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpCMExternal (upstream replica_calculator_test.go, "
    "older version: a podMetric case)") {
  ExpectPodsMetric(Fixture(1).WithMetricLevels({8600}), 4400, 2, 8600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpCMExternalNoLabels (upstream "
    "replica_calculator_test.go, older version: a podMetric case)") {
  ExpectPodsMetric(Fixture(1).WithMetricLevels({8600}), 4400, 2, 8600);
}

TEST_CASE("ReplicaCalc: TestReplicaCalcScaleDownCM (upstream replica_calculator_test.go)") {
  ExpectPodsMetric(Fixture(5).WithMetricLevels({12000, 12000, 12000, 12000, 12000}), 20000, 3,
                   12000);
}

TEST_CASE("ReplicaCalc: TestReplicaCalcToleranceCM (upstream replica_calculator_test.go)") {
  ExpectPodsMetric(Fixture(3).WithMetricLevels({20000, 21000, 21000}), 20000, 3, 20666);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcConfigurableToleranceCM (upstream "
    "replica_calculator_test.go)") {
  ExpectPodsMetric(Fixture(3).WithMetricLevels({20000, 21000, 21000}), 20000, 4, 20666,
                   Tolerances{0.1, 0.01});
}

TEST_CASE(
    "ReplicaCalc: TestPlainMetricReplicaCalcMissingMetricsNoChangeEq (upstream "
    "replica_calculator_test.go)") {
  ExpectPodsMetric(Fixture(5).WithMetricLevels({20000, 19000, 21000}), 20000, 5, 20000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcDuringRollingUpdateWithMaxSurgeCM (upstream "
    "replica_calculator_test.go)") {
  ExpectPodsMetric(
      Fixture(2).WithMetricLevels({10000, 10000}).WithPhase({kRunning, kRunning, kRunning}), 17000,
      2, 10000);
}

// ---------------------------------------------------------------------------------------------
// Object and External metrics with a Value target: ValueMetricReplicas (ready pods counted as
// getReadyPodsCount does).

TEST_CASE("ReplicaCalc: TestReplicaCalcScaleUpOverflow (upstream replica_calculator_test.go)") {
  ExpectValueMetric(Fixture(3), kMaxInt64, 1, kMaxInt32, kMaxInt64);
}

TEST_CASE("ReplicaCalc: TestReplicaCalcScaleUpCMObject (upstream replica_calculator_test.go)") {
  ExpectValueMetric(Fixture(3), 20000, 15000, 4, 20000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpCMObjectIgnoresUnreadyPods (upstream "
    "replica_calculator_test.go)") {
  // 15 replicas if the unready pods were counted.
  ExpectValueMetric(Fixture(3).WithReady({false, true, false}), 50000, 10000, 5, 50000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpCMExternalIgnoresUnreadyPods (upstream "
    "replica_calculator_test.go)") {
  // 6 replicas if the unready pods were counted.
  ExpectValueMetric(Fixture(3).WithReady({false, true, false}), 8600, 4400, 2, 8600);
}

TEST_CASE("ReplicaCalc: TestReplicaCalcScaleDownCMObject (upstream replica_calculator_test.go)") {
  ExpectValueMetric(Fixture(5), 12000, 20000, 3, 12000);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownCMExternal (upstream "
    "replica_calculator_test.go)") {
  ExpectValueMetric(Fixture(5), 8600, 14334, 3, 8600);
}

TEST_CASE("ReplicaCalc: TestReplicaCalcToleranceCMObject (upstream replica_calculator_test.go)") {
  ExpectValueMetric(Fixture(3), 20666, 20000, 3, 20666);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcToleranceCMExternal (upstream "
    "replica_calculator_test.go)") {
  ExpectValueMetric(Fixture(3), 8600, 8888, 3, 8600);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcConfigurableToleranceCMObject (upstream "
    "replica_calculator_test.go)") {
  ExpectValueMetric(Fixture(3), 20666, 20000, 4, 20666, Tolerances{0.1, 0.01});
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcConfigurableToleranceCMExternal (upstream "
    "replica_calculator_test.go)") {
  ExpectValueMetric(Fixture(3), 8900, 8800, 4, 8900, Tolerances{0.1, 0.01});
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcExternalMetricUsageOverflow (upstream "
    "replica_calculator_test.go; the caller's capped sum of MaxInt64/2+1 twice)") {
  ExpectValueMetric(Fixture(3), kMaxInt64, kMaxInt64, 3, kMaxInt64);
}

// ---------------------------------------------------------------------------------------------
// Object and External metrics with an AverageValue target: AverageValueMetricReplicas.

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpCMPerPodObject (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(3, 20000, 5000, 4, 6667);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleUpPerPodCMExternal (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(3, 8600, 2150, 4, 2867);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownPerPodCMObject (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(5, 6000, 2000, 3, 1200);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcScaleDownPerPodCMExternal (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(5, 8600, 2867, 3, 1720);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcTolerancePerPodCMObject (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(4, 20166, 5000, 4, 5042);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcTolerancePerPodCMExternal (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(3, 8600, 2900, 3, 2867);
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcConfigurableTolerancePerPodCMObject (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(4, 20208, 5000, 5, 5052, Tolerances{0.1, 0.01});
}

TEST_CASE(
    "ReplicaCalc: TestReplicaCalcConfigurableTolerancePerPodCMExternal (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(3, 8600, 2800, 4, 2867, Tolerances{0.1, 0.01});
}

// Upstream's GetExternalPerPodMetricReplicas caps the per-pod usage: "if float64(usage) >=
// float64(math.MaxInt64) { usage = math.MaxInt64 }".
TEST_CASE(
    "ReplicaCalc: TestExternalPerPodMetricReplicaOverflow (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(1, kMaxInt64, 1, kMaxInt32, kMaxInt64);
}

TEST_CASE(
    "ReplicaCalc: TestExternalPerPodMetricUsageOverflow (upstream "
    "replica_calculator_test.go)") {
  ExpectAverageValueMetric(1, kMaxInt64, kMaxInt64, 1, kMaxInt64);
}

// ---------------------------------------------------------------------------------------------
// TestGroupPods. groupPods is not part of the API, so a pod's group is read from the calculator:
// the pod (request 3000 m, its sample, when it has one, set to 6000 m) beside a probe pod that is
// Ready long past initialization (request 1000 m), target 50 %, two current replicas.
//  * probe at 2000 m (200 %, a scale-up): ready → (2000 + 6000) / 4000 = 200 %, ceil(4 × 2) = 8;
//    ignored → the probe alone, ceil(4 × 1) = 4; unready or missing → counted at 0:
//    2000 / 4000 = 50 %, a ratio of 1, the current 2.
//  * probe at 100 m (10 %, a scale-down): unready → left out, ceil(0.2 × 1) = 1; missing →
//    counted at its request: 3100 / 4000 = 77 %, past 1, the current 2.
enum class PodGroup { kReady, kUnready, kMissing, kIgnored, kUnknown };

const char* GroupName(PodGroup g) {
  switch (g) {
    case PodGroup::kReady:
      return "ready";
    case PodGroup::kUnready:
      return "unready";
    case PodGroup::kMissing:
      return "missing";
    case PodGroup::kIgnored:
      return "ignored";
    case PodGroup::kUnknown:
      break;
  }
  return "unknown";
}

PodGroup ClassifyPod(PodSample pod, bool cpu) {
  pod.request = 3000;
  if (pod.value) pod.value = 6000;
  PodSample probe;
  probe.name = "probe";
  probe.ready = true;
  probe.ready_transition = kGoZeroTime;
  probe.start_time = kGoZeroTime;
  probe.request = 1000;
  probe.sample_time = kNow;
  probe.sample_window = kMinute;

  probe.value = 2000;
  const ReplicaProposal up =
      ResourceReplicas(2, 50, cpu, {probe, pod}, kDefaultTolerances, kReadiness, kNow);
  CAPTURE(up.error);
  REQUIRE(up.ok());
  if (up.replicas == 8) return PodGroup::kReady;
  if (up.replicas == 4) return PodGroup::kIgnored;
  if (up.replicas != 2) return PodGroup::kUnknown;

  probe.value = 100;
  const ReplicaProposal down =
      ResourceReplicas(2, 50, cpu, {probe, pod}, kDefaultTolerances, kReadiness, kNow);
  CAPTURE(down.error);
  REQUIRE(down.ok());
  if (down.replicas == 1) return PodGroup::kUnready;
  if (down.replicas == 2) return PodGroup::kMissing;
  return PodGroup::kUnknown;
}

// A TestGroupPods pod: phase Succeeded unless told, no Ready condition, no start time.
PodSample GroupPod(const char* name, ApiPodPhase phase = kSucceeded) {
  PodSample p;
  p.name = name;
  p.phase = phase;
  p.ready.reset();
  p.start_time.reset();
  return p;
}

void ReadyCondition(PodSample& p, bool status, SimTime transition) {
  p.ready = status;
  p.ready_transition = transition;
}

void Sample(PodSample& p, SimTime timestamp = kGoZeroTime, SimTime window = 0) {
  p.value = 1;
  p.sample_time = timestamp;
  p.sample_window = window;
}

void CheckGroup(const PodSample& pod, bool cpu, PodGroup want) {
  CAPTURE(pod.name);
  CHECK(std::string(GroupName(ClassifyPod(pod, cpu))) == GroupName(want));
}

TEST_CASE("ReplicaCalc: TestGroupPods (upstream replica_calculator_test.go)") {
  SUBCASE("void") {
    const ReplicaProposal p =
        ResourceReplicas(1, 50, true, {}, kDefaultTolerances, kReadiness, kNow);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error.find("no pods returned by selector") != std::string::npos);
  }
  SUBCASE("count in a ready pod - memory") {
    PodSample p = GroupPod("bentham");
    Sample(p, kNow, kMinute);
    CheckGroup(p, false, PodGroup::kReady);
  }
  SUBCASE("unready a pod without ready condition - CPU") {
    PodSample p = GroupPod("lucretius");
    p.start_time = kNow;
    Sample(p);
    CheckGroup(p, true, PodGroup::kUnready);
  }
  SUBCASE("count in a ready pod with fresh metrics during initialization period - CPU") {
    PodSample p = GroupPod("bentham");
    p.start_time = kNow - kMinute;
    ReadyCondition(p, true, kNow - 30 * kSecond);
    Sample(p, kNow, 30 * kSecond);
    CheckGroup(p, true, PodGroup::kReady);
  }
  SUBCASE("unready a ready pod without fresh metrics during initialization period - CPU") {
    PodSample p = GroupPod("bentham");
    p.start_time = kNow - kMinute;
    ReadyCondition(p, true, kNow - 30 * kSecond);
    Sample(p, kNow, 60 * kSecond);
    CheckGroup(p, true, PodGroup::kUnready);
  }
  SUBCASE("unready an unready pod during initialization period - CPU") {
    PodSample p = GroupPod("lucretius");
    p.start_time = kNow - 10 * kMinute;
    ReadyCondition(p, false, kNow - 9 * kMinute - 54 * kSecond);
    Sample(p);
    CheckGroup(p, true, PodGroup::kUnready);
  }
  SUBCASE("count in a ready pod without fresh metrics after initialization period - CPU") {
    PodSample p = GroupPod("bentham");
    p.start_time = kNow - 3 * kMinute;
    ReadyCondition(p, true, kNow - 3 * kMinute);
    Sample(p, kNow - 2 * kMinute, kMinute);
    CheckGroup(p, true, PodGroup::kReady);
  }
  SUBCASE("count in an unready pod that was ready after initialization period - CPU") {
    PodSample p = GroupPod("lucretius");
    p.start_time = kNow - 10 * kMinute;
    ReadyCondition(p, false, kNow - 9 * kMinute);
    Sample(p);
    CheckGroup(p, true, PodGroup::kReady);
  }
  SUBCASE("unready pod that has never been ready after initialization period - CPU") {
    // Upstream expects it counted in: the transition is exactly start + 10 s, not after it.
    PodSample p = GroupPod("lucretius");
    p.start_time = kNow - 10 * kMinute;
    ReadyCondition(p, false, kNow - 9 * kMinute - 50 * kSecond);
    Sample(p);
    CheckGroup(p, true, PodGroup::kReady);
  }
  SUBCASE("a missing pod") {
    PodSample p = GroupPod("epicurus");
    p.start_time = kNow - 3 * kMinute;
    CheckGroup(p, true, PodGroup::kMissing);
  }
  SUBCASE("several pods") {
    // groupPods looks at each pod alone; each is classified alone.
    PodSample lucretius = GroupPod("lucretius");
    lucretius.start_time = kNow;
    Sample(lucretius);
    PodSample niccolo = GroupPod("niccolo");
    niccolo.start_time = kNow - 3 * kMinute;
    ReadyCondition(niccolo, true, kNow - 3 * kMinute);
    Sample(niccolo);
    PodSample epicurus = GroupPod("epicurus");
    epicurus.start_time = kNow - 3 * kMinute;
    CheckGroup(lucretius, true, PodGroup::kUnready);
    CheckGroup(niccolo, true, PodGroup::kReady);
    CheckGroup(epicurus, true, PodGroup::kMissing);
  }
  SUBCASE("pending pods are unreadied") {
    PodSample p = GroupPod("unscheduled", kPending);
    CheckGroup(p, true, PodGroup::kUnready);
  }
  SUBCASE("ignore pods with deletion timestamps") {
    PodSample p = GroupPod("deleted", kPending);
    p.deleting = true;
    Sample(p);
    CheckGroup(p, true, PodGroup::kIgnored);
  }
  SUBCASE("ignore pods in a failed state") {
    PodSample p = GroupPod("failed", kFailed);
    Sample(p);
    CheckGroup(p, true, PodGroup::kIgnored);
  }
}

}  // namespace
}  // namespace knobsim::autoscaling

namespace knobsim::autoscaling {
namespace {

// docs/validation.md's HPA row: 4 Ready pods using 90 % of their cpu request against a 60 %
// target give ceil(1.5 × 4) = 6; at 64 % the ratio 1.067 is within the 10 % tolerance.
TEST_CASE("ReplicaCalc: 4 Ready pods at 90 % against 60 % give 6; at 64 % the count stays") {
  const SimTime now = 3600 * kNanosPerSecond;  // past the CPU initialization period
  std::vector<PodSample> pods(4);
  for (size_t i = 0; i < pods.size(); ++i) {
    pods[i].name = "p" + std::to_string(i);
    pods[i].value = 900;
    pods[i].request = 1000;
    pods[i].sample_time = now;
    pods[i].sample_window = 60 * kNanosPerSecond;
  }
  CHECK(ResourceReplicas(4, 60, true, pods, Tolerances{}, ReadinessSettings{}, now).replicas == 6);
  for (PodSample& p : pods) p.value = 640;
  CHECK(ResourceReplicas(4, 60, true, pods, Tolerances{}, ReadinessSettings{}, now).replicas == 4);
}

}  // namespace
}  // namespace knobsim::autoscaling
