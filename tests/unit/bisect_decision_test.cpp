// bisect-run's answer from the references and one measured commit: good,
// bad, or skip when the evidence does not decide (midway between the two
// levels, or references that do not differ).
#include <gtest/gtest.h>

#include "analysis/verdicts/bisect_decision.h"
#include "analysis/report/render/renderer.h"
#include "analysis/views/bisect_view.h"

using namespace kvmbench;

namespace {

// `runs` invocations of 3 repetitions each, run k's repetitions at
// level * (1 + d_k) * (1 + e_i), with fixed deviations (sd about 0.5 %
// between runs, 0.3 % within).
ComparisonSide side(double level, int runs) {
  static const double between[] = {0.004, -0.006, 0.002, 0.007, -0.003, -0.005, 0.001, 0.006, -0.002, -0.004};
  static const double within[] = {0.003, -0.002, -0.001};
  std::vector<ComparisonSide> inv;
  for (int k = 0; k < runs; ++k) {
    std::vector<Sample> samples;
    for (int i = 0; i < 3; ++i) {
      Sample s;
      s.case_name = "thp";
      s.metric = "faultin_rate";
      s.unit = "GB/s";
      s.iteration = i;
      s.value = level * (1 + between[k % 10]) * (1 + within[i]);
      samples.push_back(s);
    }
    ComparisonSide c;
    c.label = "run" + std::to_string(k);
    c.source = Source::hardware;
    c.series = group_series(samples);
    inv.push_back(std::move(c));
  }
  return runs == 1 ? inv[0] : merge_invocations(std::move(inv));
}

}  // namespace

TEST(BisectDecision, GoodBadAndSkip) {
  const ComparisonSide good = side(100, 10), bad = side(94, 10);
  // The run-level sd is about 0.48 (0.48 % of 100); a commit at 94 is 6 / 0.5
  // = 12 such sds from good and at bad's level: bad. At 100: good.
  BisectDecision d = decide_bisect(good, bad, side(94, 1), 0.01);
  EXPECT_EQ(d.answer, BisectAnswer::bad) << render(bisect_document(d), Format::text);
  EXPECT_EQ(exit_code(d.answer), 1);
  ASSERT_EQ(d.metrics.size(), 1u);
  EXPECT_NEAR(d.metrics[0].good_to_bad_pct, -6, 0.1);
  d = decide_bisect(good, bad, side(100, 1), 0.01);
  EXPECT_EQ(d.answer, BisectAnswer::good) << render(bisect_document(d), Format::text);
  EXPECT_EQ(exit_code(d.answer), 0);
  // Midway (97): off both levels by 6 sds: neither is its level.
  d = decide_bisect(good, bad, side(97, 1), 0.01);
  EXPECT_EQ(d.answer, BisectAnswer::skip) << render(bisect_document(d), Format::text);
  EXPECT_EQ(exit_code(d.answer), 125);
  // Past bad the wrong way (106: better than good): not "bad".
  d = decide_bisect(good, bad, side(106, 1), 0.01);
  EXPECT_EQ(d.answer, BisectAnswer::skip) << render(bisect_document(d), Format::text);
  // References that do not differ: nothing to bisect, whatever the commit.
  d = decide_bisect(good, side(100, 10), side(94, 1), 0.01);
  EXPECT_EQ(d.answer, BisectAnswer::skip);
  EXPECT_TRUE(d.metrics.empty());
  EXPECT_NE(d.reason.find("nothing to bisect"), std::string::npos);
  EXPECT_THROW(decide_bisect(good, bad, side(94, 1), 0), std::invalid_argument);
}
