// E-divisive means (Matteson & James, "A Nonparametric Approach for
// Multiple Change Point Analysis of Multivariate Data", JASA 2014), the
// method of MongoDB's change-point detection and of Apache Otava (formerly
// Hunter), on one series, with its permutation test.
//
// For a split of the points z[b, e) at tau into X = z[b, tau) (n points)
// and Y = z[tau, e) (m points), with distances |.| (the paper's alpha = 1):
//   E = 2/(n m) sum|x - y| - 1/C(n,2) sum_{i<k}|x_i - x_k|
//                          - 1/C(m,2) sum_{j<k}|y_j - y_k|
//   Q = n m / (n + m) E
// E is the energy distance of the two parts' distributions (0 when they are
// the same, > 0 otherwise), so Q grows with a shift in mean or in spread.
// As in MongoDB's implementation the second part runs to the end of the
// interval (the paper also searches that end, kappa).
//
// Hierarchically: the best split (largest Q) over all current segments is a
// candidate; its p-value is the share of R random permutations, each
// shuffling the points within every segment, whose best split scores at
// least as high: p = (1 + #{Q_perm >= Q}) / (R + 1), a valid p-value for
// any R under exchangeability (no assumption of normality). Accepted, it
// splits its segment, and the search goes on.
//
// Each scan of a segment is O(n log n): the distances from one point to all
// others do not change under permutation (one sort), and those to the
// points already in X come from a Fenwick tree over the values' ranks.
//
// The windowed splits (e_divisive_windows.h) are the other kind of
// candidate: X and Y inside a window, Y ending before the segment does.
// Their test is the same: the best windowed split over all segments,
// against the best of each permutation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "analysis/stats/e_divisive_windows.h"

namespace kvmbench::changepoint {

// Q of every admissible split tau of z (each part at least min_segment >= 2
// points): q[k] belongs to tau = min_segment + k. Empty when z is shorter
// than 2 * min_segment.
std::vector<double> q_statistics(std::span<const double> z, std::size_t min_segment);

// Which splits a candidate is the best of.
enum class Split {
  whole_segment,  // Y runs to the segment's end
  window,         // X and Y inside a window (e_divisive_windows.h)
};

struct Candidate {
  Split split = Split::whole_segment;
  std::size_t x_begin = 0;        // where X begins: the segment's start, or a window's
  std::size_t tau = 0;            // index of the first point after the change
  std::size_t y_end = 0;          // where Y ends: the segment's end, or a window split's kappa
  double q = 0;
  double p = 1;                   // permutation p-value
  bool p_is_lower_bound = false;  // the test stopped early: the p-value is at least p
  bool p_from_tail = false;       // p is the fitted tail's estimate (permutation_tail.h), not (1 + M)/(R + 1)
  std::size_t permutations = 0;   // done
};

// One segment's points, ready for scans in any order of them.
class SegmentScan {
 public:
  explicit SegmentScan(std::span<const double> values);
  struct Best {
    bool found = false;   // false: no admissible split (the segment is too short)
    double q = 0;         // may be negative: E estimates a distance, with noise
    std::size_t tau = 0;  // within the segment: the first point of Y
  };
  // The best split when the points come in `order` (a permutation of
  // 0..n-1); with `all_q`, every admissible split's Q as well.
  Best scan(std::span<const std::size_t> order, std::size_t min_segment, std::vector<double>* all_q = nullptr);
  std::size_t size() const { return centered_.size(); }
  std::span<const double> centered() const { return centered_; }

 private:
  std::vector<double> centered_;   // value - segment mean (Q does not move with a shift)
  std::vector<std::size_t> rank_;  // position in sorted order
  std::vector<double> dist_sum_;   // sum of distances to every point of the segment
  std::vector<double> fen_sum_;
  std::vector<std::size_t> fen_cnt_;
};

class EDivisive {
 public:
  // min_segment >= 2; permutations >= 1. The generator is seeded: the same
  // series and seed give the same p-values on every machine. `window`: the
  // windows' length for Split::window (0: no windowed splits; else at
  // least 2 * min_segment), tested with `window_permutations` (0: as many
  // as the whole-segment splits).
  EDivisive(std::vector<double> z, std::size_t min_segment, std::size_t permutations, std::uint64_t seed,
            std::size_t window = 0, std::size_t window_permutations = 0);

  // The best split of this kind over the current segments and its p-value;
  // nullopt when no segment is long enough to split (or, for windows, when
  // there are none). The permutations stop as soon as the p-value is sure
  // to exceed `give_up_above` (the loosest level it could still be judged
  // at): p is then a lower bound.
  std::optional<Candidate> next(double give_up_above = 1.0, Split split = Split::whole_segment);
  // With the tail on, a test that ran all its permutations and saw none
  // of them reach the observed Q (fewer than kTailBelow) gives the p-value
  // of a generalized Pareto tail fitted to the largest 250 (permutation_
  // tail.h; a quarter of R where R < 1,000); otherwise, and by default,
  // the exact (1 + M)/(R + 1). (With the tail for M < 10 as well, false
  // alarms over families of 10 stationary series rose from 5.9 % to 6.7 %
  // [5.3, 8.4]: the fit, without Knijnenburg's goodness-of-fit check, is
  // too bold just beyond the largest permutations.)
  static constexpr std::size_t kTailBelow = 1;
  void use_tail(bool on) { tail_ = on; }

  // Splits the candidate's segment at its tau.
  void accept(const Candidate& c);

  const std::vector<std::size_t>& change_points() const { return cps_; }  // sorted
  std::size_t size() const { return z_.size(); }

 private:
  struct Segment {
    std::size_t begin, end;
    SegmentScan scan;
    std::vector<std::size_t> order;  // scratch for the permutations
    std::vector<double> ordered;     // scratch: the centred values in `order`
  };
  // The best split of this kind over all segments, each in its current
  // `order` (found false when no segment can be split).
  WindowSplit best(bool identity, Split split);
  std::uint64_t random_below(std::uint64_t n);
  void rebuild_segments();

  std::vector<double> z_;
  std::size_t min_segment_, permutations_, window_, window_permutations_;
  WindowScan window_scan_;
  bool tail_ = false;
  std::vector<double> null_;  // scratch: the permutations' best Q, for the tail
  std::uint64_t rng_state_;
  std::vector<std::size_t> cps_;
  std::vector<Segment> segments_;
};

}  // namespace kvmbench::changepoint
