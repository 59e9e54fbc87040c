#include "analysis/verdicts/sequential_decision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/stats/statistics.h"

using namespace kvmbench;

// Hand-derived references. Every metric has 3 units a side with the sd of
// the logs 0.0911923 (the spread of {10, 11, 12}), se = 0.0744582, Welch's
// df = 4, where Student's t has the closed form F(t) = 1/2 + u(3 - u^2)/4,
// u = t / sqrt(t^2 + 4) (as regression_decision_test.cpp).
//  A/A, M = 50 %: t = -ln 1.5 / se = -5.44554, u = -0.938700,
//                 p_excluded = F(t) = 0.002761.
//  A/A, M = 30 %: t = -ln 1.3 / se = -3.52364, u = -0.869677,
//                 p_excluded = 0.012185.
//  twice as slow, M = 0: t = ln 2 / se = 9.30915, p_shown = 1 - F(t) =
//                 0.000371.
// Lan-DeMets O'Brien-Fleming-type spending, alpha(t) = 2 - 2 Phi(z(1 -
// a/2) / sqrt(t)); at the first look the boundary's nominal p is alpha(t)
// itself. At t = 3/6 = 0.5:
//  excluded, a = 0.05:  z(0.975) / sqrt(0.5) = 2.771808, 2 (1 - Phi) = 0.005575;
//  shown, a = 0.025:    z(0.9875) / sqrt(0.5) = 3.169822, 2 (1 - Phi) = 0.001525.
namespace {

const std::vector<double> kBase = {10, 11, 12};

MetricEvidence evidence(const std::string& key, std::vector<double> cand) {
  MetricEvidence e;
  e.key = key;
  e.model = change_model(kBase, cand, Direction::lower_is_better);
  return e;
}
MetricEvidence same(const std::string& key = "m") { return evidence(key, kBase); }
MetricEvidence twice_as_slow(const std::string& key = "m") { return evidence(key, {20, 22, 24}); }

SequentialPlan plan(double most, double margin) {
  SequentialPlan p;
  p.most_units = most;
  p.margin_pct = margin;
  return p;
}

}  // namespace

TEST(SequentialDecision, TheFirstLookSpendsTheOBrienFlemingShare) {
  const SequentialLook l = sequential_look(plan(6, 50), {}, 3, false, {same()});
  ASSERT_EQ(l.metrics.size(), 1u);
  EXPECT_NEAR(l.metrics[0].excluded_boundary, 0.005575, 2e-6);
  EXPECT_NEAR(l.metrics[0].shown_boundary, 0.001525, 2e-6);
  EXPECT_NEAR(l.metrics[0].p_excluded, 0.002761, 2e-6);
  EXPECT_EQ(l.metrics[0].finding, MetricFinding::regression_excluded);  // 0.002761 < 0.005575
  EXPECT_EQ(l.metrics[0].decided_at, 3);
  EXPECT_EQ(l.verdict, FamilyVerdict::pass);
  EXPECT_TRUE(l.ends());
}

// M = 30 %: p_excluded 0.012185 decides a fixed design of 3 a side
// (0.05), not the first of two looks (0.005575).
TEST(SequentialDecision, AnEarlyLookAsksForMoreThanAFixedDesign) {
  const SequentialLook early = sequential_look(plan(6, 30), {}, 3, false, {same()});
  EXPECT_NEAR(early.metrics[0].p_excluded, 0.012185, 2e-6);
  EXPECT_EQ(early.metrics[0].finding, MetricFinding::inconclusive);
  EXPECT_EQ(early.verdict, FamilyVerdict::inconclusive);
  EXPECT_FALSE(early.ends());
  // A single look at the budget is the fixed design: its levels alpha / 2
  // and alpha.
  const SequentialLook fixed = sequential_look(plan(3, 30), {}, 3, false, {same()});
  EXPECT_TRUE(fixed.last);
  EXPECT_NEAR(fixed.metrics[0].shown_boundary, 0.025, 1e-9);
  EXPECT_NEAR(fixed.metrics[0].excluded_boundary, 0.05, 1e-9);
  EXPECT_EQ(fixed.verdict, FamilyVerdict::pass);
}

TEST(SequentialDecision, ARegressionShownEndsTheExperimentWhateverTheOthers) {
  const SequentialLook l = sequential_look(plan(6, 0), {}, 3, false, {twice_as_slow("a"), same("b")});
  // Two metrics: shown at alpha / 4 = 0.0125, whose t = 0.5 share is
  // 2 - 2 Phi(z(0.99375) / sqrt(0.5)) = 2 - 2 Phi(3.532289) = 0.000412.
  EXPECT_NEAR(l.metrics[0].shown_boundary, 0.000412, 2e-6);
  EXPECT_NEAR(l.metrics[0].p_shown, 0.000371, 2e-6);
  EXPECT_EQ(l.metrics[0].finding, MetricFinding::regression_shown);
  EXPECT_EQ(l.metrics[1].finding, MetricFinding::inconclusive);
  EXPECT_EQ(l.verdict, FamilyVerdict::regression);
  EXPECT_TRUE(l.ends());
}

