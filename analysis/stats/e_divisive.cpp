#include "analysis/stats/e_divisive.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "analysis/stats/permutation_tail.h"

namespace kvmbench::changepoint {

SegmentScan::SegmentScan(std::span<const double> values) {
  const std::size_t n = values.size();
  double mean = 0;
  for (double v : values) mean += v;
  mean = n ? mean / static_cast<double>(n) : 0;
  centered_.resize(n);
  for (std::size_t i = 0; i < n; ++i) centered_[i] = values[i] - mean;
  std::vector<std::size_t> sorted(n);
  std::iota(sorted.begin(), sorted.end(), 0);
  std::stable_sort(sorted.begin(), sorted.end(), [&](std::size_t a, std::size_t b) { return centered_[a] < centered_[b]; });
  rank_.resize(n);
  dist_sum_.resize(n);
  double total = 0;
  for (double v : centered_) total += v;
  double below = 0;  // sum of the values sorted before position k
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = sorted[k];
    const double v = centered_[i];
    rank_[i] = k;
    const double above = total - below - v;
    dist_sum_[i] = v * static_cast<double>(k) - below + above - v * static_cast<double>(n - k - 1);
    below += v;
  }
  fen_sum_.assign(n + 1, 0);
  fen_cnt_.assign(n + 1, 0);
}

SegmentScan::Best SegmentScan::scan(std::span<const std::size_t> order, std::size_t min_segment,
                                    std::vector<double>* all_q) {
  const std::size_t n = centered_.size();
  Best best;
  if (all_q) all_q->clear();
  if (n < 2 * min_segment) return best;
  std::fill(fen_sum_.begin(), fen_sum_.end(), 0.0);
  std::fill(fen_cnt_.begin(), fen_cnt_.end(), 0);
  double within_y = 0;
  for (double d : dist_sum_) within_y += d;
  within_y /= 2;  // every pair once: all points start in Y
  double within_x = 0, between = 0, sum_x = 0;
  for (std::size_t t = 0; t + 1 < n; ++t) {
    const std::size_t p = order[t], r = rank_[p];
    const double v = centered_[p];
    // Count and sum of the points of X ranked below p (Fenwick prefix).
    double sum_below = 0;
    std::size_t cnt_below = 0;
    for (std::size_t k = r; k > 0; k &= k - 1) sum_below += fen_sum_[k], cnt_below += fen_cnt_[k];
    const std::size_t cnt_above = t - cnt_below;
    const double sum_above = sum_x - sum_below;
    // p moves from Y to X: its distances to X join X's pairs and leave the
    // between sum; those to the rest of Y leave Y's pairs and join it.
    const double to_x = v * static_cast<double>(cnt_below) - sum_below + sum_above - v * static_cast<double>(cnt_above);
    const double to_y = dist_sum_[p] - to_x;
    within_x += to_x;
    within_y -= to_y;
    between += to_y - to_x;
    for (std::size_t k = r + 1; k <= n; k += k & (~k + 1)) fen_sum_[k] += v, fen_cnt_[k] += 1;
    sum_x += v;
    const std::size_t nx = t + 1, ny = n - nx;
    if (nx < min_segment || ny < min_segment) continue;
    const double fx = static_cast<double>(nx), fy = static_cast<double>(ny);
    const double e = 2 * between / (fx * fy) - within_x / (fx * (fx - 1) / 2) - within_y / (fy * (fy - 1) / 2);
    const double q = fx * fy / (fx + fy) * e;
    if (all_q) all_q->push_back(q);
    if (!best.found || q > best.q) best = {true, q, nx};
  }
  return best;
}

