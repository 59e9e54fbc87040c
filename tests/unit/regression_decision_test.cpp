#include "analysis/verdicts/regression_decision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

using namespace kvmbench;

// Hand-derived cases, all with 3 units a side and the sd of the logs
// 0.0911923 on both sides (the spread of {10, 11, 12}), so se = 0.0744582
// and Welch's df = 4, where t(0.95; 4) = 2.131847, t(0.975; 4) = 2.776445
// (Student's t with 4 df has the closed form F(t) = 1/2 + u(3 - u^2)/4,
// u = t / sqrt(t^2 + 4)).
//
//  slower  base {10, 11, 12}, cand {20, 22, 24}: a time, twice as slow.
//          p = 1 - u(3 - u^2)/2 at t = ln 2 / 0.0744582 = 9.309: 0.000741;
//          95 % CI 2 exp(-+2.776445 x 0.0744582) - 1 = [+62.648, +145.930] %.
//  same    base {10, 11, 12}, cand {10, 11, 12}: A/A. p = 1, change 0,
//          95 % CI [-18.676, +22.965] %. One-sided bound at 95 % (one
//          metric): exp(2.131847 x 0.0744582) - 1 = +17.2025 %; at 97.5 %
//          (two metrics): +22.9649 %.
namespace {

const std::vector<double> kBase = {10, 11, 12};

MetricEvidence evidence(std::vector<double> cand, Direction d, double p_holm, double pct, double lo, double hi,
                        double level = 0.95) {
  MetricEvidence e;
  e.key = "m";
  e.model = change_model(kBase, cand, d);
  e.p_holm = p_holm;
  e.change = {pct, lo, hi};
  e.change.level = level;
  e.change.geometric = e.change.log_scale = true;
  return e;
}

MetricEvidence slower() { return evidence({20, 22, 24}, Direction::lower_is_better, 0.000741, 100, 62.648, 145.930); }
MetricEvidence same() { return evidence(kBase, Direction::lower_is_better, 1, 0, -18.676, 22.965); }

DecisionOptions margin(double m, DecisionMode mode = DecisionMode::within_noise) {
  DecisionOptions o;
  o.max_regression_pct = m;
  o.mode = mode;
  return o;
}

}  // namespace

TEST(RegressionDecision, AShownRegressionIsTodaysGateRule) {
  const FamilyDecision f = decide_regressions({slower()}, margin(10));
  EXPECT_EQ(f.verdict, FamilyVerdict::regression);
  EXPECT_EQ(exit_code(f.verdict), 1);
  ASSERT_EQ(f.metrics.size(), 1u);
  EXPECT_EQ(f.metrics[0].finding, MetricFinding::regression_shown);
  EXPECT_NEAR(f.metrics[0].worse_pct, 100, 1e-9);
  // The CI's favourable end (+62.6 %) is beyond 10 %, not beyond 70 %:
  // there the regression is neither shown nor excluded.
  EXPECT_EQ(decide_regressions({slower()}, margin(70)).metrics[0].finding, MetricFinding::inconclusive);
}

// A rate that halves: its change's CI is turned (gate.h): worse from
// -(-38.518 %) = +38.518 % up. Same logs as `slower`, mirrored:
// 0.5 exp(-+0.206730) - 1 = [-59.338, -38.518] %.
TEST(RegressionDecision, ARateRegressesDownwards) {
  const MetricEvidence halved = evidence({5, 5.5, 6}, Direction::higher_is_better, 0.000741, -50, -59.338, -38.518);
  EXPECT_EQ(decide_regressions({halved}, margin(10)).metrics[0].finding, MetricFinding::regression_shown);
  EXPECT_EQ(decide_regressions({halved}, margin(40)).metrics[0].finding, MetricFinding::inconclusive);
  // Twice as fast is no regression, however significant.
  const MetricEvidence doubled = evidence({20, 22, 24}, Direction::higher_is_better, 0.000741, 100, 62.648, 145.930);
  EXPECT_EQ(decide_regressions({doubled}, margin(10)).metrics[0].finding, MetricFinding::regression_excluded);
}

// A/A at one metric: the one-sided bound at 95 % is +17.2025 %: below a
// margin of 20 % (excluded, PASS), above one of 10 % (neither shown nor
// excluded: INCONCLUSIVE, exit 3).
TEST(RegressionDecision, ExcludedWhenTheBoundIsBelowTheMargin) {
  const FamilyDecision pass = decide_regressions({same()}, margin(20));
  EXPECT_EQ(pass.verdict, FamilyVerdict::pass);
  EXPECT_NEAR(pass.bound_level, 0.95, 1e-12);
  EXPECT_EQ(pass.metrics[0].finding, MetricFinding::regression_excluded);
  EXPECT_NEAR(pass.metrics[0].excluded_beyond_pct, 17.2025, 1e-3);
  EXPECT_FALSE(pass.metrics[0].units_to_decide);

  const FamilyDecision open = decide_regressions({same()}, margin(10));
  EXPECT_EQ(open.verdict, FamilyVerdict::inconclusive);
  EXPECT_EQ(exit_code(open.verdict), 3);
  EXPECT_EQ(open.metrics[0].finding, MetricFinding::inconclusive);
}

