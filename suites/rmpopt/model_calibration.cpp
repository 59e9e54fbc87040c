#include "suites/rmpopt/model_calibration.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/stats/statistics.h"

namespace kvmbench::rmpopt {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint64_t kPostedMemory = 0x20000000000ULL;  // 0 - 0x20000000000
constexpr std::uint64_t kRunningGuestRegions = 100;         // the other 100GB SNP VM

Layout termination_layout() {
  Layout l;
  l.placement = Placement::first;
  l.occupied_regions = kRunningGuestRegions;
  return l;  // dirty: all (every free region needs a scan)
}

Layout empty_layout() { return Layout{}; }

Layout first_page_layout() {
  Layout l;
  l.placement = Placement::first;
  return l;
}

using Vec = Eigen::Matrix<double, kFittedParams, 1>;

Vec to_vec(const CostParams& p) {
  Vec v;
  v << p.fast_path_cycles, p.scan_cycles_per_entry, p.call_base_ns, p.call_per_cpu_ns;
  return v;
}

CostParams from_vec(const Vec& v, double bandwidth) {
  CostParams p;
  p.fast_path_cycles = v(0);
  p.scan_cycles_per_entry = v(1);
  p.call_base_ns = v(2);
  p.call_per_cpu_ns = v(3);
  p.bandwidth_bytes_per_s = bandwidth;
  return p;
}

// Typical magnitudes, used to scale the unknowns and the difference steps.
const Vec& typical() {
  static const Vec t = (Vec() << 60.0, 1.0, 5000.0, 100.0).finished();
  return t;
}

}  // namespace


std::vector<PublishedFigure> published_figures() {
  const char* k000 = "document 000";
  const char* kReply = "thread, reply of 16 Mar";
  auto wall = [](std::string label, std::string origin, double ns, Layout l, Strategy s) {
    return PublishedFigure{std::move(label), std::move(origin), Quantity::wall_ns, ns, l, s, true};
  };
  auto cycles = [](std::string label, Quantity q, double v, Layout l, bool fitted) {
    return PublishedFigure{std::move(label), "document 000", q, v, l, Strategy::all, fitted};
  };
  const Layout boot = empty_layout();
  const Layout term = termination_layout();
  return {
      cycles("boot, smallest", Quantity::min_call_cycles, 60, boot, true),
      cycles("boot, largest", Quantity::max_call_cycles, 1143020, boot, false),
      cycles("boot, average", Quantity::mean_call_cycles, 5226, boot, false),
      cycles("shutdown, smallest", Quantity::min_call_cycles, 60, term, true),
      cycles("shutdown, largest", Quantity::max_call_cycles, 83680, term, false),
      cycles("shutdown, average", Quantity::mean_call_cycles, 5658, term, false),
      wall("all CPUs, run 1", k000, 391609638, term, Strategy::all),
      wall("all CPUs, run 2", k000, 457933019, term, Strategy::all),
      wall("leader+primary, run 1", k000, 317016656, term, Strategy::primary),
      wall("leader+primary, run 2", k000, 369659769, term, Strategy::primary),
      wall("empty RMP (about)", kReply, 311e6, empty_layout(), Strategy::primary),
      wall("first 4K private (about)", kReply, 95e6, first_page_layout(), Strategy::primary),
  };
}

Machine posted_machine_assumption() {
  Machine m;
  m.memory_bytes = kPostedMemory;
  m.cpus = 512;
  m.smt = 2;
  m.tsc_hz = 2.7e9;
  return m;
}

double assumed_bandwidth_bytes_per_s() { return 2.0 * 12 * 6000e6 * 8; }

double model_value(const Machine& m, const PublishedFigure& f, const CostParams& p) {
  SweepResult r = model_sweep(m, f.layout, f.strategy, p);
  switch (f.quantity) {
    case Quantity::wall_ns: return r.wall_ns;
    case Quantity::min_call_cycles: return r.min_call_cycles;
    case Quantity::max_call_cycles: return r.max_call_cycles;
    case Quantity::mean_call_cycles: return r.mean_call_cycles;
  }
  return kNaN;
}