std::vector<double> q_statistics(std::span<const double> z, std::size_t min_segment) {
  if (min_segment < 2) throw std::invalid_argument("E-divisive needs a minimum segment of at least 2 points");
  SegmentScan s(z);
  std::vector<std::size_t> order(z.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> q;
  s.scan(order, min_segment, &q);
  return q;
}

EDivisive::EDivisive(std::vector<double> z, std::size_t min_segment, std::size_t permutations, std::uint64_t seed,
                     std::size_t window, std::size_t window_permutations)
    : z_(std::move(z)),
      min_segment_(min_segment),
      permutations_(permutations),
      window_(window),
      window_permutations_(window_permutations ? window_permutations : permutations),
      rng_state_(seed) {
  if (min_segment_ < 2) throw std::invalid_argument("E-divisive needs a minimum segment of at least 2 points");
  if (permutations_ < 1) throw std::invalid_argument("the permutation test needs at least one permutation");
  if (window_ && window_ < 2 * min_segment_)
    throw std::invalid_argument("a window must hold two segments of the minimum length");
  rebuild_segments();
}

void EDivisive::rebuild_segments() {
  segments_.clear();
  std::size_t begin = 0;
  for (std::size_t k = 0; k <= cps_.size(); ++k) {
    const std::size_t end = k < cps_.size() ? cps_[k] : z_.size();
    Segment s{begin, end, SegmentScan(std::span<const double>(z_).subspan(begin, end - begin)), {}, {}};
    s.order.resize(end - begin);
    s.ordered.resize(end - begin);
    segments_.push_back(std::move(s));
    begin = end;
  }
}

// SplitMix64 (Steele, Lea and Flood 2014): fixed arithmetic, so the
// permutations are the same with every compiler and standard library.
std::uint64_t EDivisive::random_below(std::uint64_t n) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // no modulo bias
  while (true) {
    std::uint64_t x = (rng_state_ += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    if (x < limit) return x % n;
  }
}

WindowSplit EDivisive::best(bool identity, Split split) {
  WindowSplit overall;
  for (auto& s : segments_) {
    if (identity) {
      std::iota(s.order.begin(), s.order.end(), 0);
    } else {
      for (std::size_t i = s.order.size(); i > 1; --i) std::swap(s.order[i - 1], s.order[random_below(i)]);  // Fisher-Yates
    }
    WindowSplit b;
    if (split == Split::window) {
      const auto centered = s.scan.centered();
      for (std::size_t i = 0; i < s.order.size(); ++i) s.ordered[i] = centered[s.order[i]];
      b = window_scan_.best(s.ordered, window_, min_segment_);
    } else if (const auto w = s.scan.scan(s.order, min_segment_); w.found) {
      b = {true, w.q, 0, w.tau, s.end - s.begin};
    }
    if (b.found && (!overall.found || b.q > overall.q))
      overall = {true, b.q, s.begin + b.begin, s.begin + b.tau, s.begin + b.end};
  }
  return overall;
}

std::optional<Candidate> EDivisive::next(double give_up_above, Split split) {
  if (split == Split::window && !window_) return std::nullopt;
  const auto observed = best(true, split);
  if (!observed.found) return std::nullopt;  // no segment long enough
  const double q = observed.q;
  Candidate c;
  c.split = split;
  c.x_begin = observed.begin;
  c.tau = observed.tau;
  c.y_end = observed.end;
  c.q = q;
  std::size_t at_least = 0;
  const std::size_t permutations = split == Split::window ? window_permutations_ : permutations_;
  const double r1 = static_cast<double>(permutations + 1);
  null_.clear();
  for (std::size_t k = 0; k < permutations; ++k) {
    // Each segment is shuffled from where the last permutation left it: a
    // uniform shuffle of any order is a uniform permutation.
    // An order that puts the same points on each side scores the same Q, up
    // to rounding in another order of summation: such ties count.
    const double permuted = best(false, split).q;
    if (tail_) null_.push_back(permuted);
    if (permuted >= q - 1e-9 * std::fabs(q)) ++at_least;
    ++c.permutations;
    // With the tail, a p-value below 1/(R + 1) is possible until kTailBelow
    // permutations have reached Q.
    if (static_cast<double>(at_least + 1) / r1 > give_up_above && (!tail_ || at_least >= kTailBelow)) {
      c.p_is_lower_bound = c.permutations < permutations;
      break;
    }
  }
  c.p = static_cast<double>(at_least + 1) / r1;
  if (tail_ && at_least < kTailBelow && c.permutations == permutations)
    // N_exc = 250, or a quarter of R where R is under 1,000 (999: 249).
    if (const auto p = stats::tail_p_value(null_, q, std::min<std::size_t>(250, null_.size() / 4))) {
      c.p = *p;
      c.p_from_tail = true;
    }
  return c;
}

void EDivisive::accept(const Candidate& c) {
  cps_.insert(std::upper_bound(cps_.begin(), cps_.end(), c.tau), c.tau);
  rebuild_segments();
}

}  // namespace kvmbench::changepoint
