#include "analysis/stats/t_power.h"

#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/stats/statistics.h"
#include "tests/support/noise.h"

using namespace kvmbench::stats;

// R's documented examples of power.t.test (?power.t.test, two-sample, sd 1,
// sig.level 0.05): power.t.test(n = 20, delta = 1) gives power = 0.8689528.
// R computes it as pt(qt(0.975, 38), 38, ncp = sqrt(20 / 2), lower = FALSE):
// the upper tail only, at df = 2(n - 1).
TEST(TPower, MatchesRsPowerTTestForTwentyUnitsASide) {
  EXPECT_NEAR(t_test_power(std::sqrt(20.0 / 2), 38, 0.025), 0.8689528, 5e-8);
}

// power.t.test(power = .90, delta = 1) gives n = 22.02110, and with
// alternative = "one.sided" n = 17.84713. R finds n with uniroot at its
// default tolerance, .Machine$double.eps^0.25 = 1.2e-4, so its printed
// digits are good to about 1e-4, not to the last one.
TEST(TPower, SolvesForUnitsAsRsPowerTTestDoes) {
  EXPECT_NEAR(two_sample_units_for_power(1, 1, 0.90, 0.05, true), 22.02110, 1e-4);
  EXPECT_NEAR(two_sample_units_for_power(1, 1, 0.90, 0.05, false), 17.84713, 1e-4);
  // Only the ratio delta / sd matters.
  EXPECT_NEAR(two_sample_units_for_power(0.1, 0.1, 0.90, 0.05, true), 22.02110, 1e-4);
}

// With no shift the statistic is central: the test rejects with
// probability equal to its error, whatever the df.
TEST(TPower, NoShiftIsFoundAsOftenAsTheErrorAllows) {
  for (double df : {1.0, 4.0, 37.5})
    for (double e : {0.005, 0.025, 0.05}) EXPECT_NEAR(t_test_power(0, df, e), e, 1e-12) << df << " " << e;
}

// At large n the t test is the z test: n = 2 (z(1 - a/2) + z(power))^2
// (sd / delta)^2 = 2 (1.959964 + 1.281552)^2 / 0.1^2 = 2101.485 for
// delta = 0.1 sd, power 0.9. The t test needs a little more, by Guenther's
// (1981) correction z(1 - a/2)^2 / 4 = 0.960 to first order: 2102.445.
TEST(TPower, ApproachesTheNormalClosedFormAtLargeN) {
  const double n = two_sample_units_for_power(0.1, 1, 0.90, 0.05, true);
  EXPECT_GT(n, 2101.485);
  EXPECT_NEAR(n, 2102.445, 0.05);
  // And the power at a large df is the normal one, Phi(ncp - z(1 - e)):
  // Phi(2.8 - 1.959964) = Phi(0.840036) = 0.799556.
  EXPECT_NEAR(t_test_power(2.8, 1e6, 0.025), normal_cdf(2.8 - 1.959963985), 1e-5);
  EXPECT_NEAR(t_test_power(2.8, 1e6, 0.025), 0.799556, 1e-5);
}

// At few units the normal approximation overstates the power: the t
// test's is below Phi(ncp - z) for the same shift.
TEST(TPower, TheNormalApproximationIsAnUpperBoundAtFewUnits) {
  for (double df : {2.0, 4.0, 8.0}) {
    const double ncp = 3;
    EXPECT_LT(t_test_power(ncp, df, 0.025), normal_cdf(ncp - normal_quantile(0.975))) << df;
  }
}

TEST(TPower, NoncentralityForAPowerInvertsThePower) {
  for (double df : {2.0, 4.0, 10.0, 100.0})
    for (double power : {0.5, 0.8, 0.95}) {
      const double ncp = ncp_for_power(power, df, 0.025);
      EXPECT_NEAR(t_test_power(ncp, df, 0.025), power, 1e-10) << df << " " << power;
    }
  EXPECT_TRUE(std::isnan(ncp_for_power(0.01, 4, 0.025)));  // below the error: no shift needed
  EXPECT_TRUE(std::isnan(ncp_for_power(0.8, 0, 0.025)));
  EXPECT_TRUE(std::isnan(t_test_power(1, 4, 1.5)));
}

// Welch's df by hand: n 3, sd 0.1 and n 5, sd 0.2 give squared standard
// errors 0.01/3 = 0.0033333 and 0.04/5 = 0.008; df = (0.0113333)^2 /
// (0.0033333^2 / 2 + 0.008^2 / 4) = 1.284444e-4 / 2.155556e-5 = 5.958763.
// Equal sds and n a side: 2(n - 1).
TEST(TPower, WelchDegreesOfFreedomOfADesign) {
  EXPECT_NEAR(welch_df(TwoSampleDesign{3, 5, 0.1, 0.2}), 5.958763, 1e-6);
  EXPECT_NEAR(welch_df(TwoSampleDesign{3, 3, 0.1, 0.1}), 4, 1e-12);
  EXPECT_EQ(welch_df(TwoSampleDesign{3, 3, 0, 0}), 4);
  EXPECT_TRUE(std::isnan(welch_df(TwoSampleDesign{1, 3, 0.1, 0.1})));
}

