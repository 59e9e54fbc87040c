#include "analysis/stats/rate_fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kvmbench {

LineFit fit_line(const std::vector<double>& t, const std::vector<double>& v, std::size_t first,
                 std::size_t last) {
  if (t.size() != v.size()) throw std::invalid_argument("fit_line: t and v differ in length");
  if (last >= t.size() || first >= last) throw std::invalid_argument("fit_line: need at least 2 points");
  const auto n = static_cast<Eigen::Index>(last - first + 1);
  // Centre t: keeps the design matrix well conditioned when t are large
  // (monotonic clock seconds) and the ramp is short.
  double t_mean = 0;
  for (auto i = first; i <= last; ++i) t_mean += t[i];
  t_mean /= static_cast<double>(n);
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    a(k, 0) = 1.0;
    a(k, 1) = t[first + static_cast<std::size_t>(k)] - t_mean;
    y(k) = v[first + static_cast<std::size_t>(k)];
  }
  const double sxx = a.col(1).squaredNorm();
  if (!(sxx > 0)) throw std::invalid_argument("fit_line: all t are equal");
  Eigen::Vector2d beta = a.colPivHouseholderQr().solve(y);
  Eigen::VectorXd resid = y - a * beta;
  const double ssr = resid.squaredNorm();
  const double sst = (y.array() - y.mean()).matrix().squaredNorm();

  LineFit f;
  f.n = static_cast<std::size_t>(n);
  f.slope = beta(1);
  f.intercept = beta(0) - beta(1) * t_mean;
  f.slope_stderr = n > 2 ? std::sqrt(ssr / static_cast<double>(n - 2) / sxx)
                         : std::numeric_limits<double>::quiet_NaN();
  f.r2 = sst > 0 ? 1.0 - ssr / sst : 1.0;
  return f;
}

RampRate fit_ramp_rate(const std::vector<double>& t, const std::vector<double>& v_in,
                       const RampOptions& o) {
  RampRate r;
  if (t.size() != v_in.size()) {
    r.reason = "time and value series differ in length";
    return r;
  }
  if (v_in.size() < 2) {
    r.reason = "fewer than 2 samples";
    return r;
  }
  for (std::size_t i = 1; i < t.size(); ++i)
    if (!(t[i] > t[i - 1])) {
      r.reason = "timestamps are not strictly increasing";
      return r;
    }
  const auto [mn, mx] = std::minmax_element(v_in.begin(), v_in.end());
  const double v0 = v_in.front();
  switch (o.direction) {
    case RampDirection::rising: r.rising = true; break;
    case RampDirection::falling: r.rising = false; break;
    case RampDirection::automatic: r.rising = (*mx - v0) >= (v0 - *mn); break;
  }
  // Work on a rising copy; mirror back at the end.
  std::vector<double> v = v_in;
  if (!r.rising)
    for (auto& x : v) x = -x;
  r.baseline = v.front();
  r.plateau = *std::max_element(v.begin(), v.end());
  const double rise = r.plateau - r.baseline;
  if (!(rise > o.min_rise) || !(rise > 0)) {
    r.reason = "no ramp: the series does not move away from its first sample";
    if (!r.rising) r.baseline = -r.baseline, r.plateau = -r.plateau;
    return r;
  }
  const double band = o.edge_fraction * rise;
  std::size_t end = 0;
  while (end < v.size() && v[end] < r.plateau - band) ++end;
  std::size_t begin = end;
  while (begin > 0 && v[begin - 1] > r.baseline + band) --begin;
  begin = begin > 0 ? begin - 1 : 0;
  r.begin = begin;
  r.end = end;
  r.t_begin = t[begin];
  r.t_end = t[end];
  std::size_t interior = end > begin + 1 ? end - begin - 1 : 0;
  if (interior >= 3) {
    r.first = begin + 1;
    r.last = end - 1;
  } else {
    r.first = begin;
    r.last = end;
    r.edges_included = true;
  }
  if (r.last <= r.first) {
    r.reason = "ramp has fewer than 2 samples";
    return r;
  }
  r.fit = fit_line(t, v, r.first, r.last);
  if (!r.rising) {
    r.fit.slope = -r.fit.slope;
    r.fit.intercept = -r.fit.intercept;
    r.baseline = -r.baseline;
    r.plateau = -r.plateau;
  }
  r.ok = true;
  return r;
}

}  // namespace kvmbench
