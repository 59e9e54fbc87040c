#include "analysis/verdicts/gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/report/numbers.h"
#include "analysis/verdicts/comparison_bounds.h"

namespace kvmbench {

std::size_t GateResult::failures() const {
  std::size_t k = 0;
  for (auto& m : metrics) k += m.regressed();
  return k;
}

std::size_t GateResult::skipped() const {
  std::size_t k = 0;
  for (auto& m : metrics) k += m.skipped();
  return k;
}

std::size_t GateResult::undecided() const {
  std::size_t k = 0;
  for (auto& m : metrics) k += m.undecided();
  return k;
}

std::size_t GateResult::judged() const { return metrics.size() - skipped(); }

double GateResult::largest_bound_pct() const {
  double x = NAN;
  for (auto& m : metrics) {
    if (m.decision.key.empty() || std::isnan(m.decision.excluded_beyond_pct)) continue;
    // A rate's 100 % excludes nothing: as +inf, so that no line claims it.
    const double b = says_nothing(m.decision.excluded_beyond_pct, comparison.metrics[m.index].direction)
                         ? INFINITY
                         : m.decision.excluded_beyond_pct;
    x = std::isnan(x) ? b : std::max(x, b);
  }
  return x;
}

int GateResult::exit_code() const {
  switch (status) {
    case GateStatus::pass: return 0;
    case GateStatus::fail: return 1;
    case GateStatus::inconclusive: return 3;
    case GateStatus::unusable: return 2;
  }
  return 2;
}

static void check_side(const ComparisonSide& s, const char* which, bool pipeline_check,
                       std::vector<std::string>& problems) {
  if ((s.source == Source::emulated && !pipeline_check) || s.source == Source::model)
    problems.push_back(fmt::format("{} ({}) has source '{}': {} figures are not performance "
                                   "measurements and cannot gate a merge",
                                   which, s.label, to_string(s.source), to_string(s.source)));
  if (s.series.empty()) problems.push_back(fmt::format("{} ({}) has no samples", which, s.label));
}

GateResult unusable_gate(const std::string& base_label, const std::string& cand_label, const GateOptions& opt,
                         std::string problem) {
  GateResult r;
  r.status = GateStatus::unusable;
  r.options = opt;
  r.comparison.base.label = base_label;
  r.comparison.cand.label = cand_label;
  r.comparison.alpha = opt.alpha;
  r.problems.push_back(std::move(problem));
  return r;
}

// The words for a metric regression_decision.h decided: short, the numbers
// are in the table beside it.
static void apply_decision(GateMetric& g, const MetricComparison& m, const MetricDecision& d,
                           const GateOptions& opt) {
  g.decision = d;
  const std::string bound = says_nothing(d.excluded_beyond_pct, m.direction)
                                ? std::string("no regression is excluded")
                                : fmt::format("a regression beyond {} is excluded", format_pct(d.excluded_beyond_pct));
  switch (d.finding) {
    case MetricFinding::regression_shown:
      g.outcome = GateOutcome::fail;
      g.message = fmt::format("FAIL: the whole {} CI is more than {}% worse (p Holm {})", format_level(m.change.level),
                              opt.max_regression_pct, format_p(m.p_holm));
      return;
    case MetricFinding::regression_excluded:
      g.outcome = GateOutcome::pass;
      g.message = fmt::format("pass: {}, within the allowed {}%", bound, opt.max_regression_pct);
      return;
    case MetricFinding::inconclusive: break;
  }
  if (opt.within_noise()) {
    g.outcome = GateOutcome::inconclusive;
    g.message = fmt::format("INCONCLUSIVE: a regression of {}% or more is neither shown nor excluded ({}); {}",
                            opt.max_regression_pct, bound,
                            d.units_to_decide ? fmt::format("about {} units a side would decide it", *d.units_to_decide)
                                              : std::string("more units at this spread would not decide it"));
    return;
  }
  // The pass of old: no significant regression beyond the allowed amount.
  g.outcome = GateOutcome::pass;
  const bool lower_better = m.direction == Direction::lower_is_better;
  const double worse = lower_better ? m.change.pct : -m.change.pct;
  const double worse_ci_low = lower_better ? m.change.ci95_low : -m.change.ci95_high;
  if (!(m.p_holm < opt.alpha))
    g.message = fmt::format("pass: not significant (p Holm {} >= {}); {}", format_p(m.p_holm), opt.alpha, bound);
  else if (worse <= 0)
    g.message = fmt::format("pass: {}; {}", stats::to_string(m.verdict), bound);
  else if (!std::isfinite(worse_ci_low))
    g.message = "pass: worse, but the CI of the change is unbounded";
  else
    g.message = fmt::format("pass: worse, but the CI reaches within the allowed {}%; {}", opt.max_regression_pct, bound);
}

static GateMetric decide(const MetricComparison& m, const GateOptions& opt) {
  GateMetric g;
  auto skip = [&](std::string why) {
    g.outcome = GateOutcome::skipped;
    g.message = "skipped: " + std::move(why);
    return g;
  };
  // A metric of a test that failed: the candidate's failure fails the gate
  // (a timeout may be the regression itself); a base that failed is no
  // baseline for it.
  if (!m.base_failed.empty() || !m.cand_failed.empty()) {
    if (!m.derived_from.empty()) return skip(fmt::format("derived from {}, which is gated instead", m.derived_from));
    if (opt.include.empty() && !m.primary) return skip("not a primary metric of its suite (--metrics gates it)");
    if (m.cand_failed.empty()) return skip(fmt::format("base's test failed ({}): no baseline", m.base_failed));
    g.outcome = GateOutcome::fail;
    g.message = fmt::format("FAIL: cand's test failed ({})", m.cand_failed);
    return g;
  }
  switch (m.status) {
    case MetricStatus::derived:
      return skip(fmt::format("derived from {}, which is gated instead", m.derived_from));
    case MetricStatus::secondary:
      return skip("not a primary metric of its suite (--metrics gates it)");
    case MetricStatus::one_side: {
      const char* where = m.in_base ? "only in base" : "only in cand";
      if (!opt.strict) return skip(fmt::format("{} (reported; --strict makes it a failure)", where));
      g.outcome = GateOutcome::fail;
      g.message = fmt::format("FAIL: {} (--strict)", where);
      return g;
    }
    case MetricStatus::not_comparable: return skip(m.note);
    case MetricStatus::change_only:
      return skip(fmt::format("too few samples: base n={}, cand n={}; the gate needs at least {} per side",
                              m.base.n, m.cand.n, opt.min_n));
    case MetricStatus::tested: break;
  }
  if (m.direction == Direction::unknown)
    return skip(fmt::format("unit '{}' does not say whether higher or lower is better", m.key.unit));
  g.outcome = GateOutcome::pass;  // decided with the family (decide_family)
  return g;
}

// The metrics decide() left to judge, as one family: regression_decision.h
// on their evidence, Bonferroni's level over them for the bounds.
static void decide_family(GateResult& r, const GateOptions& opt) {
  std::vector<MetricEvidence> evidence;
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < r.metrics.size(); ++i) {
    const GateMetric& g = r.metrics[i];
    const MetricComparison& m = r.comparison.metrics[g.index];
    if (g.outcome != GateOutcome::pass || !has_bound(m)) continue;
    evidence.push_back(metric_evidence(m, opt.linear));
    which.push_back(i);
  }
  if (evidence.empty()) return;
  const FamilyDecision f = decide_regressions(evidence, {.alpha = opt.alpha, .max_regression_pct = opt.margin(),
                                                         .mode = opt.mode});
  r.bound_level = f.bound_level;
  for (std::size_t j = 0; j < which.size(); ++j) {
    GateMetric& g = r.metrics[which[j]];
    apply_decision(g, r.comparison.metrics[g.index], f.metrics[j], opt);
  }
}

