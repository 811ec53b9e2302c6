#include "models/work_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <utility>

namespace knobsim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A sample counts when it is a finite, non-negative number; monitoring gaps arrive as NaN.
bool Present(double v) {
  return std::isfinite(v) && v >= 0;
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string CardLabel(const FitCard& card, size_t index) {
  return "card " + (card.name.empty() ? "#" + std::to_string(index) : card.name);
}

// ---------------------------------------------------------------------------------------------
// Lawson-Hanson on the normal equations.
//
// The fit never holds A (rows can be millions); it holds G = AᵀA and h = Aᵀb, and so does this
// solver: the gradient is h - G x and the passive-set subproblem is G_PP z = h_P. Small problems
// (SolveNnls) take the same path, so the tests exercise the code the fit runs. Squaring A
// squares its condition number: with the columns scaled to unit norm (rates span 0.1..1000
// req/s, work 1e-4..10 s, and scaling removes that spread) double precision still gives ~6
// digits up to cond(A) ~ 1e5, far beyond the variance inflation of 1e4 (cond ~ 1e2) at which a
// workload is reported not identified anyway. The subproblem is solved by column-pivoting QR:
// it tolerates the exactly collinear columns the identifiability check reports (a basic
// solution, zero on the dependent column) where a Cholesky factor would divide by round-off.

Eigen::VectorXd SolvePassive(const Eigen::MatrixXd& g, const Eigen::VectorXd& h,
                             const std::vector<int>& passive) {
  const int m = static_cast<int>(passive.size());
  Eigen::MatrixXd gpp(m, m);
  Eigen::VectorXd hp(m);
  for (int i = 0; i < m; ++i) {
    hp(i) = h(passive[i]);
    for (int j = 0; j < m; ++j) gpp(i, j) = g(passive[i], passive[j]);
  }
  return Eigen::ColPivHouseholderQR<Eigen::MatrixXd>(gpp).solve(hp);
}

// g: symmetric, unit diagonal or an all-zero row and column (such a column is never used).
NnlsSolution LawsonHanson(const Eigen::MatrixXd& g, const Eigen::VectorXd& h, int max_iterations,
                          double tolerance) {
  const int n = static_cast<int>(h.size());
  NnlsSolution s;
  s.x = Eigen::VectorXd::Zero(n);
  if (n == 0) return s;
  if (max_iterations <= 0) max_iterations = 3 * n + 30;
  const double tol =
      tolerance * std::max(h.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());

  std::vector<char> in_p(n, 0);
  auto passive_list = [&] {
    std::vector<int> p;
    for (int j = 0; j < n; ++j) {
      if (in_p[j]) p.push_back(j);
    }
    return p;
  };

  // Warm start: every usable column passive with x = 0. Moving from 0 toward the unconstrained
  // solution z, every column with z_j <= 0 blocks at once (step 0), so they all leave together;
  // repeat until z > 0. Most workloads have positive work, so this usually ends where the plain
  // method would arrive after one addition per column, at a fraction of the solves.
  for (int j = 0; j < n; ++j) in_p[j] = g(j, j) > 0;
  while (true) {
    const std::vector<int> p = passive_list();
    if (p.empty()) break;
    if (s.iterations >= max_iterations) {
      s.converged = false;
      return s;
    }
    ++s.iterations;
    const Eigen::VectorXd z = SolvePassive(g, h, p);
    bool feasible = true;
    for (size_t i = 0; i < p.size(); ++i) {
      if (!(z(i) > 0)) {
        in_p[p[i]] = 0;
        feasible = false;
      }
    }
    if (feasible) {
      for (size_t i = 0; i < p.size(); ++i) s.x(p[i]) = z(i);
      break;
    }
  }

  // The classic loop. `rejected` is the cycling guard of Lawson and Hanson's own code: a column
  // whose gradient says "enter" but whose least-squares value comes out <= 0 (round-off near a
  // dependency) is skipped until x moves, instead of entering and leaving forever.
  std::vector<char> rejected(n, 0);
  while (true) {
    const Eigen::VectorXd w = h - g * s.x;
    int enter = -1;
    double best = tol;
    for (int j = 0; j < n; ++j) {
      // Strict '>' in index order: the lowest index wins ties, so the path is deterministic.
      if (!in_p[j] && !rejected[j] && g(j, j) > 0 && w(j) > best) {
        enter = j;
        best = w(j);
      }
    }
    if (enter < 0) break;  // Kuhn-Tucker conditions hold within the tolerance
    in_p[enter] = 1;

    bool just_entered = true;
    while (true) {
      if (s.iterations >= max_iterations) {
        s.converged = false;
        return s;
      }
      ++s.iterations;
      const std::vector<int> p = passive_list();
      const Eigen::VectorXd z = SolvePassive(g, h, p);
      if (just_entered) {
        const auto at = std::find(p.begin(), p.end(), enter) - p.begin();
        if (!(z(at) > 0)) {
          in_p[enter] = 0;
          rejected[enter] = 1;
          break;
        }
      }
      double alpha = 1;
      int blocking = -1;
      for (size_t i = 0; i < p.size(); ++i) {
        if (z(i) > 0) continue;
        const double xi = s.x(p[i]);
        const double step = xi / (xi - z(i));
        if (blocking < 0 || step < alpha) {
          alpha = step;
          blocking = p[i];
        }
      }
      if (blocking < 0) {  // z feasible: take it
        for (size_t i = 0; i < p.size(); ++i) s.x(p[i]) = z(i);
        std::fill(rejected.begin(), rejected.end(), 0);
        break;
      }
      // Walk toward z until the first variable reaches 0; it (and any that round-off put at
      // or below 0 with it) becomes bound.
      for (size_t i = 0; i < p.size(); ++i) s.x(p[i]) += alpha * (z(i) - s.x(p[i]));
      s.x(blocking) = 0;
      for (int j : p) {
        if (!(s.x(j) > 0)) {
          s.x(j) = 0;
          in_p[j] = 0;
        }
      }
      std::fill(rejected.begin(), rejected.end(), 0);
      just_entered = false;
    }
  }
  return s;
}

// Scales the columns of the normal equations to unit norm, solves, scales back.
NnlsSolution SolveNormal(const Eigen::MatrixXd& g, const Eigen::VectorXd& h, int max_iterations,
                         double tolerance, Eigen::VectorXd* scale_out = nullptr) {
  const Eigen::Index n = h.size();
  Eigen::VectorXd d(n);
  for (Eigen::Index j = 0; j < n; ++j) d(j) = g(j, j) > 0 ? 1 / std::sqrt(g(j, j)) : 0;
  Eigen::MatrixXd gs = d.asDiagonal() * g * d.asDiagonal();
  for (Eigen::Index j = 0; j < n; ++j) gs(j, j) = g(j, j) > 0 ? 1 : 0;
  NnlsSolution s = LawsonHanson(gs, d.cwiseProduct(h), max_iterations, tolerance);
  s.x = d.cwiseProduct(s.x);
  if (scale_out) *scale_out = d;
  return s;
}

// ---------------------------------------------------------------------------------------------
// The rows.

// One input card, checked, with its own small normal equations. The card's columns are the
// distinct workloads of its pods (slots); its rows touch nothing else, so the fit adds each
// card's k x k block into the whole once instead of touching the big matrix per sample.
struct CardPlan {
  bool used = false;
  std::vector<int> pods;       // valid, distinct pod indexes
  std::vector<int> slot;       // per entry of pods: index into workloads
  std::vector<int> workloads;  // distinct, ascending
  Eigen::MatrixXd gram;        // slots x slots
  Eigen::VectorXd atb;         // per slot
  std::vector<int> nonzero;    // per slot: rows where its value was > 0
  double sum_busy = 0;
  int idle_slot = -1;  // the slot of the card's idle column (a 1 in every row); -1 without
};

// Calls row(busy, values) for every usable sample of the card, values[s] being the summed rate
// of the card's pods of slot s divided by the card's speed. Counts what it skips.
template <typename Row>
void ForEachRow(const FitCard& card, const CardPlan& plan, std::span<const FitPod> pods,
                double saturation, WorkFitResult::CardQuality* q, std::vector<double>& values,
                Row&& row) {
  const size_t samples = card.busy.size();
  const double inv_speed = 1 / card.speed;
  for (size_t t = 0; t < samples; ++t) {
    const double b = card.busy[t];
    if (!Present(b)) {
      if (q) ++q->missing;
      continue;
    }
    if (b >= saturation) {
      if (q) ++q->saturated;
      continue;
    }
    std::fill(values.begin(), values.end(), 0.0);
    bool complete = true;
    for (size_t i = 0; i < plan.pods.size(); ++i) {
      const std::vector<double>& rate = pods[plan.pods[i]].rate;
      const double r = t < rate.size() ? rate[t] : kNaN;
      if (!Present(r)) {
        complete = false;
        break;
      }
      values[plan.slot[i]] += r;
    }
    if (!complete) {
      if (q) ++q->missing;
      continue;
    }
    for (double& v : values) v *= inv_speed;
    if (plan.idle_slot >= 0) values[plan.idle_slot] = 1;
    row(b, values);
  }
}

// Checks a card's speed and pod list; notes why a card is left out. idle_column >= 0 adds the
// card's idle column (a column index above every workload's).
CardPlan PlanCard(const FitCard& card, size_t card_index, std::span<const FitPod> pods,
                  int num_workloads, int idle_column, std::vector<std::string>& notes) {
  CardPlan plan;
  const std::string who = CardLabel(card, card_index);
  if (!(std::isfinite(card.speed) && card.speed > 0)) {
    notes.push_back(who + ": speed " + Number(card.speed) +
                    " is not a positive number; card left out");
    return plan;
  }
  std::vector<int> listed;
  for (int p : card.pods) {
    if (p < 0 || static_cast<size_t>(p) >= pods.size()) {
      notes.push_back(who + ": pod " + std::to_string(p) + " does not exist (" +
                      std::to_string(pods.size()) + " pods); card left out");
      return plan;
    }
    const int w = pods[p].workload;
    if (w < 0 || w >= num_workloads) {
      notes.push_back(who + ": pod " + std::to_string(p) + " has workload " + std::to_string(w) +
                      ", outside 0.." + std::to_string(num_workloads - 1) + "; card left out");
      return plan;
    }
    if (std::find(listed.begin(), listed.end(), p) != listed.end()) {
      notes.push_back(who + ": pod " + std::to_string(p) + " is listed twice; counted once");
      continue;
    }
    listed.push_back(p);
  }
  plan.used = true;
  plan.pods = listed;
  for (int p : plan.pods) plan.workloads.push_back(pods[p].workload);
  std::sort(plan.workloads.begin(), plan.workloads.end());
  plan.workloads.erase(std::unique(plan.workloads.begin(), plan.workloads.end()),
                       plan.workloads.end());
  for (int p : plan.pods) {
    plan.slot.push_back(static_cast<int>(
        std::lower_bound(plan.workloads.begin(), plan.workloads.end(), pods[p].workload) -
        plan.workloads.begin()));
  }
  if (idle_column >= 0) {
    plan.idle_slot = static_cast<int>(plan.workloads.size());
    plan.workloads.push_back(idle_column);  // still ascending: above every workload
  }
  return plan;
}

void AccumulateCard(const FitCard& card, CardPlan& plan, std::span<const FitPod> pods,
                    double saturation, WorkFitResult::CardQuality& q) {
  const int k = static_cast<int>(plan.workloads.size());
  plan.gram = Eigen::MatrixXd::Zero(k, k);
  plan.atb = Eigen::VectorXd::Zero(k);
  plan.nonzero.assign(k, 0);
  std::vector<double> values(k);
  // Plain loops over the upper triangle: k is a handful, where Eigen's rank update costs more
  // in setup than in arithmetic.
  ForEachRow(card, plan, pods, saturation, &q, values, [&](double b, const std::vector<double>& v) {
    ++q.samples;
    plan.sum_busy += b;
    for (int i = 0; i < k; ++i) {
      if (v[i] == 0) continue;
      ++plan.nonzero[i];
      plan.atb(i) += v[i] * b;
      for (int j = i; j < k; ++j) plan.gram(i, j) += v[i] * v[j];
    }
  });
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < i; ++j) plan.gram(i, j) = plan.gram(j, i);
  }
}