Calibration calibrate(const Machine& posted, double bandwidth,
                      const std::vector<PublishedFigure>& figures) {
  std::vector<const PublishedFigure*> fit;
  for (auto& f : figures) {
    if (!(std::isfinite(f.value) && f.value > 0))
      throw std::invalid_argument(fmt::format("figure '{}' is not a positive number", f.label));
    if (f.fitted) fit.push_back(&f);
  }
  if (fit.size() < static_cast<std::size_t>(kFittedParams))
    throw std::invalid_argument(
        fmt::format("{} fitted figures cannot determine {} parameters", fit.size(), kFittedParams));
  resolve_layout(posted, Layout{});  // validates the machine

  const int m = static_cast<int>(fit.size());
  const Vec scale = typical();
  // Unknowns u = theta / scale; residuals r_i = (model_i - y_i) / y_i.
  auto residuals = [&](const Vec& u) {
    Eigen::VectorXd r(m);
    CostParams p = from_vec(u.cwiseProduct(scale), bandwidth);
    for (int i = 0; i < m; ++i) r(i) = (model_value(posted, *fit[i], p) - fit[i]->value) / fit[i]->value;
    return r;
  };
  auto jacobian = [&](const Vec& u) {
    Eigen::MatrixXd J(m, kFittedParams);
    for (int j = 0; j < kFittedParams; ++j) {
      double h = 1e-6 * std::max(std::abs(u(j)), 1.0);
      Vec up = u, dn = u;
      up(j) += h;
      dn(j) = std::max(0.0, u(j) - h);  // costs stay non-negative
      J.col(j) = (residuals(up) - residuals(dn)) / (up(j) - dn(j));
    }
    return J;
  };

  Vec u = Vec::Ones();  // start at the typical magnitudes
  Eigen::VectorXd r = residuals(u);
  double cost = r.squaredNorm();
  double lambda = 1e-3;
  Calibration cal;
  for (cal.iterations = 1; cal.iterations <= 200; ++cal.iterations) {
    Eigen::MatrixXd J = jacobian(u);
    Eigen::Matrix4d A = J.transpose() * J;
    Vec g = J.transpose() * r;
    // Active set: a cost at 0 whose gradient pushes it below 0 stays fixed.
    Vec keep = Vec::Ones();
    for (int j = 0; j < kFittedParams; ++j)
      if (u(j) <= 0 && g(j) > 0) keep(j) = 0;
    A = keep.asDiagonal() * A * keep.asDiagonal();
    g = g.cwiseProduct(keep);
    bool accepted = false;
    double decrease = 0, step_norm = 0;
    while (lambda < 1e12) {
      Eigen::Matrix4d D = A;
      D.diagonal() += lambda * A.diagonal().cwiseMax(1e-12);
      for (int j = 0; j < kFittedParams; ++j)
        if (keep(j) == 0) D(j, j) = 1;
      Vec trial = (u + D.ldlt().solve(-g)).cwiseMax(0.0);  // projected: costs >= 0
      Eigen::VectorXd rt = residuals(trial);
      double ct = rt.squaredNorm();
      if (std::isfinite(ct) && ct <= cost) {
        step_norm = (trial - u).norm();
        decrease = cost - ct;
        u = trial;
        r = rt;
        cost = ct;
        accepted = true;
        lambda = std::max(lambda / 10, 1e-12);
        break;
      }
      lambda *= 10;
    }
    // Done when no step lowers the cost, or the last one barely did.
    if (!accepted || decrease <= 1e-14 * std::max(cost, 1e-30) ||
        step_norm <= 1e-12 * std::max(u.norm(), 1.0)) {
      cal.converged = true;
      break;
    }
  }

  const Vec theta = u.cwiseProduct(scale);
  cal.machine = posted;
  cal.params = from_vec(theta, bandwidth);
  cal.fitted_figures = fit.size();
  cal.dof = static_cast<double>(m - kFittedParams);
  cal.rms_rel_error = std::sqrt(cost / m);

  // Covariance of theta: s^2 (J^T J)^-1 in the unscaled parameters, with
  // s^2 = RSS / dof (relative residuals). A pseudo-inverse keeps a parameter
  // the figures do not depend on from poisoning the others.
  Eigen::MatrixXd J = jacobian(u);
  for (int j = 0; j < kFittedParams; ++j) J.col(j) /= scale(j);
  Eigen::Matrix4d A = J.transpose() * J;
  Eigen::Matrix4d Ainv = A.completeOrthogonalDecomposition().pseudoInverse();
  double s2 = cal.dof > 0 ? cost / cal.dof : kNaN;
  cal.covariance = s2 * Ainv;

  struct Info {
    const char *name, *symbol, *unit;
  };
  const Info info[] = {{"fast path", "F", "cycles"},
                       {"scan per RMP entry", "c", "cycles/entry"},
                       {"call, fixed", "a", "ns"},
                       {"call, per CPU", "b", "ns/CPU"}};
  for (int j = 0; j < kFittedParams; ++j) {
    ParameterEstimate e{info[j].name, info[j].symbol, info[j].unit, theta(j),
                        std::sqrt(cal.covariance(j, j)), true, J.col(j).norm() > 1e-12 * std::max(1.0, std::abs(theta(j)))};
    e.at_bound = theta(j) == 0.0;
    cal.estimates.push_back(e);
  }
  // Does any fitted figure depend on B? Compare the residuals at B/2 and 2B.
  {
    CostParams lo = cal.params, hi = cal.params;
    lo.bandwidth_bytes_per_s = bandwidth / 2;
    hi.bandwidth_bytes_per_s = bandwidth * 2;
    double dep = 0;
    for (auto* f : fit)
      dep = std::max(dep, std::abs(model_value(posted, *f, lo) - model_value(posted, *f, hi)) / f->value);
    // "Determined" only if halving or doubling B moves some fitted figure by
    // more than 0.1% (it does move by ~1e-6 through the 100 first-page
    // regions of the termination runs, far below the run-to-run spread).
    cal.estimates.push_back(ParameterEstimate{"memory bandwidth", "B", "bytes/s", bandwidth, kNaN,
                                              false, dep > 1e-3});
  }

  for (auto& f : figures) {
    double v = model_value(posted, f, cal.params);
    cal.figures.push_back(FigureFit{f, v, (v - f.value) / f.value});
  }
  return cal;
}

