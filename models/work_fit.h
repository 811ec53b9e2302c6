// Work per request fitted from card utilization: non-negative least squares over (card, time).
//
// On a card whose sharing is work-conserving and free of switching overhead (cGPU POLICY 1, 2, 4;
// POLICY 5 or native time-slicing with zero overhead, docs/design.md §2) the card is busy exactly
// as long as the work its pods were sent takes at the card's speed:
//
//   busy[c][t] = sum over pods p on c of rate[p][t] * work[w(p)] / speed[c]
//
// busy is the DCGM busy fraction (0..1), rate the pod's requests per second, work the seconds of
// reference-card time (A10 = 1.0) one request of workload w needs, speed the card's relative
// speed (models/gpu_catalog.h). Pods of one workload share one unknown, so the rows (card, time)
// and the columns (workloads) make a linear problem, solved with work >= 0 by Lawson-Hanson.
// POLICY 0, 3 and 5 with overhead break the equation; the caller leaves such cards out.
//
// Idle term (WorkFitOptions::fit_idle): DCGM reads a few points of utilization on a card that
// holds a loaded model and serves nothing (the driver's housekeeping, a framework's polling
// kernels). With the option each card c gets one more unknown idle[c] >= 0:
//
//   busy[c][t] = idle[c] + sum over pods p on c of rate[p][t] * work[w(p)] / speed[c]
//
// a column of ones per card, solved with the work in the same NNLS, reported per card
// (CardQuality::idle_busy) and kept out of the work. It is told from the work only by how the
// rates vary: a card whose rates are (nearly) constant makes its idle column collinear with
// them (the variance inflation test below), and such a card is fitted again without it (idle
// 0, said in notes), so the work keeps the busy time rather than an unidentifiable floor.
// Without the option a card with no requests is assumed idle (busy 0).
//
// A pod on several cards (aliyun.com/gpu-count) is listed by each: a synchronous multi-card step
// keeps every card busy for work / speed, the engine's reading too (models/README.md §1).
#pragma once

#include <Eigen/Dense>
#include <span>
#include <string>
#include <vector>

namespace knobsim {

// One card's samples. All cards and pods share one time grid: sample t of a card and sample t of
// its pods' rates are the same instant.
struct FitCard {
  std::string name;          // for notes and the quality table, e.g. "node-3/gpu1"
  double speed = 1.0;        // relative to the A10; not finite or <= 0 leaves the card out
  std::vector<double> busy;  // per sample, 0..1; NaN, infinite or negative = missing
  std::vector<int> pods;     // indexes into the pods passed to FitWorkPerRequest
  bool idle = true;          // with WorkFitOptions::fit_idle: whether this card gets its term
};

struct FitPod {
  int workload = 0;          // 0 .. num_workloads - 1
  std::vector<double> rate;  // requests per second per sample; NaN, infinite, negative or past
                             // the end of the vector = missing
};

struct WorkFitOptions {
  // Samples with busy >= saturation are left out: a saturated card hides how much work was
  // waiting, so the equation turns into an inequality there. Dropping them biases work slightly
  // low (noise that pushed a sample over the line goes with it); they are counted per card.
  double saturation = 0.98;
  // A workload is identified when its column is not (nearly) a combination of the other
  // columns: the variance inflation factor 1 / (1 - R²), R² of its column regressed on the
  // others', is at most this. 1e4 means the column lies more than 0.57° from the others' span.
  double max_variance_inflation = 1e4;
  // NNLS stops after this many least-squares solves per group of workloads that share cards;
  // 0 = 3 × the group's workloads + 30 (scipy's 3n, plus room for tiny groups).
  int max_iterations = 0;
  // One idle term per card (the header's second equation). Off by default: the equation without
  // it is the engine's own; `knobsim import` turns it on for measured utilization.
  bool fit_idle = false;  // FitCard::idle turns it off per card
  // NNLS stops when no bound variable's gradient exceeds tolerance × max |Aᵀb| (scaled columns).
  double tolerance = 1e-10;
};

struct WorkFitResult {
  std::vector<double> work_s;    // per workload, seconds of A10 time per request; NaN if not
                                 // identified
  std::vector<bool> identified;  // identified (notes say why not)
  double r2 = 0;                 // 1 - SS_res / SS_tot over the rows used; NaN if SS_tot = 0
  int rows = 0;                  // (card, time) samples used

  struct CardQuality {
    std::string name;
    int samples = 0;    // rows used
    int saturated = 0;  // busy >= saturation, left out
    int missing = 0;    // busy or a pod's rate missing (or the whole card left out)
    double rmse = 0;    // of busy over the rows used; NaN without rows
    double mean_measured = 0;
    double mean_fitted = 0;  // the idle term included
    // The fitted idle term (busy with no requests, 0..1), not part of any workload's work; 0
    // when it was not fitted (fit_idle off, or not separable from the rates: idle_fitted false).
    double idle_busy = 0;
    bool idle_fitted = false;
  };
  std::vector<CardQuality> cards;  // one per input card, same order

  struct WorkloadQuality {
    int samples = 0;  // rows in which the workload had a non-zero rate
    // 1 / (1 - R²) of its column on the others (1 = unrelated to them); NaN without samples.
    double variance_inflation = 0;
    // Least-squares standard error assuming independent noise of one variance: it understates
    // the error of autocorrelated series (most monitoring data). NaN when not identified or
    // when rows <= fitted workloads.
    double std_error_s = 0;
  };
  std::vector<WorkloadQuality> workloads;  // one per workload

  bool converged = true;           // false if NNLS hit max_iterations in some group
  std::vector<std::string> notes;  // what was left out or not identified, and why
};

// Fits work per request for workloads 0 .. num_workloads - 1. Bad indexes, bad speeds and short
// series are reported in notes, never thrown. Deterministic: same input, same bits out.
WorkFitResult FitWorkPerRequest(std::span<const FitCard> cards, std::span<const FitPod> pods,
                                int num_workloads, const WorkFitOptions& options = {});

// Lawson-Hanson (1974) active-set NNLS, the solver FitWorkPerRequest uses, exposed for tests:
// x minimising ||A x - b|| subject to x >= 0. It works on the normal equations AᵀA, Aᵀb with the
// columns scaled to unit norm (the fit accumulates them row by row, never holding A), which is
// accurate while the scaled A is reasonably conditioned (cond ≲ 1e5); zero columns get x = 0.
// max_iterations <= 0 means 3 × columns + 30; tolerance as in WorkFitOptions.
struct NnlsSolution {
  Eigen::VectorXd x;
  int iterations = 0;  // least-squares solves
  bool converged = true;
};
NnlsSolution SolveNnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations = 0,
                       double tolerance = 1e-10);

}  // namespace knobsim
