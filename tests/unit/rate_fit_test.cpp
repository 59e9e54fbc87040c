#include "analysis/stats/rate_fit.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kvmbench;

TEST(FitLine, HandComputedSlopeErrorAndR2) {
  // t = 3..7, y = 150 200 260 300 350: t mean 5, Sxx = 10, Sxy = 500 ->
  // slope 50, intercept 2; residuals -2 -2 8 -2 -2 -> SSR 80,
  // se = sqrt(80/3/10) = sqrt(8/3); SST = 25080 -> R^2 = 1 - 80/25080.
  std::vector<double> t = {3, 4, 5, 6, 7}, y = {150, 200, 260, 300, 350};
  auto f = fit_line(t, y, 0, 4);
  EXPECT_NEAR(f.slope, 50.0, 1e-9);
  EXPECT_NEAR(f.intercept, 2.0, 1e-9);
  EXPECT_NEAR(f.slope_stderr, std::sqrt(8.0 / 3.0), 1e-9);
  EXPECT_NEAR(f.r2, 1.0 - 80.0 / 25080.0, 1e-12);
  EXPECT_EQ(f.n, 5u);
}

TEST(FitLine, RejectsDegenerateInput) {
  std::vector<double> t = {1, 1, 1}, y = {1, 2, 3};
  EXPECT_THROW(fit_line(t, y, 0, 2), std::invalid_argument);
  EXPECT_THROW(fit_line(t, y, 1, 1), std::invalid_argument);
  std::vector<double> short_y = {1, 2};
  EXPECT_THROW(fit_line(t, short_y, 0, 1), std::invalid_argument);
}

// Baseline 100 up to t=2, +50/s until t=8, plateau 400, then a drop at the
// end (memory freed after the run) that must be ignored.
static std::vector<double> ramp_t() { return {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}; }
static std::vector<double> ramp_v() { return {100, 100, 100, 150, 200, 250, 300, 350, 400, 400, 400, 0}; }

TEST(RampRate, FindsRampAndExactSlope) {
  auto r = fit_ramp_rate(ramp_t(), ramp_v());
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_TRUE(r.rising);
  EXPECT_EQ(r.begin, 2u);
  EXPECT_EQ(r.end, 8u);
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(r.last, 7u);
  EXPECT_FALSE(r.edges_included);
  EXPECT_DOUBLE_EQ(r.t_begin, 2.0);
  EXPECT_DOUBLE_EQ(r.t_end, 8.0);
  EXPECT_NEAR(r.fit.slope, 50.0, 1e-9);
  EXPECT_NEAR(r.fit.slope_stderr, 0.0, 1e-9);
  EXPECT_NEAR(r.fit.r2, 1.0, 1e-12);
}

TEST(RampRate, NoisyRampMatchesHandComputation) {
  auto v = ramp_v();
  v[5] = 260;  // the same noise as the FitLine test on the interior samples
  auto r = fit_ramp_rate(ramp_t(), v);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_NEAR(r.fit.slope, 50.0, 1e-9);
  EXPECT_NEAR(r.fit.slope_stderr, std::sqrt(8.0 / 3.0), 1e-9);
  EXPECT_NEAR(r.fit.r2, 1.0 - 80.0 / 25080.0, 1e-12);
}

TEST(RampRate, FallingSeriesGivesNegativeSlope) {
  // MemFree going down by 2 GiB/s between t=1 and t=5 (0.5 s samples).
  std::vector<double> t, v;
  const double gib = 1024.0 * 1024 * 1024;
  for (int i = 0; i <= 14; ++i) {
    double ti = 0.5 * i;
    t.push_back(ti);
    double x = ti < 1 ? 0 : ti > 5 ? 4 : ti - 1;
    v.push_back(20 * gib - 2 * gib * x);
  }
  auto r = fit_ramp_rate(t, v);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_FALSE(r.rising);
  EXPECT_NEAR(r.fit.slope, -2 * gib, 1e-3);
  EXPECT_DOUBLE_EQ(r.t_begin, 1.0);
  EXPECT_DOUBLE_EQ(r.t_end, 5.0);
  EXPECT_NEAR(r.baseline, 20 * gib, 1);
  EXPECT_NEAR(r.plateau, 12 * gib, 1);
}

TEST(RampRate, ShortRampIncludesCornersAndSaysSo) {
  // The ramp spans one sample interval: only the corners are on it.
  auto r = fit_ramp_rate({0, 1, 2, 3}, {0, 0, 10, 10});
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_TRUE(r.edges_included);
  EXPECT_NEAR(r.fit.slope, 10.0, 1e-12);
  EXPECT_TRUE(std::isnan(r.fit.slope_stderr));
}

TEST(RampRate, FlatSeriesHasNoRamp) {
  auto r = fit_ramp_rate({0, 1, 2}, {5, 5, 5});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.reason.empty());
  auto small = fit_ramp_rate({0, 1, 2}, {5, 6, 6}, {.edge_fraction = 0.02, .min_rise = 2});
  EXPECT_FALSE(small.ok);
}

TEST(RampRate, RejectsBadTimestamps) {
  EXPECT_FALSE(fit_ramp_rate({0, 0, 1}, {0, 1, 2}).ok);
  EXPECT_FALSE(fit_ramp_rate({0, 1}, {0}).ok);
}