// Welch's power with n a side and equal sds, derived another way: the
// Welch statistic is then the pooled one, T' ~ noncentral t(2n - 2, ncp),
// independent of R = s_b^2 / (s_b^2 + s_c^2) ~ Beta((n - 1)/2, (n - 1)/2),
// and Welch's df is (n - 1) / (R^2 + (1 - R)^2). So the power is the mean
// over R of P(T' > t(1 - e; df(R))), here by the midpoint rule on R's
// quantiles (2000 points).
double welch_power_by_the_variance_ratio(std::size_t n, double sd, double shift, double e) {
  const double ncp = shift / (sd * std::sqrt(2.0 / static_cast<double>(n))), df = 2.0 * static_cast<double>(n) - 2;
  const double half = (static_cast<double>(n) - 1) / 2;
  const boost::math::beta_distribution<double> ratio(half, half);
  const int points = 2000;
  double sum = 0;
  for (int i = 0; i < points; ++i) {
    const double r = boost::math::quantile(ratio, (i + 0.5) / points);
    const double critical = student_t_quantile(1 - e, (static_cast<double>(n) - 1) / (r * r + (1 - r) * (1 - r)));
    sum += t_test_power(ncp, df, 1 - student_t_cdf(critical, df));
  }
  return sum / points;
}

TEST(TPower, WelchPowerMatchesTheVarianceRatioIntegral) {
  for (std::size_t n : {2, 3, 5, 10})
    for (double shift : {0.0, 0.2, 0.4}) {
      const WelchPower w(TwoSampleDesign{n, n, 0.1, 0.1}, 0.025);
      EXPECT_NEAR(w.power(shift), welch_power_by_the_variance_ratio(n, 0.1, shift, 0.025), 2e-4) << n << " " << shift;
    }
}

// Welch's estimated df is at most the pooled one, so at few units its
// power is below the noncentral t's at df 2(n - 1), and with no shift it
// rejects less often than its error (1.76 % for 2.5 % at 3 a side, as
// bench/within_noise_rates counts on A/A experiments); at many units the
// two agree.
TEST(TPower, WelchPowerBelowThePooledTestsAtFewUnits) {
  const WelchPower three(TwoSampleDesign{3, 3, 0.1, 0.1}, 0.025);
  const double ncp = 0.3 / (0.1 * std::sqrt(2.0 / 3));
  EXPECT_LT(three.power(0.3), t_test_power(ncp, 4, 0.025) - 0.05);
  const WelchPower many(TwoSampleDesign{2000, 2000, 0.1, 0.1}, 0.025);
  EXPECT_NEAR(many.power(0.01), t_test_power(0.01 / (0.1 * std::sqrt(2.0 / 2000)), 3998, 0.025), 1e-4);
  EXPECT_LT(three.power(0), 0.02);
  EXPECT_NEAR(many.power(0), 0.025, 1e-4);
}

// Unequal sides, against Welch's test itself: 20000 simulated experiments
// of 3 units (sd 0.1) against 6 (sd 0.3) with a shift of 0.3, counted
// where stats::welch_t_test's one-sided p is below 2.5 %. The quadrature
// must fall within four standard errors of the count.
TEST(TPower, WelchPowerOfUnequalSidesMatchesSimulation) {
  const TwoSampleDesign d{3, 6, 0.1, 0.3};
  const double power = WelchPower(d, 0.025).power(0.3);
  kvmbench::test_support::Noise normal(41);
  const int trials = 20000;
  int found = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> base(3), cand(6);
    for (double& x : base) x = 0.1 * normal();
    for (double& x : cand) x = 0.3 + 0.3 * normal();
    const TestResult r = welch_t_test(summarize(cand), summarize(base));
    found += r.statistic > 0 && r.p / 2 < 0.025;
  }
  const double share = static_cast<double>(found) / trials;
  EXPECT_NEAR(power, share, 4 * std::sqrt(power * (1 - power) / trials));
}

// The detectable shift is where Welch's power reaches the target: n 3 a
// side, sd 0.1 (se 0.0816497).
TEST(TPower, DetectableShiftOfADesign) {
  const TwoSampleDesign d{3, 3, 0.1, 0.1};
  EXPECT_NEAR(standard_error(d), 0.0816497, 1e-7);
  const double shift = detectable_shift(d, 0.8, 0.025);
  EXPECT_NEAR(WelchPower(d, 0.025).power(shift), 0.8, 1e-9);
  // Welch at 3 a side needs more than the noncentral t at df 4 promises.
  EXPECT_GT(shift, ncp_for_power(0.8, 4, 0.025) * standard_error(d));
  // A 95 % detectable shift is larger than an 80 % one, and both shrink
  // with more units.
  EXPECT_GT(detectable_shift(d, 0.95, 0.025), shift);
  EXPECT_LT(detectable_shift(TwoSampleDesign{6, 6, 0.1, 0.1}, 0.8, 0.025), shift);
  EXPECT_EQ(detectable_shift(TwoSampleDesign{3, 3, 0, 0}, 0.8, 0.025), 0);
  EXPECT_TRUE(std::isnan(detectable_shift(TwoSampleDesign{1, 3, 0.1, 0.1}, 0.8, 0.025)));
  EXPECT_THROW(WelchPower(TwoSampleDesign{3, 3, -1, 0.1}, 0.025), std::invalid_argument);
}
