#include "models/work_fit.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

namespace knobsim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// splitmix64: the same numbers on every platform, unlike <random>'s distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double Normal() {  // Box-Muller
    const double u = 1 - Uniform(), v = Uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
  }
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

struct CardSpec {
  double speed;
  std::vector<int> workloads;  // one pod per entry
};

struct Synthetic {
  std::vector<FitCard> cards;
  std::vector<FitPod> pods;
};

// Every pod gets its own daily-looking rate (a sine with a random phase times a random factor per
// sample), sized so that a card's pods keep it at most ~70 % busy; busy follows the model exactly,
// plus Gaussian noise of `noise` (then clamped at 0).
Synthetic Make(const std::vector<CardSpec>& specs, const std::vector<double>& work, int samples,
               double noise, uint64_t seed) {
  Rng rng(seed);
  Synthetic s;
  for (size_t c = 0; c < specs.size(); ++c) {
    FitCard card;
    card.name = "card-" + std::to_string(c);
    card.speed = specs[c].speed;
    card.busy.assign(samples, 0.0);
    const double per_pod = 0.3 / static_cast<double>(specs[c].workloads.size());
    for (int w : specs[c].workloads) {
      FitPod pod;
      pod.workload = w;
      const double scale = work[w] > 0 ? per_pod * card.speed / work[w] : 5.0;
      const double phase = 2 * std::numbers::pi * rng.Uniform();
      pod.rate.resize(samples);
      for (int t = 0; t < samples; ++t) {
        pod.rate[t] = scale * (1 + 0.5 * std::sin(2 * std::numbers::pi * t / 97.0 + phase)) *
                      (0.5 + rng.Uniform());
        card.busy[t] += pod.rate[t] * work[w] / card.speed;
      }
      card.pods.push_back(static_cast<int>(s.pods.size()));
      s.pods.push_back(std::move(pod));
    }
    if (noise > 0) {
      for (double& b : card.busy) b = std::max(0.0, b + noise * rng.Normal());
    }
    s.cards.push_back(std::move(card));
  }
  return s;
}

// Three workloads over cards of three speeds (T4, A10, A100), most cards shared.
const std::vector<CardSpec> kMixedCards = {
    {0.52, {0, 1}}, {1.0, {0, 2}}, {2.496, {1, 2}}, {1.0, {0, 1, 2}}, {2.496, {0}}, {0.52, {2, 2}},
};
const std::vector<double> kMixedWork = {0.012, 0.25, 0.004};

// The NNLS answer by brute force: the best least-squares solution over every passive set that
// comes out non-negative. Fine for a handful of columns; solved on A itself, not AᵀA.
Eigen::VectorXd ExhaustiveNnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  const int n = static_cast<int>(a.cols());
  Eigen::VectorXd best = Eigen::VectorXd::Zero(n);
  double best_res = b.squaredNorm();
  for (int mask = 1; mask < (1 << n); ++mask) {
    std::vector<int> cols;
    for (int j = 0; j < n; ++j) {
      if (mask & (1 << j)) cols.push_back(j);
    }
    Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
    for (size_t i = 0; i < cols.size(); ++i) sub.col(static_cast<Eigen::Index>(i)) = a.col(cols[i]);
    const Eigen::VectorXd z = sub.colPivHouseholderQr().solve(b);
    if ((z.array() < 0).any()) continue;
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    for (size_t i = 0; i < cols.size(); ++i) x(cols[i]) = z(static_cast<Eigen::Index>(i));
    const double res = (a * x - b).squaredNorm();
    if (res < best_res) {
      best_res = res;
      best = x;
    }
  }
  return best;
}

// The fit's rows written out as a dense design matrix, card by card, for checks against plain
// least squares. Assumes every sample is usable.
struct Design {
  Eigen::MatrixXd a;
  Eigen::VectorXd b;
};
Design DesignOf(const Synthetic& s, int num_workloads) {
  Eigen::Index rows = 0;
  for (const FitCard& card : s.cards) rows += static_cast<Eigen::Index>(card.busy.size());
  Design d{Eigen::MatrixXd::Zero(rows, num_workloads), Eigen::VectorXd(rows)};
  Eigen::Index row = 0;
  for (const FitCard& card : s.cards) {
    for (size_t t = 0; t < card.busy.size(); ++t, ++row) {
      for (int p : card.pods) d.a(row, s.pods[p].workload) += s.pods[p].rate[t] / card.speed;
      d.b(row) = card.busy[t];
    }
  }
  return d;
}

