// The pre-merge gate: fail when a metric regresses significantly and by
// more than the allowed amount, pass on noise, refuse unusable input.
//
// A metric fails when (1) its Welch p-value, Holm-adjusted over all metrics
// of the comparison, is below alpha, and (2) the whole 95% CI of the change
// lies beyond the allowed regression in the metric's worse direction (for a
// time: CI low > +max%; for a rate: CI high < -max%). (2) keeps a tiny but
// "significant" change from failing a merge; (1) keeps the family-wise
// false-positive rate at alpha however many metrics there are.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/compare.h"

namespace kvmbench {

struct GateOptions {
  double max_regression_pct = 0;  // allowed regression, percent (>= 0)
  double alpha = 0.05;
  std::size_t min_n = 3;          // samples per side and metric, at least
};

enum class GateStatus { pass, fail, unusable };

struct GateMetric {
  std::size_t index = 0;      // into Comparison::metrics
  bool regressed = false;     // fails the gate
  bool skipped = false;       // not gated (direction unknown)
  std::string message;        // one line: why it passed, failed or was skipped
};

struct GateResult {
  GateStatus status = GateStatus::pass;
  GateOptions options;
  Comparison comparison;
  std::vector<GateMetric> metrics;     // one per comparison metric (when usable)
  std::vector<std::string> problems;   // why the input is unusable, plainly

  std::size_t failures() const;
  int exit_code() const;               // 0 pass, 1 fail, 2 unusable
};

// Checks the input (sources, matching metrics, enough samples), compares
// with alpha = opt.alpha and decides. Throws std::invalid_argument for bad
// options (alpha outside (0,1), negative max regression).
GateResult evaluate_gate(const ComparisonSide& base, const ComparisonSide& cand, const GateOptions& opt);

}  // namespace kvmbench
