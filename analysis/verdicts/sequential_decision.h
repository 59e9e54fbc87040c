// `kvmbench ab -n auto`: boots added, a pair of the ABBA order at a time,
// until the family's verdict is decided or the budget is spent, without the
// looks raising the error rates of one look at the end. Pure: the looks
// so far and this look's evidence in, this look's findings out.
//
// Each primary metric is two one-sided tests of its change against the
// margin M (regression_bound.h's margin_tests), each with its own Lan-DeMets
// spending of O'Brien-Fleming type over the information so far
// (group_sequential.h): "a regression beyond M is shown" at one-sided
// alpha / (2k), "a regression of M or more is excluded" at alpha / k, k the
// metrics of the family: the levels of a fixed design's verdict
// (regression_decision.h), so that a PASS or a REGRESSION means the same
// whether the boots were fixed in advance or added until decided. A metric
// once decided stays decided (its test has stopped); the family is
//   REGRESSION    as soon as some metric's regression beyond M is shown;
//   PASS          once every metric's regression of M or more is excluded;
//   INCONCLUSIVE  at the last look, otherwise (more boots would be needed).
//
// The information of a look is the units a side, 2 nb nc / (nb + nc)
// (nb = nc = n without failed boots; the variance of a difference of means
// falls as 1 / that), as a fraction of the budget `most_units`; the
// boundaries of earlier looks are recomputed exactly as they were used.
// The last look (the budget reached, --max-time spent, no step left) spends
// what is left of each error: the usual practice where a trial ends early
// for a reason that is not its data (Jennison and Turnbull, section 7.2).
// A look that ends for its data (an abort a user decided on while looking)
// is no last look.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/stats/group_sequential.h"
#include "analysis/verdicts/regression_decision.h"

namespace kvmbench {

inline constexpr stats::SpendingFunction kSequentialSpending = stats::SpendingFunction::obrien_fleming;

struct SequentialPlan {
  double most_units = 0;  // the budget, units a side (--max-boots)
  double alpha = 0.05;
  double margin_pct = 0;  // M (>= 0)
};

// One metric at a look.
struct SequentialMetric {
  std::string key;
  MetricFinding finding = MetricFinding::inconclusive;  // shown or excluded: for good
  double decided_at = 0;                               // the information it was decided at (0: not yet)
  double worse_pct = NAN;                              // the change, worse-positive, at this look
  double p_shown = NAN, p_excluded = NAN;              // this look's two tests
  double shown_boundary = NAN, excluded_boundary = NAN;  // the nominal p each had to go below
};

struct SequentialLook {
  double information = 0;  // units a side
  bool last = false;
  std::vector<SequentialMetric> metrics;
  FamilyVerdict verdict = FamilyVerdict::inconclusive;  // inconclusive and not last: go on
  bool ends() const { return last || verdict != FamilyVerdict::inconclusive; }
};

// The information of a look with nb and nc units: 2 nb nc / (nb + nc).
double look_information(std::size_t base_units, std::size_t cand_units);

// This look's findings. Throws std::invalid_argument for a plan outside its
// bounds (most_units < 2, alpha outside (0, 1), a margin negative or not
// finite), no metric, an information below 2, not above the last earlier
// look's or above most_units, or an earlier look that already ended.
SequentialLook sequential_look(const SequentialPlan& plan, const std::vector<SequentialLook>& earlier,
                               double information, bool last, const std::vector<MetricEvidence>& metrics);

}  // namespace kvmbench
