// A comparison's tests redone on the log scale, for positive quantities
// whose unit-to-unit spread is a factor rather than an offset (times and
// rates across boots: a boot on a busy host runs everything slower by some
// factor). The change is the ratio of geometric means; its test (Welch on
// the logs) and its CI (the same t on the logs, at Holm's level for the
// metric's rank) come from one model, so the CI excludes no change exactly
// where Holm's step-down rejects (but for a metric ranked after one Holm
// kept, which Holm keeps too).
//
// `kvmbench ab` judges with it: with 3 boots a side, Welch on the linear
// scale has ~2 degrees of freedom and cannot tell a tenfold slowdown with a
// wide candidate spread (p 0.17) from noise, while on the logs it can.
#pragma once

#include "analysis/compare.h"

namespace kvmbench {

// Retests every tested metric of `c` whose unit values are all positive
// and known (not from aggregates) on the log scale: p_welch, change (pct
// and CI, log_scale set), then Holm over all tested metrics and their
// verdicts at c.alpha. A tested metric with a value <= 0 keeps its linear
// test and takes part in Holm as it is. Each retested metric gets a note.
void retest_on_log_scale(Comparison& c);

}  // namespace kvmbench
