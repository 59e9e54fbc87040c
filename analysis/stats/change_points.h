// Change points over many series at once (a suite's metrics over kernels,
// on one or more machines): E-divisive means with its permutation test on
// each series (e_divisive.h), Holm's step-down over the series scanned, a
// minimum segment length and a magnitude floor.
//
// Two scans. The whole-segment splits (Y runs to the segment's end) find
// steps, small ones too, since Q grows with the points on both sides. A
// shift that lasts a few runs and is then fixed is diluted in them; the
// windowed splits (e_divisive_windows.h: X and Y inside windows of
// `window` runs) find it. They run in series of at least two windows
// (a shorter series' whole-segment splits already hold a short segment
// against most of the points around it), after the whole-segment scan.
//
// The family: every series scanned. Each series has one test of "this
// series changed at all", at the level Holm gives it. In a series with
// windows that test is two tests, so the level is split between them
// (weighted Bonferroni): the whole-segment scan's p-value is judged at
// 80 % of the level, the windowed scan's at 20 %, and the series' p-value
// is min(p_whole / 0.8, p_window / 0.2). Bonferroni and not a permutation
// test of the larger of the two statistics: the windowed splits are
// thousands of small two-sample comparisons whose largest Q, under no
// change, is much larger than the whole-segment one's, so a common maximum
// would let the windows' noise hide a long, small step, which the split
// leaves nearly as easy to find as without windows. Within
// the windowed scan, its many overlapping windows are one test: the
// largest Q over all of them against the same largest in each permutation,
// so their number and overlap are in the null distribution (Bonferroni over
// windows would be far too strict for windows that share half their points).
//
// Holm's step-down over the series' p-values gives the series it rejects
// their levels alpha/m, alpha/(m-1), ... (the first p-value not under its
// level stops it, and no later series is declared). A declared series then
// goes on splitting at the level Holm gave it, each step a whole-segment
// candidate at 80 % of it and, when that is not significant, a windowed
// one at 20 %, until neither is. So, when no series changes, the chance of
// any change point anywhere is at most alpha (the family-wise false-alarm
// rate; bench/changepoint_rates measures it).
//
// Small p-values. Holm's strictest level, share * alpha / m, is below the
// smallest exact permutation p-value 1/(R + 1) unless R grows with m, and
// every series with a real change then runs all R permutations: m^2. So R
// is what one series needs (999 whole-segment, 1,999 windowed at alpha
// 0.05), and where no permutation reaches the observed Q the p-value is
// the fitted tail's (Knijnenburg et al. 2009, permutation_tail.h), which
// goes as low as the data put it. A p-value the permutations resolve (one
// or more as high) is the exact one, and a stationary series still stops
// early.
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

#include "analysis/stats/statistics.h"

namespace kvmbench::changepoint {

struct Options {
  double alpha = 0.05;             // family-wise, over the series scanned
  std::size_t min_segment = 3;     // points on each side of a change, at least (>= 2)
  double min_change_pct = 1.0;     // magnitude floor, percent of the mean before
  std::size_t permutations = 0;    // 0: permutations_for(alpha, 1 or the series (see tail), the scan's share)
  // true: R does not grow with the family (permutations_for(alpha, 1,
  // share)), and a test that R cannot resolve (no permutation as high)
  // takes its p-value from a generalized Pareto tail fitted to
  // the permutations' largest Q (permutation_tail.h): a call over m series
  // costs O(m). false: R = permutations_for(alpha, m, share), exact
  // p-values only, O(m^2) where the series hold changes (bench/
  // history_scaling compares the two).
  bool tail = true;
  std::size_t window = 50;         // windowed splits' window, in series of 2 windows or more (0: none)
  std::uint64_t seed = 0x6b766d62656e6368ull;  // "kvmbench"
};

// The shares of a series' level (see above) when it has windows.
inline constexpr double kWholeSegmentShare = 0.8, kWindowShare = 0.2;

// Enough permutations that the smallest p-value a test can give, 1/(R+1),
// is a twentieth of Holm's strictest level for it, share * alpha / m (at
// least 999).
std::size_t permutations_for(double alpha, std::size_t series, double share = 1.0);

struct ChangePoint {
  std::size_t index = 0;      // the first point after the change
  double q = 0;               // E-divisive statistic when it was found
  bool windowed = false;      // found by the windowed scan
  double p = 1;               // permutation p-value
  double p_holm = 1;          // adjusted for the family (p over the scan's share, times Holm's factor, capped at 1)
  stats::Summary before, after;  // the points of the segments on either side
  stats::Change change;          // after against before, percent, 95% CI
};

struct SeriesResult {
  std::vector<ChangePoint> change_points;  // by index
  std::size_t below_floor = 0;    // significant changes smaller than the floor, merged away
  double first_p = 1;             // the series' test (NaN when too short to test), weighted as above
  bool first_p_is_lower_bound = false;
  std::size_t permutations = 0;   // R the whole-segment tests used
  std::size_t window_permutations = 0;  // R the windowed tests used (0: no windows in this series)
  std::string note;               // why a series was not tested (too short), or ""
};

// One result per series, in the same order. Throws std::invalid_argument for
// alpha outside (0,1), min_segment < 2, a window shorter than two minimum
// segments (other than 0), a negative floor or a non-finite value.
std::vector<SeriesResult> detect(const std::vector<std::vector<double>>& series, const Options& opt = {});

}  // namespace kvmbench::changepoint
