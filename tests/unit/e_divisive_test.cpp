// E-divisive means against values derived by hand, against a direct O(n^3)
// evaluation of the paper's definition, and its permutation test against the
// exact permutation distribution of a small series.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "analysis/stats/e_divisive.h"
#include "tests/unit/test_rng.h"

using namespace kvmbench::changepoint;

namespace {

// Matteson & James (2014), eq. (3)-(4) with alpha = 1, straight from the
// definition: X = z[0, tau), Y = z[tau, n).
double q_by_definition(const std::vector<double>& z, std::size_t tau) {
  const std::size_t n = tau, m = z.size() - tau;
  double between = 0, within_x = 0, within_y = 0;
  for (std::size_t i = 0; i < tau; ++i)
    for (std::size_t j = tau; j < z.size(); ++j) between += std::fabs(z[i] - z[j]);
  for (std::size_t i = 0; i < tau; ++i)
    for (std::size_t k = i + 1; k < tau; ++k) within_x += std::fabs(z[i] - z[k]);
  for (std::size_t j = tau; j < z.size(); ++j)
    for (std::size_t k = j + 1; k < z.size(); ++k) within_y += std::fabs(z[j] - z[k]);
  const double e = 2.0 / (n * m) * between - within_x / (n * (n - 1) / 2.0) - within_y / (m * (m - 1) / 2.0);
  return static_cast<double>(n * m) / (n + m) * e;
}

}  // namespace

TEST(EDivisive, QByHand) {
  // z = 1 3 2 10 12, minimum segment 2: splits at tau = 2 and 3.
  // tau = 2: X = {1,3}, Y = {2,10,12}. Between: 1+9+11+1+7+9 = 38,
  //   2*38/(2*3) = 12.667; within X: 2 / C(2,2) = 2; within Y: (8+10+2) /
  //   C(3,2) = 6.667; E = 4; Q = (2*3/5) * 4 = 4.8.
  // tau = 3: X = {1,3,2}, Y = {10,12}. Between: 9+11+7+9+8+10 = 54, 2*54/6 =
  //   18; within X: (2+1+1)/3 = 1.333; within Y: 2/1 = 2; E = 14.667;
  //   Q = 1.2 * 14.667 = 17.6.
  const std::vector<double> z = {1, 3, 2, 10, 12};
  const auto q = q_statistics(z, 2);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_NEAR(q[0], 4.8, 1e-12);
  EXPECT_NEAR(q[1], 17.6, 1e-12);
}

TEST(EDivisive, FastScanEqualsTheDefinition) {
  kvmbench::testing::TestRng rng(18);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 4 + rng.below(40), L = 2 + rng.below(3);
    std::vector<double> z(n);
    // Some trials with many ties (values on a coarse grid), some with a
    // large offset (cancellation), some with a step.
    for (std::size_t i = 0; i < n; ++i) {
      double v = static_cast<double>(rng.below(1000)) / 10.0;
      if (trial % 3 == 0) v = std::round(v / 20);
      if (trial % 3 == 1) v += 1e9;
      if (trial % 4 == 0 && i > n / 2) v += 50;
      z[i] = v;
    }
    const auto q = q_statistics(z, L);
    if (n < 2 * L) {
      EXPECT_TRUE(q.empty());
      continue;
    }
    ASSERT_EQ(q.size(), n - 2 * L + 1);
    for (std::size_t k = 0; k < q.size(); ++k) {
      const double want = q_by_definition(z, L + k);
      EXPECT_NEAR(q[k], want, 1e-9 * std::max(1.0, std::fabs(want))) << "trial " << trial << " tau " << L + k;
    }
  }
}

TEST(EDivisive, PermutationPValueMatchesTheExactDistribution) {
  // z = 1 2 3 10 11 12 (min segment 2). Its best split is tau = 3 (the two
  // clusters apart). Over all 6! = 720 orders, the best split reaches that Q
  // exactly when one cluster fills the first three places: 2 * 3! * 3! = 72
  // orders, so the exact p-value is 72/720 = 0.1 (counted below from the
  // definition, independently of the fast scan).
  const std::vector<double> z = {1, 2, 3, 10, 11, 12};
  const double observed = q_by_definition(z, 3);
  std::vector<double> perm = z;
  std::sort(perm.begin(), perm.end());
  std::size_t at_least = 0, total = 0;
  do {
    double best = -1;
    for (std::size_t tau = 2; tau <= 4; ++tau) best = std::max(best, q_by_definition(perm, tau));
    at_least += best >= observed - 1e-9;
    ++total;
  } while (std::next_permutation(perm.begin(), perm.end()));
  ASSERT_EQ(total, 720u);
  ASSERT_EQ(at_least, 72u);
  const double exact = 0.1;

  const std::size_t R = 19999;
  EDivisive ed(z, 2, R, 7);
  auto c = ed.next();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->tau, 3u);
  EXPECT_NEAR(c->q, observed, 1e-12);
  EXPECT_FALSE(c->p_is_lower_bound);
  EXPECT_EQ(c->permutations, R);
  // Monte Carlo error of (1 + b)/(R + 1): four standard errors.
  EXPECT_NEAR(c->p, exact, 4 * std::sqrt(exact * (1 - exact) / R));
}

