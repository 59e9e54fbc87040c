// Change points over a family of series: Holm over the series, the
// minimum segment, the magnitude floor, and each change's size and CI.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/change_points.h"

using namespace kvmbench;
using namespace kvmbench::changepoint;

namespace {

// Normal noise from mt19937_64 by Box-Muller (the same numbers everywhere).
struct Noise {
  std::mt19937_64 rng;
  explicit Noise(std::uint64_t seed) : rng(seed) {}
  double operator()() {
    const double u1 = (static_cast<double>(rng() >> 11) + 1) * 0x1.0p-53, u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
};

std::vector<double> series(Noise& n, std::size_t len, double cv, std::vector<std::pair<std::size_t, double>> steps = {}) {
  std::vector<double> z;
  double level = 100;
  for (std::size_t i = 0; i < len; ++i) {
    for (auto& [at, factor] : steps)
      if (i == at) level *= factor;
    z.push_back(level * (1 + cv * n()));
  }
  return z;
}

}  // namespace

TEST(ChangePoints, PermutationsCoverHolmsStrictestLevel) {
  EXPECT_EQ(permutations_for(0.05, 1), 999u);
  // 20 series: strictest level 0.05/20 = 0.0025; a twentieth of it is
  // 1/8000, so R + 1 = 8000.
  EXPECT_EQ(permutations_for(0.05, 20), 7999u);
}

TEST(ChangePoints, TwoStepsInOneSeriesNoneInTheOthers) {
  Noise n(1);
  std::vector<std::vector<double>> s = {series(n, 60, 0.01), series(n, 60, 0.01, {{20, 1.05}, {40, 0.97}}),
                                        series(n, 60, 0.01)};
  const auto r = detect(s);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].change_points.empty());
  EXPECT_TRUE(r[2].change_points.empty());
  ASSERT_EQ(r[1].change_points.size(), 2u);
  EXPECT_EQ(r[1].change_points[0].index, 20u);
  EXPECT_EQ(r[1].change_points[1].index, 40u);
  const auto& up = r[1].change_points[0];
  // The size is the change between the segments' means, and its CI holds
  // the planted +5 %.
  EXPECT_NEAR(up.change.pct, (up.after.mean / up.before.mean - 1) * 100, 1e-9);
  EXPECT_LT(up.change.ci95_low, 5.0);
  EXPECT_GT(up.change.ci95_high, 5.0);
  EXPECT_EQ(up.before.n, 20u);
  EXPECT_EQ(up.after.n, 20u);
  // Holm: the changed series has the smallest first p, times 3 series.
  EXPECT_NEAR(up.p_holm, std::min(1.0, 3 * r[1].first_p), 1e-12);
  EXPECT_LT(r[1].change_points[1].change.pct, 0);
}

TEST(ChangePoints, MagnitudeFloorMergesSmallChanges) {
  // A 0.5 % step at CV 0.05 %: significant, but under a 1 % floor.
  Noise n(2);
  const std::vector<std::vector<double>> s = {series(n, 40, 0.0005, {{20, 1.005}})};
  Options opt;
  opt.min_change_pct = 1.0;
  auto r = detect(s, opt);
  EXPECT_TRUE(r[0].change_points.empty());
  EXPECT_EQ(r[0].below_floor, 1u);
  opt.min_change_pct = 0.1;
  r = detect(s, opt);
  ASSERT_EQ(r[0].change_points.size(), 1u);
  EXPECT_EQ(r[0].change_points[0].index, 20u);
  EXPECT_EQ(r[0].below_floor, 0u);
}

TEST(ChangePoints, MinimumSegmentAndShortSeries) {
  Noise n(3);
  // A step two points from the end cannot be a change with segments of 3.
  const std::vector<std::vector<double>> s = {series(n, 30, 0.01, {{28, 1.2}}), series(n, 5, 0.01)};
  const auto r = detect(s);
  for (auto& cp : r[0].change_points) {
    EXPECT_GE(cp.index, 3u);
    EXPECT_LE(cp.index, 27u);
  }
  EXPECT_TRUE(std::isnan(r[1].first_p));
  EXPECT_NE(r[1].note.find("too few"), std::string::npos);
}

TEST(ChangePoints, BadOptionsAndValuesAreRefused) {
  Options opt;
  opt.alpha = 1.5;
  EXPECT_THROW(detect({{1, 2, 3}}, opt), std::invalid_argument);
  EXPECT_THROW(detect({{1, 2, NAN, 3, 4, 5}}), std::invalid_argument);
}

TEST(ChangePoints, NoAlarmsOnMostStationaryFamilies) {
  // A coarse check of the family-wise false-alarm rate (bench/
  // changepoint_rates measures it over 1,000 series): 200 families of 3
  // stationary series; the rate must stay within alpha plus three binomial
  // standard errors of this simulation, 0.05 + 3 * sqrt(0.05 * 0.95 / 200)
  // = 0.096.
  Noise n(4);
  int alarms = 0;
  for (int f = 0; f < 200; ++f) {
    std::vector<std::vector<double>> s;
    for (int k = 0; k < 3; ++k) s.push_back(series(n, 30, 0.01));
    Options opt;
    opt.min_change_pct = 0;  // the test alone, no floor to hide behind
    opt.permutations = 199;
    opt.seed = static_cast<std::uint64_t>(f);
    bool any = false;
    for (auto& r : detect(s, opt)) any = any || !r.change_points.empty();
    alarms += any;
  }
  EXPECT_LE(alarms / 200.0, 0.096) << alarms << " of 200 families alarmed";
}
