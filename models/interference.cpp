#include "models/interference.h"

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace knobsim {

const char* const kSurfaceTermNames[kSurfaceTerms] = {
    "1",       "u_a",     "u_b",     "m_a",     "m_b",     "u_a*u_b", "m_a*m_b",
    "u_a*m_b", "m_a*u_b", "u_a^2",   "u_b^2",   "g_a",     "g_b"};

namespace {

// IRLS for least absolute deviations: each pass weighs a sample by 1 / max(|residual|, floor).
// The floor keeps a sample that already fits exactly from taking all the weight; 60 passes
// bring the mean absolute error within 1e-5 of its minimum on every data set tried.
constexpr int kIrlsPasses = 60;
constexpr double kSurfaceResidualFloor = 1e-4;
constexpr double kOffsetResidualFloor = 1e-3;
// A ridge this small only breaks ties between collinear terms (profiles that all hold the same
// memory, say): it moves no prediction of a well-posed fit.
constexpr double kSurfaceTieRidge = 1e-9;

using Terms = Eigen::Matrix<double, kSurfaceTerms, 1>;

Terms SurfaceTerms(const JobProfile& victim, const JobProfile& aggressor) {
  const double ua = victim.gpu_util_pct / 100, ma = victim.mem_bw_util_pct / 100;
  const double ub = aggressor.gpu_util_pct / 100, mb = aggressor.mem_bw_util_pct / 100;
  const double ga = victim.memory_mib / kMemoryScaleMib;
  const double gb = aggressor.memory_mib / kMemoryScaleMib;
  Terms t;
  t << 1, ua, ub, ma, mb, ua * ub, ma * mb, ua * mb, ma * ub, ua * ua, ub * ub, ga, gb;
  return t;
}

// w · t summed in term order: the fit's residuals and every prediction add the same way, so a
// model read back predicts bit for bit what the fit saw.
double SurfaceValue(const double* weights, const Terms& t) {
  double s = 0;
  for (int k = 0; k < kSurfaceTerms; ++k) s += weights[k] * t(k);
  return s;
}

// One job's speed beside another: the victim's and the aggressor's profile index and the speed.
struct Directed {
  int victim = 0;
  int aggressor = 0;
  double speed = 1;
};

std::vector<Directed> DirectedSamples(const std::vector<PairSample>& pairs,
                                      const std::vector<int>& chosen) {
  std::vector<Directed> out;
  out.reserve(chosen.size() * 2);
  for (int i : chosen) {
    const PairSample& p = pairs[i];
    out.push_back({p.a, p.b, p.speed_a});
    out.push_back({p.b, p.a, p.speed_b});
  }
  return out;
}

Eigen::VectorXd FitSurface(const std::vector<JobProfile>& profiles,
                           const std::vector<Directed>& samples) {
  const int n = static_cast<int>(samples.size());
  Eigen::MatrixXd x(n, kSurfaceTerms);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    x.row(i) = SurfaceTerms(profiles[samples[i].victim], profiles[samples[i].aggressor]);
    y(i) = samples[i].speed;
  }
  Eigen::VectorXd weight = Eigen::VectorXd::Ones(n);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(kSurfaceTerms);
  const Eigen::MatrixXd tie = kSurfaceTieRidge * Eigen::MatrixXd::Identity(kSurfaceTerms,
                                                                           kSurfaceTerms);
  for (int pass = 0; pass < kIrlsPasses; ++pass) {
    const Eigen::MatrixXd xtw = x.transpose() * weight.asDiagonal();
    beta = (xtw * x + tie).ldlt().solve(xtw * y);
    const Eigen::VectorXd residual = (y - x * beta).cwiseAbs();
    weight = residual.cwiseMax(kSurfaceResidualFloor).cwiseInverse();
  }
  return beta;
}

// The per-job offsets on the surface's residuals: unknowns 0..J-1 are sensitivities, J..2J-1
// pressures, of the jobs numbered by `slot` (profile index → 0..J-1). Each sample touches two
// unknowns, so the normal matrix is sparse (the ridge's diagonal and one entry per distinct
// victim–aggressor pair): a sparse Cholesky keeps memory linear in the pairs for any number of
// jobs.
Eigen::VectorXd FitOffsets(const std::vector<Directed>& samples, const std::vector<double>& residual,
                           const std::vector<int>& slot, int jobs, double lambda) {
  const int unknowns = 2 * jobs;
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(unknowns);
  std::vector<double> weight(samples.size(), 1.0);
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(4 * samples.size() + static_cast<size_t>(unknowns));
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver;
  for (int pass = 0; pass < kIrlsPasses / 2; ++pass) {
    entries.clear();
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(unknowns);
    for (int k = 0; k < unknowns; ++k) entries.emplace_back(k, k, lambda);
    for (size_t i = 0; i < samples.size(); ++i) {
      const int s = slot[samples[i].victim];
      const int p = jobs + slot[samples[i].aggressor];
      const double w = weight[i];
      entries.emplace_back(s, s, w);
      entries.emplace_back(p, p, w);
      entries.emplace_back(s, p, w);
      entries.emplace_back(p, s, w);
      rhs(s) += w * residual[i];
      rhs(p) += w * residual[i];
    }
    Eigen::SparseMatrix<double> normal(unknowns, unknowns);
    normal.setFromTriplets(entries.begin(), entries.end());  // duplicates are summed
    if (pass == 0) solver.analyzePattern(normal);  // the pattern is the same every pass
    solver.factorize(normal);
    theta = solver.solve(rhs);
    for (size_t i = 0; i < samples.size(); ++i) {
      const double fitted =
          theta(slot[samples[i].victim]) + theta(jobs + slot[samples[i].aggressor]);
      weight[i] = 1.0 / std::max(std::abs(residual[i] - fitted), kOffsetResidualFloor);
    }
  }
  return theta;
}

// The model for the training pairs `chosen` at a fixed λ (0: the surface alone).
InterferenceModel FitAt(const std::vector<JobProfile>& profiles,
                        const std::vector<PairSample>& pairs, const std::vector<int>& chosen,
                        double lambda) {
  const std::vector<Directed> samples = DirectedSamples(pairs, chosen);
  InterferenceModel model;
  const Eigen::VectorXd beta = FitSurface(profiles, samples);
  model.weights.assign(beta.data(), beta.data() + beta.size());
  model.train_pairs = static_cast<int>(chosen.size());
  model.min_speed = std::numeric_limits<double>::infinity();
  model.max_speed = -std::numeric_limits<double>::infinity();
  double sum = 0;
  for (const Directed& d : samples) {
    model.min_speed = std::min(model.min_speed, d.speed);
    model.max_speed = std::max(model.max_speed, d.speed);
    sum += d.speed;
  }
  model.train_mean = sum / static_cast<double>(samples.size());
  if (lambda <= 0) return model;

  // Jobs in name order, so the offsets' order (and the model file) does not depend on the
  // order the profiles were given in.
  std::map<std::string, int> by_name;
  std::vector<int> pairs_of(profiles.size(), 0);
  for (int i : chosen) {
    ++pairs_of[pairs[i].a];
    if (pairs[i].b != pairs[i].a) ++pairs_of[pairs[i].b];
  }
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (pairs_of[i] > 0) by_name.emplace(profiles[i].job, static_cast<int>(i));
  }
  std::vector<int> slot(profiles.size(), -1);
  int jobs = 0;
  for (const auto& entry : by_name) slot[entry.second] = jobs++;
  std::vector<double> residual(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    residual[i] =
        samples[i].speed -
        SurfaceValue(beta.data(),
                     SurfaceTerms(profiles[samples[i].victim], profiles[samples[i].aggressor]));
  }
  const Eigen::VectorXd theta = FitOffsets(samples, residual, slot, jobs, lambda);
  model.lambda = lambda;
  for (const auto& [name, index] : by_name) {
    const int s = slot[index];
    model.jobs.push_back({name, theta(s), theta(jobs + s), pairs_of[index]});
  }
  return model;
}