bool HasNote(const WorkFitResult& r, const std::string& part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The solver

TEST_CASE("NNLS gives MATLAB's lsqnonneg answer: the negative unconstrained weight is held at 0") {
  // MATLAB documentation example for lsqnonneg: C\d = [-2.5627; 3.1108], lsqnonneg = [0; 0.6929].
  Eigen::MatrixXd c(4, 2);
  c << 0.0372, 0.2869, 0.6861, 0.7071, 0.6233, 0.6245, 0.6344, 0.6170;
  Eigen::VectorXd d(4);
  d << 0.8587, 0.1781, 0.0747, 0.8405;
  const Eigen::VectorXd unconstrained = c.colPivHouseholderQr().solve(d);
  CHECK(unconstrained(0) == doctest::Approx(-2.5627).epsilon(1e-4));
  CHECK(unconstrained(1) == doctest::Approx(3.1108).epsilon(1e-4));
  const NnlsSolution s = SolveNnls(c, d);
  CHECK(s.converged);
  CHECK(s.x(0) == 0.0);
  CHECK(s.x(1) == doctest::Approx(0.6929).epsilon(1e-4));
}

TEST_CASE("NNLS gives the textbook answers of small hand-solvable problems") {
  struct Case {
    const char* what;
    std::vector<std::vector<double>> a;  // rows
    std::vector<double> b, x;
  };
  const std::vector<std::vector<double>> two_one = {{1, 0}, {1, 0}, {0, 1}};
  const std::vector<Case> cases = {
      // scipy.optimize.nnls documentation: x = [1.5, 1], residual sqrt(0.5).
      {"scipy example", two_one, {2, 1, 1}, {1.5, 1}},
      {"all-negative right side gives 0", two_one, {-1, -1, -1}, {0, 0}},
      {"one negative coordinate", two_one, {2, 2, -3}, {2, 0}},
      {"feasible unconstrained solution is kept", {{2, 0}, {0, 4}}, {1, 2}, {0.5, 0.5}},
      {"zero column gets 0", {{0}, {0}}, {1, 1}, {0}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    Eigen::MatrixXd a(c.a.size(), c.a[0].size());
    for (size_t i = 0; i < c.a.size(); ++i) {
      for (size_t j = 0; j < c.a[i].size(); ++j) a(i, j) = c.a[i][j];
    }
    const NnlsSolution s = SolveNnls(a, Eigen::Map<const Eigen::VectorXd>(c.b.data(), c.b.size()));
    CHECK(s.converged);
    REQUIRE(static_cast<size_t>(s.x.size()) == c.x.size());
    for (Eigen::Index j = 0; j < s.x.size(); ++j) {
      CHECK(s.x(j) == doctest::Approx(c.x[j]).epsilon(1e-12));
      CHECK(s.x(j) >= 0);
    }
  }
}

TEST_CASE("NNLS agrees with the exhaustive search over passive sets on random problems") {
  // Columns scaled over four decades, as rates (0.1..1000 req/s) make them.
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    CAPTURE(seed);
    Rng rng(seed);
    const int rows = 4 + rng.Below(8), cols = 1 + rng.Below(5);
    Eigen::MatrixXd a(rows, cols);
    Eigen::VectorXd b(rows);
    for (int j = 0; j < cols; ++j) {
      const double scale = std::pow(10.0, -2 + 4 * rng.Uniform());
      for (int i = 0; i < rows; ++i) a(i, j) = scale * rng.Normal();
    }
    for (int i = 0; i < rows; ++i) b(i) = rng.Normal();
    const Eigen::VectorXd expected = ExhaustiveNnls(a, b);
    const NnlsSolution s = SolveNnls(a, b);
    CHECK(s.converged);
    CHECK((s.x.array() >= 0).all());
    // Compare what is well defined whatever the scaling: the fitted values, and x itself.
    CHECK((a * s.x - a * expected).norm() <= 1e-9 * std::max(1.0, b.norm()));
    for (int j = 0; j < cols; ++j) {
      CHECK(s.x(j) == doctest::Approx(expected(j)).epsilon(1e-7).scale(1e-9 / a.col(j).norm()));
    }
  }
}

TEST_CASE("NNLS with duplicated columns and zero tolerance still ends at the optimum") {
  // A copy of a passive column has a gradient of pure round-off. With tolerance 0 that can be
  // positive, the copy enters, and the rank-deficient solve gives it 0: the cycling guard has to
  // set it aside instead of stepping (0/0) or re-entering it forever.
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    Rng rng(seed);
    const int rows = 6 + rng.Below(6), cols = 2 + rng.Below(3);
    Eigen::MatrixXd a(rows, cols + 1);
    Eigen::VectorXd b(rows);
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) a(i, j) = std::abs(rng.Normal());
      b(i) = std::abs(rng.Normal());
    }
    a.col(cols) = a.col(rng.Below(cols)) * 3.0;
    const NnlsSolution s = SolveNnls(a, b, 0, 0.0);
    CHECK(s.converged);
    CHECK(s.x.allFinite());
    CHECK((s.x.array() >= 0).all());
    const Eigen::VectorXd expected = ExhaustiveNnls(a, b);
    CHECK((a * s.x - b).norm() == doctest::Approx((a * expected - b).norm()).epsilon(1e-9));
  }
}

