// The verdicts on a comparison's tested metrics as one family, and beside
// each verdict the interval that goes with it.
//
// Holm's step-down over the tested metrics' p-values keeps the family-wise
// error at alpha however many metrics there are. The CI printed beside a
// verdict is the test's own model (the same scale, the same t and df)
// inverted at the level Holm used for that metric, so that no row shows an
// interval excluding "no change" beside "no significant difference", nor one
// holding it beside a significant change. With the metrics ranked by p
// (rank 0 the smallest) and Holm rejecting ranks 0..s-1: rank r < s gets the
// CI at 1 - alpha/(k - r), the level its test passed; rank r >= s gets it at
// 1 - alpha/(k - s), the level at which Holm stopped: its p is at least the
// stopping one, so its interval holds no change.
//
// The models: for a series whose unit values are all positive (a time, a
// rate), the ratio of geometric means with Welch's test on the logs; a
// boot on a busy host runs everything slower by a factor, not by an offset.
// Otherwise the ratio of means with Welch's test on the linear scale and
// Fieller's interval at Welch's df (which holds ratio 1 exactly when
// Welch's test keeps "no change").
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "analysis/verdicts/compare.h"

namespace kvmbench {

// One tested metric of a family.
struct FamilyMember {
  std::size_t index = 0;  // into Comparison::metrics
  double p = NAN;         // the test's two-sided p (NaN: left out of Holm)
  // The change and its CI at confidence 1 - error, from the test's model.
  std::function<stats::Change(double error)> interval;
  // What the verdict's direction is read from (on the test's scale).
  stats::Summary base, cand;
};

// Holm over the members' p-values; per member p_welch, p_holm, change (with
// its level) and verdict at c.alpha.
void judge_family(Comparison& c, const std::vector<FamilyMember>& members);

enum class TestScale {
  log_where_positive,  // geometric where every unit value is positive and known
  linear,              // arithmetic means, Welch on the values, Fieller's CI
};

// Judges every tested metric of `c` (status tested) with the model its
// values allow under `scale`: the p-values, Holm, the CIs at Holm's levels
// and the verdicts.
void judge_tested_metrics(Comparison& c, TestScale scale);

// True when every value is finite and positive (and there is one): the
// logs exist.
bool all_positive(const std::vector<double>& v);
// The summary of the values' natural logs (all positive).
stats::Summary log_summary(const std::vector<double>& v);

// The ratio of two means with Fieller's interval at confidence 1 - error and
// `df` degrees of freedom, in percent. Where the base mean is not
// distinguishable from 0 the set is unbounded: the half-line holding the
// estimate (one bound infinite) when it is two, NaN bounds when it is the
// whole line. Where both means are positive the lower bound stops at -100%:
// the ratio of two positive quantities is positive.
stats::Change fieller_change(const stats::Summary& base, const stats::Summary& cand, double error, double df);

}  // namespace kvmbench