// Workloads joined by sharing a card, each with the cards that join them. The normal equations
// are block-diagonal over these groups, so each group is solved (and checked for collinearity)
// on its own: 500 workloads in groups of a few cost almost nothing, and a group's result does
// not depend on unrelated workloads.
struct Group {
  std::vector<int> workloads;  // ascending
  std::vector<int> cards;
};

int Find(std::vector<int>& parent, int a) {
  while (parent[a] != a) a = parent[a] = parent[parent[a]];
  return a;
}

std::vector<Group> Groups(const std::vector<CardPlan>& plans, const std::vector<double>& diag,
                          int num_workloads) {
  std::vector<int> parent(num_workloads);
  std::iota(parent.begin(), parent.end(), 0);
  auto joined = [&](const CardPlan& plan) {
    std::vector<int> ws;
    for (size_t s = 0; s < plan.workloads.size(); ++s) {
      if (plan.gram(s, s) > 0) ws.push_back(plan.workloads[s]);
    }
    return ws;
  };
  for (const CardPlan& plan : plans) {
    if (!plan.used) continue;
    const std::vector<int> ws = joined(plan);
    for (size_t i = 1; i < ws.size(); ++i) {
      const int a = Find(parent, ws[0]), b = Find(parent, ws[i]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<int> group_of_root(num_workloads, -1);
  std::vector<Group> groups;
  for (int w = 0; w < num_workloads; ++w) {
    if (!(diag[w] > 0)) continue;
    const int r = Find(parent, w);
    if (group_of_root[r] < 0) {
      group_of_root[r] = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[group_of_root[r]].workloads.push_back(w);
  }
  for (size_t c = 0; c < plans.size(); ++c) {
    if (!plans[c].used) continue;
    const std::vector<int> ws = joined(plans[c]);
    if (!ws.empty())
      groups[group_of_root[Find(parent, ws[0])]].cards.push_back(static_cast<int>(c));
  }
  return groups;
}

// Per workload of a group: the variance inflation factor, and for the ones above the limit the
// others they are collinear with.
struct Identifiability {
  std::vector<double> vif;
  std::vector<std::vector<int>> partners;  // group-local indexes
};

// With the columns at unit norm, VIF_j = (G⁻¹)_jj. G's eigen-decomposition gives it as
// sum_k V_jk² / λ_k, with λ floored at round-off so an exact dependency reads as a huge but
// finite number; a column untouched by the dependency keeps V_jk ~ 0 there and stays near 1.
// Partners are the columns whose partial correlation with j, -G⁻¹_ij / sqrt(G⁻¹_ii G⁻¹_jj),
// is at least 0.5 in magnitude: inside a dependency it is ±1, between two unrelated
// dependencies of one group about 0.
Identifiability CheckIdentifiability(const Eigen::MatrixXd& gs, double max_vif) {
  const Eigen::Index m = gs.rows();
  Identifiability id;
  id.vif.assign(m, 1.0);
  id.partners.resize(m);
  if (m <= 1) return id;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gs);
  const Eigen::VectorXd& lambda = eig.eigenvalues();
  const double floor = 16 * std::numeric_limits<double>::epsilon() * static_cast<double>(m) *
                       std::max(lambda.maxCoeff(), 1.0);
  const Eigen::VectorXd inv_lambda =
      lambda.unaryExpr([floor](double l) { return 1 / std::max(l, floor); });
  const Eigen::MatrixXd& v = eig.eigenvectors();
  const Eigen::MatrixXd inv = v * inv_lambda.asDiagonal() * v.transpose();
  for (Eigen::Index j = 0; j < m; ++j) id.vif[j] = inv(j, j);
  for (Eigen::Index j = 0; j < m; ++j) {
    if (!(id.vif[j] > max_vif)) continue;
    for (Eigen::Index i = 0; i < m; ++i) {
      if (i == j || !(id.vif[i] > max_vif)) continue;
      if (std::abs(inv(i, j)) >= 0.5 * std::sqrt(inv(i, i) * inv(j, j))) {
        id.partners[j].push_back(static_cast<int>(i));
      }
    }
  }
  return id;
}

}  // namespace

NnlsSolution SolveNnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations,
                       double tolerance) {
  if (a.rows() != b.size()) {
    NnlsSolution s;
    s.x = Eigen::VectorXd::Zero(a.cols());
    s.converged = false;
    return s;
  }
  const Eigen::MatrixXd g = a.transpose() * a;
  const Eigen::VectorXd h = a.transpose() * b;
  return SolveNormal(g, h, max_iterations, tolerance);
}

namespace {

// Pass 1: per card, its normal equations; the rows and busy sum over all used cards.
// Card c's idle column, when idle[c], is num_workloads + c.
std::vector<CardPlan> PlanCards(std::span<const FitCard> cards, std::span<const FitPod> pods,
                                int num_workloads, const std::vector<char>& idle,
                                const WorkFitOptions& options, WorkFitResult& result,
                                double& sum_busy) {
  std::vector<CardPlan> plans;
  plans.reserve(cards.size());
  sum_busy = 0;
  for (size_t c = 0; c < cards.size(); ++c) {
    WorkFitResult::CardQuality& q = result.cards[c];
    q.name = cards[c].name;
    const int idle_column = idle[c] ? num_workloads + static_cast<int>(c) : -1;
    plans.push_back(PlanCard(cards[c], c, pods, num_workloads, idle_column, result.notes));
    CardPlan& plan = plans.back();
    if (!plan.used) {
      q.missing = static_cast<int>(cards[c].busy.size());
      continue;
    }
    AccumulateCard(cards[c], plan, pods, options.saturation, q);
    if (!plan.gram.allFinite() || !plan.atb.allFinite()) {
      result.notes.push_back(CardLabel(cards[c], c) +
                             ": rates too large for double arithmetic; card left out");
      plan.used = false;
      q.missing += q.samples;
      q.samples = 0;
      continue;
    }
    if (q.samples == 0 && !cards[c].busy.empty()) {
      result.notes.push_back(CardLabel(cards[c], c) + ": no usable sample (" +
                             std::to_string(q.saturated) + " saturated, " +
                             std::to_string(q.missing) + " missing)");
    }
    result.rows += q.samples;
    sum_busy += plan.sum_busy;
  }
  return plans;
}

// How notes name a fit column: a workload, or a card's idle term.
struct ColumnNames {
  std::span<const FitCard> cards;
  int num_workloads = 0;
  std::string operator()(int column) const {
    if (column < num_workloads) return "workload " + std::to_string(column);
    const auto c = static_cast<size_t>(column - num_workloads);
    return "the idle term of " + CardLabel(cards[c], c);
  }
  std::string List(const std::vector<int>& columns) const {
    std::string s;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i > 0) s += ", ";
      s += (*this)(columns[i]);
    }
    return s;
  }
};