TEST(EDivisive, FindsAStepAndStopsOnNoise) {
  // 20 points around 100 then 20 around 105 (deterministic wobble of +-1).
  std::vector<double> z;
  for (int i = 0; i < 40; ++i) z.push_back((i < 20 ? 100.0 : 105.0) + ((i * 7) % 5 - 2) * 0.5);
  EDivisive ed(z, 3, 999, 1);
  auto c = ed.next();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->tau, 20u);
  EXPECT_NEAR(c->p, 0.001, 1e-12);  // no permutation of 999 scores as high
  ed.accept(*c);
  EXPECT_EQ(ed.change_points(), std::vector<std::size_t>{20});
  // Within the two flat halves nothing is left but the wobble.
  auto d = ed.next(0.05);
  ASSERT_TRUE(d);
  EXPECT_GT(d->p, 0.05);
  EXPECT_TRUE(d->p_is_lower_bound);  // gave up early: p can only be larger
  EXPECT_LT(d->permutations, 999u);
}

TEST(EDivisive, SameSeedSamePValue) {
  std::vector<double> z;
  kvmbench::testing::TestRng rng(3);
  for (int i = 0; i < 30; ++i) z.push_back(static_cast<double>(rng.below(100)));
  EDivisive a(z, 3, 499, 42), b(z, 3, 499, 42);
  EXPECT_EQ(a.next()->p, b.next()->p);
}

TEST(EDivisive, ShortSeriesHasNoCandidate) {
  EDivisive ed({1, 2, 3, 4, 5}, 3, 99, 1);
  EXPECT_FALSE(ed.next());
  EXPECT_THROW(EDivisive({1, 2, 3, 4}, 1, 99, 1), std::invalid_argument);
}

namespace {

// Q of X = z[b, tau), Y = z[tau, e), straight from the definition.
double q_of_parts(const std::vector<double>& z, std::size_t b, std::size_t tau, std::size_t e) {
  const std::vector<double> part(z.begin() + static_cast<std::ptrdiff_t>(b), z.begin() + static_cast<std::ptrdiff_t>(e));
  return q_by_definition(part, tau - b);
}

}  // namespace

TEST(EDivisiveWindows, WindowsCoverTheSegmentByHalves) {
  EXPECT_EQ(window_starts(120, 50), (std::vector<std::size_t>{0, 25, 50, 70}));
  EXPECT_EQ(window_starts(100, 50), (std::vector<std::size_t>{0, 25, 50}));
  EXPECT_EQ(window_starts(40, 50), (std::vector<std::size_t>{0}));  // shorter than a window: one
  EXPECT_EQ(window_starts(7, 7), (std::vector<std::size_t>{0}));
  EXPECT_EQ(window_starts(8, 7), (std::vector<std::size_t>{0, 1}));
}

TEST(EDivisiveWindows, BestWindowSplitEqualsTheDefinition) {
  // Every split X = z[s, tau), Y = z[tau, kappa) of every window, by the
  // definition (O(n^3) each), against the scan's best.
  kvmbench::testing::TestRng rng(30);
  WindowScan scan;
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t L = 2 + rng.below(3), w = 2 * L + rng.below(12), n = 2 * L + rng.below(40);
    std::vector<double> z(n);
    for (std::size_t i = 0; i < n; ++i) {
      double v = static_cast<double>(rng.below(1000)) / 10.0;
      if (trial % 3 == 0) v = std::round(v / 20);            // ties
      if (trial % 3 == 1) v += 1e6;                           // an offset
      if (trial % 4 == 0 && i > n / 3 && i < n / 3 + L + 2) v += 50;  // a short shift
      z[i] = v;
    }
    double want = -INFINITY;
    for (const std::size_t s : window_starts(n, w))
      for (std::size_t tau = s + L; tau + L <= std::min(s + w, n); ++tau)
        for (std::size_t kappa = tau + L; kappa <= std::min(s + w, n); ++kappa)
          want = std::max(want, q_of_parts(z, s, tau, kappa));
    const auto got = scan.best(z, w, L);
    ASSERT_TRUE(got.found) << "trial " << trial;
    EXPECT_NEAR(got.q, want, 1e-7 * std::max(1.0, std::fabs(want))) << "trial " << trial;
    // The split it names scores its Q.
    EXPECT_NEAR(q_of_parts(z, got.begin, got.tau, got.end), got.q, 1e-7 * std::max(1.0, std::fabs(want)));
    EXPECT_LE(got.end - got.begin, w);
  }
  EXPECT_FALSE(scan.best(std::vector<double>{1, 2, 3, 4, 5}, 6, 3).found);
  EXPECT_THROW(scan.best(std::vector<double>{1, 2, 3, 4, 5, 6}, 5, 3), std::invalid_argument);
}

TEST(EDivisiveWindows, AShortShiftIsAWindowedSplitNotAWholeSegmentOne) {
  // 200 points of a deterministic wobble (+-1), 8 of them (100..107)
  // shifted by +6: the best windowed split has one part exactly the
  // shifted points (here X: the window starting at 100 holds them and 42
  // points after), and no permutation scores as high; the whole-segment
  // splits see them too faintly to be sure.
  std::vector<double> z;
  for (int i = 0; i < 200; ++i) z.push_back(100.0 + ((i * 7) % 5 - 2) * 0.5 + (i >= 100 && i < 108 ? 6 : 0));
  EDivisive ed(z, 3, 199, 5, 50);
  const auto whole = ed.next();
  ASSERT_TRUE(whole);
  EXPECT_GT(whole->p, 0.05);
  const auto w = ed.next(1.0, Split::window);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->split, Split::window);
  EXPECT_EQ(w->x_begin, 100u);
  EXPECT_EQ(w->tau, 108u);
  EXPECT_EQ(w->y_end, 150u);
  EXPECT_NEAR(w->p, 1.0 / 200, 1e-12);
  // Without windows there is no windowed candidate.
  EDivisive plain(z, 3, 199, 5);
  EXPECT_FALSE(plain.next(1.0, Split::window));
  EXPECT_THROW(EDivisive(z, 3, 199, 5, 5), std::invalid_argument);
}
