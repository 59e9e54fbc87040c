// Fits the RMPOPT sweep cost model (suites/rmpopt/model.h) to the figures
// published in document 000 and its thread, by weighted least squares on
// relative residuals (model - figure) / figure, with Levenberg-Marquardt on a
// central-difference Jacobian (Eigen). The model is piecewise linear in the
// fitted parameters, so in practice this is linear least squares and ends in
// a couple of iterations; LM only guards the kinks of max(.).
//
// Fitted: F (fast path), c (scan per entry), a and b (cross-CPU call).
// Not fitted, inputs with stated defaults, because the posts do not give
// them: the CPU count and SMT of the posted machine, its TSC rate, and the
// memory bandwidth B. calibrate() reports, computed from the Jacobian, which
// of them the figures do not depend on at all (B, under this model: no
// published run had several CPUs scanning at once), and sensitivity() shows
// how the fitted values move with the CPU count and TSC rate.
//
// Scenario each figure is taken to measure (2TB, 2048 regions) -- these are
// the assumptions that turn the posts into equations:
//   - guest termination (391.6/457.9 ms all CPUs, 317.0/369.7 ms leader +
//     primary, the cycle statistics "after SNP guest shutdown"): the running
//     100GB guest occupies 100 regions with an assigned page at the first
//     entry; every other region is free and needs a full verification scan
//     (the 311 ms empty-RMP figure, same loop, shows free regions were not
//     left optimised between sweeps).
//   - empty RMP, ~311 ms: leader + primary, no assigned page, all dirty.
//   - first 4K of every 1GB private, ~95 ms: leader + primary.
//   - boot cycle statistics: the v1 all-CPU loop, all regions free and dirty.
// Fitted by default: the six wall times and the two "smallest" cycle
// figures. The largest and average cycle figures are printed with their
// error but not fitted: the two "largest" values (1143020, 83680) are both,
// under the model, one full region scan, and differ 13.7x from each other and
// from what the wall times imply; the averages depend on how calls were
// counted, which the posts do not say.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "suites/rmpopt/model.h"

namespace kvmbench::rmpopt {

enum class Quantity { wall_ns, min_call_cycles, max_call_cycles, mean_call_cycles };

struct PublishedFigure {
  std::string label;    // short, for tables: "all CPUs, run 1"
  std::string origin;   // where it was published
  Quantity quantity = Quantity::wall_ns;
  double value = 0;     // ns or TSC cycles
  Layout layout;        // the scenario (memory comes from the machine)
  Strategy strategy = Strategy::all;
  bool fitted = true;   // false: reported with its error, not fitted
};

// The figures of document 000 and the thread (research/kernel_context.md A).
std::vector<PublishedFigure> published_figures();
// The posted machine: 2TB (0 - 0x20000000000), and the assumed CPUs / SMT /
// TSC rate: a 2-socket, 128-core-per-socket Turin-class EPYC, SMT on, 2.7 GHz
// TSC. None of the three is in the posts.
Machine posted_machine_assumption();
// Assumed peak memory bandwidth of that machine: 2 sockets x 12 channels of
// DDR5-6000 (8 bytes per transfer) = 1.152e12 bytes/s. Not fitted.
double assumed_bandwidth_bytes_per_s();

inline constexpr int kFittedParams = 4;  // F, c, a, b

struct ParameterEstimate {
  std::string name;     // "fast path"
  std::string symbol;   // "F"
  std::string unit;     // "cycles"
  double value = 0;
  double stderr_ = 0;   // NaN when there are no degrees of freedom left
  bool fitted = true;   // false for B (an input)
  bool determined = true;  // false: the fitted figures do not depend on it
  bool at_bound = false;   // fitted to 0: the figures want it negative
};

struct FigureFit {
  PublishedFigure figure;
  double model = 0;
  double rel_error = 0;  // (model - figure) / figure
};

struct Calibration {
  Machine machine;                 // the posted machine (assumed CPUs/TSC)
  CostParams params;               // fitted F, c, a, b; B as given
  std::vector<ParameterEstimate> estimates;  // F, c, a, b, B
  Eigen::Matrix4d covariance = Eigen::Matrix4d::Zero();  // of (F, c, a, b)
  std::vector<FigureFit> figures;
  std::size_t fitted_figures = 0;
  double dof = 0;                  // fitted figures - 4
  double rms_rel_error = 0;        // over the fitted figures
  int iterations = 0;
  bool converged = false;
};

// Throws std::invalid_argument when fewer than 4 figures are fitted or the
// machine is impossible.
Calibration calibrate(const Machine& posted, double bandwidth_bytes_per_s,
                      const std::vector<PublishedFigure>& figures);

// The model's value of one quantity for a figure's scenario.
double model_value(const Machine& m, const PublishedFigure& f, const CostParams& p);

struct Prediction {
  SweepResult sweep;
  double wall_se_ns = 0;           // from the fit's covariance (NaN if dof = 0)
  double wall_ci95_low_ns = 0, wall_ci95_high_ns = 0;  // Student t, dof
};

// The model with the calibrated parameters on another machine/layout; the
// error covers the fitted parameters only (not B, N or the TSC rate).
Prediction predict(const Calibration& cal, const Machine& target, const Layout& layout,
                   Strategy s);

// Calibrations of the same figures for every (CPUs, TSC) pair, SMT and
// bandwidth as given.
std::vector<Calibration> sensitivity(const std::vector<unsigned>& cpu_counts,
                                     const std::vector<double>& tsc_hz, unsigned smt,
                                     double bandwidth_bytes_per_s,
                                     const std::vector<PublishedFigure>& figures);

}  // namespace kvmbench::rmpopt
