#include "analysis/stats/variance_components.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/stats/t_power.h"
#include "tests/support/noise.h"

using namespace kvmbench;
using namespace kvmbench::stats;

namespace {

// Observations from boots of repetitions of sub-unit values.
std::vector<Observation> pilot(const std::vector<std::vector<std::vector<double>>>& boots) {
  std::vector<Observation> obs;
  for (std::size_t b = 0; b < boots.size(); ++b)
    for (std::size_t r = 0; r < boots[b].size(); ++r)
      for (std::size_t s = 0; s < boots[b][r].size(); ++s)
        obs.push_back({boots[b][r][s], static_cast<int>(b), static_cast<int>(r), "thread=" + std::to_string(s)});
  return obs;
}

}  // namespace

// A balanced nested ANOVA by hand: 2 boots x 2 repetitions x 2 threads.
//   boot 1: {10, 12}, {14, 16}    boot 2: {20, 22}, {18, 20}
// Repetition means 11, 15 | 21, 19; boot means 13, 20; grand mean 16.5.
//   SS within repetitions  4 x (1 + 1) = 8,            df 4, MS_E = 2
//   SS repetitions in boot 2 x ((4 + 4) + (1 + 1)) = 20, df 2, MS_R = 10
//   SS boots               4 x (3.5^2 + 3.5^2) = 98,   df 1, MS_B = 98
// Expected mean squares: MS_E = s1, MS_R = s1 + 2 s2, MS_B = s1 + 2 s2 +
// 4 s3, so s1 = 2, s2 = (10 - 2) / 2 = 4, s3 = (98 - 10) / 4 = 22.
TEST(VarianceComponents, BalancedNestedAnovaByHand) {
  const VarianceComponents c = variance_components(pilot({{{10, 12}, {14, 16}}, {{20, 22}, {18, 20}}}));
  ASSERT_TRUE(c.known);
  EXPECT_DOUBLE_EQ(c.within_repetition, 2);
  EXPECT_DOUBLE_EQ(c.between_repetitions, 4);
  EXPECT_DOUBLE_EQ(c.between_boots, 22);
  EXPECT_EQ(c.boots, 2u);
  EXPECT_EQ(c.repetitions, 4u);
  EXPECT_EQ(c.values, 8u);
  EXPECT_DOUBLE_EQ(c.mean_sub_units, 2);
  EXPECT_TRUE(c.notes.empty());
  // A boot's value, the mean of 2 repetitions of 2 threads: 22 + 4/2 + 2/4.
  EXPECT_DOUBLE_EQ(unit_variance(c, 2, 2), 24.5);
}

// Unbalanced, by the moment equations of the header:
//   boot 1: {10, 12}, {14}      boot 2: {20, 22, 24}, {18}, {19, 21}    boot 3: {15}
// within: SS 2 + 8 + 2 = 12 over df 1 + 2 + 1 = 4: S1^2 = 3.
// repetition means 11, 14 | 22, 18, 20 | 15; boot means 12.5, 20, 15.
// between repetitions: SS 4.5 + 8 = 12.5 over df 1 + 2 = 3: S2^2 = 4.166667;
//   c2 = [(1 - 1/2)(1/2 + 1) + (1 - 1/3)(1/3 + 1 + 1/2)] / 3
//      = (0.75 + 1.222222) / 3 = 0.657407;
//   T2^2 = 4.166667 - 0.657407 x 3 = 2.194444.
// between boots: S3^2 = var(12.5, 20, 15) = 14.583333;
//   mean(1/r) = (1/2 + 1/3 + 1) / 3 = 0.611111;
//   mean(sum(1/n) / r^2) = (1.5/4 + 1.833333/9 + 1) / 3 = 0.526235;
//   T3^2 = 14.583333 - 2.194444 x 0.611111 - 3 x 0.526235 = 11.663580.
TEST(VarianceComponents, UnbalancedMomentEstimatesByHand) {
  const VarianceComponents c = variance_components(pilot({{{10, 12}, {14}}, {{20, 22, 24}, {18}, {19, 21}}, {{15}}}));
  ASSERT_TRUE(c.known);
  EXPECT_NEAR(c.within_repetition, 3, 1e-12);
  EXPECT_NEAR(c.between_repetitions, 2.194444, 1e-6);
  EXPECT_NEAR(c.between_boots, 11.663580, 1e-6);
  EXPECT_NEAR(c.mean_repetitions, 2, 1e-12);
}