double MaeOn(const InterferenceModel& model, const std::vector<JobProfile>& profiles,
             const std::vector<PairSample>& pairs, const std::vector<int>& chosen,
             bool surface_only) {
  double sum = 0;
  for (int i : chosen) {
    const PairSample& p = pairs[i];
    const auto predict = [&](const JobProfile& victim, const JobProfile& aggressor) {
      return surface_only ? std::clamp(model.SurfaceSpeed(victim, aggressor), model.min_speed,
                                       model.max_speed)
                          : model.Speed(victim, aggressor);
    };
    const double pa = predict(profiles[p.a], profiles[p.b]);
    const double pb = predict(profiles[p.b], profiles[p.a]);
    sum += std::abs(pa - p.speed_a) + std::abs(pb - p.speed_b);
  }
  return sum / (2.0 * static_cast<double>(chosen.size()));
}

// Splits `order` into `folds` contiguous parts; returns (training, held out) of part `k`.
std::pair<std::vector<int>, std::vector<int>> Fold(const std::vector<int>& order, int folds,
                                                   int k) {
  const size_t n = order.size();
  const size_t from = n * static_cast<size_t>(k) / static_cast<size_t>(folds);
  const size_t to = n * static_cast<size_t>(k + 1) / static_cast<size_t>(folds);
  std::vector<int> train, held;
  for (size_t i = 0; i < n; ++i) (i >= from && i < to ? held : train).push_back(order[i]);
  return {train, held};
}