TEST_CASE("NNLS that runs out of iterations says so") {
  Eigen::MatrixXd c(4, 2);
  c << 0.0372, 0.2869, 0.6861, 0.7071, 0.6233, 0.6245, 0.6344, 0.6170;
  Eigen::VectorXd d(4);
  d << 0.8587, 0.1781, 0.0747, 0.8405;
  // The warm start needs two solves (both columns, then column 1 alone).
  const NnlsSolution s = SolveNnls(c, d, 1);
  CHECK_FALSE(s.converged);
  CHECK(s.iterations == 1);
  CHECK((s.x.array() >= 0).all());
}

TEST_CASE("NNLS refuses mismatched sizes without throwing") {
  const NnlsSolution s = SolveNnls(Eigen::MatrixXd::Ones(3, 2), Eigen::VectorXd::Ones(2));
  CHECK_FALSE(s.converged);
  CHECK(s.x.size() == 2);
  CHECK(s.x.isZero());
}

// ---------------------------------------------------------------------------------------------
// The fit

TEST_CASE("noiseless data: work per request is recovered exactly across card speeds") {
  const Synthetic s = Make(kMixedCards, kMixedWork, 500, 0, 7);
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3);
  CHECK(r.converged);
  CHECK(r.rows == 6 * 500);
  for (int w = 0; w < 3; ++w) {
    CAPTURE(w);
    CHECK(r.identified[w]);
    CHECK(r.work_s[w] == doctest::Approx(kMixedWork[w]).epsilon(1e-9));
    CHECK(r.workloads[w].variance_inflation >= 1.0);
    CHECK(r.workloads[w].variance_inflation < 10.0);
    CHECK(r.workloads[w].std_error_s < 1e-9 * kMixedWork[w]);
  }
  CHECK(r.workloads[0].samples == 4 * 500);  // on cards 0, 1, 3, 4
  CHECK(r.workloads[2].samples == 4 * 500);  // cards 1, 2, 3, 5 (two pods on card 5)
  CHECK(r.r2 == doctest::Approx(1.0).epsilon(1e-12));
  REQUIRE(r.cards.size() == 6);
  for (const WorkFitResult::CardQuality& q : r.cards) {
    CAPTURE(q.name);
    CHECK(q.samples == 500);
    CHECK(q.saturated == 0);
    CHECK(q.missing == 0);
    CHECK(q.rmse < 1e-10);
    CHECK(q.mean_fitted == doctest::Approx(q.mean_measured).epsilon(1e-10));
    CHECK(q.mean_measured > 0.05);
  }
  CHECK(r.notes.empty());
}

TEST_CASE("busy noise of 0.01 leaves work within 3 % and inside four standard errors") {
  const Synthetic s = Make(kMixedCards, kMixedWork, 2000, 0.01, 11);
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3);
  for (int w = 0; w < 3; ++w) {
    CAPTURE(w);
    REQUIRE(r.identified[w]);
    CHECK(std::abs(r.work_s[w] / kMixedWork[w] - 1) < 0.03);
    CHECK(r.workloads[w].std_error_s > 0);
    CHECK(std::abs(r.work_s[w] - kMixedWork[w]) < 4 * r.workloads[w].std_error_s);
  }
  CHECK(r.r2 > 0.9);
  CHECK(r.r2 < 1.0);
  for (const WorkFitResult::CardQuality& q : r.cards) {
    CAPTURE(q.name);
    CHECK(q.rmse == doctest::Approx(0.01).epsilon(0.15));  // the noise we put in
  }
}

TEST_CASE("standard errors are the least-squares ones, inflated by correlated rates") {
  // Workload 2 follows workload 1 at 2:1 with 20 % jitter on two shared cards, so their standard
  // errors are several times what uncorrelated rates would give. Expected: sqrt(sigma² (AᵀA)⁻¹_jj),
  // sigma² = SS_res / (rows - 3), from the dense design matrix.
  const std::vector<double> work = {0.02, 0.1, 0.05};
  Synthetic s = Make({{1.0, {0, 1, 2}}, {0.52, {1, 2}}}, work, 400, 0, 53);
  Rng rng(59);
  for (const FitCard& card : s.cards) {
    const std::vector<double>& r1 = s.pods[card.pods[card.pods.size() - 2]].rate;
    std::vector<double>& r2 = s.pods[card.pods.back()].rate;
    for (int t = 0; t < 400; ++t) r2[t] = 2 * r1[t] * (1 + 0.2 * (rng.Uniform() - 0.5));
  }
  for (FitCard& card : s.cards) {
    for (int t = 0; t < 400; ++t) {
      card.busy[t] = 0.01 * rng.Normal();
      for (int p : card.pods)
        card.busy[t] += s.pods[p].rate[t] * work[s.pods[p].workload] / card.speed;
    }
  }
  const auto [a, b] = DesignOf(s, 3);
  REQUIRE((b.array() > 0).all());  // every sample is used
  REQUIRE((b.array() < 0.98).all());
  const Eigen::MatrixXd gram = a.transpose() * a;
  const Eigen::VectorXd x = gram.ldlt().solve(a.transpose() * b);
  REQUIRE((x.array() > 0).all());  // the bounds are not active, so NNLS is plain least squares
  const double sigma2 = (a * x - b).squaredNorm() / static_cast<double>(a.rows() - 3);
  const Eigen::MatrixXd cov = sigma2 * gram.inverse();
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3);
  for (int w = 0; w < 3; ++w) {
    CAPTURE(w);
    CHECK(r.work_s[w] == doctest::Approx(x(w)).epsilon(1e-9));
    CHECK(r.workloads[w].std_error_s == doctest::Approx(std::sqrt(cov(w, w))).epsilon(1e-6));
  }
  CHECK(r.workloads[1].variance_inflation > 5);
  CHECK(r.workloads[2].variance_inflation > 5);
}

