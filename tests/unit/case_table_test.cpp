#include "analysis/report/render/text_table.h"
#include "analysis/report/case_table.h"
#include "analysis/report/numbers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "analysis/stats/positive_ci.h"

using namespace kvmbench;

namespace {

std::vector<Sample> series(const std::string& c, const std::string& v, const std::string& metric,
                           const std::string& unit, const std::vector<double>& values) {
  std::vector<Sample> out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out.push_back({c, v, metric, unit, values[i], static_cast<int>(i), false, {}});
  return out;
}

void append(std::vector<Sample>& to, const std::vector<Sample>& more) { to.insert(to.end(), more.begin(), more.end()); }

}  // namespace

// 10, 11, 12: mean 11, sd 1, t(0.975, 2) = 4.302653, so the t interval is
// 11 +- 4.302653 / sqrt(3) = 11 +- 2.484138: above zero, kept as it is.
TEST(MeanCi, TheTIntervalWhenItStaysAboveZero) {
  const std::vector<double> xs{10, 11, 12};
  const MeanCi ci = mean_ci95(xs, true);
  EXPECT_FALSE(ci.log_scale);
  EXPECT_NEAR(ci.low, 8.515862, 1e-6);
  EXPECT_NEAR(ci.high, 13.484138, 1e-6);
}

// 1, 10, 100: mean 37, sd 54.745, t interval 37 +- 135.99 reaches -99.
// The logs are 0, ln 10, 2 ln 10: mean ln 10, sd ln 10 (deviations of
// -+ln 10, squares summing to 2 ln^2 10, over n - 1 = 2), so the interval
// is exp(ln 10 +- 4.302653 ln 10 / sqrt(3)) = 10^(1 -+ 2.484138):
// [0.032799, 3048.86], around the geometric mean 10.
TEST(MeanCi, OnTheLogScaleWhenAPositiveQuantitysIntervalWouldCrossZero) {
  const std::vector<double> xs{1, 10, 100};
  const MeanCi ci = mean_ci95(xs, true);
  EXPECT_TRUE(ci.log_scale);
  EXPECT_NEAR(ci.low, 0.0327991, 1e-6);
  EXPECT_NEAR(ci.high, 3048.86, 0.01);
  // A quantity that may be negative keeps the t interval.
  const MeanCi signed_ci = mean_ci95(xs, false);
  EXPECT_FALSE(signed_ci.log_scale);
  EXPECT_NEAR(signed_ci.low, -98.99378, 1e-4);
  // So does a positive unit with a value at or below zero (no log of it).
  const std::vector<double> with_zero{0, 10, 100};
  EXPECT_FALSE(mean_ci95(with_zero, true).log_scale);
}

TEST(MeanCi, PositiveUnits) {
  EXPECT_TRUE(positive_unit("ns"));
  EXPECT_TRUE(positive_unit("GB/s"));
  EXPECT_TRUE(positive_unit("cycles"));
  EXPECT_FALSE(positive_unit("%"));
  EXPECT_FALSE(positive_unit(""));
}

// 3 significant digits, and one more per decade the CI is narrower than
// the third digit.
TEST(CaseTable, DecimalsFromTheInterval) {
  EXPECT_EQ(decimals_for(30.7335, 6.76), 1);    // 30.7
  EXPECT_EQ(decimals_for(1.922923, 0.0149), 2);  // 1.92: the CI is wider than 0.01
  EXPECT_EQ(decimals_for(1.922923, 0.0012), 3);  // 1.923
  EXPECT_EQ(decimals_for(1922.9, 0.04), 2);     // 1922.90
  EXPECT_EQ(decimals_for(402.1, NAN), 0);       // no CI: 3 significant
  EXPECT_EQ(decimals_for(0.00123, NAN), 5);     // 0.00123
}

