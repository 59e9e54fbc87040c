#include "analysis/stats/e_divisive_windows.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kvmbench::changepoint {

std::vector<std::size_t> window_starts(std::size_t n, std::size_t window) {
  if (window == 0) throw std::invalid_argument("a window holds at least one point");
  if (n <= window) return {0};
  const std::size_t step = std::max<std::size_t>(1, window / 2);
  std::vector<std::size_t> starts;
  for (std::size_t s = 0; s + window < n; s += step) starts.push_back(s);
  starts.push_back(n - window);  // the last window ends at the end
  return starts;
}

WindowSplit WindowScan::best(std::span<const double> values, std::size_t window, std::size_t min_segment) {
  if (min_segment < 2 || window < 2 * min_segment)
    throw std::invalid_argument("a window must hold two parts of at least 2 points each");
  WindowSplit out;
  const std::size_t n = values.size();
  if (n < 2 * min_segment) return out;
  const std::size_t w = std::min(window, n), stride = w + 1;
  within_.resize(stride * stride);
  row_q_.resize(stride);
  if (inv_.size() < stride) {
    inv_.assign(stride, 0);
    inv_less_one_.assign(stride, 0);
    for (std::size_t k = 1; k <= w; ++k) inv_[k] = 1.0 / static_cast<double>(k);
    for (std::size_t k = 2; k <= w; ++k) inv_less_one_[k] = 1.0 / static_cast<double>(k - 1);
  }
  auto within = [&](std::size_t a, std::size_t b) -> double& { return within_[a * stride + b]; };
  // Q of the splits X = [0, tau), Y = [tau, kappa) of the window, for one
  // tau and every kappa, into row_q_[kappa]. With n_x = tau, n_y = kappa -
  // tau, B the between-sum and W the within-sums, the definition's
  //   Q = n_x n_y / (n_x + n_y) (2 B / (n_x n_y) - W_x / C(n_x, 2) - W_y / C(n_y, 2))
  // is 2 / kappa (B - n_y W_x / (n_x - 1) - n_x W_y / (n_y - 1)): products
  // of tables, no division.
  auto splits_of = [&](std::size_t tau) {
    const double nx = static_cast<double>(tau), wx = within(0, tau), wx_scaled = wx * inv_less_one_[tau];
    const double* from_start = &within(0, 0);
    const double* from_tau = &within(tau, 0);
    for (std::size_t kappa = tau + min_segment; kappa <= w; ++kappa) {
      const double ny = static_cast<double>(kappa - tau), wy = from_tau[kappa];
      const double between = from_start[kappa] - wx - wy;
      row_q_[kappa] = 2 * inv_[kappa] * (between - ny * wx_scaled - nx * wy * inv_less_one_[kappa - tau]);
    }
  };
  for (const std::size_t s : window_starts(n, w)) {
    const double* v = values.data() + s;
    // within(a, b): the sum of |v_i - v_j| over a <= i < j < b, built by
    // ends: within(a, b) = within(a, b - 1) + the distances from v_{b-1}
    // to v_a .. v_{b-2}.
    for (std::size_t b = 1; b <= w; ++b) {
      within(b - 1, b) = 0;
      double to_last = 0;
      for (std::size_t a = b - 1; a-- > 0;) {
        to_last += std::fabs(v[a] - v[b - 1]);
        within(a, b) = within(a, b - 1) + to_last;
      }
    }
    // The largest Q of each tau's splits (a loop with no branch), and then,
    // in the best tau's only, which kappa gave it.
    double top = -INFINITY;
    std::size_t top_tau = 0;
    for (std::size_t tau = min_segment; tau + min_segment <= w; ++tau) {
      splits_of(tau);
      double row_top = -INFINITY;
      for (std::size_t kappa = tau + min_segment; kappa <= w; ++kappa) row_top = std::max(row_top, row_q_[kappa]);
      if (row_top > top) top = row_top, top_tau = tau;
    }
    if (out.found && !(top > out.q)) continue;
    splits_of(top_tau);
    std::size_t at = top_tau + min_segment;
    for (std::size_t kappa = at + 1; kappa <= w; ++kappa)
      if (row_q_[kappa] > row_q_[at]) at = kappa;
    out = {true, row_q_[at], s, s + top_tau, s + at};
  }
  return out;
}

}  // namespace kvmbench::changepoint
