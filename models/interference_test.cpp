#include "models/interference.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace knobsim {
namespace {

// A known truth: speed(a | b) = 1 - 0.45 u_a u_b - 0.25 m_a m_b + sensitivity_a + pressure_b
// plus noise of `noise` (uniform ±), for `jobs` jobs with seeded random profiles, every
// unordered pair of distinct jobs measured once.
struct Synthetic {
  std::vector<JobProfile> profiles;
  std::vector<PairSample> pairs;
  std::vector<double> sensitivity, pressure;
};

double TrueSpeed(const Synthetic& s, int a, int b) {
  const JobProfile& x = s.profiles[a];
  const JobProfile& y = s.profiles[b];
  return 1 - 0.45 * x.gpu_util_pct / 100 * y.gpu_util_pct / 100 -
         0.25 * x.mem_bw_util_pct / 100 * y.mem_bw_util_pct / 100 + s.sensitivity[a] +
         s.pressure[b];
}

Synthetic MakeSynthetic(int jobs, double offsets, double noise, uint64_t seed) {
  Synthetic s;
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int j = 0; j < jobs; ++j) {
    const double u = 20 + 80 * unit(random);
    s.profiles.push_back({"job-" + std::to_string(j), u, u * (0.2 + 0.6 * unit(random)),
                          1000 + 20000 * unit(random)});
    s.sensitivity.push_back(offsets * (unit(random) - 0.5));
    s.pressure.push_back(offsets * (unit(random) - 0.5));
  }
  for (int a = 0; a < jobs; ++a) {
    for (int b = a + 1; b < jobs; ++b) {
      const double na = noise * (2 * unit(random) - 1), nb = noise * (2 * unit(random) - 1);
      s.pairs.push_back({a, b, TrueSpeed(s, a, b) + na, TrueSpeed(s, b, a) + nb});
    }
  }
  return s;
}

TEST_CASE("interference: the fit recovers a known truth and beats the naive baselines") {
  const Synthetic s = MakeSynthetic(30, 0.08, 0.01, 7);
  const CrossValidation cv = CrossValidateInterference(s.profiles, s.pairs);
  CHECK(cv.pairs == 435);
  CHECK(cv.folds == 5);
  // The noise is uniform ±0.01 (mean absolute 0.005): the model is within a little of it, and
  // far under both baselines.
  CHECK(cv.model_mae < 0.012);
  CHECK(cv.model_mae < cv.surface_mae);  // the per-job offsets are real here
  CHECK(cv.model_mae < cv.train_mean_mae / 4);
  CHECK(cv.model_mae < cv.speed_one_mae / 4);

  const InterferenceModel m = FitInterference(s.profiles, s.pairs);
  CHECK(m.lambda > 0);
  REQUIRE(m.jobs.size() == 30);
  CHECK(m.train_pairs == 435);
  for (int a : {0, 5, 17}) {
    for (int b : {3, 11, 29}) {
      CHECK(std::abs(m.Speed(s.profiles[a], s.profiles[b]) - TrueSpeed(s, a, b)) < 0.02);
    }
  }
}

TEST_CASE("interference: without per-job effects the surface alone recovers the products") {
  const Synthetic s = MakeSynthetic(24, 0, 0, 3);
  const InterferenceModel m = FitInterference(s.profiles, s.pairs);
  // Exact data: the least-absolute-deviation surface is the truth's own coefficients.
  CHECK(m.weights[0] == doctest::Approx(1).epsilon(1e-3));
  CHECK(m.weights[5] == doctest::Approx(-0.45).epsilon(1e-2));  // u_a*u_b
  CHECK(m.weights[6] == doctest::Approx(-0.25).epsilon(1e-2));  // m_a*m_b
  for (const JobOffsets& o : m.jobs) {
    CHECK(std::abs(o.sensitivity) < 1e-3);
    CHECK(std::abs(o.pressure) < 1e-3);
  }
}

