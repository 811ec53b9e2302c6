// CronHPA runs against the controller's code. kubernetes-cronhpa-controller has no tests of its
// own (no _test.go outside vendor/ at commit 31c63bed635f92f7d3fc0cdbcf0274c186e37382), so the
// cases are worked out by hand from pkg/controller/cronjob.go (CronJobHPA.Run, ScaleHPA,
// ScalePlainRef, IsTodayOff), cronhorizontalpodautoscaler_controller.go (runOnce) and
// cronexecutor.go (FindJob). The ScaleHPA rows include the cases of ACK's "Make CronHPA
// compatible with HPA" table as the code computes them.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/autoscaling/cron_hpa.h"
#include "sim/cron_schedule.h"

namespace knobsim::autoscaling {
namespace {

constexpr int32_t kShanghai = 8 * 3600;

CronSchedule MustParse(std::string_view text) {
  Expected<CronSchedule> s = ParseCronSchedule(text);
  INFO("schedule: ", std::string(text));
  REQUIRE(s.ok());
  return *s;
}

int64_t Local(int64_t y, int mo, int d, int h, int mi, int s = 0) {
  return UnixAtWallClock(y, mo, d, h, mi, s, kShanghai);
}

CronHpaSpec HpaSpec() {
  CronHpaSpec spec;
  spec.name = "cronhpa-sample";
  spec.target_api_version = "autoscaling/v2";
  spec.target_kind = "HorizontalPodAutoscaler";
  spec.target_name = "web-hpa";
  spec.jobs.push_back({"scale-up", MustParse("0 0 8 * * *"), 10, false, "0 0 8 * * *"});
  spec.jobs.push_back({"scale-down", MustParse("0 0 20 * * *"), 2, false, "0 0 20 * * *"});
  return spec;
}

CronHpaSpec DeploymentSpec() {
  CronHpaSpec spec = HpaSpec();
  spec.target_api_version = "apps/v1";
  spec.target_kind = "Deployment";
  spec.target_name = "web";
  return spec;
}

TEST_CASE("CronHpa: ScaleHPA moves the HPA's bounds and raises the workload (cronjob.go)") {
  struct Case {
    std::string_view rule;
    int32_t min, max, hpa_current, workload, target;
    bool updated;
    int32_t new_min, new_max;
    bool scaled;
    int32_t replicas;
  };
  const std::vector<Case> cases = {
      {"target equals the HPA's current: nothing changes", 1, 10, 5, 5, 5, false, 1, 10, false, 5},
      {"target below the HPA's current, within bounds: nothing changes", 1, 10, 5, 5, 4, false, 1,
       10, false, 5},
      {"target above the HPA's current: the minimum becomes the target and the workload is scaled",
       1, 10, 5, 5, 6, true, 6, 10, true, 6},
      {"target above the maximum: both bounds become the target", 5, 5, 5, 5, 6, true, 6, 6, true,
       6},
      {"target below the minimum: the minimum falls, the workload is left to the HPA", 5, 5, 5, 5,
       4, true, 4, 5, false, 5},
      {"the minimum falls to a scale-down target and stays there", 4, 10, 4, 4, 1, true, 1, 10,
       false, 4},
      {"target above the maximum and the current", 4, 10, 6, 6, 11, true, 11, 11, true, 11},
      {"HPA above the raised maximum: only the maximum moves", 4, 10, 12, 12, 11, true, 4, 11,
       false, 12},
      {"target equal to the minimum, HPA below it: rewritten unchanged, workload scaled", 3, 10, 2,
       2, 3, true, 3, 10, true, 3},
      {"the decision reads the HPA's status, not the workload: a scale down is written", 1, 10, 3,
       5, 4, true, 4, 10, true, 4},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    const CronHpaAction a =
        ApplyCronTarget(c.target, HpaState{c.min, c.max, c.hpa_current}, c.workload);
    CHECK_FALSE(a.failed);
    CHECK_FALSE(a.excluded);
    CHECK(a.hpa_updated == c.updated);
    CHECK(a.hpa_min_replicas == c.new_min);
    CHECK(a.hpa_max_replicas == c.new_max);
    CHECK(a.scaled == c.scaled);
    CHECK(a.replicas == c.replicas);
  }
}

TEST_CASE("CronHpa: ScaleHPA with a target below 1 is refused by the API server") {
  for (int32_t target : {0, -1}) {
    CAPTURE(target);
    const CronHpaAction a = ApplyCronTarget(target, HpaState{1, 10, 5}, 5);
    CHECK(a.failed);
    CHECK_FALSE(a.hpa_updated);
    CHECK_FALSE(a.scaled);
    CHECK(a.hpa_min_replicas == 1);
    CHECK(a.hpa_max_replicas == 10);
    CHECK(a.replicas == 5);
    CHECK(a.message.find("spec.minReplicas") != std::string::npos);
  }
}

TEST_CASE("CronHpa: ScalePlainRef sets the replicas to the target, no bounds (cronjob.go)") {
  struct Case {
    int32_t workload, target;
  };
  for (const Case& c : std::vector<Case>{{3, 10}, {10, 1}, {5, 5}, {4, 0}, {0, 7}}) {
    CAPTURE(c.workload);
    CAPTURE(c.target);
    const CronHpaAction a = ApplyCronTarget(c.target, std::nullopt, c.workload);
    CHECK_FALSE(a.failed);
    CHECK(a.scaled);  // written even when unchanged
    CHECK(a.replicas == c.target);
    CHECK_FALSE(a.hpa_updated);
  }
  const CronHpaAction negative = ApplyCronTarget(-1, std::nullopt, 3);
  CHECK(negative.failed);
  CHECK_FALSE(negative.scaled);
  CHECK(negative.replicas == 3);
}

TEST_CASE("CronHpa: a run's messages are upstream's") {
  const CronHpaSpec hpa_spec = HpaSpec();
  const CronHpaSpec deploy_spec = DeploymentSpec();
  const int64_t now = Local(2024, 3, 4, 8, 0);
  CHECK(RunCronHpaJob(deploy_spec, 0, now, kShanghai, std::nullopt, 3).message ==
        "current replicas:3, desired replicas:10.");
  CHECK(RunCronHpaJob(hpa_spec, 1, now, kShanghai, HpaState{2, 10, 5}, 5).message ==
        "Skip scale replicas because HPA web-hpa in namespace default current replicas:5 >= "
        "desired replicas:2.");
  CHECK(RunCronHpaJob(hpa_spec, 0, now, kShanghai, HpaState{2, 5, 2}, 2).message ==
        "current replicas:2, desired replicas:10.");
  CronHpaSpec zero = deploy_spec;
  zero.jobs[0].target_size = -1;
  CHECK(RunCronHpaJob(zero, 0, now, kShanghai, std::nullopt, 3)
            .message.rfind(
                "failed to scale Deployment web in default namespace to -1 after retrying 4 times",
                0) == 0);
}

TEST_CASE("CronHpa: the kind decides between ScaleHPA and ScalePlainRef, exactly") {
  CronHpaSpec spec = HpaSpec();
  CHECK(TargetsHpa(spec));
  spec.target_kind = "horizontalpodautoscaler";
  CHECK_FALSE(TargetsHpa(spec));
  // A Deployment target ignores any HPA state handed in.
  const CronHpaAction plain = RunCronHpaJob(DeploymentSpec(), 1, Local(2024, 3, 4, 20, 0),
                                            kShanghai, HpaState{5, 10, 8}, 8);
  CHECK(plain.scaled);
  CHECK(plain.replicas == 2);
  CHECK_FALSE(plain.hpa_updated);
  // An HPA target whose HPA does not exist fails.
  const CronHpaAction missing =
      RunCronHpaJob(HpaSpec(), 0, Local(2024, 3, 4, 8, 0), kShanghai, std::nullopt, 3);
  CHECK(missing.failed);
  CHECK(missing.replicas == 3);
}

TEST_CASE("CronHpa: an excluded run changes nothing and succeeds (CronJobHPA.Run, IsTodayOff)") {
  CronHpaSpec spec = HpaSpec();
  spec.exclude_dates.push_back({"* * * 15 11 *", MustParse("* * * 15 11 *")});
  spec.exclude_dates.push_back({"* * * * * 5", MustParse("* * * * * 5")});
  // Friday 15 November 2024, 08:00: both match, the first is named.
  const CronHpaAction a =
      RunCronHpaJob(spec, 0, Local(2024, 11, 15, 8, 0), kShanghai, HpaState{2, 5, 2}, 2);
  CHECK(a.excluded);
  CHECK_FALSE(a.failed);
  CHECK_FALSE(a.scaled);
  CHECK_FALSE(a.hpa_updated);
  CHECK(a.replicas == 2);
  CHECK(a.hpa_min_replicas == 2);
  CHECK(a.hpa_max_replicas == 5);
  CHECK(a.message == "skip scaling activity,because of excludeDate (* * * 15 11 *).");
  CHECK(FirstExcludingDate(spec.exclude_dates, Local(2024, 11, 22, 8, 0), kShanghai) == 1);
  CHECK(FirstExcludingDate(spec.exclude_dates, Local(2024, 11, 21, 8, 0), kShanghai) == -1);
  // Thursday 14 November at 00:30: the Nov-15 entry's next match is 15 Nov 00:00 (same month,
  // hour 00), so upstream skips this run too.
  CHECK(FirstExcludingDate(spec.exclude_dates, Local(2024, 11, 14, 0, 30), kShanghai) == 0);
}

TEST_CASE("CronHpa: runOnce, or a @date schedule, ends the job after its first run") {
  CronHpaJob job{"once", MustParse("0 0 8 * * *"), 3, true, "0 0 8 * * *"};
  CHECK(RunsOnce(job));
  job.run_once = false;
  CHECK_FALSE(RunsOnce(job));
  job.schedule = MustParse("@date 2024-11-11 00:00:00");
  CHECK(RunsOnce(job));
  // The run that ends it may be one skipped by excludeDates: it still counts as Succeed.
  CronHpaSpec spec = DeploymentSpec();
  spec.jobs = {job};
  spec.exclude_dates.push_back({"* * * 11 11 *", MustParse("* * * 11 11 *")});
  const int64_t fire = NextCronFire(job.schedule, Local(2024, 6, 1, 0, 0), kShanghai);
  CHECK(fire == Local(2024, 11, 11, 0, 0));
  const CronHpaAction a = RunCronHpaJob(spec, 0, fire, kShanghai, std::nullopt, 1);
  CHECK(a.excluded);
  CHECK_FALSE(a.failed);
}

TEST_CASE("CronHpa: GC reruns a job whose next fire is more than 5 minutes past or missing") {
  const int64_t now = Local(2024, 3, 4, 8, 0);
  CHECK(GcRerunsJob(kNoCronFire, now));
  CHECK(GcRerunsJob(now - kCronHpaMaxOutOfDateS, now));
  CHECK_FALSE(GcRerunsJob(now - kCronHpaMaxOutOfDateS + 1, now));
  CHECK_FALSE(GcRerunsJob(now + 60, now));
  // "0 0 0 30 2 *" never fires: its entry's next time is Go's zero time, so every GC pass runs it.
  CHECK(GcRerunsJob(NextCronFire(MustParse("0 0 0 30 2 *"), now, kShanghai), now));
}

TEST_CASE("CronHpa: a day of an HPA-targeting CronHPA, the bounds as they drift") {
  // HPA web-hpa at 2/5 with 2 replicas; scale-up to 10 at 08:00, scale-down to 2 at 20:00.
  const CronHpaSpec spec = HpaSpec();
  HpaState hpa{2, 5, 2};
  int32_t replicas = 2;
  const auto run = [&](size_t job, int64_t at) {
    const CronHpaAction a = RunCronHpaJob(spec, job, at, kShanghai, hpa, replicas);
    REQUIRE_FALSE(a.failed);
    hpa.min_replicas = a.hpa_min_replicas;
    hpa.max_replicas = a.hpa_max_replicas;
    replicas = a.replicas;
    return a;
  };
  // Monday 08:00: 10 > max 5 → max 10; current 2 < 10 → min 10; the Deployment goes to 10.
  const int64_t up = NextCronFire(spec.jobs[0].schedule, Local(2024, 3, 4, 0, 0), kShanghai);
  CHECK(up == Local(2024, 3, 4, 8, 0));
  CHECK(run(0, up).scaled);
  CHECK(hpa.min_replicas == 10);
  CHECK(hpa.max_replicas == 10);
  CHECK(replicas == 10);
  hpa.current_replicas = 10;  // the HPA's status catches up
  // Monday 20:00: 2 < min 10 → min 2; current 10 >= 2 → the Deployment is left to the HPA.
  const int64_t down = NextCronFire(spec.jobs[1].schedule, up, kShanghai);
  CHECK(down == Local(2024, 3, 4, 20, 0));
  CHECK_FALSE(run(1, down).scaled);
  CHECK(hpa.min_replicas == 2);
  CHECK(hpa.max_replicas == 10);  // never lowered again
  CHECK(replicas == 10);
  // Overnight the HPA scales down to 3 on its metrics; Tuesday 08:00 raises it again.
  hpa.current_replicas = 3;
  replicas = 3;
  const int64_t up2 = NextCronFire(spec.jobs[0].schedule, down, kShanghai);
  CHECK(up2 == Local(2024, 3, 5, 8, 0));
  CHECK(run(0, up2).scaled);
  CHECK(hpa.min_replicas == 10);
  CHECK(hpa.max_replicas == 10);
  CHECK(replicas == 10);
}

}  // namespace
}  // namespace knobsim::autoscaling
