#include "analysis/report/render/text_table.h"
#include "suites/rmpopt/report.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "tests/support/run_command.h"

using namespace kvmbench;
using kvmbench::test_support::lines_of;
using kvmbench::test_support::occurrences;

namespace {

std::vector<Sample> cycle_groups(int groups) {
  std::vector<Sample> s;
  for (int g = 1; g <= groups; ++g)
    for (const char* stat : {"largest", "smallest", "average"})
      s.push_back({"group=" + std::to_string(g), "", std::string("rmpopt_cycles_") + stat, "cycles",
                   1000.0 * g + (stat[0] == 'l' ? 1 : stat[0] == 's' ? 2 : 3), 0, false, {}});
  return s;
}

}  // namespace

// The document's two groups sit side by side (a column each); a long log's
// thousands of groups only fit as a row each.
TEST(RmpoptReport, CycleStatsAcrossForFewGroupsDownForMany) {
  auto few = suites::rmpopt::report_tables(cycle_groups(2), "replay", "all-cpus", std::nullopt);
  ASSERT_FALSE(few.empty());
  ASSERT_EQ(few[0].columns.size(), 3u);
  EXPECT_EQ(few[0].columns[1].header, "group=1");
  EXPECT_EQ(few[0].rows[0][0], "largest");
  EXPECT_EQ(few[0].rows[0][2], "2001");  // group 2, largest

  auto many = suites::rmpopt::report_tables(cycle_groups(6), "replay", "all-cpus", 2.0);
  ASSERT_GE(many.size(), 2u);
  ASSERT_EQ(many[0].columns.size(), 4u);
  EXPECT_EQ(many[0].columns[1].header, "largest");
  ASSERT_EQ(many[0].rows.size(), 6u);
  EXPECT_EQ(many[0].rows[5][0], "group=6");
  EXPECT_EQ(many[0].rows[5][2], "6002");  // smallest
  // The wall-time table follows the same layout: 6003 cycles / 2 GHz.
  EXPECT_EQ(many[1].rows[5][3], "3001.5");
}

namespace {

Sample sweep(const std::string& strategy, const std::string& layout, int regions, double ns, bool warmup = false) {
  return {fmt::format("layout={}/ram={}G", layout, regions), strategy, "emulated_sweep_wall", "ns", ns, 0, warmup,
          {{"layout", layout}, {"strategy", strategy}, {"regions", regions}}};
}

}  // namespace

// The host preset: wall time per strategy (rows) and layout (columns), one
// table per table size, each layout in its own reading unit.
TEST(RmpoptReport, EmulatedSweepStrategyByLayoutTable) {
  std::vector<Sample> s = {
      // none: 2, 3, 4 ms -> mean 3.00 ms, sd 1 ms; 95% CI half-width
      // t(0.975, 2) * sd / sqrt(3) = 4.303 * 1 / 1.732 = 2.48 ms -> "±2.5".
      sweep("one-cpu", "none", 16, 2e6), sweep("one-cpu", "none", 16, 3e6), sweep("one-cpu", "none", 16, 4e6),
      // first: 1.0, 1.2, 1.4 us -> mean 1.20 us, sd 0.2, half-width 0.497 -> "±0.50".
      sweep("one-cpu", "first", 16, 1000), sweep("one-cpu", "first", 16, 1200), sweep("one-cpu", "first", 16, 1400),
      // all-cpus: one repetition in "none" (no CI), none in "first".
      sweep("all-cpus", "none", 16, 5e6),
      sweep("all-cpus", "none", 16, 9e9, /*warmup=*/true),  // not summarised
      // Another table size: its own table.
      sweep("one-cpu", "none", 64, 8e6),
  };
  auto tables = suites::rmpopt::report_tables(s, "hardware");
  ASSERT_EQ(tables.size(), 2u);
  const Table& t = tables[0];
  EXPECT_EQ(t.title, "Emulated sweep wall time over 16 GiB of RAM, per page layout");
  ASSERT_EQ(t.columns.size(), 3u);
  // Column "none": means 3 and 5 ms, scale from their median: ms.
  EXPECT_EQ(t.columns[1].header, "none, ms");
  EXPECT_EQ(t.columns[2].header, "first, us");
  const auto rows = text_rows(t);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"one-cpu", "3.00 ±2.5", "1.20 ±0.50"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"all-cpus", "5.00", "-"}));
  // The cell's value is the mean in the samples' unit (JSON, CSV, charts).
  ASSERT_TRUE(t.rows[0][1].value);
  EXPECT_DOUBLE_EQ(*t.rows[0][1].value, 3e6);
  EXPECT_EQ(t.rows[0][1].unit, "ns");
  ASSERT_TRUE(t.chart);
  EXPECT_EQ(t.chart->value, 1u);
  EXPECT_NE(t.notes[0].find("n = 1 to 3"), std::string::npos) << t.notes[0];
  EXPECT_EQ(tables[1].title, "Emulated sweep wall time over 64 GiB of RAM, per page layout");
  EXPECT_EQ(text_rows(tables[1])[0][1], "8.00");
  // Fits mail: 80 columns ("±" is two bytes, one column).
  for (const auto& line : lines_of(render_text(t))) EXPECT_LE(line.size() - occurrences(line, "±"), 80u) << line;
}

// The kernel's sweep line (document, ingest): the table's text is the
// document's ms with one decimal; its cells hold the ns (JSON, CSV, chart).
TEST(RmpoptReport, SweepTimeCellsCarryNanoseconds) {
  std::vector<Sample> s;
  for (double ns : {400e6, 420e6})  // mean 410 ms; sd sqrt(200) ms = 14.1 ms
    s.push_back({"range=2T", "all-cpus", "sweep_time", "ns", ns, 0, false, nlohmann::json::object()});
  const auto tables = suites::rmpopt::report_tables(s, "replay");
  ASSERT_EQ(tables.size(), 1u);
  const Table& w = tables[0];
  EXPECT_EQ(text_rows(w)[0], (std::vector<std::string>{"all-cpus", "2", "410.0", "14.1", "400.0", "420.0", "n/a"}));
  ASSERT_TRUE(w.rows[0][2].value);
  EXPECT_DOUBLE_EQ(*w.rows[0][2].value, 410e6);
  EXPECT_EQ(w.rows[0][2].unit, "ns");
  ASSERT_TRUE(w.chart);
  EXPECT_EQ(w.columns[w.chart->value].header, "mean (ms)");
}
