#include "analysis/report/summary_cell.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/stats/positive_ci.h"

namespace kvmbench {

bool ci_reaches_zero(const stats::Summary& s, const std::string& unit) {
  return s.n >= 2 && positive_unit(unit) && s.min > 0 && s.ci95_low <= 0 && std::isfinite(s.ci95_high);
}

Cell mean_ci_cell(const stats::Summary& s, const ReadingScale& scale, const std::string& unit) {
  std::string text = format_reading(s.mean * scale.factor);
  const double half = (s.ci95_high - s.ci95_low) / 2;
  if (ci_reaches_zero(s, unit))
    text += " ≤" + format_reading(s.ci95_high * scale.factor, 2);
  else if (s.n >= 2 && std::isfinite(half))
    text += " ±" + format_reading(half * scale.factor, 2);
  return Cell::number(s.mean, unit, std::move(text));
}

Cell mean_ci_cell(const stats::Summary& s, const std::string& unit) {
  const ReadingScale scale = reading_scale(s.mean, unit);
  Cell c = mean_ci_cell(s, scale, unit);
  if (!scale.unit.empty()) c.text += " " + scale.unit;
  return c;
}

ReadingScale scale_for_means(std::span<const double> means, std::string_view unit) {
  std::vector<double> v;
  for (double m : means)
    if (std::isfinite(m)) v.push_back(std::fabs(m));
  if (v.empty()) return reading_scale(NAN, unit);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return reading_scale(v[v.size() / 2], unit);
}

std::string n_range(std::size_t lowest, std::size_t highest) {
  return lowest == highest ? fmt::format("n = {}", lowest) : fmt::format("n = {} to {}", lowest, highest);
}

}  // namespace kvmbench
