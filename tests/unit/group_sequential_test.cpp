#include "analysis/stats/group_sequential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/stats/statistics.h"

using namespace kvmbench::stats;

// Jennison and Turnbull, "Group Sequential Methods with Applications to
// Clinical Trials" (2000), tables 2.1 and 2.3: the constants of Pocock's
// and O'Brien and Fleming's two-sided tests at alpha = 0.05 with K equally
// spaced looks, to three decimals.
TEST(GroupSequential, PocockConstantsOfJennisonAndTurnbull) {
  const double table[] = {1.960, 2.178, 2.289, 2.361, 2.413};
  for (std::size_t k = 1; k <= 5; ++k) EXPECT_NEAR(pocock_constant(k, 0.05), table[k - 1], 5e-4) << "K = " << k;
}

TEST(GroupSequential, OBrienFlemingConstantsOfJennisonAndTurnbull) {
  const double table[] = {1.960, 1.977, 2.004, 2.024, 2.040};
  for (std::size_t k = 1; k <= 5; ++k) EXPECT_NEAR(obrien_fleming_constant(k, 0.05), table[k - 1], 5e-4) << "K = " << k;
}

// rpact's own unit tests (rpact 3.x, tests/testthat/
// test-f_design_group_sequential.R, removed from the repository in commit
// 02bcd3a5), to seven digits:
//  - getDesignInverseNormal() (classical O'Brien-Fleming, K = 3, one-sided
//    alpha 0.025): critical values 3.4710914, 2.4544323, 2.0040356, i.e.
//    2.0040356 sqrt(3 / k): crossing them has probability 0.025.
//  - getDesignGroupSequential(kMax = 3, alpha = 0.13, typeOfDesign = "asOF",
//    informationRates = c(0.4, 0.75, 1), non-binding futility):
//    2.1280732, 1.4368565, 1.2468994.
//  - getDesignInverseNormal(kMax = 3, informationRates = c(0.2, 0.4, 1),
//    alpha = 0.03, typeOfDesign = "asHSD", gammaA = 0): spending 0.03 t,
//    2.5121443, 2.4228747, 2.0280392.
//  - getDesignGroupSequential(informationRates = c(0.4, 0.7),
//    typeOfDesign = "asP"): Pocock-type spending stopped at t = 0.7,
//    2.223875, 2.3050796.
// And the Lan-DeMets O'Brien-Fleming boundaries for three equally spaced
// looks at one-sided 0.025, as gsDesign (sfLDOF) and rpact (asOF) print
// them: 3.7103, 2.5114, 1.9930.
TEST(GroupSequential, ClassicalOBrienFlemingOfRpact) {
  const std::vector<double> info = {1, 2, 3};
  std::vector<double> lower(3, -INFINITY), upper(3);
  for (int k = 0; k < 3; ++k) upper[k] = 2.0040356 * std::sqrt(3.0 / (k + 1));
  const ExitProbabilities e = exit_probabilities(info, lower, upper);
  EXPECT_NEAR(upper[0], 3.4710914, 1e-7);
  EXPECT_NEAR(e.upper[0] + e.upper[1] + e.upper[2], 0.025, 1e-7);
}

TEST(GroupSequential, LanDeMetsBoundariesOfRpactAndGsDesign) {
  auto spending = [](SpendingFunction f, double alpha, double stop = 1) {
    return [=](double t) { return alpha_spent(f, alpha, t * stop); };
  };
  auto expect_bounds = [](const std::vector<double>& got, const std::vector<double>& want, double tol) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], tol) << "look " << k + 1;
  };
  expect_bounds(spending_boundaries(std::vector<double>{1, 2, 3}, spending(SpendingFunction::obrien_fleming, 0.025)),
                {3.7103, 2.5114, 1.9930}, 5e-5);
  expect_bounds(
      spending_boundaries(std::vector<double>{0.4, 0.75, 1}, spending(SpendingFunction::obrien_fleming, 0.13)),
      {2.1280732, 1.4368565, 1.2468994}, 1e-6);
  expect_bounds(spending_boundaries(std::vector<double>{0.2, 0.4, 1}, [](double t) { return 0.03 * t; }),
                {2.5121443, 2.4228747, 2.0280392}, 1e-6);
  expect_bounds(spending_boundaries(std::vector<double>{0.4, 0.7}, spending(SpendingFunction::pocock, 0.025, 0.7)),
                {2.223875, 2.3050796}, 1e-6);
}

// The spending functions' closed forms. O'Brien-Fleming type, alpha 0.05,
// t = 0.25: 2 (1 - Phi(1.959964 / 0.5)) = 2 (1 - Phi(3.919928)) = 8.8575e-5.
// Pocock type, t = 0.5: 0.05 ln(1 + (e - 1) / 2) = 0.05 ln 1.859141 =
// 0.0310058. Both spend all of alpha at t = 1 and nothing at 0.
TEST(GroupSequential, SpendingFunctions) {
  EXPECT_NEAR(alpha_spent(SpendingFunction::obrien_fleming, 0.05, 0.25), 8.8575e-5, 1e-8);
  EXPECT_NEAR(alpha_spent(SpendingFunction::pocock, 0.05, 0.5), 0.0310058, 1e-7);
  for (SpendingFunction f : {SpendingFunction::obrien_fleming, SpendingFunction::pocock}) {
    EXPECT_DOUBLE_EQ(alpha_spent(f, 0.05, 1), 0.05);
    EXPECT_EQ(alpha_spent(f, 0.05, 0), 0);
  }
}