// The λ of kLambdaGrid with the least cross-validated error inside `chosen` (ties: the larger,
// the stronger shrinkage); 0 when there are too few pairs for per-job offsets.
double ChooseLambda(const std::vector<JobProfile>& profiles, const std::vector<PairSample>& pairs,
                    const std::vector<int>& chosen, const InterferenceFitOptions& options) {
  const int n = static_cast<int>(chosen.size());
  if (n < kMinPairsForJobOffsets) return 0;
  const int folds = std::clamp(options.folds, 2, n);
  std::vector<int> order;
  for (int i : ShuffledOrder(n, options.seed)) order.push_back(chosen[i]);
  double best = 0, best_error = std::numeric_limits<double>::infinity();
  for (double lambda : kLambdaGrid) {
    double error = 0;
    for (int k = 0; k < folds; ++k) {
      const auto [train, held] = Fold(order, folds, k);
      error += MaeOn(FitAt(profiles, pairs, train, lambda), profiles, pairs, held, false) *
               static_cast<double>(held.size());
    }
    if (error <= best_error) {
      best_error = error;
      best = lambda;
    }
  }
  return best;
}

InterferenceModel FitChosen(const std::vector<JobProfile>& profiles,
                            const std::vector<PairSample>& pairs, const std::vector<int>& chosen,
                            const InterferenceFitOptions& options) {
  return FitAt(profiles, pairs, chosen, ChooseLambda(profiles, pairs, chosen, options));
}

}  // namespace

double InterferenceModel::SurfaceSpeed(const JobProfile& victim,
                                       const JobProfile& aggressor) const {
  if (weights.size() != static_cast<size_t>(kSurfaceTerms)) return 0;
  return SurfaceValue(weights.data(), SurfaceTerms(victim, aggressor));
}

const JobOffsets* InterferenceModel::Offsets(const std::string& job) const {
  const auto it = std::lower_bound(jobs.begin(), jobs.end(), job,
                                   [](const JobOffsets& o, const std::string& name) {
                                     return o.job < name;
                                   });
  return it != jobs.end() && it->job == job ? &*it : nullptr;
}

ResolvedJob InterferenceModel::Resolve(const JobProfile& job) const {
  ResolvedJob r{job};
  if (const JobOffsets* o = Offsets(job.job)) {
    r.sensitivity = o->sensitivity;
    r.pressure = o->pressure;
  }
  return r;
}

double InterferenceModel::Speed(const ResolvedJob& victim, const ResolvedJob& aggressor) const {
  const double s =
      SurfaceSpeed(victim.profile, aggressor.profile) + victim.sensitivity + aggressor.pressure;
  return std::clamp(s, min_speed, max_speed);
}

double InterferenceModel::Speed(const JobProfile& victim, const JobProfile& aggressor) const {
  return Speed(Resolve(victim), Resolve(aggressor));
}

std::vector<int> ShuffledOrder(int n, uint64_t seed) {
  std::vector<int> order(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 random(seed);
  for (int i = n - 1; i > 0; --i) {
    // random() % (i + 1) has a bias below 2^-40 for any n a pair file holds; unlike
    // std::uniform_int_distribution it is the same on every standard library.
    const int j = static_cast<int>(random() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

InterferenceModel FitInterference(const std::vector<JobProfile>& profiles,
                                  const std::vector<PairSample>& pairs,
                                  const InterferenceFitOptions& options) {
  std::vector<int> all(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) all[i] = static_cast<int>(i);
  return FitChosen(profiles, pairs, all, options);
}

CrossValidation CrossValidateInterference(const std::vector<JobProfile>& profiles,
                                          const std::vector<PairSample>& pairs,
                                          const InterferenceFitOptions& options) {
  CrossValidation cv;
  const int n = static_cast<int>(pairs.size());
  cv.pairs = n;
  if (n < 2) return cv;
  cv.folds = std::clamp(options.folds, 2, n);
  const std::vector<int> order = ShuffledOrder(n, options.seed);
  double model = 0, surface = 0, one = 0, mean = 0;
  for (int k = 0; k < cv.folds; ++k) {
    const auto [train, held] = Fold(order, cv.folds, k);
    if (train.empty() || held.empty()) continue;
    // The inner choice of λ gets its own seed, so its folds are not the outer ones.
    InterferenceFitOptions inner = options;
    inner.seed = options.seed + 1 + static_cast<uint64_t>(k);
    const InterferenceModel fitted = FitChosen(profiles, pairs, train, inner);
    const double weight = static_cast<double>(held.size());
    model += MaeOn(fitted, profiles, pairs, held, false) * weight;
    surface += MaeOn(fitted, profiles, pairs, held, true) * weight;
    for (int i : held) {
      one += (std::abs(1 - pairs[i].speed_a) + std::abs(1 - pairs[i].speed_b)) / 2;
      mean += (std::abs(fitted.train_mean - pairs[i].speed_a) +
               std::abs(fitted.train_mean - pairs[i].speed_b)) /
              2;
    }
  }
  cv.model_mae = model / n;
  cv.surface_mae = surface / n;
  cv.speed_one_mae = one / n;
  cv.train_mean_mae = mean / n;
  return cv;
}

}  // namespace knobsim
