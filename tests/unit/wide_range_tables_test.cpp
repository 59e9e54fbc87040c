// Tables of runs whose values span many decades (a Google Benchmark file
// from ns to s, tests/data/gbench/wide_range_two.json): each row in a unit
// that keeps its digits, digits that follow the CI, no interval where two
// values cannot give one.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/report/case_table.h"
#include "analysis/views/comparison_rows.h"
#include "analysis/parse/gbench_json.h"
#include "analysis/stats/positive_ci.h"
#include "analysis/store/run_store.h"

using namespace kvmbench;

namespace {

std::vector<Sample> wide_range_samples() {
  return parsers::parse_gbench_json(read_file(std::string(KVMBENCH_TEST_DATA) + "/gbench/wide_range_two.json"))
      .result.samples;
}

}  // namespace

// 0.1 and 10: a t interval of 5.05 +- 12.706 * 4.95 reaches -57.8; on the
// log scale, sd(ln x) = ln(100) / sqrt(2) = 3.256 and the interval is
// exp(0 +- 12.706 * 3.256 / sqrt(2)) = [2e-13, 5e12]: neither is given.
TEST(MeanCi, TwoValuesFarApartGiveNoInterval) {
  const std::vector<double> far{0.1, 10};
  const MeanCi ci = mean_ci95(far, true);
  EXPECT_TRUE(ci.too_few);
  EXPECT_TRUE(std::isnan(ci.low) && std::isnan(ci.high));
  // Two close values keep their t interval: 400.2 +- 12.706 * 0.1414 / sqrt(2).
  const std::vector<double> close{400.1, 400.3};
  const MeanCi t = mean_ci95(close, true);
  EXPECT_FALSE(t.too_few);
  EXPECT_NEAR(t.low, 400.2 - 1.27062, 1e-4);
  // A signed quantity keeps its t interval, however wide.
  EXPECT_FALSE(mean_ci95(far, false).too_few);
}

TEST(CaseTable, RowsSpanningDecadesReadEachInItsOwnUnit) {
  const auto tables = case_tables(wide_range_samples(), "replay");
  ASSERT_EQ(tables.size(), 2u);  // real_time and cpu_time
  const Table& real = tables[0];
  EXPECT_EQ(real.title, "# real_time");
  EXPECT_EQ(data_title(real), "real_time");
  const auto rows = text_rows(real);
  ASSERT_EQ(rows.size(), 3u);
  // 3.947 and 3.197 ns: mean 3.57 ns, its CI would reach below zero at n = 2.
  EXPECT_EQ(rows[0], (std::vector<std::string>{"BM_Increment", "3.57 ns", "0.53 ns", "2", "n/a"}));
  EXPECT_EQ(rows[1][1], "4.60 ms");
  // 1.00633 and 1.00398 s: the t interval 1.005 +- 0.0149 s, which leaves
  // the second decimal uncertain.
  EXPECT_EQ(rows[2], (std::vector<std::string>{"BM_Sleep/1000/iterations:1", "1.01 s", "0.002 s", "2",
                                               "[0.99, 1.02] s"}));
  // The cells keep their values in the samples' unit.
  EXPECT_NEAR(*real.rows[0][1].value, 3.5717302, 1e-6);
  EXPECT_EQ(real.rows[0][1].unit, "ns");
  bool too_few = false, per_row = false;
  for (auto& n : real.notes) {
    too_few = too_few || n.starts_with("n/a at n = 2:");
    per_row = per_row || n == "each row in its own unit: the means span 3.57 ns to 1.01 s";
  }
  EXPECT_TRUE(too_few);
  EXPECT_TRUE(per_row);
  // A table whose rows read well in one unit keeps it in its title; CSV
  // and JSON, in the samples' unit, name none there.
  std::vector<Sample> ms = {{"a", "", "wall", "ns", 1.5e6, 0, false, {}}, {"b", "", "wall", "ns", 2.5e6, 0, false, {}}};
  const Table one = case_tables(ms, "replay").front();
  EXPECT_EQ(one.title, "# wall (ms)");
  EXPECT_EQ(data_title(one), "wall");
}

// 45.28 s, sd 0.0896 s, n = 3: the CI half-width 4.303 * 0.0896 / sqrt(3)
// = 0.22 s leaves the first decimal uncertain.
TEST(CompareRender, MeanAndSdInTheRowsReadingUnitWithTheDigitsOfItsCi) {
  MetricComparison m;
  m.key.unit = "ns";
  m.in_base = m.in_cand = true;
  m.base = stats::summary_from_moments(4.528e10, 8.9557e7, 3);
  m.cand = stats::summary_from_moments(4.1e10, 7e7, 3);
  const ReadingScale scale = row_scale(m);
  EXPECT_EQ(scale.unit, "s");
  EXPECT_EQ(format_mean_sd(m.base, true, scale), "45.3 ± 0.1 (3)");
  EXPECT_EQ(format_mean_sd(stats::summary_from_moments(14.47, NAN, 1), true, reading_scale(14.47, "ns")), "14.5 (1)");
}
