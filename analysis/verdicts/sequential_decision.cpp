#include "analysis/verdicts/sequential_decision.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/stats/statistics.h"
#include "analysis/verdicts/regression_bound.h"

namespace kvmbench {

namespace {

// The nominal one-sided p of each look's boundary for a test of error
// `error` (1 - Phi(z); 0 where nothing is spent at that look).
std::vector<double> boundary_p(const std::vector<double>& information, double most, bool last, double error) {
  const double now = information.back();
  const std::vector<double> z = stats::spending_boundaries(information, [&](double t) {
    // t is the fraction of this look's information; the spending is by the
    // fraction of the budget, all of it at the last look.
    if (last && t >= 1) return error;
    return stats::alpha_spent(kSequentialSpending, error, std::min(1.0, t * now / most));
  });
  std::vector<double> p;
  for (double b : z) p.push_back(std::isfinite(b) ? 1 - stats::normal_cdf(b) : 0.0);
  return p;
}

}  // namespace

double look_information(std::size_t base_units, std::size_t cand_units) {
  if (base_units + cand_units == 0) return 0;
  return 2.0 * static_cast<double>(base_units) * static_cast<double>(cand_units) /
         static_cast<double>(base_units + cand_units);
}

SequentialLook sequential_look(const SequentialPlan& plan, const std::vector<SequentialLook>& earlier,
                               double information, bool last, const std::vector<MetricEvidence>& metrics) {
  if (!(plan.most_units >= 2)) throw std::invalid_argument("sequential plan: a budget of at least 2 units a side");
  if (!(plan.alpha > 0 && plan.alpha < 1)) throw std::invalid_argument("sequential plan: alpha outside (0, 1)");
  if (!(std::isfinite(plan.margin_pct) && plan.margin_pct >= 0))
    throw std::invalid_argument("sequential plan: a margin that is negative or not finite");
  if (metrics.empty()) throw std::invalid_argument("sequential look: no metric to decide");
  constexpr double kSlack = 1e-9;  // the information of the budget's own look, as computed
  if (!(information >= 2 && information <= plan.most_units + kSlack))
    throw std::invalid_argument(fmt::format("sequential look: {:g} units a side, not within 2 to the budget's {:g}",
                                            information, plan.most_units));
  std::vector<double> info;
  for (const SequentialLook& l : earlier) {
    if (l.ends()) throw std::invalid_argument("sequential look: after a look that ended the experiment");
    info.push_back(l.information);
  }
  if (!info.empty() && information <= info.back())
    throw std::invalid_argument(fmt::format("sequential look: {:g} units a side, not more than the last look's {:g}",
                                            information, info.back()));
  info.push_back(information);
  last = last || information >= plan.most_units - kSlack;

  // Each metric's tests at the family's levels (regression_decision.h).
  const double k = static_cast<double>(metrics.size());
  const double shown_error = plan.alpha / (2 * k), excluded_error = plan.alpha / k;
  const double shown_p = boundary_p(info, plan.most_units, last, shown_error).back();
  const double excluded_p = boundary_p(info, plan.most_units, last, excluded_error).back();

  SequentialLook look;
  look.information = information;
  look.last = last;
  std::vector<MetricFinding> findings;
  for (const MetricEvidence& m : metrics) {
    SequentialMetric s;
    s.key = m.key;
    s.worse_pct = worse_pct(m.model);
    const MarginTests t = margin_tests(m.model, plan.margin_pct);
    s.p_shown = t.p_shown;
    s.p_excluded = t.p_excluded;
    s.shown_boundary = shown_p;
    s.excluded_boundary = excluded_p;
    const SequentialMetric* before = nullptr;
    if (!earlier.empty())
      for (const SequentialMetric& b : earlier.back().metrics)
        if (b.key == m.key) before = &b;
    if (before && before->finding != MetricFinding::inconclusive) {
      s.finding = before->finding;  // its tests stopped where it was decided
      s.decided_at = before->decided_at;
    } else if (t.p_shown < shown_p) {
      s.finding = MetricFinding::regression_shown;
      s.decided_at = information;
    } else if (t.p_excluded < excluded_p) {
      s.finding = MetricFinding::regression_excluded;
      s.decided_at = information;
    }
    findings.push_back(s.finding);
    look.metrics.push_back(std::move(s));
  }
  look.verdict = family_verdict(findings, DecisionMode::within_noise);
  return look;
}

}  // namespace kvmbench
