#include "analysis/verdicts/regression_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/stats/t_power.h"
#include "analysis/verdicts/family_verdicts.h"

namespace kvmbench {

namespace {

bool time_like(const ChangeModel& m) { return m.direction == Direction::lower_is_better; }

// Whether the model can bound anything: a known direction, two units a
// side with a finite spread, and for the linear model a positive base mean
// (a ratio to a mean at or below zero has no worse side).
bool boundable(const ChangeModel& m) {
  if (m.direction == Direction::unknown || m.base.n < 2 || m.cand.n < 2) return false;
  if (!std::isfinite(m.base.stddev) || !std::isfinite(m.cand.stddev)) return false;
  return m.geometric || m.base.mean > 0;
}

double squared_se(const stats::Summary& s) { return s.stddev * s.stddev / static_cast<double>(s.n); }

// Welch's df, or the pooled one where there is no spread (family_verdicts).
double test_df(const ChangeModel& m) {
  const double df = stats::welch_t_test(m.base, m.cand).df;
  return std::isfinite(df) && df > 0 ? df : static_cast<double>(m.base.n + m.cand.n - 2);
}

// The worse log ratio w of the geometric model, and percent <-> w.
double worse_log(const ChangeModel& m) {
  const double d = m.cand.mean - m.base.mean;
  return time_like(m) ? d : -d;
}
double pct_of_worse_log(const ChangeModel& m, double w) {
  return (time_like(m) ? std::expm1(w) : -std::expm1(-w)) * 100;
}
double worse_log_of_pct(const ChangeModel& m, double pct) {
  if (time_like(m)) return pct <= -100 ? -INFINITY : std::log1p(pct / 100);
  return pct >= 100 ? INFINITY : -std::log1p(-pct / 100);
}

// The ratio cand / base that is worse by `pct` percent.
double ratio_of_worse_pct(const ChangeModel& m, double pct) { return time_like(m) ? 1 + pct / 100 : 1 - pct / 100; }

// One-sided p-values of a worse-positive statistic at df.
MarginTests from_statistic(double statistic, double df) {
  MarginTests t;
  t.statistic = statistic;
  t.df = df;
  if (std::isnan(statistic)) {  // no spread, estimate at the margin: no evidence either way
    t.statistic = 0;
    t.p_shown = t.p_excluded = 0.5;
    return t;
  }
  t.p_shown = stats::student_t_cdf(-statistic, df);
  t.p_excluded = stats::student_t_cdf(statistic, df);
  return t;
}

}  // namespace

ChangeModel change_model(const std::vector<double>& base_units, const std::vector<double>& cand_units,
                         Direction direction, bool linear) {
  ChangeModel m;
  m.direction = direction;
  m.geometric = !linear && all_positive(base_units) && all_positive(cand_units);
  m.base = m.geometric ? log_summary(base_units) : stats::summarize(base_units);
  m.cand = m.geometric ? log_summary(cand_units) : stats::summarize(cand_units);
  return m;
}

double worse_pct(const ChangeModel& m) {
  if (m.direction == Direction::unknown) return NAN;
  if (m.geometric) return pct_of_worse_log(m, worse_log(m));
  if (!(m.base.mean > 0)) return NAN;
  const double ratio = m.cand.mean / m.base.mean;
  return (time_like(m) ? ratio - 1 : 1 - ratio) * 100;
}

double regression_bound_pct(const ChangeModel& m, double confidence) {
  if (!boundable(m) || !(confidence > 0.5 && confidence < 1)) return NAN;
  const double df = test_df(m);
  if (m.geometric) {
    const double se = std::sqrt(squared_se(m.base) + squared_se(m.cand));
    const double half = se == 0 ? 0 : stats::student_t_quantile(confidence, df) * se;
    return pct_of_worse_log(m, worse_log(m) + half);
  }
  // Where the base mean is not distinguishable from 0 at this confidence,
  // Fieller's set reaches both infinities (two half-lines, or the whole
  // line): no regression is excluded, short of a rate's whole 100 %.
  const double t = stats::student_t_quantile(confidence, df);
  if (m.base.mean * m.base.mean - t * t * squared_se(m.base) <= 0)
    return !time_like(m) && m.base.min > 0 && m.cand.min > 0 ? 100 : INFINITY;
  // Otherwise its one-sided set at c is the worse end of its two-sided one
  // at 2c - 1 (error 2(1 - c)).
  const stats::Change c = fieller_change(m.base, m.cand, 2 * (1 - confidence), df);
  return time_like(m) ? c.ci95_high : -c.ci95_low;
}

MarginTests margin_tests(const ChangeModel& m, double margin_pct) {
  if (!boundable(m)) return {};
  const double df = test_df(m);
  if (m.geometric) {
    const double se = std::sqrt(squared_se(m.base) + squared_se(m.cand));
    const double excess = worse_log(m) - worse_log_of_pct(m, margin_pct);
    return from_statistic(se == 0 ? (excess == 0 ? NAN : excess * INFINITY) : excess / se, df);
  }
  // Fieller's statistic at the margin's ratio r: (a - r b) / sqrt(va + r^2
  // vb) ~ t(df) when cand / base = r.
  const double r = ratio_of_worse_pct(m, margin_pct);
  const double gap = m.cand.mean - r * m.base.mean;
  const double se = std::sqrt(squared_se(m.cand) + r * r * squared_se(m.base));
  const double worse_gap = time_like(m) ? gap : -gap;
  return from_statistic(se == 0 ? (worse_gap == 0 ? NAN : worse_gap * INFINITY) : worse_gap / se, df);
}

DetectableRegression detectable_regression(const ChangeModel& m, double one_sided_error, double margin_pct) {
  if (!boundable(m)) return {};
  const stats::WelchPower welch(stats::TwoSampleDesign{m.base.n, m.cand.n, m.base.stddev, m.cand.stddev},
                                one_sided_error);
  auto regression = [&](double power) {
    const double shift = welch.detectable_shift(power);
    if (m.geometric) return pct_of_worse_log(m, worse_log_of_pct(m, margin_pct) + shift);
    return margin_pct + shift / m.base.mean * 100;
  };
  return {regression(0.80), regression(0.95)};
}

std::optional<std::size_t> units_to_decide(const ChangeModel& m, double margin_pct, double shown_error,
                                           double excluded_error, std::size_t most) {
  if (!boundable(m)) return std::nullopt;
  auto decided = [&](std::size_t n) {
    ChangeModel more = m;
    more.base = stats::summary_from_moments(m.base.mean, m.base.stddev, n);
    more.cand = stats::summary_from_moments(m.cand.mean, m.cand.stddev, n);
    const MarginTests t = margin_tests(more, margin_pct);
    return t.p_shown < shown_error || t.p_excluded < excluded_error;
  };
  // With the estimate and the sds fixed, |statistic| grows like sqrt(n)
  // and the df with n: once decided, more units stay decided. Gallop to a
  // decided n, then bisect for the first.
  std::size_t lo = std::max<std::size_t>({m.base.n, m.cand.n, 2});
  if (decided(lo)) return lo;
  std::size_t hi = lo;
  do {
    lo = hi;
    if (hi >= most) return std::nullopt;
    hi = std::min(most, hi * 2);
  } while (!decided(hi));
  while (hi - lo > 1) {  // decided(hi), !decided(lo)
    const std::size_t mid = lo + (hi - lo) / 2;
    (decided(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace kvmbench
