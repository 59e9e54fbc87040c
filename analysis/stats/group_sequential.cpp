#include "analysis/stats/group_sequential.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "analysis/stats/increasing_root.h"
#include "analysis/stats/statistics.h"

namespace kvmbench::stats {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Jennison and Turnbull's grid size: 6r - 1 points before trimming; r = 16
// gives crossing probabilities to about 1e-6, r = 32 leaves the tables'
// fourth decimal of a boundary untouched.
constexpr int kGridR = 32;

double standard_normal_density(double x) { return std::exp(-x * x / 2) / std::sqrt(2 * M_PI); }

// Upper-tail probability, 1 - Phi(x), without the cancellation of 1 - cdf.
double normal_upper_tail(double x) { return normal_cdf(-x); }

// The points of Jennison and Turnbull's grid for a statistic Z of mean
// `mean` inside (lo, hi), with the finite ends added: dense within 3 sds of
// the mean, then spreading logarithmically out to about 14 sds.
std::vector<double> grid_points(double mean, double lo, double hi) {
  const int r = kGridR;
  std::vector<double> pts;
  if (std::isfinite(lo)) pts.push_back(lo);
  for (int i = 1; i <= 6 * r - 1; ++i) {
    double x;
    if (i < r)
      x = -3 - 4 * std::log(static_cast<double>(r) / i);
    else if (i <= 5 * r)
      x = -3 + 3.0 * (i - r) / (2 * r);
    else
      x = 3 + 4 * std::log(static_cast<double>(r) / (6 * r - i));
    x += mean;
    if (x > lo && x < hi) pts.push_back(x);
  }
  if (std::isfinite(hi)) pts.push_back(hi);
  // A region beyond the grid's reach holds no mass worth integrating; keep
  // two points so that Simpson's rule has an interval.
  if (pts.size() == 1) pts.insert(pts.begin(), pts.front() - 1);
  return pts;
}

// The density of the score S_k = Z_k sqrt(I_k) on the continuation region
// so far, as masses at grid points: mass[i] = Simpson weight x density at
// s[i]. Before the first look, S_0 = 0 with mass 1.
class ContinuationDensity {
 public:
  explicit ContinuationDensity(double drift) : drift_(drift) {}

  // P(inside so far, then Z at information `info` beyond z: above it, or
  // below it).
  double exit_beyond(double info, double z, bool above) const {
    const auto [step_mean, step_sd] = step(info);
    double p = 0;
    for (std::size_t i = 0; i < s_.size(); ++i) {
      const double x = (z * std::sqrt(info) - s_[i] - step_mean) / step_sd;
      p += mass_[i] * (above ? normal_upper_tail(x) : normal_cdf(x));
    }
    return p;
  }
  // Moves to the next look: the density of S at `info` on (lo, hi).
  void advance(double info, double lo, double hi) {
    const auto [step_mean, step_sd] = step(info);
    const double root = std::sqrt(info);
    const std::vector<double> z = grid_points(drift_ * root, lo, hi);
    // Simpson's rule on the points with a midpoint inserted in each gap.
    std::vector<double> s, w;
    for (std::size_t j = 0; j + 1 < z.size(); ++j) {
      const double h = (z[j + 1] - z[j]) * root;
      if (j == 0) {
        s.push_back(z[0] * root);
        w.push_back(0);
      }
      w.back() += h / 6;
      s.push_back((z[j] + z[j + 1]) / 2 * root);
      w.push_back(4 * h / 6);
      s.push_back(z[j + 1] * root);
      w.push_back(h / 6);
    }
    std::vector<double> mass(s.size(), 0.0);
    for (std::size_t j = 0; j < s.size(); ++j) {
      double density = 0;
      for (std::size_t i = 0; i < s_.size(); ++i)
        density += mass_[i] * standard_normal_density((s[j] - s_[i] - step_mean) / step_sd);
      mass[j] = w[j] * density / step_sd;
    }
    s_ = std::move(s);
    mass_ = std::move(mass);
    info_ = info;
  }

 private:
  // The score's increment from this look to `info`: its mean and sd.
  std::pair<double, double> step(double info) const {
    const double delta = info - info_;
    return {drift_ * delta, std::sqrt(delta)};
  }

  double drift_;
  double info_ = 0;
  std::vector<double> s_{0.0}, mass_{1.0};
};

void check_information(std::span<const double> information) {
  if (information.empty()) throw std::invalid_argument("group-sequential design: no looks");
  double last = 0;
  for (double i : information) {
    if (!(i > last) || !std::isfinite(i))
      throw std::invalid_argument("group-sequential design: information must be positive and increasing");
    last = i;
  }
}

// The constant c at which K equally spaced two-sided looks with bounds
// +-c * shape(k) exit with probability alpha under no drift.
double two_sided_constant(std::size_t looks, double alpha, const std::function<double(std::size_t k)>& shape) {
  if (looks == 0 || !(alpha > 0 && alpha < 1))
    throw std::invalid_argument("group-sequential constant: needs at least one look and 0 < alpha < 1");
  std::vector<double> info(looks);
  for (std::size_t k = 0; k < looks; ++k) info[k] = static_cast<double>(k + 1);
  auto excess = [&](double c) {
    std::vector<double> lo(looks), hi(looks);
    for (std::size_t k = 0; k < looks; ++k) {
      hi[k] = c * shape(k + 1);
      lo[k] = -hi[k];
    }
    const ExitProbabilities e = exit_probabilities(info, lo, hi);
    double total = 0;
    for (std::size_t k = 0; k < looks; ++k) total += e.upper[k] + e.lower[k];
    return alpha - total;  // increasing in c
  };
  return increasing_root(excess, 0.5, 8.0);
}

}  // namespace

