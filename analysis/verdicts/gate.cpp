#include "analysis/verdicts/gate.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "analysis/report/numbers.h"

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

std::size_t GateResult::judged() const { return metrics.size() - skipped(); }

int GateResult::exit_code() const {
  switch (status) {
    case GateStatus::pass: return 0;
    case GateStatus::fail: return 1;
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

// The verdict on a tested metric with a known direction.
static GateMetric judge(const MetricComparison& m, const GateOptions& opt) {
  GateMetric g;
  const double allowed = opt.max_regression_pct;
  const bool lower_better = m.direction == Direction::lower_is_better;
  // The change and its CI, turned so that positive means "worse".
  const double worse = lower_better ? m.change.pct : -m.change.pct;
  const double worse_ci_low = lower_better ? m.change.ci95_low : -m.change.ci95_high;
  const bool significant = m.p_holm < opt.alpha;
  const bool ci_beyond = std::isfinite(worse_ci_low) && worse_ci_low > allowed;
  g.outcome = significant && worse > 0 && ci_beyond ? GateOutcome::fail : GateOutcome::pass;
  // Short: the numbers are in the table next to it.
  if (g.regressed())
    g.message = fmt::format("FAIL: the whole {} CI is more than {}% worse (p Holm {})", format_level(m.change.level), allowed,
                            format_p(m.p_holm));
  else if (!significant)
    g.message = fmt::format("pass: not significant (p Holm {} >= {})", format_p(m.p_holm), opt.alpha);
  else if (worse <= 0)
    g.message = fmt::format("pass: {}", stats::to_string(m.verdict));
  else if (!std::isfinite(worse_ci_low))
    g.message = "pass: worse, but the CI of the change is unbounded";
  else
    g.message = fmt::format("pass: worse, but the CI reaches within the allowed {}%", allowed);
  return g;
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
  return judge(m, opt);
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

GateResult evaluate_gate(const ComparisonSide& base, const ComparisonSide& cand, const GateOptions& opt,
                         const std::function<void(Comparison&)>& retest) {
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
  r.status = r.failures() ? GateStatus::fail : GateStatus::pass;
  return r;
}

}  // namespace kvmbench