TEST_CASE("interference: two jobs with the same profile and no offsets slow each other alike") {
  const Synthetic s = MakeSynthetic(12, 0.05, 0.01, 11);
  const InterferenceModel m = FitInterference(s.profiles, s.pairs);
  const JobProfile twin_a{"unseen-a", 70, 30, 8000};
  const JobProfile twin_b{"unseen-b", 70, 30, 8000};
  CHECK(m.Speed(twin_a, twin_b) == m.Speed(twin_b, twin_a));
  // A job the fit never saw gets the surface alone (clamped to the training range).
  CHECK(m.Offsets("unseen-a") == nullptr);
  CHECK(m.Speed(twin_a, twin_b) ==
        std::clamp(m.SurfaceSpeed(twin_a, twin_b), m.min_speed, m.max_speed));
}

TEST_CASE("interference: predictions stay inside the training speeds") {
  const Synthetic s = MakeSynthetic(12, 0.05, 0.01, 5);
  const InterferenceModel m = FitInterference(s.profiles, s.pairs);
  const JobProfile huge{"huge", 100, 100, 1e6};  // memory far outside anything seen
  const double v = m.Speed(huge, huge);
  CHECK(v >= m.min_speed);
  CHECK(v <= m.max_speed);
}

TEST_CASE("interference: a resolved job predicts what its name does, offsets and all") {
  const Synthetic s = MakeSynthetic(12, 0.08, 0.01, 21);
  const InterferenceModel m = FitInterference(s.profiles, s.pairs);
  REQUIRE_FALSE(m.jobs.empty());
  const JobProfile unseen{"", 55, 30, 8000};  // a workload's own profile: no offsets
  std::vector<JobProfile> jobs = s.profiles;
  jobs.push_back(unseen);
  for (const JobProfile& a : jobs) {
    for (const JobProfile& b : jobs) {
      CHECK(m.Speed(m.Resolve(a), m.Resolve(b)) == m.Speed(a, b));
    }
  }
  const ResolvedJob r = m.Resolve(unseen);
  CHECK(r.sensitivity == 0);
  CHECK(r.pressure == 0);
}

TEST_CASE("interference: too few pairs fit the surface alone") {
  Synthetic s = MakeSynthetic(6, 0.05, 0.01, 9);  // 15 pairs < kMinPairsForJobOffsets
  REQUIRE(static_cast<int>(s.pairs.size()) < kMinPairsForJobOffsets);
  const InterferenceModel m = FitInterference(s.profiles, s.pairs);
  CHECK(m.lambda == 0);
  CHECK(m.jobs.empty());
  CHECK(m.weights.size() == static_cast<size_t>(kSurfaceTerms));
}

TEST_CASE("interference: the fit is deterministic and does not depend on the profiles' order") {
  Synthetic s = MakeSynthetic(15, 0.06, 0.01, 13);
  const InterferenceModel first = FitInterference(s.profiles, s.pairs);
  const InterferenceModel again = FitInterference(s.profiles, s.pairs);
  CHECK(first.weights == again.weights);
  CHECK(first.lambda == again.lambda);
  REQUIRE(first.jobs.size() == again.jobs.size());
  for (size_t i = 0; i < first.jobs.size(); ++i) {
    CHECK(first.jobs[i].job == again.jobs[i].job);
    CHECK(first.jobs[i].sensitivity == again.jobs[i].sensitivity);
  }
  for (size_t i = 1; i < first.jobs.size(); ++i) CHECK(first.jobs[i - 1].job < first.jobs[i].job);
}

TEST_CASE("ShuffledOrder: a seeded permutation, the same for the same seed") {
  const std::vector<int> a = ShuffledOrder(50, 42);
  CHECK(a == ShuffledOrder(50, 42));
  CHECK(a != ShuffledOrder(50, 43));
  CHECK(std::set<int>(a.begin(), a.end()).size() == 50);
  CHECK(ShuffledOrder(0, 1).empty());
}

}  // namespace
}  // namespace knobsim