// What the group-by-group solve leaves per column (workloads, then idle terms).
struct GroupSolution {
  // Every group's solution, identified or not: a workload whose share cannot be told from a
  // neighbour's still explains busy time, and leaving it out would push that time onto the
  // identified workloads of its cards.
  std::vector<double> fitted;
  std::vector<double> vif;
  std::vector<std::vector<int>> partners;
};

GroupSolution SolveGroups(const std::vector<CardPlan>& plans, const std::vector<double>& diag,
                          const ColumnNames& names, const WorkFitOptions& options,
                          WorkFitResult& result) {
  const int num_workloads = static_cast<int>(diag.size());  // every column, idle terms included
  GroupSolution out;
  out.fitted.assign(num_workloads, 0.0);
  out.vif.assign(num_workloads, kNaN);
  out.partners.resize(num_workloads);
  std::vector<int> local(num_workloads, -1);
  for (const Group& group : Groups(plans, diag, num_workloads)) {
    const int m = static_cast<int>(group.workloads.size());
    for (int i = 0; i < m; ++i) local[group.workloads[i]] = i;
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(m, m);
    Eigen::VectorXd h = Eigen::VectorXd::Zero(m);
    for (int c : group.cards) {
      const CardPlan& plan = plans[c];
      const int k = static_cast<int>(plan.workloads.size());
      for (int i = 0; i < k; ++i) {
        const int li = local[plan.workloads[i]];
        if (li < 0) continue;  // a workload with no non-zero rate anywhere
        h(li) += plan.atb(i);
        for (int j = 0; j < k; ++j) {
          const int lj = local[plan.workloads[j]];
          if (lj >= 0) g(li, lj) += plan.gram(i, j);
        }
      }
    }
    Eigen::VectorXd d;
    const NnlsSolution s = SolveNormal(g, h, options.max_iterations, options.tolerance, &d);
    if (!s.converged) {
      result.converged = false;
      result.notes.push_back("NNLS stopped after " + std::to_string(s.iterations) +
                             " solves without converging for " + names.List(group.workloads));
    }
    const Eigen::MatrixXd gs = d.asDiagonal() * g * d.asDiagonal();
    const Identifiability id = CheckIdentifiability(gs, options.max_variance_inflation);
    for (int i = 0; i < m; ++i) {
      const int w = group.workloads[i];
      out.fitted[w] = s.x(i);
      out.vif[w] = id.vif[i];
      for (int p : id.partners[i]) out.partners[w].push_back(group.workloads[p]);
      local[w] = -1;
    }
  }
  return out;
}

