// The pre-merge gate: fail when a metric regresses significantly and by
// more than the allowed amount, pass on noise, refuse unusable input.
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
#include <functional>
#include <string>
#include <vector>

#include "analysis/verdicts/compare.h"

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
};

enum class GateStatus { pass, fail, unusable };

// What the gate did with one metric.
enum class GateOutcome { pass, fail, skipped };

struct GateMetric {
  std::size_t index = 0;      // into Comparison::metrics
  GateOutcome outcome = GateOutcome::skipped;
  std::string message;        // one line: why it passed, failed or was skipped
  bool regressed() const { return outcome == GateOutcome::fail; }
  bool skipped() const { return outcome == GateOutcome::skipped; }
};

struct GateResult {
  GateStatus status = GateStatus::pass;
  GateOptions options;
  Comparison comparison;
  std::vector<GateMetric> metrics;     // one per comparison metric (when usable)
  std::vector<std::string> problems;   // why the input is unusable, plainly

  std::size_t failures() const;
  std::size_t skipped() const;
  std::size_t judged() const;          // passed or failed
  int exit_code() const;               // 0 pass, 1 fail, 2 unusable
};

// The metrics the gate passed although their test found them significantly
// worse (Holm p < alpha): the CI of the change still reaches within the
// allowed regression, as it does with few units a side. Indices into
// g.metrics. `kvmbench ab` calls such a verdict inconclusive.
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
GateResult evaluate_gate(const ComparisonSide& base, const ComparisonSide& cand, const GateOptions& opt,
                         const std::function<void(Comparison&)>& retest);

// The result for input that could not be loaded at all: unusable, with the
// reason, so that the JUnit and Markdown files still say why.
GateResult unusable_gate(const std::string& base_label, const std::string& cand_label, const GateOptions& opt,
                         std::string problem);

}  // namespace kvmbench