TEST_CASE("quality numbers on a hand-computed card") {
  // One pod at 1 req/s; busy alternates 0.1 and 0.3. The fit is the mean, 0.2 s, so every residual
  // is 0.1, nothing is explained (R² = 0), and the means agree.
  FitCard card{"a10-0", 1.0, {0.1, 0.3, 0.1, 0.3}, {0}};
  FitPod pod{0, {1, 1, 1, 1}};
  const WorkFitResult r = FitWorkPerRequest(std::span(&card, 1), std::span(&pod, 1), 1);
  CHECK(r.work_s[0] == doctest::Approx(0.2));
  CHECK(r.cards[0].rmse == doctest::Approx(0.1));
  CHECK(r.cards[0].mean_measured == doctest::Approx(0.2));
  CHECK(r.cards[0].mean_fitted == doctest::Approx(0.2));
  CHECK(r.r2 == doctest::Approx(0.0).scale(1));
  CHECK(r.workloads[0].variance_inflation == 1.0);
  // sigma² = 0.04 / (4 - 1); SE = sqrt(sigma² / sum rate²) = sqrt(0.04 / 3 / 4).
  CHECK(r.workloads[0].std_error_s == doctest::Approx(std::sqrt(0.04 / 12)));
}

TEST_CASE("a card twice as fast is half as busy for the same requests") {
  FitCard slow{"t4", 0.5, {0.4, 0.8}, {0}};
  FitCard fast{"a100", 1.0, {0.1, 0.3}, {1}};
  std::vector<FitCard> cards = {slow, fast};
  std::vector<FitPod> pods = {{0, {2, 4}}, {0, {1, 3}}};  // work 0.1 s: 2 × 0.1 / 0.5 = 0.4
  const WorkFitResult r = FitWorkPerRequest(cards, pods, 1);
  CHECK(r.work_s[0] == doctest::Approx(0.1).epsilon(1e-12));
  CHECK(r.r2 == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("a workload whose unconstrained fit is negative is held at 0 and the rest stay right") {
  // Workloads 0 and 1 share cards with workload 2, whose true work is 0. Busy is the model minus
  // a multiple of workload 2's column made orthogonal to the other two: the unconstrained fit then
  // gives workload 2 a negative work and the others their true values, and so must NNLS once
  // workload 2 sits at its bound.
  const std::vector<CardSpec> specs = {{1.0, {0, 2}}, {0.52, {1, 2}}, {2.496, {0, 1, 2}}};
  const std::vector<double> work = {0.05, 0.2, 0.0};
  Synthetic s = Make(specs, work, 300, 0, 3);
  const auto [a, b] = DesignOf(s, 3);
  const Eigen::MatrixXd a01 = a.leftCols(2);
  const Eigen::VectorXd a2 = a.col(2);
  const Eigen::VectorXd orth = a2 - a01 * a01.colPivHouseholderQr().solve(a2);
  const Eigen::VectorXd bent = b - 0.02 * orth / orth.cwiseAbs().maxCoeff();
  REQUIRE((bent.array() > 0).all());
  for (int c = 0; c < 3; ++c) {
    for (int t = 0; t < 300; ++t) s.cards[c].busy[t] = bent(c * 300 + t);
  }
  const Eigen::VectorXd unconstrained = a.colPivHouseholderQr().solve(bent);
  REQUIRE(unconstrained(2) < 0);

  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3);
  CHECK(r.identified[2]);
  CHECK(r.work_s[2] == 0.0);
  CHECK(r.work_s[0] == doctest::Approx(0.05).epsilon(1e-9));
  CHECK(r.work_s[1] == doctest::Approx(0.2).epsilon(1e-9));
  CHECK(HasNote(r, "workload 2: work fitted as 0"));
}

TEST_CASE("saturated samples are left out of the fit and counted per card") {
  Synthetic s = Make(kMixedCards, kMixedWork, 400, 0, 5);
  // A saturated card reads ~1 whatever the demand behind it; had these samples stayed in, they
  // would pull the works up.
  int saturated = 0;
  for (int t = 0; t < 400; t += 7) {
    s.cards[1].busy[t] = t % 2 ? 1.0 : 0.985;
    ++saturated;
  }
  s.cards[3].busy[10] = 0.98;  // the threshold itself counts as saturated
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3);
  CHECK(r.cards[1].saturated == saturated);
  CHECK(r.cards[1].samples == 400 - saturated);
  CHECK(r.cards[3].saturated == 1);
  CHECK(r.cards[0].saturated == 0);
  CHECK(r.rows == 6 * 400 - saturated - 1);
  for (int w = 0; w < 3; ++w) CHECK(r.work_s[w] == doctest::Approx(kMixedWork[w]).epsilon(1e-9));

  WorkFitOptions keep_all;
  keep_all.saturation = 1.5;
  const WorkFitResult biased = FitWorkPerRequest(s.cards, s.pods, 3, keep_all);
  CHECK(biased.cards[1].saturated == 0);
  CHECK(biased.r2 < 0.999);
  CHECK(biased.work_s[0] > kMixedWork[0] * 1.01);  // workload 0 is on card 1
}

