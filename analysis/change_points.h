// Change points over many series at once (a suite's metrics over kernels,
// on one or more machines): E-divisive means with its permutation test on
// each series (e_divisive.h), Holm's step-down over the series scanned, a
// minimum segment length and a magnitude floor.
//
// The family: every series scanned. Each series' first candidate (its
// strongest split) is its test of "this series changed at all"; Holm's
// step-down over those p-values gives the series it rejects their levels
// alpha/m, alpha/(m-1), ... (the first p-value not under its level stops
// it, and no later series is declared). A declared series then goes on
// splitting at the level Holm gave it, until a candidate is not under it.
// So, when no series changes, the chance of any change point anywhere is at
// most alpha (the family-wise false-alarm rate; bench/changepoint_rates
// measures it).
//
// The magnitude floor: a significant change smaller than min_change_pct
// (between the means of the segments on either side) is not reported, and
// its two segments are merged, smallest first, until every change left is
// at least the floor. The segments' summaries give each change's size and
// its 95% CI (Fieller, statistics.h), with the caveat that the CI is that of
// two segments whose boundary was chosen from the same data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/statistics.h"

namespace kvmbench::changepoint {

struct Options {
  double alpha = 0.05;             // family-wise, over the series scanned
  std::size_t min_segment = 3;     // points on each side of a change, at least (>= 2)
  double min_change_pct = 1.0;     // magnitude floor, percent of the mean before
  std::size_t permutations = 0;    // 0: permutations_for(alpha, series)
  std::uint64_t seed = 0x6b766d62656e6368ull;  // "kvmbench"
};

// Enough permutations that the smallest p-value a test can give, 1/(R+1),
// is a twentieth of Holm's strictest level alpha/m (at least 999).
std::size_t permutations_for(double alpha, std::size_t series);

struct ChangePoint {
  std::size_t index = 0;      // the first point after the change
  double q = 0;               // E-divisive statistic when it was found
  double p = 1;               // permutation p-value
  double p_holm = 1;          // adjusted for the family (p times Holm's factor, capped at 1)
  stats::Summary before, after;  // the points of the segments on either side
  stats::Change change;          // after against before, percent, 95% CI
};

struct SeriesResult {
  std::vector<ChangePoint> change_points;  // by index
  std::size_t below_floor = 0;    // significant changes smaller than the floor, merged away
  double first_p = 1;             // the series' first test (NaN when too short to test)
  bool first_p_is_lower_bound = false;
  std::size_t permutations = 0;   // R the tests used
  std::string note;               // why a series was not tested (too short), or ""
};

// One result per series, in the same order. Throws std::invalid_argument for
// alpha outside (0,1), min_segment < 2, a negative floor or a non-finite
// value.
std::vector<SeriesResult> detect(const std::vector<std::vector<double>>& series, const Options& opt = {});

}  // namespace kvmbench::changepoint
