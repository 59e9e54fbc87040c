#include "analysis/verdicts/regression_bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/stats/t_power.h"

using namespace kvmbench;

// Reference values by hand. n = 3 a side with equal spreads makes Welch's
// df exactly 4, where Student's t has a closed form: F(t) = 1/2 + u(3 -
// u^2) / 4 with u = t / sqrt(t^2 + 4), so t(0.95; 4) = 2.131847 and
// t(0.975; 4) = 2.776445 (solving the cubic).
//
// base {10, 11, 12}, cand 1.1 x base = {11, 12.1, 13.2}: the logs differ by
// ln 1.1 exactly; the sd of the logs is 0.0911923 on both sides, so
// se = 0.0911923 sqrt(2/3) = 0.0744582.
//  time (lower is better): worse = +10 %; the bound at 95 % is
//    1.1 exp(2.131847 x 0.0744582) - 1 = +28.9228 %, at 97.5 %
//    1.1 exp(2.776445 x 0.0744582) - 1 = +35.2614 %.
//  rate (higher is better): 10 % higher is 10 % better, worse = -10 %;
//    the bound at 95 % is 1 - 1.1 exp(-2.131847 x 0.0744582) = +6.1454 %.
namespace {

const std::vector<double> kBase = {10, 11, 12}, kCand = {11, 12.1, 13.2};

}  // namespace

TEST(RegressionBound, GeometricBoundOfATime) {
  const ChangeModel m = change_model(kBase, kCand, Direction::lower_is_better);
  EXPECT_TRUE(m.geometric);
  EXPECT_NEAR(worse_pct(m), 10, 1e-9);
  EXPECT_NEAR(regression_bound_pct(m, 0.95), 28.92280, 1e-4);
  EXPECT_NEAR(regression_bound_pct(m, 0.975), 35.26142, 1e-4);
}

TEST(RegressionBound, GeometricBoundOfARateIsTurnedToItsWorseSide) {
  const ChangeModel m = change_model(kBase, kCand, Direction::higher_is_better);
  EXPECT_NEAR(worse_pct(m), -10, 1e-9);
  EXPECT_NEAR(regression_bound_pct(m, 0.95), 6.14538, 1e-4);
}

// Fieller by hand: base {9, 10, 11} (b = 10, vb = 1/3), cand {10, 11, 12}
// (a = 11, va = 1/3), df 4, one-sided 95 %: t^2 = 2.131847^2 = 4.544772.
// (b^2 - t^2 vb) r^2 - 2ab r + (a^2 - t^2 va) = 0 is
// 98.485076 r^2 - 220 r + 119.485076 = 0, discriminant 1330.0125, roots
// r = (220 -+ 36.46934) / 196.970153 = 0.931769 and 1.302072. A time is
// worse by at most +30.2072 %, a rate (worse = 1 - r) by +6.8231 %.
TEST(RegressionBound, FiellerBoundWhereTheModelIsLinear) {
  const std::vector<double> base = {9, 10, 11}, cand = {10, 11, 12};
  const ChangeModel time = change_model(base, cand, Direction::lower_is_better, /*linear=*/true);
  EXPECT_FALSE(time.geometric);
  EXPECT_NEAR(worse_pct(time), 10, 1e-9);
  EXPECT_NEAR(regression_bound_pct(time, 0.95), 30.20721, 1e-4);
  const ChangeModel rate = change_model(base, cand, Direction::higher_is_better, true);
  EXPECT_NEAR(regression_bound_pct(rate, 0.95), 6.82311, 1e-4);
  // Values at or below zero leave the linear model alone.
  EXPECT_FALSE(change_model({0, 1, 2}, {1, 2, 3}, Direction::lower_is_better).geometric);
}