TEST_CASE("missing busy or rate samples are skipped and counted") {
  Synthetic s = Make(kMixedCards, kMixedWork, 300, 0, 9);
  s.cards[0].busy[3] = kNaN;
  s.cards[0].busy[4] = -0.1;                   // garbage reads as missing
  s.pods[s.cards[1].pods[1]].rate[20] = kNaN;  // one pod of card 1
  s.pods[s.cards[2].pods[0]].rate[21] = std::numeric_limits<double>::infinity();
  s.pods[s.cards[3].pods[2]].rate.resize(250);  // series ends early
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3);
  CHECK(r.cards[0].missing == 2);
  CHECK(r.cards[1].missing == 1);
  CHECK(r.cards[2].missing == 1);
  CHECK(r.cards[3].missing == 50);
  CHECK(r.cards[4].missing == 0);
  CHECK(r.rows == 6 * 300 - 54);
  for (int w = 0; w < 3; ++w) CHECK(r.work_s[w] == doctest::Approx(kMixedWork[w]).epsilon(1e-9));
}

TEST_CASE("a workload without usable rates is reported, never given a value") {
  // Workload 3: its only pod's rates are all missing. Workload 4: zero rates. Workload 5: no pod.
  // Workload 6: a pod on no card.
  Synthetic s = Make(kMixedCards, kMixedWork, 200, 0, 13);
  FitPod silent{3, std::vector<double>(200, kNaN)};
  FitPod idle{4, std::vector<double>(200, 0.0)};
  FitPod nowhere{6, std::vector<double>(200, 1.0)};
  FitCard extra{"extra", 1.0, std::vector<double>(200, 0.0), {}};
  s.pods.push_back(silent);
  extra.pods.push_back(static_cast<int>(s.pods.size()) - 1);
  s.pods.push_back(idle);
  s.cards[4].pods.push_back(static_cast<int>(s.pods.size()) - 1);  // beside workload 0
  s.pods.push_back(nowhere);
  s.cards.push_back(extra);

  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 7);
  for (int w : {3, 4, 5, 6}) {
    CAPTURE(w);
    CHECK_FALSE(r.identified[w]);
    CHECK(std::isnan(r.work_s[w]));
    CHECK(r.workloads[w].samples == 0);
  }
  CHECK(HasNote(r, "workload 3 is not identified: no usable sample has a non-zero rate"));
  CHECK(HasNote(r, "workload 4 is not identified: no usable sample has a non-zero rate"));
  CHECK(HasNote(r, "workload 5 is not identified: it has no pod"));
  CHECK(HasNote(r, "workload 6 is not identified: its pods are on no usable card"));
  CHECK(r.cards[6].missing == 200);  // every sample of "extra" lacks its pod's rate
  for (int w = 0; w < 3; ++w) CHECK(r.work_s[w] == doctest::Approx(kMixedWork[w]).epsilon(1e-9));
}

TEST_CASE("workloads whose rates always move together are not identified, each naming the other") {
  // Workload 2's pods always get exactly twice workload 1's traffic on the same cards: only
  // work1 + 2 work2 shows in busy. Workload 0 shares those cards and stays exact, because the
  // pair's combination is still fitted.
  const std::vector<double> work = {0.02, 0.1, 0.05};
  Synthetic s = Make({{1.0, {0, 1, 2}}, {0.52, {1, 2}}, {2.496, {0}}}, work, 400, 0, 17);
  for (int c : {0, 1}) {
    int p1 = -1, p2 = -1;
    for (int p : s.cards[c].pods) {
      if (s.pods[p].workload == 1) p1 = p;
      if (s.pods[p].workload == 2) p2 = p;
    }
    s.cards[c].busy.assign(400, 0.0);
    for (int t = 0; t < 400; ++t) s.pods[p2].rate[t] = 2 * s.pods[p1].rate[t];
    for (int p : s.cards[c].pods) {
      for (int t = 0; t < 400; ++t) {
        s.cards[c].busy[t] += s.pods[p].rate[t] * work[s.pods[p].workload] / s.cards[c].speed;
      }
    }
  }
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3);
  CHECK(r.identified[0]);
  CHECK(r.work_s[0] == doctest::Approx(0.02).epsilon(1e-8));
  for (int w : {1, 2}) {
    CAPTURE(w);
    CHECK_FALSE(r.identified[w]);
    CHECK(std::isnan(r.work_s[w]));
    CHECK(r.workloads[w].variance_inflation > 1e10);
  }
  CHECK(HasNote(r, "workload 1 is not identified: its rates move with those of workload 2 ("));
  CHECK(HasNote(r, "workload 2 is not identified: its rates move with those of workload 1 ("));
  CHECK(r.r2 == doctest::Approx(1.0).epsilon(1e-10));  // the combination still explains busy
}

