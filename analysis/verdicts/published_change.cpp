#include "analysis/verdicts/published_change.h"

#include <fmt/format.h>

#include <cmath>

#include "analysis/report/numbers.h"

namespace kvmbench {

namespace {

Direction opposite(Direction d) {
  if (d == Direction::lower_is_better) return Direction::higher_is_better;
  if (d == Direction::higher_is_better) return Direction::lower_is_better;
  return d;
}

// "9.1%": a share, unsigned.
std::string share(double pct) { return fmt::format("{:.1f}%", std::fabs(pct)); }

}  // namespace

PublishedChange published_change(const ChangeModel& m, double confidence) {
  PublishedChange c;
  c.worse_pct = worse_pct(m);
  c.worse_bound_pct = regression_bound_pct(m, confidence);
  // The other end: the same bound with "worse" turned round.
  ChangeModel turned = m;
  turned.direction = opposite(m.direction);
  c.better_bound_pct = regression_bound_pct(turned, confidence);
  const DetectableRegression d = detectable_regression(m, 1 - confidence);
  c.detectable_80_pct = d.power_80_pct;
  c.detectable_95_pct = d.power_95_pct;
  return c;
}

std::string published_change_sentence(const PublishedChange& c, double confidence, std::string_view what) {
  const std::string level = format_level(confidence);
  if (std::isnan(c.worse_bound_pct)) return fmt::format("{}: too few units for a bound", what);
  std::string out = fmt::format("{}: change {} ({}); ", what, share(c.worse_pct),
                                c.worse_pct > 0 ? "worse" : "better");
  if (std::isinf(c.worse_bound_pct))
    out += "the data exclude no regression";
  else if (c.worse_bound_pct < 0)
    out += fmt::format("the data exclude any regression (an improvement of at least {} is shown, {})",
                       share(c.worse_bound_pct), level);
  else
    out += fmt::format("the data exclude a regression beyond {} ({}) and cannot exclude a smaller one",
                       share(c.worse_bound_pct), level);
  if (std::isinf(c.better_bound_pct))
    out += "; they exclude no improvement";
  else if (c.better_bound_pct < 0)
    out += fmt::format("; they exclude any improvement (a regression of at least {} is shown, {})",
                       share(c.better_bound_pct), level);
  else
    out += fmt::format("; an improvement beyond {} is excluded ({})", share(c.better_bound_pct), level);
  if (std::isfinite(c.detectable_80_pct))
    out += fmt::format("; this design detects a change of {} with 80% power, {} with 95%",
                       share(c.detectable_80_pct), share(c.detectable_95_pct));
  return out;
}

double mean_upper_bound(const std::vector<double>& values, double confidence) {
  if (values.size() < 2) return NAN;
  const stats::Summary s = stats::summarize(values);
  const double df = static_cast<double>(s.n) - 1;
  return s.mean + stats::student_t_quantile(confidence, df) * s.stddev / std::sqrt(static_cast<double>(s.n));
}

}  // namespace kvmbench
