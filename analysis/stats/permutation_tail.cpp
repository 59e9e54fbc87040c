#include "analysis/stats/permutation_tail.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace kvmbench::stats {

std::optional<ParetoTail> fit_pareto_tail(std::span<const double> excesses) {
  const std::size_t n = excesses.size();
  if (n < 3) return std::nullopt;
  std::vector<double> y(excesses.begin(), excesses.end());
  std::sort(y.begin(), y.end());
  if (!(y.front() >= 0) || !std::isfinite(y.back()) || y.front() == y.back()) return std::nullopt;
  double b0 = 0, b1 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    b0 += y[i];
    b1 += static_cast<double>(i) / static_cast<double>(n - 1) * y[i];
  }
  b0 /= static_cast<double>(n);
  b1 /= static_cast<double>(n);
  const double a0 = b0, a1 = b0 - b1, d = a0 - 2 * a1;
  if (!(d > 0) || !(a1 > 0)) return std::nullopt;
  ParetoTail t{2 * a0 * a1 / d, a0 / d - 2};
  if (!(t.sigma > 0) || !std::isfinite(t.k)) return std::nullopt;
  return t;
}

double pareto_survival(const ParetoTail& t, double y) {
  if (y <= 0) return 1;
  if (std::fabs(t.k) < 1e-12) return std::exp(-y / t.sigma);
  const double base = 1 - t.k * y / t.sigma;
  if (base <= 0) return 0;  // beyond a bounded tail's end
  return std::pow(base, 1 / t.k);
}

std::optional<double> tail_p_value(std::span<const double> null, double observed, std::size_t exceedances) {
  const std::size_t r = null.size();
  if (exceedances < 3 || r < 4 * exceedances) return std::nullopt;
  std::vector<double> top(null.begin(), null.end());
  std::nth_element(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(exceedances), top.end(), std::greater<>());
  // top[0, N_exc) are the largest; top[N_exc] the next one.
  const double next = top[exceedances];
  const double smallest_top = *std::min_element(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(exceedances));
  const double threshold = (smallest_top + next) / 2;
  if (!(observed > threshold)) return std::nullopt;
  std::vector<double> excess(exceedances);
  for (std::size_t i = 0; i < exceedances; ++i) excess[i] = top[i] - threshold;
  const auto fit = fit_pareto_tail(excess);
  if (!fit) return std::nullopt;
  const double p = static_cast<double>(exceedances) / static_cast<double>(r) * pareto_survival(*fit, observed - threshold);
  return std::max(p, kSmallestTailP);
}

}  // namespace kvmbench::stats