TEST_CASE("two separate collinear pairs in one group name only their own partner") {
  // Cards chain the workloads into one group: {0,1} always together at 1:1, {2,3} at 1:3, and
  // workload 4 bridges both.
  const std::vector<double> work = {0.02, 0.03, 0.05, 0.01, 0.04};
  Synthetic s = Make({{1.0, {0, 1, 4}}, {1.0, {2, 3, 4}}, {1.0, {4}}}, work, 300, 0, 19);
  auto tie = [&](int c, int from, int to, double k) {
    int pf = -1, pt = -1;
    for (int p : s.cards[c].pods) {
      if (s.pods[p].workload == from) pf = p;
      if (s.pods[p].workload == to) pt = p;
    }
    for (int t = 0; t < 300; ++t) s.pods[pt].rate[t] = k * s.pods[pf].rate[t];
    s.cards[c].busy.assign(300, 0.0);
    for (int p : s.cards[c].pods) {
      for (int t = 0; t < 300; ++t)
        s.cards[c].busy[t] += s.pods[p].rate[t] * work[s.pods[p].workload];
    }
  };
  tie(0, 0, 1, 1.0);
  tie(1, 2, 3, 3.0);
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 5);
  CHECK(r.identified[4]);
  CHECK(r.work_s[4] == doctest::Approx(0.04).epsilon(1e-8));
  CHECK(HasNote(r, "workload 0 is not identified: its rates move with those of workload 1 ("));
  CHECK(HasNote(r, "workload 3 is not identified: its rates move with those of workload 2 ("));
}

TEST_CASE("strongly but not exactly correlated rates are still identified") {
  // Workload 2 follows workload 1 with 5 % independent jitter: variance inflation in the
  // hundreds, well under the 1e4 limit, and noiseless busy still pins both down.
  const std::vector<double> work = {0.02, 0.1, 0.05};
  Synthetic s = Make({{1.0, {1, 2}}, {1.0, {1, 2}}}, work, 500, 0, 23);
  Rng rng(29);
  for (const FitCard& card : s.cards) {
    const std::vector<double>& r1 = s.pods[card.pods[0]].rate;
    std::vector<double>& r2 = s.pods[card.pods[1]].rate;
    for (int t = 0; t < 500; ++t) r2[t] = 2 * r1[t] * (1 + 0.05 * (rng.Uniform() - 0.5));
  }
  for (FitCard& card : s.cards) {
    for (int t = 0; t < 500; ++t) {
      card.busy[t] = s.pods[card.pods[0]].rate[t] * 0.1 + s.pods[card.pods[1]].rate[t] * 0.05;
    }
  }
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3);
  CHECK(r.identified[1]);
  CHECK(r.identified[2]);
  CHECK(r.workloads[1].variance_inflation > 100);
  CHECK(r.workloads[1].variance_inflation < 1e4);
  CHECK(r.work_s[1] == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(r.work_s[2] == doctest::Approx(0.05).epsilon(1e-6));

  WorkFitOptions strict;
  strict.max_variance_inflation = 50;
  const WorkFitResult r_strict = FitWorkPerRequest(s.cards, s.pods, 3, strict);
  CHECK_FALSE(r_strict.identified[1]);
  CHECK_FALSE(r_strict.identified[2]);
}

