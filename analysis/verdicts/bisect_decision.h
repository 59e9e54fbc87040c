// `kvmbench bisect-run`'s answer for one commit: is its measurement at the
// good level, at the bad level, or can that not be told? For `git bisect
// run`: 0 good, 1 bad, 125 skip.
//
// The metrics bisected are the primary metrics in which the good and the
// bad references differ (compare(), Welch, Holm over the tested metrics,
// p < alpha); with none, there is nothing to bisect and every commit is a
// skip, so that noise alone never names a culprit. For each of them the
// candidate is tested against each reference by the prediction test of
// history_baseline.h (the references' runs are the units: their between-run
// noise), Holm over the metrics bisected:
//   bad   it differs from good (toward bad) and not from bad;
//   good  it differs from bad and not from good;
// and the commit is good (or bad) only when every metric bisected says so;
// anything else (both, neither, metrics disagreeing) is a skip: the
// evidence does not decide, and a guess would send the bisection the
// wrong way for good.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/verdicts/compare.h"

namespace kvmbench {

enum class BisectAnswer { good, bad, skip };
int exit_code(BisectAnswer a);  // 0, 1, 125

struct BisectMetric {
  std::string key;
  double good_to_bad_pct = 0;      // bad against good
  double cand_vs_good_pct = 0, p_good = 1;  // p Holm-adjusted
  double cand_vs_bad_pct = 0, p_bad = 1;
  BisectAnswer says = BisectAnswer::skip;
};

struct BisectDecision {
  BisectAnswer answer = BisectAnswer::skip;
  std::vector<BisectMetric> metrics;  // the metrics bisected
  std::string reason;                 // one line: why this answer
};

// Throws std::invalid_argument for alpha outside (0, 1).
BisectDecision decide_bisect(const ComparisonSide& good, const ComparisonSide& bad, const ComparisonSide& cand,
                             double alpha);

// "good", "bad", "skip": git bisect's words.
std::string_view to_string(BisectAnswer a);

}  // namespace kvmbench
