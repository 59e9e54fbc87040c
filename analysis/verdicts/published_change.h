// What a published comparison's own data exclude, in the words of a verdict
// (regression_decision.h): `reproduce` says it beside a document's claim
// ("~16-20% improvement", "within noise"), so that the reader sees what two
// sweeps a side, or three runs a side, can and cannot tell.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/verdicts/regression_bound.h"

namespace kvmbench {

// The change of cand against base (worse-positive percent, regression_
// bound.h) with its one-sided bounds at `confidence` each way, and the
// design's detectable change (one-sided test at 1 - confidence).
struct PublishedChange {
  double worse_pct = NAN;
  double worse_bound_pct = NAN;   // a regression beyond it is excluded (< 0: an improvement of at least -it shown)
  double better_bound_pct = NAN;  // an improvement beyond it is excluded (> 0; +inf: none is)
  double detectable_80_pct = NAN, detectable_95_pct = NAN;
};
PublishedChange published_change(const ChangeModel& m, double confidence);

// One sentence: "cand against base, 2 units a side: change -18.3%; the data
// exclude a regression (an improvement of at least 9.1% is shown, 95%) and
// an improvement beyond 26.2% (95%); this design detects a change of 14.0%
// with 80% power". `what` names the two sides and the units.
std::string published_change_sentence(const PublishedChange& c, double confidence, std::string_view what);

// The one-sided upper bound at `confidence` of the mean of `values` (the
// units), Student's t: "a mean above it is excluded". NaN with fewer than 2.
double mean_upper_bound(const std::vector<double>& values, double confidence);

}  // namespace kvmbench
