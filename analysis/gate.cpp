#include "analysis/gate.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "analysis/compare_render.h"

namespace kvmbench {

std::size_t GateResult::failures() const {
  std::size_t k = 0;
  for (auto& m : metrics) k += m.regressed;
  return k;
}

int GateResult::exit_code() const {
  switch (status) {
    case GateStatus::pass: return 0;
    case GateStatus::fail: return 1;
    case GateStatus::unusable: return 2;
  }
  return 2;
}

static void check_side(const ComparisonSide& s, const char* which, std::vector<std::string>& problems) {
  if (s.source == Source::emulated || s.source == Source::model)
    problems.push_back(fmt::format("{} ({}) has source '{}': {} figures are not performance "
                                   "measurements and cannot gate a merge",
                                   which, s.label, to_string(s.source), to_string(s.source)));
  if (s.series.empty()) problems.push_back(fmt::format("{} ({}) has no samples", which, s.label));
}

GateResult evaluate_gate(const ComparisonSide& base, const ComparisonSide& cand, const GateOptions& opt) {
  if (!(opt.alpha > 0 && opt.alpha < 1))
    throw std::invalid_argument(fmt::format("alpha must be between 0 and 1, not {}", opt.alpha));
  if (!(opt.max_regression_pct >= 0))
    throw std::invalid_argument(fmt::format("max regression must be >= 0 %, not {}", opt.max_regression_pct));
  GateResult r;
  r.options = opt;
  check_side(base, "base", r.problems);
  check_side(cand, "cand", r.problems);

  CompareOptions co;
  co.alpha = opt.alpha;
  co.min_n = std::max<std::size_t>(2, opt.min_n);
  r.comparison = compare(base, cand, co);

  std::vector<std::string> only_base, only_cand;
  for (auto& m : r.comparison.metrics) {
    if (m.in_base && !m.in_cand) only_base.push_back(m.key);
    if (m.in_cand && !m.in_base) only_cand.push_back(m.key);
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size() && i < 5; ++i) s += (i ? ", " : "") + v[i];
    if (v.size() > 5) s += fmt::format(" and {} more", v.size() - 5);
    return s;
  };
  if (!only_base.empty() || !only_cand.empty()) {
    std::string msg = "mismatched metrics: the two sides must measure the same series";
    if (!only_base.empty()) msg += "; only in base: " + list(only_base);
    if (!only_cand.empty()) msg += "; only in cand: " + list(only_cand);
    r.problems.push_back(msg);
  }
  for (auto& m : r.comparison.metrics) {
    if (!m.in_base || !m.in_cand) continue;
    if (m.base.n < co.min_n || m.cand.n < co.min_n)
      r.problems.push_back(fmt::format("too few samples for {}: base n={}, cand n={}; the gate needs at "
                                       "least {} per side (non-warm-up)",
                                       m.key, m.base.n, m.cand.n, co.min_n));
  }
  if (!r.problems.empty()) {
    r.status = GateStatus::unusable;
    return r;
  }

  const double allowed = opt.max_regression_pct;
  for (std::size_t i = 0; i < r.comparison.metrics.size(); ++i) {
    auto& m = r.comparison.metrics[i];
    GateMetric g;
    g.index = i;
    if (m.direction == Direction::unknown) {
      g.skipped = true;
      g.message = fmt::format("not gated: unit '{}' does not say whether higher or lower is better", m.unit);
      r.metrics.push_back(g);
      continue;
    }
    const bool lower_better = m.direction == Direction::lower_is_better;
    // The change and its CI, turned so that positive means "worse".
    const double worse = lower_better ? m.change.pct : -m.change.pct;
    const double worse_ci_low = lower_better ? m.change.ci95_low : -m.change.ci95_high;
    const bool significant = m.p_holm < opt.alpha;
    const bool ci_beyond = std::isfinite(worse_ci_low) && worse_ci_low > allowed;
    g.regressed = significant && worse > 0 && ci_beyond;
    // Short: the numbers are in the table next to it.
    if (g.regressed)
      g.message = fmt::format("FAIL: the whole 95% CI is more than {}% worse (p Holm {})", allowed,
                              format_p(m.p_holm));
    else if (!significant)
      g.message = fmt::format("pass: not significant (p Holm {} >= {})", format_p(m.p_holm), opt.alpha);
    else if (worse <= 0)
      g.message = fmt::format("pass: {}", stats::to_string(m.verdict));
    else if (!std::isfinite(worse_ci_low))
      g.message = "pass: worse, but the CI of the change is unbounded";
    else
      g.message = fmt::format("pass: worse, but the CI reaches within the allowed {}%", allowed);
    r.metrics.push_back(g);
  }
  r.status = r.failures() ? GateStatus::fail : GateStatus::pass;
  return r;
}

}  // namespace kvmbench