// Fieller's base mean not distinguishable from zero: b^2 <= t^2 vb. For
// base {-5, 1, 7}: b = 1, vb = 36 / 3 = 12, and 1 < 4.54 x 12; the set is
// two half-lines (the estimate 2 in the upper one, the lower one reaching
// -inf), so nothing is excluded on either side, although the half-line
// holding the estimate alone would seem to bound a rate.
TEST(RegressionBound, AnUnboundedSetExcludesNothing) {
  const std::vector<double> base = {-5, 1, 7}, cand = {1, 2, 3};
  EXPECT_EQ(regression_bound_pct(change_model(base, cand, Direction::lower_is_better), 0.95), INFINITY);
  EXPECT_EQ(regression_bound_pct(change_model(base, cand, Direction::higher_is_better), 0.95), INFINITY);
  // All positive, linear asked for: b = 1.0333, vb = 0.3008, 1.068 < 4.54 x
  // 0.3008. A rate of positive values can fall by 100 % at most.
  const std::vector<double> wide = {0.1, 1, 2};
  EXPECT_EQ(regression_bound_pct(change_model(wide, cand, Direction::lower_is_better, true), 0.95), INFINITY);
  EXPECT_EQ(regression_bound_pct(change_model(wide, cand, Direction::higher_is_better, true), 0.95), 100);
}

TEST(RegressionBound, NoBoundWithoutTwoUnitsOrADirection) {
  EXPECT_TRUE(std::isnan(regression_bound_pct(change_model({10}, kCand, Direction::lower_is_better), 0.95)));
  EXPECT_TRUE(std::isnan(regression_bound_pct(change_model(kBase, kCand, Direction::unknown), 0.95)));
  EXPECT_TRUE(std::isnan(regression_bound_pct(change_model(kBase, kCand, Direction::lower_is_better), 0.4)));
}

// The margin tests. At M = 10 % the time's estimate is the margin itself:
// statistic 0, each p 1/2. At M = 0: statistic ln 1.1 / 0.0744582 =
// 1.280050, and p_shown = 1 - F(1.280050) = 0.134861 by the df-4 form.
// Fieller's at a margin of 5 %: (11 - 1.05 x 10) / sqrt(1/3 + 1.05^2 / 3)
// = 0.5 / 0.837158 = 0.597259, p_shown = 0.291250.
TEST(RegressionBound, MarginTestsAgreeWithTheBound) {
  const ChangeModel m = change_model(kBase, kCand, Direction::lower_is_better);
  const MarginTests at_estimate = margin_tests(m, 10);
  EXPECT_NEAR(at_estimate.statistic, 0, 1e-9);
  EXPECT_NEAR(at_estimate.p_shown, 0.5, 1e-9);
  const MarginTests at_zero = margin_tests(m, 0);
  EXPECT_NEAR(at_zero.statistic, 1.280050, 1e-6);
  EXPECT_NEAR(at_zero.p_shown, 0.134861, 1e-6);
  EXPECT_NEAR(at_zero.p_shown + at_zero.p_excluded, 1, 1e-12);
  EXPECT_EQ(at_zero.df, 4);
  // The bound at 95 % is where p_excluded crosses 5 %: just above it the
  // regression is excluded at 5 %, just below not.
  const double bound = regression_bound_pct(m, 0.95);
  EXPECT_LT(margin_tests(m, bound + 0.01).p_excluded, 0.05);
  EXPECT_GT(margin_tests(m, bound - 0.01).p_excluded, 0.05);
  const ChangeModel linear = change_model({9, 10, 11}, {10, 11, 12}, Direction::lower_is_better, true);
  EXPECT_NEAR(margin_tests(linear, 5).statistic, 0.597259, 1e-6);
  EXPECT_NEAR(margin_tests(linear, 5).p_shown, 0.291250, 1e-6);
}

// With no spread at all the change is known exactly.
TEST(RegressionBound, NoSpreadDecidesAtOnce) {
  const ChangeModel m = change_model({10, 10, 10}, {11, 11, 11}, Direction::lower_is_better);
  EXPECT_NEAR(regression_bound_pct(m, 0.95), 10, 1e-9);
  EXPECT_EQ(margin_tests(m, 5).p_shown, 0);
  EXPECT_EQ(margin_tests(m, 20).p_excluded, 0);
}