// Pass 2: residuals against the fit, per card and over all rows; the mean is known now, so
// SS_tot is summed directly rather than as sum b² - n mean², which cancels. Returns SS_res.
double ScoreResiduals(std::span<const FitCard> cards, std::span<const FitPod> pods,
                      const std::vector<CardPlan>& plans, const std::vector<double>& fitted,
                      double sum_busy, const WorkFitOptions& options, WorkFitResult& result) {
  const double mean = result.rows > 0 ? sum_busy / result.rows : kNaN;
  double ss_res = 0, ss_tot = 0;
  for (size_t c = 0; c < cards.size(); ++c) {
    const CardPlan& plan = plans[c];
    WorkFitResult::CardQuality& q = result.cards[c];
    q.rmse = q.mean_measured = q.mean_fitted = kNaN;
    if (!plan.used || q.samples == 0) continue;
    std::vector<double> work(plan.workloads.size()), values(plan.workloads.size());
    for (size_t s = 0; s < work.size(); ++s) work[s] = fitted[plan.workloads[s]];
    double card_res = 0, card_fit = 0;
    ForEachRow(cards[c], plan, pods, options.saturation, nullptr, values,
               [&](double b, const std::vector<double>& v) {
                 double f = 0;
                 for (size_t s = 0; s < v.size(); ++s) f += v[s] * work[s];
                 card_res += (b - f) * (b - f);
                 card_fit += f;
                 ss_tot += (b - mean) * (b - mean);
               });
    ss_res += card_res;
    q.rmse = std::sqrt(card_res / q.samples);
    q.mean_measured = plan.sum_busy / q.samples;
    q.mean_fitted = card_fit / q.samples;
  }
  result.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : kNaN;
  return ss_res;
}