TEST_CASE("bad cards are noted and left out; the others still fit") {
  Synthetic s = Make(kMixedCards, kMixedWork, 200, 0, 31);
  struct Case {
    const char* what;
    void (*spoil)(FitCard&);
    const char* note;
  };
  const std::vector<Case> cases = {
      {"zero speed", [](FitCard& c) { c.speed = 0; }, "card card-4: speed 0 is not a positive"},
      {"NaN speed", [](FitCard& c) { c.speed = kNaN; }, "card card-4: speed nan is not a positive"},
      {"unknown pod", [](FitCard& c) { c.pods.push_back(99); },
       "card card-4: pod 99 does not exist"},
      {"negative pod", [](FitCard& c) { c.pods.push_back(-1); },
       "card card-4: pod -1 does not exist"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    std::vector<FitCard> cards = s.cards;
    c.spoil(cards[4]);
    const WorkFitResult r = FitWorkPerRequest(cards, s.pods, 3);
    CHECK(HasNote(r, c.note));
    CHECK(r.cards[4].samples == 0);
    CHECK(r.cards[4].missing == 200);
    CHECK(std::isnan(r.cards[4].rmse));
    CHECK(r.rows == 5 * 200);
    for (int w = 0; w < 3; ++w) CHECK(r.work_s[w] == doctest::Approx(kMixedWork[w]).epsilon(1e-9));
  }
}

TEST_CASE("a pod of an unknown workload leaves its card out; a pod listed twice counts once") {
  Synthetic s = Make(kMixedCards, kMixedWork, 200, 0, 37);
  std::vector<FitPod> pods = s.pods;
  pods[s.cards[4].pods[0]].workload = 3;  // only 0..2 exist
  std::vector<FitCard> cards = s.cards;
  cards[2].pods.push_back(cards[2].pods[0]);
  const WorkFitResult r = FitWorkPerRequest(cards, pods, 3);
  CHECK(HasNote(r, "card card-4: pod " + std::to_string(s.cards[4].pods[0]) +
                       " has workload 3, outside 0..2; card left out"));
  CHECK(HasNote(r, "card card-2: pod " + std::to_string(s.cards[2].pods[0]) +
                       " is listed twice; counted once"));
  CHECK(r.cards[2].samples == 200);
  for (int w = 0; w < 3; ++w) CHECK(r.work_s[w] == doctest::Approx(kMixedWork[w]).epsilon(1e-9));
}

// ---------------------------------------------------------------------------------------------
// The idle term

TEST_CASE("idle term: work and each card's floor are recovered from busy with a floor") {
  struct Row {
    const char* name;
    double noise;
    double work_tolerance;  // relative
    double idle_tolerance;  // absolute, busy fraction
  };
  const Row rows[] = {
      {"noiseless", 0.0, 1e-9, 1e-9},
      {"busy noise 0.01", 0.01, 0.03, 0.004},
  };
  const std::vector<double> floors = {0.02, 0.0, 0.035, 0.01, 0.05, 0.0};
  for (const Row& row : rows) {
    CAPTURE(std::string(row.name));
    Synthetic s = Make(kMixedCards, kMixedWork, 2000, 0, 5);
    Rng rng(13);
    for (size_t c = 0; c < s.cards.size(); ++c)
      for (double& b : s.cards[c].busy) b = std::max(0.0, b + floors[c] + row.noise * rng.Normal());
    WorkFitOptions with_idle;
    with_idle.fit_idle = true;
    const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 3, with_idle);
    for (int w = 0; w < 3; ++w) {
      CAPTURE(w);
      REQUIRE(r.identified[w]);
      CHECK(std::abs(r.work_s[w] / kMixedWork[w] - 1) < row.work_tolerance);
    }
    for (size_t c = 0; c < s.cards.size(); ++c) {
      CAPTURE(c);
      CHECK(r.cards[c].idle_fitted);
      CHECK(std::abs(r.cards[c].idle_busy - floors[c]) < row.idle_tolerance);
      CHECK(r.cards[c].mean_fitted == doctest::Approx(r.cards[c].mean_measured).epsilon(0.01));
    }
    // Without the term the floor is pushed into the work, biased high.
    const WorkFitResult plain = FitWorkPerRequest(s.cards, s.pods, 3);
    CHECK(plain.work_s[0] > kMixedWork[0] * 1.05);
    for (const auto& q : plain.cards) CHECK_FALSE(q.idle_fitted);
  }
}

TEST_CASE("idle term: a card without requests reads its mean busy as the floor") {
  FitCard card{"idle-card", 1.0, {0.02, 0.03, 0.025, 0.025}, {}};
  WorkFitOptions with_idle;
  with_idle.fit_idle = true;
  const WorkFitResult r = FitWorkPerRequest(std::span(&card, 1), {}, 0, with_idle);
  REQUIRE(r.cards.size() == 1);
  CHECK(r.cards[0].idle_fitted);
  CHECK(r.cards[0].idle_busy == doctest::Approx(0.025));
  CHECK(r.cards[0].rmse == doctest::Approx(std::sqrt(0.00005 / 4)));
}

TEST_CASE("idle term: a card whose rate never varies is fitted without it, the work kept") {
  // One pod at a constant 10 req/s: the rate's column is the ones column times 10, so work and
  // floor cannot be told apart; the work takes the busy time and the note says so.
  FitPod pod{0, std::vector<double>(50, 10.0)};
  FitCard card{"flat", 1.0, std::vector<double>(50, 0.3), {0}};
  WorkFitOptions with_idle;
  with_idle.fit_idle = true;
  const WorkFitResult r = FitWorkPerRequest(std::span(&card, 1), std::span(&pod, 1), 1, with_idle);
  REQUIRE(r.identified[0]);
  CHECK(r.work_s[0] == doctest::Approx(0.03));
  CHECK_FALSE(r.cards[0].idle_fitted);
  CHECK(r.cards[0].idle_busy == 0);
  CHECK(HasNote(r, "card flat: idle term not separable"));
}

