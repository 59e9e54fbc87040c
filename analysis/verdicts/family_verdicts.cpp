#include "analysis/verdicts/family_verdicts.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kvmbench {

namespace {

double se2(const stats::Summary& s) { return s.stddev * s.stddev / static_cast<double>(s.n); }

// Welch's df, or the pooled one where Welch's is undefined (no spread).
double welch_df(const stats::Summary& base, const stats::Summary& cand) {
  const double df = stats::welch_t_test(base, cand).df;
  return std::isfinite(df) && df > 0 ? df : static_cast<double>(base.n + cand.n - 2);
}

FamilyMember on_logs(std::size_t index, const MetricComparison& m) {
  FamilyMember f;
  f.index = index;
  f.base = log_summary(m.base_values);
  f.cand = log_summary(m.cand_values);
  f.p = stats::welch_t_test(f.base, f.cand).p;
  const double d = f.cand.mean - f.base.mean, se = std::sqrt(se2(f.base) + se2(f.cand));
  const double df = welch_df(f.base, f.cand);
  f.interval = [d, se, df](double error) {
    const double half = se == 0 ? 0 : stats::student_t_quantile(1 - error / 2, df) * se;
    stats::Change c{(std::exp(d) - 1) * 100, (std::exp(d - half) - 1) * 100, (std::exp(d + half) - 1) * 100};
    c.log_scale = c.geometric = true;
    return c;
  };
  return f;
}

FamilyMember linear(std::size_t index, const MetricComparison& m) {
  FamilyMember f;
  f.index = index;
  f.base = m.base;
  f.cand = m.cand;
  f.p = m.p_welch;
  const double df = welch_df(m.base, m.cand);
  f.interval = [base = m.base, cand = m.cand, df](double error) { return fieller_change(base, cand, error, df); };
  return f;
}

}  // namespace

bool all_positive(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x) && x > 0; });
}

stats::Summary log_summary(const std::vector<double>& v) {
  std::vector<double> logs(v.size());
  std::transform(v.begin(), v.end(), logs.begin(), [](double x) { return std::log(x); });
  return stats::summarize(logs);
}

stats::Change fieller_change(const stats::Summary& base, const stats::Summary& cand, double error, double df) {
  const double a = cand.mean, b = base.mean;
  stats::Change c{NAN, NAN, NAN};
  c.level = 1 - error;
  if (b == 0 || !std::isfinite(a) || !std::isfinite(b)) return c;
  c.pct = (a / b - 1) * 100;
  const double va = se2(cand), vb = se2(base);
  if (!std::isfinite(va) || !std::isfinite(vb)) return c;
  if (va == 0 && vb == 0) {  // no spread on either side: the ratio is known exactly
    c.ci95_low = c.ci95_high = c.pct;
    return c;
  }
  // The ratios rho with (a - rho b)^2 <= t^2 (va + rho^2 vb): at rho = 1
  // exactly Welch's condition for keeping "no change".
  const double t = stats::student_t_quantile(1 - error / 2, df), t2 = t * t;
  const double denom = b * b - t2 * vb, disc = a * a * vb + b * b * va - t2 * va * vb;
  if (!(denom > 0 && disc >= 0)) {
    // The base mean is not distinguishable from 0 at this level. Where the
    // set is two half-lines (denom < 0, disc > 0), the one holding the
    // estimate is its CI: unbounded on one side, it excludes ratio 1 where
    // the test rejects. Otherwise (the whole line) no bound at all.
    if (denom < 0 && disc > 0) {
      const double root = t * std::sqrt(disc);
      const double r1 = (a * b + root) / denom, r2 = (a * b - root) / denom;  // r1 < r2 (denom < 0)
      const double rho = a / b;
      if (rho >= r2) {
        c.ci95_low = (r2 - 1) * 100;
        c.ci95_high = INFINITY;
      } else if (rho <= r1) {
        c.ci95_low = a > 0 && b > 0 ? -100 : -INFINITY;
        c.ci95_high = (r1 - 1) * 100;
      }
    }
    return c;
  }
  const double root = t * std::sqrt(disc);
  double lo = (a * b - root) / denom;
  const double hi = (a * b + root) / denom;
  if (a > 0 && b > 0) lo = std::max(lo, 0.0);
  c.ci95_low = (lo - 1) * 100;
  c.ci95_high = (hi - 1) * 100;
  return c;
}

void judge_family(Comparison& c, const std::vector<FamilyMember>& members) {
  // Holm's ranks over the members with a p (rank 0: the smallest).
  std::vector<std::size_t> order;
  for (std::size_t j = 0; j < members.size(); ++j)
    if (!std::isnan(members[j].p)) order.push_back(j);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return members[a].p < members[b].p; });
  const std::size_t k = order.size();
  std::vector<double> error(members.size(), 1 - 0.95);
  // s: the first rank Holm keeps; every rank from it on is judged at its level.
  std::size_t s = 0;
  while (s < k && members[order[s]].p < c.alpha / static_cast<double>(k - s)) ++s;
  for (std::size_t r = 0; r < k; ++r)
    error[order[r]] = c.alpha / static_cast<double>(k - std::min(r, s));
  std::vector<double> raw(members.size());
  std::transform(members.begin(), members.end(), raw.begin(), [](const FamilyMember& f) { return f.p; });
  const std::vector<double> holm = stats::holm_adjust(raw);
  for (std::size_t j = 0; j < members.size(); ++j) {
    const FamilyMember& f = members[j];
    MetricComparison& m = c.metrics[f.index];
    m.p_welch = f.p;
    m.p_holm = holm[j];
    m.change = f.interval(error[j]);
    m.change.level = 1 - error[j];
    m.verdict = stats::verdict(f.base, f.cand, m.p_holm, m.direction, c.alpha);
  }
}

void judge_tested_metrics(Comparison& c, TestScale scale) {
  std::vector<FamilyMember> members;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const MetricComparison& m = c.metrics[i];
    if (m.status != MetricStatus::tested) continue;
    const bool logs = scale == TestScale::log_where_positive && !m.from_aggregates && all_positive(m.base_values) &&
                      all_positive(m.cand_values);
    members.push_back(logs ? on_logs(i, m) : linear(i, m));
  }
  judge_family(c, members);
}

}  // namespace kvmbench
