// The generalized Pareto tail of permutation statistics
// (analysis/stats/permutation_tail.h): Hosking and Wallis's
// probability-weighted moments by hand, and tail p-values against the
// closed form of a known null distribution.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/stats/permutation_tail.h"

using namespace kvmbench::stats;

TEST(PermutationTail, MomentsByHand) {
  // y = 1, 2, 3: b0 = 2, b1 = (0/2 * 1 + 1/2 * 2 + 2/2 * 3) / 3 = 4/3,
  // a1 = b0 - b1 = 2/3, a0 - 2 a1 = 2/3, so sigma = 2 * 2 * (2/3) / (2/3)
  // = 4 and k = 2 / (2/3) - 2 = 1: the uniform distribution on [0, 4],
  // whose survival is 1 - y/4.
  const auto t = fit_pareto_tail(std::vector<double>{3, 1, 2});
  ASSERT_TRUE(t);
  EXPECT_NEAR(t->sigma, 4, 1e-12);
  EXPECT_NEAR(t->k, 1, 1e-12);
  EXPECT_NEAR(pareto_survival(*t, 1), 0.75, 1e-12);
  EXPECT_EQ(pareto_survival(*t, 5), 0);  // beyond the bounded tail's end
  EXPECT_EQ(pareto_survival(*t, 0), 1);
  // k = 0 is the exponential: survival exp(-y / sigma).
  EXPECT_NEAR(pareto_survival(ParetoTail{2, 0}, 3), std::exp(-1.5), 1e-15);
  // k = -0.5 (a heavy tail): (1 + 0.5 * 2 / 1)^(1 / -0.5) = 2^-2.
  EXPECT_NEAR(pareto_survival(ParetoTail{1, -0.5}, 2), 0.25, 1e-15);
}

TEST(PermutationTail, RefusesWhatHasNoTail) {
  EXPECT_FALSE(fit_pareto_tail(std::vector<double>{1, 2}));
  EXPECT_FALSE(fit_pareto_tail(std::vector<double>{2, 2, 2}));
  EXPECT_FALSE(fit_pareto_tail(std::vector<double>{-1, 2, 3}));
  std::vector<double> few(999, 1.0);
  EXPECT_FALSE(tail_p_value(few, 5));  // R < 4 * 250
}

TEST(PermutationTail, ExponentialNullGivesItsClosedForm) {
  // R = 4000 "permutation statistics" at the exponential distribution's
  // quantiles -ln(1 - (i - 0.5)/R): P(X >= 10) = exp(-10) = 4.54e-5, far
  // below 1/(R + 1). The 250 largest are over t = -ln(250/4000) = 2.77,
  // their excesses exponential again (memorylessness): p = 250/4000 *
  // exp(-(10 - t)) = exp(-10), to the fit's error.
  const std::size_t r = 4000;
  std::vector<double> null;
  for (std::size_t i = 1; i <= r; ++i) null.push_back(-std::log(1 - (static_cast<double>(i) - 0.5) / r));
  const auto p = tail_p_value(null, 10);
  ASSERT_TRUE(p);
  EXPECT_NEAR(std::log(*p), -10, 0.3);  // within 35 % of exp(-10)
  // Below the threshold there is no tail estimate: the exact count applies.
  EXPECT_FALSE(tail_p_value(null, 1.0));
  // A uniform null on [0, 1] (a bounded tail): beyond its end the estimate
  // is the floor; inside, about the share above.
  std::vector<double> uniform;
  for (std::size_t i = 1; i <= r; ++i) uniform.push_back((static_cast<double>(i) - 0.5) / r);
  EXPECT_EQ(*tail_p_value(uniform, 2), kSmallestTailP);
  EXPECT_NEAR(*tail_p_value(uniform, 0.99), 0.01, 0.002);
}