TEST_CASE("idle term: a negative floor is held at 0, the work then fitted as without it") {
  // busy = rate × work - 0.01 (a detector that under-reads): NNLS keeps idle >= 0.
  std::vector<double> rate, busy;
  for (int t = 0; t < 40; ++t) {
    rate.push_back(2 + t % 7);
    busy.push_back(std::max(0.0, rate.back() * 0.05 - 0.01));
  }
  FitPod pod{0, rate};
  FitCard card{"under", 1.0, busy, {0}};
  WorkFitOptions with_idle;
  with_idle.fit_idle = true;
  const WorkFitResult r = FitWorkPerRequest(std::span(&card, 1), std::span(&pod, 1), 1, with_idle);
  const WorkFitResult plain = FitWorkPerRequest(std::span(&card, 1), std::span(&pod, 1), 1);
  CHECK(r.cards[0].idle_fitted);
  CHECK(r.cards[0].idle_busy == 0);
  CHECK(r.work_s[0] == doctest::Approx(plain.work_s[0]).epsilon(1e-9));
}

TEST_CASE("no cards, no workloads, no samples: empty answers, no crash") {
  const WorkFitResult none = FitWorkPerRequest({}, {}, 0);
  CHECK(none.rows == 0);
  CHECK(std::isnan(none.r2));
  CHECK(none.work_s.empty());
  const WorkFitResult negative = FitWorkPerRequest({}, {}, -3);
  CHECK(negative.work_s.empty());
  FitCard empty{"empty", 1.0, {}, {}};
  const WorkFitResult one = FitWorkPerRequest(std::span(&empty, 1), {}, 1);
  CHECK(std::isnan(one.work_s[0]));
  CHECK(std::isnan(one.cards[0].rmse));
  CHECK(HasNote(one, "workload 0 is not identified: it has no pod"));
  FitCard saturated{"hot", 1.0, {1.0, 0.99}, {}};
  const WorkFitResult hot = FitWorkPerRequest(std::span(&saturated, 1), {}, 0);
  CHECK(HasNote(hot, "card hot: no usable sample (2 saturated, 0 missing)"));
}

TEST_CASE("the fit is deterministic to the bit") {
  const Synthetic s = Make(kMixedCards, kMixedWork, 300, 0.02, 41);
  const WorkFitResult a = FitWorkPerRequest(s.cards, s.pods, 3);
  const WorkFitResult b = FitWorkPerRequest(s.cards, s.pods, 3);
  for (int w = 0; w < 3; ++w) {
    CHECK(std::bit_cast<uint64_t>(a.work_s[w]) == std::bit_cast<uint64_t>(b.work_s[w]));
  }
  CHECK(std::bit_cast<uint64_t>(a.r2) == std::bit_cast<uint64_t>(b.r2));
}

TEST_CASE("1000 cards and 500 workloads fit in seconds") {
  // 10 080 samples per card; 600 cards with one pod, 400 shared by two random workloads, which
  // joins about two thirds of the workloads into one group (a random graph past its giant
  // component threshold). The time is printed, not asserted. Unoptimised builds (the sanitizer
  // preset) take one day of samples: the full week costs them ~20 s and proves nothing more.
#ifdef NDEBUG
  constexpr int kSamples = 10080;
#else
  constexpr int kSamples = 1440;
#endif
  Rng rng(43);
  std::vector<double> work(500);
  for (double& w : work) w = std::pow(10.0, -4 + 4 * rng.Uniform());  // 1e-4 .. 1 s
  std::vector<CardSpec> specs;
  const double speeds[] = {0.52, 1.0, 2.496, 7.915};
  for (int c = 0; c < 1000; ++c) {
    CardSpec spec{speeds[rng.Below(4)], {c < 600 ? c % 500 : rng.Below(500)}};
    if (c >= 600) spec.workloads.push_back(rng.Below(500));
    specs.push_back(spec);
  }
  const Synthetic s = Make(specs, work, kSamples, 0.005, 47);
  const auto start = std::chrono::steady_clock::now();
  const WorkFitResult r = FitWorkPerRequest(s.cards, s.pods, 500);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("1000 cards x " << kSamples << " samples x 500 workloads: " << seconds << " s, " << r.rows
                          << " rows");
  CHECK(r.converged);
  CHECK(r.rows == 1000 * kSamples);
  int identified = 0, within = 0;
  for (int w = 0; w < 500; ++w) {
    identified += r.identified[w];
    within += r.identified[w] && std::abs(r.work_s[w] / work[w] - 1) < 0.02;
  }
  CHECK(identified == 500);
  CHECK(within == 500);
  CHECK(r.r2 > 0.95);
}

}  // namespace knobsim
