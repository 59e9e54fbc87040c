#include "analysis/stats/t_power.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "analysis/stats/increasing_root.h"
#include "analysis/stats/statistics.h"

namespace kvmbench::stats {

namespace {

// Gauss-Legendre nodes on (0, 1) as probabilities, with their weights:
// Boost's 20-point table, mirrored.
struct ProbabilityNodes {
  std::vector<double> p, w;
};
const ProbabilityNodes& probability_nodes() {
  static const ProbabilityNodes nodes = [] {
    using Gauss = boost::math::quadrature::gauss<double, 20>;
    ProbabilityNodes n;
    for (std::size_t i = 0; i < Gauss::abscissa().size(); ++i) {
      const double x = Gauss::abscissa()[i], w = Gauss::weights()[i] / 2;
      n.p.push_back((1 + x) / 2);
      n.w.push_back(w);
      if (x != 0) {
        n.p.push_back((1 - x) / 2);
        n.w.push_back(w);
      }
    }
    return n;
  }();
  return nodes;
}

// A sample variance over its expectation, (n - 1) U ~ chi-square(n - 1), at
// each node's probability. Kept per n (a thread's own): the chi-square
// quantiles cost more than the rest of a design's integral.
const std::vector<double>& variance_ratios(std::size_t n) {
  thread_local std::map<std::size_t, std::vector<double>> known;
  auto [at, fresh] = known.try_emplace(n);
  if (fresh) {
    const boost::math::chi_squared_distribution<double> chi2(static_cast<double>(n - 1));
    for (double p : probability_nodes().p)
      at->second.push_back(boost::math::quantile(chi2, p) / static_cast<double>(n - 1));
  }
  return at->second;
}

// Phi by the standard library's erfc: the quadrature sums it a few ten
// thousand times per detectable shift.
double phi(double x) { return std::erfc(-x / std::sqrt(2.0)) / 2; }

}  // namespace

double t_test_power(double ncp, double df, double one_sided_error) {
  if (!(df > 0) || !(one_sided_error > 0 && one_sided_error < 1) || std::isnan(ncp)) return NAN;
  const double critical = student_t_quantile(1 - one_sided_error, df);
  if (std::isinf(ncp)) return ncp > 0 ? 1.0 : 0.0;
  if (std::isinf(df)) return 1 - normal_cdf(critical - ncp);
  const boost::math::non_central_t_distribution<double> shifted(df, ncp);
  return boost::math::cdf(boost::math::complement(shifted, critical));
}

double ncp_for_power(double power, double df, double one_sided_error) {
  if (!(df > 0) || !(one_sided_error > 0 && power > one_sided_error && power < 1)) return NAN;
  // At ncp = 0 the power is the error itself, below the target; widen the
  // upper end until the power passes it (a few doublings: the normal
  // approximation's z(1 - e) + z(power) is already close).
  double hi = std::max(1.0, normal_quantile(1 - one_sided_error) + normal_quantile(power));
  while (t_test_power(hi, df, one_sided_error) < power) hi *= 2;
  return increasing_root([&](double ncp) { return t_test_power(ncp, df, one_sided_error) - power; }, 0.0, hi);
}

double standard_error(const TwoSampleDesign& d) {
  const double nb = static_cast<double>(d.n_base), nc = static_cast<double>(d.n_cand);
  return std::sqrt(d.sd_base * d.sd_base / nb + d.sd_cand * d.sd_cand / nc);
}

double welch_df(const TwoSampleDesign& d) {
  if (d.n_base < 2 || d.n_cand < 2) return NAN;
  // Welch's own df (and its n_base + n_cand - 2 where both sds are 0).
  return welch_t_test(summary_from_moments(0, d.sd_base, d.n_base), summary_from_moments(0, d.sd_cand, d.n_cand)).df;
}

WelchPower::WelchPower(const TwoSampleDesign& d, double one_sided_error)
    : se_(standard_error(d)), error_(one_sided_error) {
  if (d.n_base < 2 || d.n_cand < 2) throw std::invalid_argument("Welch's power: needs 2 units a side");
  if (!(d.sd_base >= 0 && d.sd_cand >= 0 && std::isfinite(se_)))
    throw std::invalid_argument("Welch's power: the sds must be finite and not negative");
  if (!(one_sided_error > 0 && one_sided_error < 1)) throw std::invalid_argument("Welch's power: error outside (0, 1)");
  if (se_ == 0) return;
  const std::vector<double>&ub = variance_ratios(d.n_base), &uc = variance_ratios(d.n_cand);
  const std::vector<double>& w = probability_nodes().w;
  const double nb = static_cast<double>(d.n_base), nc = static_cast<double>(d.n_cand);
  for (std::size_t i = 0; i < ub.size(); ++i)
    for (std::size_t j = 0; j < uc.size(); ++j) {
      const double vb = d.sd_base * d.sd_base * ub[i] / nb, vc = d.sd_cand * d.sd_cand * uc[j] / nc;
      const double df = (vb + vc) * (vb + vc) / (vb * vb / (nb - 1) + vc * vc / (nc - 1));
      critical_.push_back(student_t_quantile(1 - one_sided_error, df) * std::sqrt(vb + vc));
      weight_.push_back(w[i] * w[j]);
    }
}

double WelchPower::power(double shift) const {
  if (se_ == 0) return shift > 0 ? 1.0 : 0.0;
  double p = 0;
  for (std::size_t k = 0; k < critical_.size(); ++k) p += weight_[k] * phi((shift - critical_[k]) / se_);
  return p;
}

double WelchPower::detectable_shift(double power) const {
  if (!(power > error_ && power < 1)) return NAN;
  if (se_ == 0) return 0;
  double hi = se_;
  while (this->power(hi) < power) hi *= 2;
  return increasing_root([&](double shift) { return this->power(shift) - power; }, 0.0, hi);
}

double detectable_shift(const TwoSampleDesign& d, double power, double one_sided_error) {
  if (d.n_base < 2 || d.n_cand < 2) return NAN;
  return WelchPower(d, one_sided_error).detectable_shift(power);
}

double two_sample_units_for_power(double delta, double sd, double power, double sig_level, bool two_sided) {
  if (!(delta > 0 && sd > 0 && sig_level > 0 && sig_level < 1)) return NAN;
  const double error = two_sided ? sig_level / 2 : sig_level;
  auto shortfall = [&](double n) { return t_test_power(std::sqrt(n / 2) * delta / sd, 2 * (n - 1), error) - power; };
  constexpr double lo = 2, hi = 1e7;
  if (!(shortfall(lo) < 0 && shortfall(hi) > 0)) return NAN;
  return increasing_root(shortfall, lo, hi);
}

}  // namespace kvmbench::stats