// At many units the detectable regression is the normal closed form's:
// n = 10000 a side, sd of the logs 0.1, 80 % power, one-sided 2.5 %:
// w = (1.959964 + 0.841621) x 0.1 sqrt(2 / 10000) = 0.00396210, a time
// worse by exp(w) - 1 = 0.39699 %. A margin adds on the log scale.
TEST(RegressionBound, DetectableRegressionAtManyUnitsIsTheNormalOne) {
  ChangeModel m;
  m.direction = Direction::lower_is_better;
  m.base = kvmbench::stats::summary_from_moments(0, 0.1, 10000);
  m.cand = kvmbench::stats::summary_from_moments(0, 0.1, 10000);
  EXPECT_NEAR(detectable_regression(m, 0.025).power_80_pct, 0.39699, 2e-4);
  const double w = std::log(1.05) + std::log1p(detectable_regression(m, 0.025).power_80_pct / 100);
  EXPECT_NEAR(detectable_regression(m, 0.025, 5).power_80_pct, std::expm1(w) * 100, 1e-9);
  // A rate: the same shift on the logs is a smaller percentage,
  // 1 - exp(-w).
  m.direction = Direction::higher_is_better;
  EXPECT_NEAR(detectable_regression(m, 0.025).power_80_pct, -std::expm1(-0.00396210) * 100, 2e-4);
}

TEST(RegressionBound, DetectableRegressionOfThreeUnitsASide) {
  // Welch's detectable shift (t_power.h) on the model's scale: 3 a side
  // at the measured spread (sd of the logs 0.0911923 each side), a time
  // worse by exp(shift) - 1.
  const ChangeModel m = change_model(kBase, kCand, Direction::lower_is_better);
  const double shift =
      kvmbench::stats::detectable_shift(kvmbench::stats::TwoSampleDesign{3, 3, 0.0911923, 0.0911923}, 0.8, 0.025);
  EXPECT_NEAR(detectable_regression(m, 0.025).power_80_pct, std::expm1(shift) * 100, 1e-4);
  EXPECT_GT(detectable_regression(m, 0.025).power_95_pct, detectable_regression(m, 0.025).power_80_pct);
}

// Units to decide by hand: an A/A estimate (0) with the sd of the logs 0.1
// on both sides against a margin of 10 % (ln 1.1 = 0.0953102), excluded
// at 5 % one-sided once ln 1.1 / (0.1 sqrt(2/n)) exceeds t(0.95; 2n - 2):
//   n = 6: 1.650821 < t(0.95; 10) = 1.812461,
//   n = 7: 1.783090 > t(0.95; 12) = 1.782288.
TEST(RegressionBound, UnitsThatWouldDecide) {
  ChangeModel m;
  m.direction = Direction::lower_is_better;
  m.base = kvmbench::stats::summary_from_moments(0, 0.1, 3);
  m.cand = kvmbench::stats::summary_from_moments(0, 0.1, 3);
  EXPECT_EQ(units_to_decide(m, 10, 0.025, 0.05), 7u);
  // Already decided: the units it has.
  EXPECT_EQ(units_to_decide(m, 100, 0.025, 0.05), 3u);
  // An estimate at the margin never decides.
  EXPECT_EQ(units_to_decide(m, 0, 0.025, 0.05), std::nullopt);
  // A cap below the answer.
  EXPECT_EQ(units_to_decide(m, 10, 0.025, 0.05, 6), std::nullopt);
  // A regression decides on the shown side: estimate +20 % against 5 %.
  m.cand = kvmbench::stats::summary_from_moments(std::log(1.2), 0.1, 3);
  const auto n = units_to_decide(m, 5, 0.025, 0.05);
  ASSERT_TRUE(n);
  ChangeModel at = m;
  at.base = kvmbench::stats::summary_from_moments(0, 0.1, *n);
  at.cand = kvmbench::stats::summary_from_moments(std::log(1.2), 0.1, *n);
  EXPECT_LT(margin_tests(at, 5).p_shown, 0.025);
  at.base = kvmbench::stats::summary_from_moments(0, 0.1, *n - 1);
  at.cand = kvmbench::stats::summary_from_moments(std::log(1.2), 0.1, *n - 1);
  EXPECT_GE(margin_tests(at, 5).p_shown, 0.025);
}
