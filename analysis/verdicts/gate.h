// The pre-merge gate: fail when a metric regresses significantly and by
// more than the allowed amount; with an allowed amount M > 0, pass only
// when a regression of M or more is excluded and call the rest
// inconclusive; refuse unusable input. The rules are
// regression_decision.h's, on comparison_bounds.h's evidence.
//
// A metric fails when (1) its Welch p-value, Holm-adjusted over the tested
// primary metrics of the comparison, is below alpha, and (2) the whole CI of
// the change, at the level Holm used for the metric (family_verdicts.h),
// lies beyond the allowed regression in the metric's worse direction (for a
// time: CI low > +max%; for a rate: CI high < -max%). (2) keeps a tiny but
// "significant" change from failing a merge; (1) keeps the family-wise
// false-positive rate at alpha however many metrics there are.
#pragma once

#include <cstddef>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "analysis/verdicts/regression_decision.h"

namespace kvmbench {

struct GateOptions {
  double max_regression_pct = 0;  // allowed regression, percent (>= 0)
  double alpha = 0.05;
  std::size_t min_n = 3;          // experimental units per side and metric, at least
  // Which metrics to gate (CompareOptions::include / exclude).
  std::vector<std::string> include = {}, exclude = {};
  // A metric on one side only fails the gate (else it is reported, skipped).
  bool strict = false;
  // Emulated input is judged, not refused: a functional check of the
  // pipeline (`kvmbench lab ab`), whose result says it is no performance
  // verdict. Model input is refused all the same.
  bool pipeline_check = false;
  // Welch on the values and Fieller's CI, not the geometric test where the
  // values are all positive (CompareOptions::linear).
  bool linear = false;
  // within_noise: with max_regression_pct > 0, a pass needs the regression
  // excluded; significance: the pass of old (no significant regression).
  DecisionMode mode = DecisionMode::within_noise;

  // The margin regression_decision.h decides against: none for M = 0.
  std::optional<double> margin() const {
    return max_regression_pct > 0 ? std::optional<double>(max_regression_pct) : std::nullopt;
  }
  bool within_noise() const { return margin() && mode == DecisionMode::within_noise; }
};

enum class GateStatus { pass, fail, inconclusive, unusable };

// What the gate did with one metric.
enum class GateOutcome { pass, fail, inconclusive, skipped };

struct GateMetric {
  std::size_t index = 0;      // into Comparison::metrics
  GateOutcome outcome = GateOutcome::skipped;
  std::string message;        // one line: why it passed, failed or was skipped
  // For a metric decided by regression_decision.h: its finding, bound, MDE
  // and the units that would decide it (key empty otherwise).
  MetricDecision decision;
  bool regressed() const { return outcome == GateOutcome::fail; }
  bool skipped() const { return outcome == GateOutcome::skipped; }
  bool undecided() const { return outcome == GateOutcome::inconclusive; }
};

struct GateResult {
  GateStatus status = GateStatus::pass;
  GateOptions options;
  Comparison comparison;
  std::vector<GateMetric> metrics;     // one per comparison metric (when usable)
  std::vector<std::string> problems;   // why the input is unusable, plainly

  double bound_level = NAN;            // of the decided metrics' bounds: 1 - alpha / k

  std::size_t failures() const;
  std::size_t skipped() const;
  std::size_t undecided() const;
  std::size_t judged() const;          // passed, failed or inconclusive
  // The largest bound of the decided metrics: "a regression beyond X % is
  // excluded" holds for each (NaN: none decided; +inf: some excludes none).
  double largest_bound_pct() const;
  int exit_code() const;               // 0 pass, 1 fail, 3 inconclusive, 2 unusable
};

// The metrics the gate passed although their test found them significantly
// worse (Holm p < alpha): the CI of the change still reaches within the
// allowed regression, as it does with few units a side. Indices into
// g.metrics. With a margin, the within-noise rule decides them instead.
std::vector<std::size_t> worse_but_passed(const GateResult& g);

// Checks the input (sources, samples), compares with alpha = opt.alpha and
// decides per metric, on the suites' primary metrics (metric_roles.h) or,
// with `include`, on those chosen: derived and other metrics, metrics with
// fewer than min_n units
// on a side, of unknown direction, of units that do not convert or on one
// side only (without `strict`) are skipped with the reason, and do not
// make the gate unusable; a gate that could judge no metric at all is.
// Throws std::invalid_argument for bad options (alpha outside (0,1),
// negative max regression, min_n < 2, an empty pattern).
GateResult evaluate_gate(const ComparisonSide& base, const ComparisonSide& cand, const GateOptions& opt);

// The same, with `retest` replacing the comparison's tests (p-values, CIs,
// Holm, verdicts) before the gate decides on them: `gate --baseline db`
// tests against the between-run noise of the history (history_baseline.h).
// Its decision is DecisionMode::significance whatever opt.mode says: the
// bounds are the two-sample model's (comparison_bounds.h), not the
// retest's prediction test, and a pass must not rest on another model than
// its test's. The bounds are stated all the same.
GateResult evaluate_gate(const ComparisonSide& base, const ComparisonSide& cand, const GateOptions& opt,
                         const std::function<void(Comparison&)>& retest);

// The result for input that could not be loaded at all: unusable, with the
// reason, so that the JUnit and Markdown files still say why.
GateResult unusable_gate(const std::string& base_label, const std::string& cand_label, const GateOptions& opt,
                         std::string problem);

}  // namespace kvmbench