// Two looks at information 1 and 2 with bounds 0 and 0: the statistics
// have correlation sqrt(1/2), and Sheppard's formula gives P(Z1 <= 0,
// Z2 <= 0) = 1/4 + asin(sqrt(1/2)) / (2 pi) = 1/4 + 1/8 = 0.375. So the
// first look is left above with probability 1/2, the second with
// 1 - 1/2 - 0.375 = 0.125.
TEST(GroupSequential, TwoLooksMatchTheBivariateNormalClosedForm) {
  const std::vector<double> info = {1, 2}, lower = {-INFINITY, -INFINITY}, upper = {0, 0};
  const ExitProbabilities e = exit_probabilities(info, lower, upper);
  EXPECT_NEAR(e.upper[0], 0.5, 1e-12);
  EXPECT_NEAR(e.upper[1], 0.125, 1e-7);
  EXPECT_EQ(e.lower[0], 0);
}

// With a drift, one look is the fixed test's power: 1 - Phi(1.96 - 2
// drift) at information 4.
TEST(GroupSequential, DriftMovesTheStatisticByItsInformation) {
  const std::vector<double> info = {4}, lower = {-1.96}, upper = {1.96};
  const ExitProbabilities e = exit_probabilities(info, lower, upper, 0.7);
  EXPECT_NEAR(e.upper[0], 1 - normal_cdf(1.96 - 1.4), 1e-12);
  EXPECT_NEAR(e.lower[0], normal_cdf(-1.96 - 1.4), 1e-12);
}

// One look is the fixed design: each test's boundary is its own error's
// quantile, and the finding is the fixed rule's.
TEST(GroupSequential, OneLookIsTheFixedTest) {
  SequentialDesign d;
  d.looks = {5};
  d.shown_error = 0.025;
  d.excluded_error = 0.05;
  const SequentialBoundaries b = sequential_boundaries(d);
  EXPECT_NEAR(b.shown_z[0], 1.959964, 1e-6);
  EXPECT_NEAR(b.excluded_z[0], 1.644854, 1e-6);
  EXPECT_NEAR(b.shown_p[0], 0.025, 1e-12);
  EXPECT_NEAR(b.excluded_p[0], 0.05, 1e-12);
  EXPECT_EQ(sequential_finding(b, 0, 0.02, 0.98), SequentialFinding::regression_shown);
  EXPECT_EQ(sequential_finding(b, 0, 0.97, 0.03), SequentialFinding::regression_excluded);
  EXPECT_EQ(sequential_finding(b, 0, 0.04, 0.96), SequentialFinding::undecided);
  EXPECT_THROW(sequential_finding(b, 1, 0.5, 0.5), std::out_of_range);
}

// Looks at 2, 4, 6, 8 units a side: O'Brien-Fleming-type spending keeps
// the early boundaries far out and the last one close to the fixed
// test's; each test crosses its boundaries with probability at most its
// error when the change sits on its null (drift 0).
TEST(GroupSequential, SequentialBoundariesSpendTheirErrors) {
  SequentialDesign d;
  d.looks = {2, 4, 6, 8};
  const SequentialBoundaries b = sequential_boundaries(d);
  ASSERT_EQ(b.shown_z.size(), 4u);
  for (std::size_t k = 1; k < 4; ++k) EXPECT_LT(b.shown_z[k], b.shown_z[k - 1]);
  EXPECT_GT(b.shown_z[0], 4);
  EXPECT_GT(b.shown_z[3], 1.959964);
  EXPECT_LT(b.shown_z[3], 2.1);
  const std::vector<double> info = {2, 4, 6, 8}, lower(4, -INFINITY);
  for (const auto& [z, alpha] : {std::pair{b.shown_z, d.shown_error}, std::pair{b.excluded_z, d.excluded_error}}) {
    const ExitProbabilities e = exit_probabilities(info, lower, z);
    EXPECT_NEAR(e.upper[0] + e.upper[1] + e.upper[2] + e.upper[3], alpha, 1e-7);
  }
  // Pocock-type spending stops earlier and pays at the end.
  d.shown_spending = SpendingFunction::pocock;
  const SequentialBoundaries p = sequential_boundaries(d);
  EXPECT_LT(p.shown_z[0], b.shown_z[0]);
  EXPECT_GT(p.shown_z[3], b.shown_z[3]);
}

TEST(GroupSequential, RefusesDesignsThatMeanNothing) {
  SequentialDesign d;
  d.looks = {1, 3};
  EXPECT_THROW(sequential_boundaries(d), std::invalid_argument);
  d.looks = {3, 3};
  EXPECT_THROW(sequential_boundaries(d), std::invalid_argument);
  d.looks = {};
  EXPECT_THROW(sequential_boundaries(d), std::invalid_argument);
  d.looks = {2, 4};
  d.excluded_error = 0.5;
  EXPECT_THROW(sequential_boundaries(d), std::invalid_argument);
  const std::vector<double> info = {2, 1}, bounds = {1, 1};
  EXPECT_THROW(exit_probabilities(info, bounds, bounds), std::invalid_argument);
  EXPECT_THROW(spending_boundaries(std::vector<double>{1, 2}, [](double t) { return 0.05 * (1 - t) + 0.01; }),
               std::invalid_argument);
}