// Units that would decide the A/A metric against 10 %: ln 1.1 /
// (0.0911923 sqrt(2/n)) = 1.045156 sqrt(n/2) must exceed t(0.95; 2n - 2):
// n = 6 gives 1.810264 < 1.812461, n = 7 gives 1.955309 > 1.782288.
TEST(RegressionDecision, AnInconclusiveMetricSaysWhatWouldDecideIt) {
  const FamilyDecision f = decide_regressions({same()}, margin(10));
  ASSERT_TRUE(f.metrics[0].units_to_decide);
  EXPECT_EQ(*f.metrics[0].units_to_decide, 7u);
  EXPECT_NE(f.metrics[0].reason.find("about 7 units a side"), std::string::npos) << f.metrics[0].reason;
}

// Two metrics: the level is 1 - 0.05 / 2 = 97.5 %, and the A/A bound
// +22.9649 %. Against 20 % it is no longer excluded; against 30 % both
// A/A metrics are.
TEST(RegressionDecision, TheFamilysLevelIsOneMinusAlphaOverK) {
  const FamilyDecision two = decide_regressions({same(), same()}, margin(20));
  EXPECT_NEAR(two.bound_level, 0.975, 1e-12);
  EXPECT_NEAR(two.metrics[0].excluded_beyond_pct, 22.9649, 1e-3);
  EXPECT_EQ(two.verdict, FamilyVerdict::inconclusive);
  EXPECT_EQ(decide_regressions({same(), same()}, margin(30)).verdict, FamilyVerdict::pass);
  // One shown regression makes the family's verdict, whatever the rest.
  EXPECT_EQ(decide_regressions({same(), slower()}, margin(20)).verdict, FamilyVerdict::regression);
}

// Today's meaning on request: fail only on a shown regression.
TEST(RegressionDecision, SignificanceModeFailsOnlyOnAShownRegression) {
  EXPECT_EQ(decide_regressions({same()}, margin(10, DecisionMode::significance)).verdict, FamilyVerdict::pass);
  EXPECT_EQ(decide_regressions({slower()}, margin(10, DecisionMode::significance)).verdict, FamilyVerdict::regression);
}

// Without a margin nothing can be excluded against one: the decision is
// today's, and each metric still says what it excludes.
TEST(RegressionDecision, WithoutAMarginDecideAsTodayAndStateTheBound) {
  const FamilyDecision f = decide_regressions({same()}, DecisionOptions{});
  EXPECT_EQ(f.mode, DecisionMode::significance);
  EXPECT_EQ(f.verdict, FamilyVerdict::pass);
  EXPECT_EQ(f.metrics[0].finding, MetricFinding::inconclusive);
  EXPECT_NEAR(f.metrics[0].excluded_beyond_pct, 17.2025, 1e-3);
  EXPECT_FALSE(f.metrics[0].units_to_decide);
  EXPECT_NE(f.metrics[0].reason.find("a regression beyond +17.2"), std::string::npos) << f.metrics[0].reason;
  EXPECT_EQ(decide_regressions({slower()}, DecisionOptions{}).verdict, FamilyVerdict::regression);
}

// The MDE the decision states is the one its own rule has: shown at the
// family's level, a one-sided test at alpha / (2k), beyond the margin.
TEST(RegressionDecision, TheDetectableRegressionIsTheRulesOwn) {
  const FamilyDecision f = decide_regressions({same(), same()}, margin(5));
  const ChangeModel m = same().model;
  EXPECT_DOUBLE_EQ(f.metrics[0].detectable_80_pct, detectable_regression(m, 0.0125, 5).power_80_pct);
  EXPECT_DOUBLE_EQ(f.metrics[0].detectable_95_pct, detectable_regression(m, 0.0125, 5).power_95_pct);
  EXPECT_GT(f.metrics[0].detectable_95_pct, f.metrics[0].detectable_80_pct);
}

TEST(RegressionDecision, FamilyVerdictFromFindings) {
  using F = MetricFinding;
  EXPECT_EQ(family_verdict({F::regression_excluded, F::regression_excluded}, DecisionMode::within_noise),
            FamilyVerdict::pass);
  EXPECT_EQ(family_verdict({F::regression_excluded, F::inconclusive}, DecisionMode::within_noise),
            FamilyVerdict::inconclusive);
  EXPECT_EQ(family_verdict({F::inconclusive, F::regression_shown}, DecisionMode::within_noise),
            FamilyVerdict::regression);
  EXPECT_EQ(family_verdict({F::inconclusive}, DecisionMode::significance), FamilyVerdict::pass);
}

TEST(RegressionDecision, RefusesWhatMeansNothing) {
  EXPECT_THROW(decide_regressions({}, margin(5)), std::invalid_argument);
  EXPECT_THROW(decide_regressions({same()}, margin(-1)), std::invalid_argument);
  EXPECT_THROW(decide_regressions({same()}, margin(INFINITY)), std::invalid_argument);
  DecisionOptions o;
  o.alpha = 1;
  EXPECT_THROW(decide_regressions({same()}, o), std::invalid_argument);
  // Too few units: no bound, inconclusive, and said so.
  MetricEvidence one = same();
  one.model = change_model({10}, {10}, Direction::lower_is_better);
  const FamilyDecision f = decide_regressions({one}, margin(5));
  EXPECT_EQ(f.verdict, FamilyVerdict::inconclusive);
  EXPECT_NE(f.metrics[0].reason.find("no bound"), std::string::npos);
}
