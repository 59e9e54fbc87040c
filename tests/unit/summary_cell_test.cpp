#include "analysis/report/summary_cell.h"

#include <gtest/gtest.h>

#include <vector>

using namespace kvmbench;

// By hand: {10, 11, 12} ns: mean 11, sd 1, half-width t(0.975, 2) x 1 /
// sqrt(3) = 4.302653 / 1.732051 = 2.484: "11.0 ±2.5", well above zero.
TEST(SummaryCell, MeanAndHalfWidthInTheScaleGiven) {
  const std::vector<double> xs{10, 11, 12};
  const auto s = stats::summarize(xs);
  const Cell c = mean_ci_cell(s, reading_scale(11, "ns"), "ns");
  EXPECT_EQ(c.text, "11.0 ±2.5");
  ASSERT_TRUE(c.value.has_value());
  EXPECT_DOUBLE_EQ(*c.value, 11);
  EXPECT_FALSE(ci_reaches_zero(s, "ns"));
}

// By hand: {1, 2, 9} ns: mean 4, sd sqrt((9 + 4 + 25) / 2) = sqrt(19) =
// 4.358899, half-width 4.302653 x 4.358899 / 1.732051 = 10.828: the CI
// [-6.83, 14.83] reaches below zero, which a time cannot: shown as its
// high end, "4.00 ≤15". A signed unit (%) keeps the ± form.
TEST(SummaryCell, APositiveQuantitysCiBelowZeroIsShownAsItsBound) {
  const std::vector<double> xs{1, 2, 9};
  const auto s = stats::summarize(xs);
  EXPECT_TRUE(ci_reaches_zero(s, "ns"));
  EXPECT_EQ(mean_ci_cell(s, reading_scale(4, "ns"), "ns").text, "4.00 ≤15");
  EXPECT_FALSE(ci_reaches_zero(s, "%"));
  EXPECT_EQ(mean_ci_cell(s, reading_scale(4, "%"), "%").text, "4.00 ±11");
  // In its own scale, with the unit after it.
  EXPECT_EQ(mean_ci_cell(s, "ns").text, "4.00 ≤15 ns");
}