// A metric decided at a look stays decided: its tests have stopped.
TEST(SequentialDecision, ADecidedMetricStaysDecided) {
  const SequentialLook first = sequential_look(plan(6, 50), {}, 3, false, {same("a"), same("b")});
  // Two metrics: "excluded" at alpha / 2 = 0.025, whose t = 0.5 share is
  // 0.001525 (above): p_excluded 0.002761 is not below it.
  ASSERT_EQ(first.metrics[0].finding, MetricFinding::inconclusive);
  SequentialLook made_up = first;  // as if "a" had been excluded at the first look
  made_up.metrics[0].finding = MetricFinding::regression_excluded;
  made_up.metrics[0].decided_at = 3;
  const SequentialLook second =
      sequential_look(plan(6, 50), {made_up}, 4, false, {twice_as_slow("a"), evidence("b", {9.9, 11, 12})});
  EXPECT_EQ(second.metrics[0].finding, MetricFinding::regression_excluded);
  EXPECT_EQ(second.metrics[0].decided_at, 3);
  EXPECT_EQ(second.verdict, second.metrics[1].finding == MetricFinding::regression_excluded
                                ? FamilyVerdict::pass
                                : FamilyVerdict::inconclusive);
}

// The last look spends what is left: the crossing probabilities of all the
// looks' boundaries under no change add up to the whole error (checked
// through exit_probabilities, apart from how the boundaries were found).
TEST(SequentialDecision, TheLastLookSpendsWhatIsLeft) {
  const SequentialLook first = sequential_look(plan(8, 25), {}, 3, false, {same()});
  ASSERT_FALSE(first.ends());
  const SequentialLook last = sequential_look(plan(8, 25), {first}, 5, true, {same()});
  EXPECT_TRUE(last.last);
  const std::vector<double> info = {3, 5}, lower = {-INFINITY, -INFINITY};
  for (auto [bound0, bound1, error] :
       {std::tuple{first.metrics[0].excluded_boundary, last.metrics[0].excluded_boundary, 0.05},
        std::tuple{first.metrics[0].shown_boundary, last.metrics[0].shown_boundary, 0.025}}) {
    const std::vector<double> upper = {stats::normal_quantile(1 - bound0), stats::normal_quantile(1 - bound1)};
    const stats::ExitProbabilities e = stats::exit_probabilities(info, lower, upper);
    EXPECT_NEAR(e.upper[0] + e.upper[1], error, 1e-6);
  }
  // Not the last: less is spent by 5 of 8 than by the end.
  const SequentialLook not_last = sequential_look(plan(8, 25), {first}, 5, false, {same()});
  EXPECT_LT(not_last.metrics[0].excluded_boundary, last.metrics[0].excluded_boundary);
  EXPECT_FALSE(not_last.ends());
  // A/A at M = 25 %: t = -ln 1.25 / se = -2.99690, u = -0.831785,
  // p_excluded = 0.020032: above the share spent by 5 of 8, 2 - 2 Phi(z(0.975)
  // / sqrt(0.625)) = 0.013168, below what the end allows.
  EXPECT_NEAR(last.metrics[0].p_excluded, 0.020032, 2e-6);
  EXPECT_GT(not_last.metrics[0].excluded_boundary, 0.0);
  EXPECT_EQ(not_last.verdict, FamilyVerdict::inconclusive);
  EXPECT_EQ(last.verdict, FamilyVerdict::pass);
}

TEST(SequentialDecision, UnequalSidesCountAsTheirHarmonicMean) {
  EXPECT_DOUBLE_EQ(look_information(3, 3), 3);
  EXPECT_DOUBLE_EQ(look_information(3, 2), 2.4);
  EXPECT_DOUBLE_EQ(look_information(0, 0), 0);
}

TEST(SequentialDecision, BadLooksAreRefused) {
  const SequentialLook first = sequential_look(plan(6, 30), {}, 3, false, {same()});
  const SequentialLook ended = sequential_look(plan(6, 50), {}, 3, false, {same()});
  EXPECT_THROW(sequential_look(plan(1, 30), {}, 2, false, {same()}), std::invalid_argument);
  EXPECT_THROW(sequential_look(plan(6, -1), {}, 3, false, {same()}), std::invalid_argument);
  EXPECT_THROW(sequential_look(plan(6, 30), {}, 3, false, {}), std::invalid_argument);
  EXPECT_THROW(sequential_look(plan(6, 30), {}, 1.5, false, {same()}), std::invalid_argument);
  EXPECT_THROW(sequential_look(plan(6, 30), {}, 7, false, {same()}), std::invalid_argument);
  EXPECT_THROW(sequential_look(plan(6, 30), {first}, 3, false, {same()}), std::invalid_argument);
  EXPECT_THROW(sequential_look(plan(6, 50), {ended}, 4, false, {same()}), std::invalid_argument);
  SequentialPlan p = plan(6, 30);
  p.alpha = 1;
  EXPECT_THROW(sequential_look(p, {}, 3, false, {same()}), std::invalid_argument);
}