TEST(CaseTable, OneTablePerMetricRowsOfCasesAndVariantsInOneReadingUnit) {
  std::vector<Sample> s;
  // 1.5, 2.0, 2.5 ms and 3 ms alone; a rate beside.
  append(s, series("a", "v1", "wall", "ns", {1.5e6, 2.0e6, 2.5e6}));
  append(s, series("a", "v2", "wall", "ns", {3e6}));
  append(s, series("b", "", "wall", "ns", {1e6, 1e6}));
  append(s, series("a", "v1", "bandwidth", "B/s", {30e9, 31e9, 32e9}));
  s.push_back({"a", "v1", "wall", "ns", 9e9, 5, true, {}});  // a warm-up: left out
  const auto tables = case_tables(s, "hardware");
  ASSERT_EQ(tables.size(), 2u);
  const Table& wall = tables[0];
  EXPECT_EQ(wall.title, "# wall (ms)");
  EXPECT_EQ(wall.source, "hardware");
  ASSERT_TRUE(wall.chart);
  EXPECT_EQ(wall.chart->interval, 4u);
  const auto rows = text_rows(wall);
  ASSERT_EQ(rows.size(), 3u);
  // mean 2 ms, sd 0.5, CI 2 +- 4.302653 * 0.5 / sqrt(3) = 2 +- 1.242: 3
  // significant digits ("2.00").
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a/v1", "2.00", "0.50", "3", "[0.76, 3.24]"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"a/v2", "3.00", "n/a", "1", "n/a"}));
  EXPECT_EQ(rows[2][0], "b");
  EXPECT_EQ(rows[2][4], "[1.00, 1.00]");
  // The cells keep the values in their own unit.
  EXPECT_EQ(wall.rows[0][1].value, 2e6);
  EXPECT_EQ(wall.rows[0][1].unit, "ns");
  ASSERT_TRUE(wall.rows[0][4].low);
  EXPECT_NEAR(*wall.rows[0][4].low, 2e6 - 4.302653 * 0.5e6 / std::sqrt(3.0), 1);
  // 31 GB/s +- 2.484: 3 significant digits.
  EXPECT_EQ(text_rows(tables[1])[0], (std::vector<std::string>{"a/v1", "31.0", "1.0", "3", "[28.5, 33.5]"}));
  EXPECT_EQ(tables[1].title, "# bandwidth (GB/s)");
  // Only the metrics asked for.
  EXPECT_EQ(case_tables(s, "hardware", [](std::string_view m) { return m == "bandwidth"; }).size(), 1u);
}

TEST(CaseTable, SaysWhenTheIntervalIsOnTheLogScale) {
  const auto tables = case_tables(series("c", "", "rate", "GB/s", {1, 10, 100}), "hardware");
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(text_rows(tables[0])[0][4], "[0.033, 3049]*");
  ASSERT_FALSE(tables[0].notes.empty());
  EXPECT_NE(tables[0].notes.front().find("geometric mean"), std::string::npos);
}

TEST(CaseTable, FitsEightyColumns) {
  std::vector<Sample> s;
  for (const char* layout : {"layout=none/ram=16G", "layout=random:4/ram=16G"})
    for (const char* v : {"one-cpu", "leader-primary"})
      append(s, series(layout, v, "emulated_sweep_wall", "ns", {1961174, 13717599, 17631083}));
  for (const Table& t : case_tables(s, "hardware")) {
    std::istringstream text(render_text(t));
    for (std::string line; std::getline(text, line);) EXPECT_LE(line.size(), 80u) << line;
  }
}

// Google Benchmark files give one benchmark's real_time in ns and
// another's in us: a table for each unit.
TEST(CaseTable, AMetricInTwoUnitsGetsATableForEach) {
  std::vector<Sample> s = series("BM_A", "", "real_time", "ns", {120, 130, 140});
  append(s, series("BM_B", "", "real_time", "us", {5, 6}));
  const auto tables = case_tables(s, "replay");
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].title, "# real_time (ns)");
  EXPECT_EQ(tables[1].title, "# real_time (us)");
}