// The unbalanced coefficients are unbiased: on 4000 synthetic pilots of a
// ragged design (40 boots of 1 to 3 repetitions of 1 to 3 threads) with
// components 4, 2 and 1, the estimates average to them within four
// standard errors of their mean (clamping at 0 is rare at these sizes and
// counted).
TEST(VarianceComponents, UnbalancedEstimatesAreUnbiased) {
  test_support::Noise z(41);
  const double s3 = 4, s2 = 2, s1 = 1;
  const int trials = 4000;
  double sum[3] = {}, sum2[3] = {};
  int clamped = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<std::vector<std::vector<double>>> boots(40);
    for (std::size_t b = 0; b < boots.size(); ++b) {
      const double boot = std::sqrt(s3) * z();
      boots[b].resize(1 + b % 3);
      for (std::size_t r = 0; r < boots[b].size(); ++r) {
        const double rep = std::sqrt(s2) * z();
        for (std::size_t s = 0; s < 1 + (b + r) % 3; ++s) boots[b][r].push_back(100 + boot + rep + std::sqrt(s1) * z());
      }
    }
    const VarianceComponents c = variance_components(pilot(boots));
    clamped += !c.notes.empty();
    const double est[3] = {c.between_boots, c.between_repetitions, c.within_repetition};
    for (int i = 0; i < 3; ++i) {
      sum[i] += est[i];
      sum2[i] += est[i] * est[i];
    }
  }
  EXPECT_LT(clamped, trials / 100);
  const double truth[3] = {s3, s2, s1};
  for (int i = 0; i < 3; ++i) {
    const double mean = sum[i] / trials, sd = std::sqrt(sum2[i] / trials - mean * mean);
    EXPECT_NEAR(mean, truth[i], 4 * sd / std::sqrt(trials)) << "component " << i;
  }
}

// Boots whose means agree better than their repetitions predict: boot
// means 4 and 4 (S3^2 = 0) under repetition means 2, 6 | 4, 4, so
// T3^2 = 0 - T2^2 / 2 - T1^2 / 4 < 0: clamped, with a note.
TEST(VarianceComponents, ANegativeEstimateIsClampedAndSaid) {
  const VarianceComponents c = variance_components(pilot({{{1, 3}, {5, 7}}, {{3, 5}, {3, 5}}}));
  ASSERT_TRUE(c.known);
  EXPECT_EQ(c.between_boots, 0);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("between boots"), std::string::npos) << c.notes[0];
}

// With one value per repetition the two upper components are
// experimental_unit.h's level_variance: its `between` and `within`.
TEST(VarianceComponents, WithoutSubUnitsTheyAreTheLevelVariance) {
  const std::vector<Observation> obs = pilot({{{10}, {12}, {11}}, {{15}, {14}}, {{9}, {13}, {12}, {10}}});
  const VarianceComponents c = variance_components(obs);
  const LevelVariance v = level_variance(obs);
  ASSERT_TRUE(c.known && v.known);
  EXPECT_NEAR(c.between_boots, v.between, 1e-12);
  EXPECT_NEAR(c.between_repetitions, v.within, 1e-12);
  EXPECT_EQ(c.within_repetition, 0);
  EXPECT_FALSE(c.notes.empty());  // says that no spread within a repetition is measured
}

TEST(VarianceComponents, OneBootSeparatesNothing) {
  const VarianceComponents c = variance_components(pilot({{{10, 11}, {12, 13}}}));
  EXPECT_FALSE(c.known);
  EXPECT_FALSE(c.notes.empty());
  EXPECT_THROW(cheapest_plan(PlanRequest{c, 1, 0.01, 0.95, 0.025, 60, 10}), std::invalid_argument);
}

// The cheapest plan against Kalibera and Jones's closed form: between
// boots 0.0004 (a 2 % sd), between repetitions 0.0036 (6 %), a boot 90 s,
// a repetition 10 s: r = sqrt((90 / 10) (0.0036 / 0.0004)) = sqrt(81) = 9.
// With a small target (0.5 %) n runs to hundreds of boots, where rounding
// n moves the cost by far less than one repetition more or fewer (about
// 0.6 % at r = 9), so the search must land on 9 as well.
TEST(VarianceComponents, CheapestPlanAgreesWithOptimalRepetitions) {
  VarianceComponents c;
  c.known = true;
  c.between_boots = 0.0004;
  c.between_repetitions = 0.0036;
  LevelVariance v;
  v.known = true;
  v.between = 0.0004;
  v.within = 0.0036;
  ASSERT_EQ(optimal_repetitions(v, 90, 10), 9u);
  PlanRequest r{c, 1, 0.005, 0.95, 0.025, 90, 10, 2000, 40};
  const auto plan = cheapest_plan(r);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->repetitions, 9u);
  // The fewest boots that reach the target at that many repetitions.
  const double sd = std::sqrt(0.0004 + 0.0036 / 9);
  EXPECT_NEAR(plan->unit_sd, sd, 1e-12);
  EXPECT_LE(detectable_shift(TwoSampleDesign{plan->boots, plan->boots, sd, sd}, 0.95, 0.025), 0.005);
  EXPECT_GT(detectable_shift(TwoSampleDesign{plan->boots - 1, plan->boots - 1, sd, sd}, 0.95, 0.025), 0.005);
  EXPECT_DOUBLE_EQ(plan->seconds, 2.0 * plan->boots * (90 + 9 * 10));
  // Nothing within the limits reaches an impossible target.
  r.target_shift = 1e-6;
  EXPECT_FALSE(cheapest_plan(r));
}
