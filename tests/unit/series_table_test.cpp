#include "analysis/report/render/text_table.h"
#include "analysis/report/series_table.h"
#include "analysis/report/numbers.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kvmbench;

TEST(SeriesTable, FormatSig) {
  EXPECT_EQ(format_sig(130), "130");
  EXPECT_EQ(format_sig(6616067680), "6616067680");
  EXPECT_EQ(format_sig(141.42135623), "141.421");
  EXPECT_EQ(format_sig(0.0012345678), "0.00123457");
  EXPECT_EQ(format_sig(-2.5), "-2.5");
  EXPECT_EQ(format_sig(0), "0");
  EXPECT_EQ(format_sig(NAN), "n/a");
  EXPECT_EQ(format_sig(1.5e-9), "1.5e-09");
  // Whole numbers as they are, shorter or longer than `sig`, and above the
  // fixed range in its exponent form.
  EXPECT_EQ(format_sig(-1048576), "-1048576");
  EXPECT_EQ(format_sig(7, 3), "7");
  EXPECT_EQ(format_sig(-42, 6), "-42");
  EXPECT_EQ(format_sig(99999999999999.0), "99999999999999");
  EXPECT_EQ(format_sig(1e15), "1e+15");
  EXPECT_EQ(format_sig(2.5e15), "2.5e+15");
}

TEST(SeriesTable, OneColumnPerSeriesOneTablePerCase) {
  std::vector<Sample> s;
  for (int i = 0; i < 3; ++i) {
    s.push_back({"c1", "", "total_cycles", "cycles", 10.0 + i, i, false, {}});
    s.push_back({"c1", "v", "pct", "%", 1.0 * i, i, false, {}});
    s.push_back({"c2", "", "total_cycles", "cycles", 5, i, i == 0, {}});
  }
  auto t = series_summary_tables(s, "replay");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].title, "c1");
  EXPECT_EQ(t[0].source, "replay");
  ASSERT_EQ(t[0].columns.size(), 3u);
  EXPECT_EQ(t[0].columns[2].header, "v/pct");
  EXPECT_EQ(t[0].rows[1][1], "3");   // n
  EXPECT_EQ(t[0].rows[2][1], "11");  // mean
  EXPECT_EQ(t[0].rows[3][1], "1");   // sd
  EXPECT_EQ(t[1].rows[1][1], "2");   // the warm-up is left out
  EXPECT_EQ(t[1].rows[3][1], "0");
}

TEST(SeriesTable, SplitsWideCasesToFitTheWidth) {
  std::vector<Sample> s;
  for (int m = 0; m < 8; ++m)
    for (int i = 0; i < 2; ++i)
      s.push_back({"c", "", "a_rather_long_metric_name_" + std::to_string(m), "ns", 1e9 + i, i, false, {}});
  auto t = series_summary_tables(s, "hardware", 80);
  ASSERT_GT(t.size(), 1u);
  std::size_t columns = 0;
  for (auto& x : t) {
    columns += x.columns.size() - 1;
    std::string text = render_text(x);
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      EXPECT_LE(nl - pos, 80u);
      pos = nl + 1;
    }
  }
  EXPECT_EQ(columns, 8u);
}

TEST(SeriesTable, MixedUnitsAreAnError) {
  std::vector<Sample> s = {{"c", "", "m", "ns", 1, 0, false, {}}, {"c", "", "m", "us", 1, 1, false, {}}};
  EXPECT_THROW(series_summary_tables(s, "replay"), std::runtime_error);
}

// A long kernel log makes one "group=N" case per group of prints: past the
// limit, that family is pooled into one table, while a small family (here
// nr_pages, 2 cases) keeps a table per case, in first-seen order.
TEST(SeriesTable, ManyCasesOfOneFamilyArePooled) {
  std::vector<Sample> s;
  s.push_back({"nr_pages=1", "", "total_cycles", "cycles", 100, 0, false, {}});
  for (int g = 1; g <= 30; ++g) {
    s.push_back({"group=" + std::to_string(g), "", "rmpopt_cycles_largest", "cycles", 1.0 * g, 0, false, {}});
    s.push_back({"group=" + std::to_string(g), "", "rmpopt_cycles_smallest", "cycles", 60, 0, g == 30, {}});
  }
  s.push_back({"nr_pages=262144", "", "total_cycles", "cycles", 200, 0, false, {}});
  auto t = series_summary_tables(s, "replay", 80, 24);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].title, "nr_pages=1");
  EXPECT_EQ(t[1].title, "all 30 group=* cases pooled (from group=1 to group=30)");
  EXPECT_EQ(t[2].title, "nr_pages=262144");
  ASSERT_EQ(t[1].columns.size(), 3u);
  EXPECT_EQ(t[1].columns[1].header, "rmpopt_cycles_largest");
  EXPECT_EQ(t[1].rows[1][1], "30");    // n: one print per group
  EXPECT_EQ(t[1].rows[2][1], "15.5");  // mean of 1..30 = 31/2
  EXPECT_EQ(t[1].rows[1][2], "29");    // the warm-up (group 30) is left out
  EXPECT_FALSE(t[1].notes.empty());
  // Under the limit, or with no limit, nothing is pooled.
  EXPECT_EQ(series_summary_tables(s, "replay", 80, 0).size(), 32u);
  EXPECT_EQ(series_summary_tables(s, "replay", 80, 40).size(), 32u);
}

// A case with more series than are found by comparing (16) hashes its keys
// from then on: every sample must still land in its own series, also those
// of series made before the switch, with samples interleaved.
TEST(SeriesTable, ManySeriesInOneCaseKeepTheirSamples) {
  std::vector<Sample> s;
  for (int i = 0; i < 4; ++i)
    for (int m = 0; m < 40; ++m)
      s.push_back({"c", m % 2 ? "v" : "", "metric_" + std::to_string(m), "ns", 100.0 * m + i, i, false, {}});
  auto t = series_summary_tables(s, "replay", 100000);
  ASSERT_EQ(t.size(), 1u);
  ASSERT_EQ(t[0].columns.size(), 41u);
  for (int m = 0; m < 40; ++m) {
    const std::size_t col = static_cast<std::size_t>(m) + 1;
    EXPECT_EQ(t[0].columns[col].header, (m % 2 ? "v/metric_" : "metric_") + std::to_string(m));
    EXPECT_EQ(t[0].rows[1][col], "4") << m;                                    // n
    EXPECT_EQ(t[0].rows[2][col], format_sig(100.0 * m + 1.5)) << m;             // mean of m00+0..3
  }
}
