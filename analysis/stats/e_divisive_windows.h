// E-divisive's windowed splits: a short segment inside a long one.
//
// A whole-segment split (e_divisive.h) puts everything after tau into Y.
// A shift that lasts k points and then goes back is then a small part of
// Y: the energy distance between F and the mixture (1 - e) F + e G is e^2
// times that between F and G, so 10 shifted points among 250 (e = 0.04)
// keep 0.16 % of their distance, and Q stays within the noise of the
// best of the other ~500 splits. Matteson & James also search the end kappa of Y;
// Hunter and Apache Otava do so inside windows of a few dozen points
// (Otava's default 50, stepping by half a window). Here likewise: windows
// of w points [s, s + w) over a segment of n points, s = 0, w/2, w, ...,
// the last one ending at the segment's end (one window [0, n) when
// n <= w), and in each every split X = z[s, tau), Y = z[tau, kappa) with
// both parts at least min_segment points. A regression of k points
// (min_segment <= k <= w/2 - min_segment) then lies whole inside a window
// with at least min_segment points before it, and Y can be exactly the
// shifted points: Q = n_x k / (n_x + k) E(F, G), as large as for a step.
//
// Cost: a window's within-sums of all its sub-ranges take w^2/2 steps,
// its splits as many, and the windows overlap by half: about 2 n w per
// scan, linear in n (the whole-segment scan is n log n).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace kvmbench::changepoint {

// Where the windows of `window` points over n points start.
std::vector<std::size_t> window_starts(std::size_t n, std::size_t window);

struct WindowSplit {
  bool found = false;  // false: no window holds two parts of min_segment points
  double q = 0;
  std::size_t begin = 0, tau = 0, end = 0;  // X = [begin, tau), Y = [tau, end) of the values scanned
};

class WindowScan {
 public:
  // The split with the largest Q over all windows of `values`.
  // window >= 2 * min_segment, min_segment >= 2.
  WindowSplit best(std::span<const double> values, std::size_t window, std::size_t min_segment);

 private:
  std::vector<double> within_;        // scratch: within-sums of a window's sub-ranges
  std::vector<double> row_q_;         // scratch: Q of one tau's splits
  std::vector<double> inv_, inv_less_one_;  // 1 / k and 1 / (k - 1)
};

}  // namespace kvmbench::changepoint