std::string_view to_string(SpendingFunction f) {
  return f == SpendingFunction::pocock ? "Pocock type" : "O'Brien-Fleming type";
}

double alpha_spent(SpendingFunction f, double alpha, double t) {
  if (!(t > 0)) return 0;
  if (t >= 1) return alpha;
  if (f == SpendingFunction::pocock) return alpha * std::log(1 + (M_E - 1) * t);
  return 2 * normal_upper_tail(normal_quantile(1 - alpha / 2) / std::sqrt(t));
}

ExitProbabilities exit_probabilities(std::span<const double> information, std::span<const double> lower,
                                     std::span<const double> upper, double drift) {
  check_information(information);
  if (lower.size() != information.size() || upper.size() != information.size())
    throw std::invalid_argument("group-sequential design: one lower and one upper bound per look");
  ExitProbabilities e;
  ContinuationDensity density(drift);
  for (std::size_t k = 0; k < information.size(); ++k) {
    e.upper.push_back(density.exit_beyond(information[k], upper[k], true));
    e.lower.push_back(density.exit_beyond(information[k], lower[k], false));
    if (k + 1 < information.size()) density.advance(information[k], lower[k], upper[k]);
  }
  return e;
}

std::vector<double> spending_boundaries(std::span<const double> information,
                                        const std::function<double(double t)>& spent) {
  check_information(information);
  const double total = information.back();
  std::vector<double> bounds;
  ContinuationDensity density(0);
  double before = 0;
  for (std::size_t k = 0; k < information.size(); ++k) {
    const double now = spent(information[k] / total), target = now - before;
    if (target < 0) throw std::invalid_argument("group-sequential design: the spending function decreases");
    before = now;
    double z = kInf;
    if (target > 0) {
      // The crossing probability falls as the boundary rises: find where
      // it equals this look's share.
      z = increasing_root([&](double b) { return target - density.exit_beyond(information[k], b, true); }, -10.0, 40.0);
    }
    bounds.push_back(z);
    if (k + 1 < information.size()) density.advance(information[k], -kInf, z);
  }
  return bounds;
}

double pocock_constant(std::size_t looks, double alpha) {
  return two_sided_constant(looks, alpha, [](std::size_t) { return 1.0; });
}

double obrien_fleming_constant(std::size_t looks, double alpha) {
  return two_sided_constant(
      looks, alpha, [looks](std::size_t k) { return std::sqrt(static_cast<double>(looks) / static_cast<double>(k)); });
}

SequentialBoundaries sequential_boundaries(const SequentialDesign& d) {
  if (d.looks.empty() || d.looks.front() < 2)
    throw std::invalid_argument("sequential design: the first look needs at least 2 units a side");
  for (std::size_t k = 1; k < d.looks.size(); ++k)
    if (d.looks[k] <= d.looks[k - 1])
      throw std::invalid_argument(
          fmt::format("sequential design: looks must grow ({} then {} units a side)", d.looks[k - 1], d.looks[k]));
  for (double e : {d.shown_error, d.excluded_error})
    if (!(e > 0 && e < 0.5))
      throw std::invalid_argument(fmt::format("sequential design: an error of {} is not in (0, 0.5)", e));
  std::vector<double> info(d.looks.begin(), d.looks.end());
  SequentialBoundaries b;
  b.looks = d.looks;
  b.shown_z = spending_boundaries(info, [&](double t) { return alpha_spent(d.shown_spending, d.shown_error, t); });
  b.excluded_z =
      spending_boundaries(info, [&](double t) { return alpha_spent(d.excluded_spending, d.excluded_error, t); });
  for (double z : b.shown_z) b.shown_p.push_back(normal_upper_tail(z));
  for (double z : b.excluded_z) b.excluded_p.push_back(normal_upper_tail(z));
  return b;
}

SequentialFinding sequential_finding(const SequentialBoundaries& b, std::size_t look, double p_shown,
                                     double p_excluded) {
  if (look >= b.looks.size())
    throw std::out_of_range(fmt::format("sequential design: look {} of {}", look + 1, b.looks.size()));
  if (p_shown < b.shown_p[look]) return SequentialFinding::regression_shown;
  if (p_excluded < b.excluded_p[look]) return SequentialFinding::regression_excluded;
  return SequentialFinding::undecided;
}

}  // namespace kvmbench::stats