Prediction predict(const Calibration& cal, const Machine& target, const Layout& layout,
                   Strategy s) {
  Prediction out;
  out.sweep = model_sweep(target, layout, s, cal.params);
  // Gradient of the wall time in the fitted parameters (central differences;
  // exact away from the kinks of max(.)).
  Vec theta = to_vec(cal.params);
  Vec grad;
  for (int j = 0; j < kFittedParams; ++j) {
    double h = 1e-6 * std::max(std::abs(theta(j)), typical()(j));
    Vec up = theta, dn = theta;
    up(j) += h;
    dn(j) = std::max(0.0, theta(j) - h);
    double wu = model_sweep(target, layout, s, from_vec(up, cal.params.bandwidth_bytes_per_s)).wall_ns;
    double wd = model_sweep(target, layout, s, from_vec(dn, cal.params.bandwidth_bytes_per_s)).wall_ns;
    grad(j) = (wu - wd) / (up(j) - dn(j));
  }
  double var = grad.dot(cal.covariance * grad);
  out.wall_se_ns = cal.dof > 0 ? std::sqrt(std::max(var, 0.0)) : kNaN;
  if (cal.dof > 0) {
    double t = stats::student_t_quantile(0.975, cal.dof);
    out.wall_ci95_low_ns = out.sweep.wall_ns - t * out.wall_se_ns;
    out.wall_ci95_high_ns = out.sweep.wall_ns + t * out.wall_se_ns;
  } else {
    out.wall_ci95_low_ns = out.wall_ci95_high_ns = kNaN;
  }
  return out;
}

std::vector<Calibration> sensitivity(const std::vector<unsigned>& cpu_counts,
                                     const std::vector<double>& tsc_hz, unsigned smt,
                                     double bandwidth, const std::vector<PublishedFigure>& figures) {
  std::vector<Calibration> out;
  for (unsigned n : cpu_counts)
    for (double f : tsc_hz) {
      Machine m = posted_machine_assumption();
      m.cpus = n;
      m.smt = smt;
      m.tsc_hz = f;
      out.push_back(calibrate(m, bandwidth, figures));
    }
  return out;
}

}  // namespace kvmbench::rmpopt
