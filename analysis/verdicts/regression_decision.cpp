#include "analysis/verdicts/regression_decision.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/report/numbers.h"

namespace kvmbench {

namespace {

// The change and its CI's favourable end, turned worse-positive (gate.h).
struct WorseChange {
  double pct = NAN, ci_low = NAN;
};
WorseChange worse_change(const MetricEvidence& e) {
  const bool time = e.model.direction == Direction::lower_is_better;
  return {time ? e.change.pct : -e.change.pct, time ? e.change.ci95_low : -e.change.ci95_high};
}

// Today's gate rule (gate.h): significant after Holm, worse, and the whole
// CI at Holm's level beyond the margin.
bool regression_shown(const MetricEvidence& e, double alpha, double margin) {
  const WorseChange w = worse_change(e);
  return e.p_holm < alpha && w.pct > 0 && std::isfinite(w.ci_low) && w.ci_low > margin;
}

std::string units_text(const std::optional<std::size_t>& n) {
  return n ? fmt::format("about {} units a side would decide it at this spread", *n)
           : std::string("more units at this spread would not decide it");
}

MetricDecision decide_metric(const MetricEvidence& e, const DecisionOptions& opt, double family_error) {
  MetricDecision d;
  d.key = e.key;
  const double margin = opt.max_regression_pct.value_or(0);
  const double level = 1 - family_error;
  d.worse_pct = worse_pct(e.model);
  d.excluded_beyond_pct = regression_bound_pct(e.model, level);
  // Shown at the family's level is a two-sided CI at 1 - alpha / k: one
  // side of it, a one-sided test at alpha / (2k).
  const DetectableRegression mde = detectable_regression(e.model, family_error / 2, margin);
  d.detectable_80_pct = mde.power_80_pct;
  d.detectable_95_pct = mde.power_95_pct;
  const std::string level_text = format_level(level);
  if (regression_shown(e, opt.alpha, margin)) {
    d.finding = MetricFinding::regression_shown;
    d.reason = fmt::format("regression shown: the whole {} CI is worse than {} (p Holm {})",
                           format_level(e.change.level), format_pct(margin), format_p(e.p_holm));
    return d;
  }
  if (opt.max_regression_pct && d.excluded_beyond_pct < margin) {
    d.finding = MetricFinding::regression_excluded;
    d.reason = fmt::format("a regression of {} or more is excluded ({}: none beyond {})", format_pct(margin),
                           level_text, format_pct(d.excluded_beyond_pct));
    return d;
  }
  d.finding = MetricFinding::inconclusive;
  if (std::isnan(d.excluded_beyond_pct)) {
    d.reason = "no bound: too few units or no direction";
    return d;
  }
  const std::string possible =
      std::isinf(d.excluded_beyond_pct)
          ? std::string("no regression is excluded")
          : fmt::format("a regression beyond {} is excluded ({})", format_pct(d.excluded_beyond_pct), level_text);
  if (!opt.max_regression_pct) {
    d.reason = possible;
    return d;
  }
  d.units_to_decide = units_to_decide(e.model, margin, family_error / 2, family_error);
  d.reason = fmt::format("neither shown nor excluded: {}; {}", possible, units_text(d.units_to_decide));
  return d;
}

std::string family_reason(const FamilyDecision& f, const DecisionOptions& opt) {
  const std::size_t k = f.metrics.size();
  auto count = [&](MetricFinding x) {
    return std::count_if(f.metrics.begin(), f.metrics.end(), [&](const MetricDecision& m) { return m.finding == x; });
  };
  const std::string margin = format_pct(opt.max_regression_pct.value_or(0));
  switch (f.verdict) {
    case FamilyVerdict::regression:
      return fmt::format("{} of {} metrics regressed beyond {}", count(MetricFinding::regression_shown), k, margin);
    case FamilyVerdict::pass:
      if (f.mode == DecisionMode::significance)
        return opt.max_regression_pct ? fmt::format("no regression beyond {} shown", margin)
                                      : std::string("no regression shown (no margin: nothing excluded against one)");
      return fmt::format("a regression of {} or more is excluded for each of {} metrics", margin, k);
    case FamilyVerdict::inconclusive:
      return fmt::format("{} of {} metrics neither show nor exclude a regression of {}",
                         count(MetricFinding::inconclusive), k, margin);
  }
  return "";
}

}  // namespace

std::string_view to_string(MetricFinding f) {
  switch (f) {
    case MetricFinding::regression_shown: return "regression shown";
    case MetricFinding::regression_excluded: return "regression excluded";
    case MetricFinding::inconclusive: return "inconclusive";
  }
  return "?";
}

std::string_view to_string(FamilyVerdict v) {
  switch (v) {
    case FamilyVerdict::regression: return "REGRESSION";
    case FamilyVerdict::pass: return "PASS";
    case FamilyVerdict::inconclusive: return "INCONCLUSIVE";
  }
  return "?";
}

int exit_code(FamilyVerdict v) {
  switch (v) {
    case FamilyVerdict::regression: return 1;
    case FamilyVerdict::pass: return 0;
    case FamilyVerdict::inconclusive: return 3;
  }
  return 70;
}

FamilyVerdict family_verdict(const std::vector<MetricFinding>& findings, DecisionMode mode) {
  auto all = [&](MetricFinding x) {
    return std::all_of(findings.begin(), findings.end(), [&](MetricFinding f) { return f == x; });
  };
  if (std::find(findings.begin(), findings.end(), MetricFinding::regression_shown) != findings.end())
    return FamilyVerdict::regression;
  if (mode == DecisionMode::significance || all(MetricFinding::regression_excluded)) return FamilyVerdict::pass;
  return FamilyVerdict::inconclusive;
}

FamilyDecision decide_regressions(const std::vector<MetricEvidence>& metrics, const DecisionOptions& opt) {
  if (metrics.empty()) throw std::invalid_argument("no gated metric to decide on");
  if (!(opt.alpha > 0 && opt.alpha < 1))
    throw std::invalid_argument(fmt::format("alpha must be between 0 and 1, not {}", opt.alpha));
  if (opt.max_regression_pct && !(*opt.max_regression_pct >= 0 && std::isfinite(*opt.max_regression_pct)))
    throw std::invalid_argument(fmt::format("max regression must be >= 0 %, not {}", *opt.max_regression_pct));
  FamilyDecision f;
  f.mode = opt.max_regression_pct ? opt.mode : DecisionMode::significance;
  const double family_error = opt.alpha / static_cast<double>(metrics.size());
  f.bound_level = 1 - family_error;
  std::vector<MetricFinding> findings;
  for (const MetricEvidence& e : metrics) {
    f.metrics.push_back(decide_metric(e, opt, family_error));
    findings.push_back(f.metrics.back().finding);
  }
  f.verdict = family_verdict(findings, f.mode);
  f.reason = family_reason(f, opt);
  return f;
}

}  // namespace kvmbench
