// How large a regression a comparison's data leave possible, how small a
// one its design could find, and how many units would decide it: the
// numbers behind "a regression beyond X % is excluded" and "this design
// finds 25 % with 80 % power".
//
// A regression is a change in a metric's worse direction: cand / base - 1
// above 0 for a time (lower is better), below 0 for a rate (higher is
// better). Every percentage here is turned so that positive means worse:
//   time  worse = (cand / base - 1) * 100
//   rate  worse = (1 - cand / base) * 100
// as gate.h reads a change, and a margin M (`--max-regression M`) is
// "worse by M % or more".
//
// The model is the comparison's own (family_verdicts.h), so that a bound
// printed here is the one its verdict's test would give:
//   geometric  every unit value positive: the ratio of geometric means,
//              Welch's t on the logs (d = mean ln cand - mean ln base,
//              se^2 = var_b / n_b + var_c / n_c, Welch-Satterthwaite df);
//              a time's worse log ratio is w = d, a rate's w = -d, and
//              worse % = (e^w - 1) * 100 for a time, (1 - e^-w) * 100 for
//              a rate;
//   linear     otherwise (or asked for): the ratio of means with Fieller's
//              interval at Welch's df (fieller_change).
//
// The one-sided bound at confidence c is the worse end of the one-sided
// interval: w + t(c; df) se on the logs; Fieller's set for the ratio at
// t(c; df), i.e. the worse end of its two-sided interval at 2c - 1. "A
// regression beyond X % is excluded" with X that bound: if the true
// regression were X or more, data this favourable would come up with
// probability at most 1 - c. The confidence the verdict uses for it, and
// why, is in regression_decision.h.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

struct ChangeModel {
  bool geometric = true;
  Direction direction = Direction::unknown;
  stats::Summary base, cand;  // of the units' logs where geometric, else of their values
};

// The model family_verdicts.h tests the units with: geometric where every
// unit value on both sides is positive and `linear` is false.
ChangeModel change_model(const std::vector<double>& base_units, const std::vector<double>& cand_units,
                         Direction direction, bool linear = false);

// The measured change, worse-positive, in percent. NaN for an unknown
// direction, or a linear model whose base mean is not positive.
double worse_pct(const ChangeModel& m);

// The one-sided bound above: the largest regression (percent, worse-
// positive) the data leave possible at `confidence` (in (0.5, 1)). +inf
// where Fieller's set is unbounded (the base mean is not distinguishable
// from 0 at that confidence): nothing is excluded (for a rate of positive
// values: 100, all of it). NaN with fewer than 2
// units on a side, an unknown direction, or a base mean not above 0
// (linear).
double regression_bound_pct(const ChangeModel& m, double confidence);

// The two one-sided tests of the change against a margin M (percent):
//   p_shown     of "the regression is M or less": small when it is beyond M;
//   p_excluded  of "the regression is M or more": small when it is below M;
// from the model's t statistic at its df (for the linear model Fieller's
// statistic (a - r b) / sqrt(va + r^2 vb) at the margin's ratio r). They
// add up to 1. p_shown < e is the worse end of the two-sided CI at
// 1 - 2e lying beyond M; p_excluded < e is the bound at 1 - e below M.
struct MarginTests {
  double statistic = 0;  // (w - m) / se, turned so that positive is worse
  double df = 0;
  double p_shown = NAN, p_excluded = NAN;
};
MarginTests margin_tests(const ChangeModel& m, double margin_pct);

// The design's detectable regressions (MDE): the smallest true regression
// (percent, worse-positive) that the one-sided test "regression beyond
// `margin_pct`" at `one_sided_error` finds with probability 80 % and 95 %,
// with the units a side and the spread (each side's sd of the units' logs,
// or of their values) as measured: the shift Welch's test finds with that
// power (t_power.h's WelchPower, exact over the sample variances), added
// to the margin on the test's scale. For the linear model the shift is
// taken relative to the base mean and the base's own uncertainty at the
// margin's ratio is left out (the geometric model has no such
// approximation). NaN as for the bound.
struct DetectableRegression {
  double power_80_pct = NAN, power_95_pct = NAN;
};
DetectableRegression detectable_regression(const ChangeModel& m, double one_sided_error, double margin_pct = 0);

// The smallest n a side at which an undecided metric would be decided,
// assuming that its estimate and each side's sd stay as measured (only
// the standard error shrinks, and the df grows): the first n at which
// margin_tests(M) gives p_shown < shown_error or p_excluded <
// excluded_error. nullopt when no n up to `most` does (an estimate at the
// margin itself never decides), or the model has no bound.
std::optional<std::size_t> units_to_decide(const ChangeModel& m, double margin_pct, double shown_error,
                                           double excluded_error, std::size_t most = 10000);

}  // namespace kvmbench