std::vector<std::size_t> worse_but_passed(const GateResult& g) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < g.metrics.size(); ++i) {
    const GateMetric& m = g.metrics[i];
    const MetricComparison& mc = g.comparison.metrics[m.index];
    const double worse = mc.direction == Direction::lower_is_better    ? mc.change.pct
                         : mc.direction == Direction::higher_is_better ? -mc.change.pct
                                                                       : NAN;
    if (m.outcome == GateOutcome::pass && mc.p_holm < g.options.alpha && worse > 0) out.push_back(i);
  }
  return out;
}

GateResult evaluate_gate(const ComparisonSide& base, const ComparisonSide& cand, const GateOptions& opt) {
  return evaluate_gate(base, cand, opt, nullptr);
}

GateResult evaluate_gate(const ComparisonSide& base, const ComparisonSide& cand, const GateOptions& options,
                         const std::function<void(Comparison&)>& retest) {
  GateOptions opt = options;
  if (retest) opt.mode = DecisionMode::significance;  // gate.h: the bounds are not the retest's model
  if (!(opt.alpha > 0 && opt.alpha < 1))
    throw std::invalid_argument(fmt::format("alpha must be between 0 and 1, not {}", opt.alpha));
  if (!(opt.max_regression_pct >= 0))
    throw std::invalid_argument(fmt::format("max regression must be >= 0 %, not {}", opt.max_regression_pct));
  if (opt.min_n < 2) throw std::invalid_argument("the gate needs at least 2 samples per side (min_n)");
  GateResult r;
  r.options = opt;
  check_side(base, "base", opt.pipeline_check, r.problems);
  check_side(cand, "cand", opt.pipeline_check, r.problems);
  if (const std::string why = different_experiments(base.meta, cand.meta); !why.empty()) r.problems.push_back(why);

  CompareOptions co;
  co.alpha = opt.alpha;
  co.min_n = opt.min_n;
  co.include = opt.include;
  co.exclude = opt.exclude;
  // The suite's primary metrics, unless the user chose what to gate.
  co.primary_only = opt.include.empty();
  co.linear = opt.linear;
  r.comparison = compare(base, cand, co);
  if (retest) retest(r.comparison);
  if (r.comparison.metrics.empty() && r.problems.empty())
    r.problems.push_back("--metrics / --exclude leave no metric to gate");
  if (!r.problems.empty()) {
    r.status = GateStatus::unusable;
    return r;
  }
  for (std::size_t i = 0; i < r.comparison.metrics.size(); ++i) {
    GateMetric g = decide(r.comparison.metrics[i], opt);
    g.index = i;
    r.metrics.push_back(std::move(g));
  }
  if (r.judged() == 0) {
    r.problems.push_back(fmt::format("no metric could be gated: each was skipped (too few samples, derived, on one "
                                     "side only or not comparable; the gate needs at least {} samples per side)",
                                     opt.min_n));
    r.status = GateStatus::unusable;
    return r;
  }
  decide_family(r, opt);
  r.status = r.failures() ? GateStatus::fail : r.undecided() ? GateStatus::inconclusive : GateStatus::pass;
  return r;
}

}  // namespace kvmbench
