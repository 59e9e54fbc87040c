// What a comparison's data exclude, beside what they show: for every tested
// metric of known direction, the largest regression its data leave possible
// and the smallest one its design could find (regression_decision.h), at
// the family's level 1 - alpha / k over the k metrics so judged. compare
// states them in every format; gate and ab decide on the same evidence.
#pragma once

#include <vector>

#include "analysis/verdicts/compare.h"
#include "analysis/verdicts/regression_decision.h"

namespace kvmbench {

// The evidence regression_decision.h decides on, from a tested metric: the
// model of its units (geometric where they are all positive and `linear`
// is false, as family_verdicts.h tests them; the summaries as given where
// a file carried only aggregates), its Holm p and its CI.
MetricEvidence metric_evidence(const MetricComparison& m, bool linear);

// Whether a metric is one such a bound is stated for: tested, of known
// direction, from no test that failed.
bool has_bound(const MetricComparison& m);

// Whether a regression bound (or an MDE) of `pct` says nothing: +inf, or
// for a quantity where higher is better 100 % (a rate cannot lose more
// than all of itself: "beyond 100 % is excluded" excludes nothing), as
// printed to two decimals.
bool says_nothing(double pct, Direction d);

// Fills excluded_beyond_pct and the MDEs of every metric has_bound()
// admits, and c.bound_level (NaN where there is none).
void state_bounds(Comparison& c, bool linear);

}  // namespace kvmbench
