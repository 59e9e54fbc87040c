#include "analysis/stats/positive_ci.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

bool positive_unit(std::string_view unit) {
  return unit != "%" && unit != "pct" && direction_for_unit(unit) != Direction::unknown;
}

MeanCi mean_ci95(std::span<const double> xs, bool positive) {
  const stats::Summary s = stats::summarize(xs);
  MeanCi ci{s.ci95_low, s.ci95_high, false};
  if (s.n < 2 || !positive || s.ci95_low > 0) return ci;
  if (!std::all_of(xs.begin(), xs.end(), [](double x) { return x > 0; })) return ci;
  if (s.n == 2) return {NAN, NAN, false, true};
  std::vector<double> logs(xs.size());
  std::transform(xs.begin(), xs.end(), logs.begin(), [](double x) { return std::log(x); });
  const stats::Summary l = stats::summarize(logs);
  const double half = stats::student_t_quantile(0.975, static_cast<double>(l.n - 1)) * l.stddev /
                      std::sqrt(static_cast<double>(l.n));
  return {std::exp(l.mean - half), std::exp(l.mean + half), true};
}

}  // namespace kvmbench
