// Co-location interference: how fast a GPU job runs while another job shares its card, as a
// fraction of its speed alone, predicted from the two jobs' solo profiles and fitted from
// measured pairs (`knobsim interference fit`, docs/interference.md; models/README.md §5).
//
// The model has two parts, each fitted by least absolute deviations (the error it is judged by is
// the mean absolute error of the co-located speed):
//
//   speed(a | b) = w · f(profile_a, profile_b)  +  sensitivity_a + pressure_b
//
// - w · f: a quadratic response surface in the two jobs' GPU utilization u and memory-bandwidth
//   utilization m (fractions of the card) and their memory g (per kMemoryScaleMib): the terms
//   1, u_a, u_b, m_a, m_b, u_a·u_b, m_a·m_b, u_a·m_b, m_a·u_b, u_a², u_b², g_a, g_b. The products
//   are the contention the literature names (time-slicing when the two jobs' kernels together ask
//   for more than the card, u_a + u_b > 1; bandwidth when both stream memory); the squares let a
//   light job lose less than the fluid split says (its CPU and data phases leave the card to the
//   other). It alone predicts any pair of profiled jobs, including jobs the fit never saw.
// - sensitivity_a + pressure_b: per job seen in the training pairs, how much more it suffers
//   (sensitivity) and how much more it hurts others (pressure) than its profile says — the
//   "sensitivity to and pressure on shared resources" classification of Paragon (Delimitrou and
//   Kozyrakis, ASPLOS 2013), fitted as ridge-shrunk offsets so a job seen in few pairs stays near
//   the profile's prediction. The shrinkage λ is chosen by cross-validation inside the training
//   pairs (kLambdaGrid).
//
// Predictions are clamped to the range of the training speeds: outside it the surface is an
// extrapolation the data never supported. No profile, no prediction: the caller keeps its own
// rule (the sharing policy's fluid split).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace knobsim {

// A job measured alone on the card. Percentages as nvidia-smi / DCGM report them (0–100).
struct JobProfile {
  std::string job;
  double gpu_util_pct = 0;     // time the card ran the job's kernels
  double mem_bw_util_pct = 0;  // memory-bandwidth utilization (nvidia-smi's "memory" utilization)
  double memory_mib = 0;       // device memory it held
};

// Two jobs measured together: each one's speed as a fraction of its solo speed.
struct PairSample {
  int a = 0;  // index into the profiles
  int b = 0;
  double speed_a = 1;
  double speed_b = 1;
};

// Memory enters the surface per this many MiB: only the conditioning of the fit depends on it
// (the coefficient of g scales with it), not a prediction.
inline constexpr double kMemoryScaleMib = 16384;

inline constexpr int kSurfaceTerms = 13;
// The names of the surface's terms, in the order of InterferenceModel::weights.
extern const char* const kSurfaceTermNames[kSurfaceTerms];

// The ridge strengths cross-validation chooses among for the per-job offsets.
inline constexpr double kLambdaGrid[] = {1, 3, 10, 30, 100, 300};

// Below this many training pairs the per-job offsets are not fitted (too few pairs per job to
// tell a job's own sensitivity from noise): the surface alone predicts.
inline constexpr int kMinPairsForJobOffsets = 20;

struct JobOffsets {
  std::string job;
  double sensitivity = 0;
  double pressure = 0;
  int pairs = 0;  // training pairs the job was in
};

// A job looked up once for repeated predictions (a simulation re-shares a card at every change
// of its active pods): its profile and its per-job offsets, 0 where the fit never saw it.
struct ResolvedJob {
  JobProfile profile;
  double sensitivity = 0;
  double pressure = 0;
};

struct InterferenceModel {
  std::vector<double> weights;  // kSurfaceTerms of them
  std::vector<JobOffsets> jobs;  // sorted by job name
  double lambda = 0;             // 0: no per-job offsets
  double min_speed = 0;          // the clamp: the training speeds' range
  double max_speed = 1;
  double train_mean = 1;  // the mean training speed (the "train mean" baseline)
  int train_pairs = 0;

  // The speed of `victim` while `aggressor` runs beside it; the per-job offsets of either job
  // when the fit saw it (by name).
  double Speed(const JobProfile& victim, const JobProfile& aggressor) const;
  // The surface alone, unclamped: what Speed predicts for two jobs the fit never saw.
  double SurfaceSpeed(const JobProfile& victim, const JobProfile& aggressor) const;
  const JobOffsets* Offsets(const std::string& job) const;
  // The same prediction as Speed, the offsets already looked up.
  ResolvedJob Resolve(const JobProfile& job) const;
  double Speed(const ResolvedJob& victim, const ResolvedJob& aggressor) const;
};

struct InterferenceFitOptions {
  int folds = 5;  // of the inner cross-validation that chooses λ
  uint64_t seed = 1;
};

// The model fitted to `pairs` (indexes into `profiles`). Needs at least one pair; speeds finite.
InterferenceModel FitInterference(const std::vector<JobProfile>& profiles,
                                  const std::vector<PairSample>& pairs,
                                  const InterferenceFitOptions& options = {});

// Mean absolute error of the co-located speed (both jobs of each pair) on held-out folds.
struct CrossValidation {
  int folds = 0;
  int pairs = 0;
  double model_mae = 0;
  double surface_mae = 0;  // the surface alone: the error on jobs the fit never saw in a pair
  double speed_one_mae = 0;   // baseline: "no slowdown", speed = 1
  double train_mean_mae = 0;  // baseline: the training folds' mean speed
};

// K-fold cross-validation over the pairs (a seeded shuffle, then contiguous folds). `folds` is
// clamped to [2, pairs]; needs at least 2 pairs.
CrossValidation CrossValidateInterference(const std::vector<JobProfile>& profiles,
                                          const std::vector<PairSample>& pairs,
                                          const InterferenceFitOptions& options = {});

// The pairs in a seeded random order: a Fisher–Yates shuffle driven by std::mt19937_64, whose
// sequence the C++ standard fixes, so folds are the same on every platform.
std::vector<int> ShuffledOrder(int n, uint64_t seed);

}  // namespace knobsim