// Why a workload whose column is empty has no number.
std::string UnidentifiedReason(int w, std::span<const FitPod> pods,
                               const std::vector<CardPlan>& plans) {
  bool has_pod = false, on_card = false;
  for (const FitPod& pod : pods) has_pod = has_pod || pod.workload == w;
  for (const CardPlan& plan : plans) {
    if (!plan.used) continue;
    for (int x : plan.workloads) on_card = on_card || x == w;
  }
  const std::string who = "workload " + std::to_string(w);
  if (!has_pod) return who + " is not identified: it has no pod";
  if (!on_card) return who + " is not identified: its pods are on no usable card";
  return who +
         " is not identified: no usable sample has a non-zero rate for it "
         "(rates zero or missing, or the card saturated or missing)";
}

// Verdicts per workload, with the reason when there is no number, and per idle term: its value,
// or the card in `unseparable` when its column is collinear with the card's rates.
void JudgeWorkloads(std::span<const FitPod> pods, const std::vector<CardPlan>& plans,
                    const std::vector<double>& diag, const GroupSolution& solved, double ss_res,
                    const ColumnNames& names, const WorkFitOptions& options, WorkFitResult& result,
                    std::vector<int>& unseparable) {
  const int num_workloads = names.num_workloads;
  int columns = 0;
  for (double d : diag) columns += d > 0;
  const double sigma2 = result.rows > columns ? ss_res / (result.rows - columns) : kNaN;
  for (int w = 0; w < num_workloads; ++w) {
    WorkFitResult::WorkloadQuality& q = result.workloads[w];
    const double vif = solved.vif[w];
    const std::vector<int>& partners = solved.partners[w];
    q.variance_inflation = vif;
    q.std_error_s = kNaN;
    const std::string who = "workload " + std::to_string(w);
    if (!(diag[w] > 0)) {
      result.notes.push_back(UnidentifiedReason(w, pods, plans));
      continue;
    }
    if (!(vif <= options.max_variance_inflation)) {
      const std::string with =
          partners.empty() ? "other workloads on its cards" : names.List(partners);
      result.notes.push_back(who + " is not identified: its rates move with those of " + with +
                             " (variance inflation " + Number(vif) + " > " +
                             Number(options.max_variance_inflation) +
                             "); only their combination is fitted");
      continue;
    }
    result.identified[w] = true;
    result.work_s[w] = solved.fitted[w];
    q.std_error_s = std::sqrt(sigma2 * vif / diag[w]);
    if (solved.fitted[w] == 0) {
      result.notes.push_back(who +
                             ": work fitted as 0, held at the non-negativity bound (its rates "
                             "explain no busy time beyond what its card neighbours do)");
    }
  }
  for (size_t c = 0; c < plans.size(); ++c) {
    if (!plans[c].used || plans[c].idle_slot < 0) continue;
    const int column = num_workloads + static_cast<int>(c);
    if (!(diag[column] > 0)) continue;  // no usable row: the card's own note says so
    if (!(solved.vif[column] <= options.max_variance_inflation)) {
      unseparable.push_back(static_cast<int>(c));
      continue;
    }
    result.cards[c].idle_busy = solved.fitted[column];
    result.cards[c].idle_fitted = true;
  }
}

