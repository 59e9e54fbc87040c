#include "analysis/log_scale_retest.h"

#include <gtest/gtest.h>

#include "analysis/statistics.h"

using namespace kvmbench;

namespace {

MetricComparison tested(std::vector<double> base, std::vector<double> cand) {
  MetricComparison m;
  m.key = m.metric = "t";
  m.unit = "ms";
  m.direction = Direction::lower_is_better;
  m.status = MetricStatus::tested;
  m.tested = true;
  m.base = stats::summarize(base);
  m.cand = stats::summarize(cand);
  m.base_values = std::move(base);
  m.cand_values = std::move(cand);
  m.p_welch = stats::welch_t_test(m.base, m.cand).p;
  return m;
}

}  // namespace

// Reference values by hand. Equal spreads and n = 3 a side make Welch's
// df exactly 4, where Student's t has a closed form: the two-sided p of t
// is 1 - u(3 - u^2)/2 with u = t / sqrt(t^2 + 4).
//  A: {1,2,4} -> {2,4,8}: logs differ by ln 2 (ratio 2, +100%), sd of the
//     logs ln 2 both sides, se = ln2 * sqrt(2/3) = 0.565952, t = sqrt(1.5),
//     p = 0.287864.
//  B: {10,11,12} -> {20,22,24}: ln 2 again, sd of the logs 0.0911934,
//     se = 0.0744582, t = 9.30922, p = 0.000740980.
// Holm: B ranks first (p x 2 = 0.00148196), A second (0.287864). B's CI
// at 97.5% (t 3.495406 for df 4): exp(ln2 -+ 0.260259) -> [+54.170,
// +159.454]%; A's at 95% (t 2.776445): [-58.4465, +862.614]%.
TEST(LogScaleRetest, GeometricChangeWelchOnTheLogsAndHolmLevelCis) {
  Comparison c;
  c.alpha = 0.05;
  c.metrics = {tested({1, 2, 4}, {2, 4, 8}), tested({10, 11, 12}, {20, 22, 24})};
  retest_on_log_scale(c);
  const auto& a = c.metrics[0];
  const auto& b = c.metrics[1];
  EXPECT_NEAR(a.p_welch, 0.287864, 1e-6);
  EXPECT_NEAR(b.p_welch, 0.000740980, 1e-8);
  EXPECT_NEAR(b.p_holm, 0.00148196, 1e-8);
  EXPECT_NEAR(a.p_holm, 0.287864, 1e-6);
  EXPECT_NEAR(a.change.pct, 100, 1e-9);
  EXPECT_NEAR(b.change.pct, 100, 1e-9);
  EXPECT_NEAR(b.change.ci95_low, 54.1700, 1e-3);
  EXPECT_NEAR(b.change.ci95_high, 159.4539, 1e-3);
  EXPECT_NEAR(a.change.ci95_low, -58.4465, 1e-3);
  EXPECT_NEAR(a.change.ci95_high, 862.614, 1e-2);
  EXPECT_TRUE(a.change.log_scale && b.change.log_scale);
  // The CI agrees with the test: B's excludes no change and is slower, A's
  // holds it and is not significant.
  EXPECT_EQ(b.verdict, stats::Verdict::slower);
  EXPECT_EQ(a.verdict, stats::Verdict::no_significant_difference);
}

// A series with a value <= 0 keeps its linear test but takes part in Holm:
// A's p 0.287864 and the other's 0.5 -> both 0.575728 (A x 2, then the
// running maximum); A's CI at Holm's 97.5% for rank 1 (t 3.495406):
// exp(ln2 -+ 3.495406 * 0.565952) -> [-72.3373, +1345.99]%.
TEST(LogScaleRetest, ANonPositiveSeriesKeepsItsLinearTestButCountsInHolm) {
  Comparison c;
  c.alpha = 0.05;
  MetricComparison zero = tested({0, 1, 2}, {0, 1, 2});
  zero.p_welch = 0.5;
  c.metrics = {tested({1, 2, 4}, {2, 4, 8}), zero};
  retest_on_log_scale(c);
  EXPECT_NEAR(c.metrics[0].p_holm, 0.575728, 1e-6);
  EXPECT_NEAR(c.metrics[1].p_holm, 0.575728, 1e-6);
  EXPECT_EQ(c.metrics[1].p_welch, 0.5);
  EXPECT_FALSE(c.metrics[1].change.log_scale);
  EXPECT_NEAR(c.metrics[0].change.ci95_low, -72.3373, 1e-3);
  EXPECT_NEAR(c.metrics[0].change.ci95_high, 1345.99, 1e-1);
}
