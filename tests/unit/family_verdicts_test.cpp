#include "analysis/verdicts/family_verdicts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "analysis/stats/statistics.h"

using namespace kvmbench;

namespace {

MetricComparison tested(std::vector<double> base, std::vector<double> cand) {
  MetricComparison m;
  m.key = {"", "", "t", "ms"};
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
TEST(FamilyVerdicts, GeometricChangeWelchOnTheLogsAndHolmLevelCis) {
  Comparison c;
  c.alpha = 0.05;
  c.metrics = {tested({1, 2, 4}, {2, 4, 8}), tested({10, 11, 12}, {20, 22, 24})};
  judge_tested_metrics(c, TestScale::log_where_positive);
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
TEST(FamilyVerdicts, ANonPositiveSeriesKeepsItsLinearTestButCountsInHolm) {
  Comparison c;
  c.alpha = 0.05;
  MetricComparison zero = tested({0, 1, 2}, {0, 1, 2});
  zero.p_welch = 0.5;
  c.metrics = {tested({1, 2, 4}, {2, 4, 8}), zero};
  judge_tested_metrics(c, TestScale::log_where_positive);
  EXPECT_NEAR(c.metrics[0].p_holm, 0.575728, 1e-6);
  EXPECT_NEAR(c.metrics[1].p_holm, 0.575728, 1e-6);
  EXPECT_EQ(c.metrics[1].p_welch, 0.5);
  EXPECT_FALSE(c.metrics[1].change.log_scale);
  EXPECT_NEAR(c.metrics[0].change.ci95_low, -72.3373, 1e-3);
  EXPECT_NEAR(c.metrics[0].change.ci95_high, 1345.99, 1e-1);
}

// Holm stops at rank 1 (p 0.001 < 0.05/3, then 0.03 >= 0.05/2): ranks 0
// is judged at 0.05/3, and ranks 1 and 2 at 0.05/2, the level where Holm
// stopped. Rank 2's raw p 0.04 is below 0.05/1: at that level its CI would
// exclude no change beside a verdict of no significant difference.
TEST(FamilyVerdicts, RanksFromWhereHolmStopsTakeItsLevel) {
  Comparison c;
  c.alpha = 0.05;
  c.metrics = {tested({1, 2, 3}, {1, 2, 3}), tested({1, 2, 3}, {1, 2, 3}), tested({1, 2, 3}, {1, 2, 3})};
  std::vector<double> seen(3, NAN);
  std::vector<FamilyMember> members;
  for (std::size_t i = 0; i < 3; ++i) {
    FamilyMember f;
    f.index = i;
    f.p = std::vector<double>{0.04, 0.001, 0.03}[i];
    f.base = c.metrics[i].base;
    f.cand = c.metrics[i].cand;
    f.interval = [&seen, i](double error) {
      seen[i] = error;
      return stats::Change{0, -1, 1};
    };
    members.push_back(f);
  }
  judge_family(c, members);
  EXPECT_DOUBLE_EQ(seen[1], 0.05 / 3);
  EXPECT_DOUBLE_EQ(seen[2], 0.05 / 2);
  EXPECT_DOUBLE_EQ(seen[0], 0.05 / 2);
  EXPECT_NEAR(c.metrics[0].change.level, 0.975, 1e-12);
  EXPECT_NEAR(c.metrics[1].p_holm, 0.003, 1e-12);
  EXPECT_NEAR(c.metrics[2].p_holm, 0.06, 1e-12);
  EXPECT_NEAR(c.metrics[0].p_holm, 0.06, 1e-12);  // the running maximum
}

// Fieller by hand: base mean 10, sd 1, n 4 (se^2 0.25); cand mean 12, sd 2,
// n 4 (se^2 1); df 4 at 95%: t 2.776445, t^2 7.708647. denom = 100 -
// 7.708647 * 0.25 = 98.072838; disc = 144 * 0.25 + 100 * 1 - 7.708647 *
// 0.25 = 134.072838; ratio (120 -+ t sqrt(disc)) / denom = (120 -+
// 32.148410) / 98.072838 -> [-10.4221, +55.1382]%.
TEST(FamilyVerdicts, FiellerAtAGivenLevelAndDf) {
  const auto base = stats::summary_from_moments(10, 1, 4), cand = stats::summary_from_moments(12, 2, 4);
  const stats::Change ch = fieller_change(base, cand, 0.05, 4);
  EXPECT_NEAR(ch.pct, 20, 1e-12);
  EXPECT_NEAR(ch.ci95_low, -10.4221, 1e-3);
  EXPECT_NEAR(ch.ci95_high, 55.1382, 1e-3);
  EXPECT_NEAR(ch.level, 0.95, 1e-12);
  // The base mean not distinguishable from 0 (base 1, sd 2, n 3: se^2 4/3,
  // denom = 1 - 7.708647 * 4/3 < 0). Against cand 12 (disc = 144 * 4/3 + 1 -
  // 7.708647 * 4/3 = 182.72 > 0) the set is two half-lines and the estimate
  // 12 lies in the upper one: unbounded above, and above ratio 1, as
  // Welch rejects ((12 - 1)^2 = 121 > t^2 (1 + 4/3) = 17.99).
  const stats::Change half = fieller_change(stats::summary_from_moments(1, 2, 3), cand, 0.05, 4);
  EXPECT_TRUE(std::isinf(half.ci95_high));
  EXPECT_GT(half.ci95_low, 0);
  // Against cand 1, sd 2, n 3 (disc = 4/3 + 4/3 - 7.708647 * 16/9 < 0): the
  // whole line, no bound.
  const stats::Change whole = fieller_change(stats::summary_from_moments(1, 2, 3),
                                             stats::summary_from_moments(1, 2, 3), 0.05, 4);
  EXPECT_TRUE(std::isnan(whole.ci95_low) && std::isnan(whole.ci95_high));
  // Two positive means: never below -100%.
  const stats::Change low = fieller_change(stats::summary_from_moments(10, 3, 3),
                                           stats::summary_from_moments(1, 0.5, 3), 0.05, 4);
  EXPECT_GE(low.ci95_low, -100);
}

// The property the verdicts owe their readers, on many random families and
// both scales: a tested metric's CI excludes no change exactly when its
// verdict is significant.
TEST(FamilyVerdicts, NoIntervalContradictsItsVerdict) {
  std::uint64_t state = 12345;
  auto uniform = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  std::size_t significant = 0, kept = 0;
  for (int family = 0; family < 200; ++family) {
    for (TestScale scale : {TestScale::log_where_positive, TestScale::linear}) {
      Comparison c;
      c.alpha = 0.05;
      const int k = 1 + family % 12;
      for (int j = 0; j < k; ++j) {
        const double shift = uniform() < 0.5 ? 1 : 1 + 2 * uniform();
        std::vector<double> b, a;
        for (int r = 0; r < 3 + family % 4; ++r) {
          b.push_back(10 * (0.5 + uniform()));
          a.push_back(10 * shift * (0.5 + uniform()));
        }
        c.metrics.push_back(tested(b, a));
      }
      judge_tested_metrics(c, scale);
      for (const auto& m : c.metrics) {
        // (NaN bounds, the whole line, exclude nothing.)
        const bool excludes = m.change.ci95_low > 0 || m.change.ci95_high < 0;
        const bool sig = m.p_holm < c.alpha;
        EXPECT_EQ(excludes, sig) << "p_holm " << m.p_holm << " CI [" << m.change.ci95_low << ", "
                                 << m.change.ci95_high << "] at " << m.change.level;
        (sig ? significant : kept) += 1;
      }
    }
  }
  // Both kinds of row occur, or the property says nothing.
  EXPECT_GT(significant, 50u);
  EXPECT_GT(kept, 50u);
}