// One fit with the idle terms of the cards marked in `idle`.
WorkFitResult FitColumns(std::span<const FitCard> cards, std::span<const FitPod> pods,
                         int num_workloads, const std::vector<char>& idle,
                         const WorkFitOptions& options, std::vector<int>& unseparable) {
  WorkFitResult result;
  result.work_s.assign(num_workloads, kNaN);
  result.identified.assign(num_workloads, false);
  result.workloads.resize(num_workloads);
  result.cards.resize(cards.size());
  const ColumnNames names{cards, num_workloads};

  double sum_busy = 0;
  const std::vector<CardPlan> plans =
      PlanCards(cards, pods, num_workloads, idle, options, result, sum_busy);
  std::vector<double> diag(static_cast<size_t>(num_workloads) + cards.size(), 0.0);
  for (const CardPlan& plan : plans) {
    if (!plan.used) continue;
    for (size_t s = 0; s < plan.workloads.size(); ++s) {
      diag[plan.workloads[s]] += plan.gram(s, s);
      if (plan.workloads[s] < num_workloads)
        result.workloads[plan.workloads[s]].samples += plan.nonzero[s];
    }
  }
  const GroupSolution solved = SolveGroups(plans, diag, names, options, result);
  const double ss_res =
      ScoreResiduals(cards, pods, plans, solved.fitted, sum_busy, options, result);
  JudgeWorkloads(pods, plans, diag, solved, ss_res, names, options, result, unseparable);
  return result;
}

}  // namespace

WorkFitResult FitWorkPerRequest(std::span<const FitCard> cards, std::span<const FitPod> pods,
                                int num_workloads, const WorkFitOptions& options) {
  num_workloads = std::max(0, num_workloads);
  std::vector<char> idle(cards.size(), 0);
  for (size_t c = 0; c < cards.size(); ++c) idle[c] = options.fit_idle && cards[c].idle;
  std::vector<int> unseparable, dropped;
  WorkFitResult result = FitColumns(cards, pods, num_workloads, idle, options, unseparable);
  // Each pass turns off at least one idle term, so this ends; one extra pass is the rule.
  while (!unseparable.empty()) {
    for (int c : unseparable) idle[c] = 0;
    dropped.insert(dropped.end(), unseparable.begin(), unseparable.end());
    unseparable.clear();
    result = FitColumns(cards, pods, num_workloads, idle, options, unseparable);
  }
  std::sort(dropped.begin(), dropped.end());
  for (int c : dropped) {
    result.notes.push_back(CardLabel(cards[c], static_cast<size_t>(c)) +
                           ": idle term not separable from the rates of its pods (they hardly "
                           "vary); fitted without it (idle 0)");
  }
  return result;
}

}  // namespace knobsim
