// merge_fleet against values derived by hand.
#include "analysis/report/render/text_table.h"
#include "analysis/verdicts/fleet_merge.h"

#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

namespace kvmbench {
namespace {

ExportedRun run_of(const std::string& source, const std::string& status, const std::string& kernel,
                   std::vector<double> rep_values) {
  ExportedRun r;
  r.suite = "directmap";
  r.preset = "host";
  r.source = source;
  r.status = status;
  r.kernel = kernel;
  r.hostname = "h";
  ExportedMetric m;
  m.key = {"anon-4k", "", "faultin_rate", "GB/s"};
  m.units = rep_values.size();
  m.unit_level = "repetition";
  m.summary = stats::summarize(rep_values);
  r.metrics.push_back(m);
  return r;
}

TEST(FleetMerge, RunsOfAMachineAreItsUnitsAndOneRunKeepsItsOwn) {
  std::vector<FleetRun> in = {
      // Machine A: two runs, means 10 and 12.
      {run_of("hardware", "complete", "6.8", {9, 10, 11}), "aaaa"},
      {run_of("hardware", "complete", "6.9", {11, 12, 13}), "aaaa"},
      // Machine B: one run of five repetitions, and an interrupted one.
      {run_of("hardware", "complete", "6.8", {19, 20, 21, 20, 20}), "bbbb"},
      {run_of("hardware", "interrupted", "6.8", {100}), "bbbb"},
      // An emulated run: a table of its own, never pooled with hardware.
      {run_of("emulated", "complete", "6.1", {0.1, 0.2}), "cccc"},
  };
  const auto groups = merge_fleet(in);
  ASSERT_EQ(groups.size(), 2u);
  const FleetGroup& hw = groups[1].source == "hardware" ? groups[1] : groups[0];
  ASSERT_EQ(hw.metric_keys, std::vector<std::string>{"anon-4k/faultin_rate"});
  ASSERT_EQ(hw.rows.size(), 2u);

  const FleetRow& a = hw.rows[0];
  EXPECT_EQ(a.machine, "aaaa");
  EXPECT_EQ(a.complete_runs, 2u);
  EXPECT_EQ(a.kernels, "6.8,6.9");
  ASSERT_EQ(a.cells.size(), 1u);
  // Means 10 and 12: mean 11, sd sqrt(2), se 1; t(0.975, 1) = 12.7062047.
  EXPECT_EQ(a.cells[0].level, "runs");
  EXPECT_EQ(a.cells[0].summary.n, 2u);
  EXPECT_DOUBLE_EQ(a.cells[0].summary.mean, 11);
  EXPECT_NEAR(a.cells[0].summary.ci95_high - 11, 12.7062047, 1e-6);

  const FleetRow& b = hw.rows[1];
  EXPECT_EQ(b.complete_runs, 1u);
  EXPECT_EQ(b.other_runs, 1u);  // the interrupted run's 100 is in no value
  EXPECT_EQ(b.cells[0].level, "repetition");
  EXPECT_EQ(b.cells[0].summary.n, 5u);
  EXPECT_DOUBLE_EQ(b.cells[0].summary.mean, 20);

  const auto tables = fleet_tables(groups);
  ASSERT_EQ(tables.size(), 2u);
  const Table& t = groups[1].source == "hardware" ? tables[1] : tables[0];
  EXPECT_EQ(t.source, "hardware");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][4], "11 ±13 (n=2)");
  EXPECT_EQ(t.rows[1][2], "1+1");
  // Five repetitions 19..21, sd sqrt(0.5), se 0.316228, t(0.975, 4) = 2.776445: +-0.878.
  EXPECT_EQ(t.rows[1][4], "20 ±0.88 (n=5)");
}

TEST(FleetMerge, AMachineWithoutTheMetricHasADash) {
  ExportedRun none = run_of("hardware", "complete", "6.8", {1, 2});
  none.metrics.clear();
  const auto tables = fleet_tables(merge_fleet({{run_of("hardware", "complete", "6.8", {1, 2, 3}), "aaaa"},
                                                {none, "bbbb"}}));
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 2u);
  EXPECT_EQ(tables[0].rows[1][4], "-");
}

// A suite with many metrics on several machines: text puts the metrics in
// rows and the machines in columns, as many as fit 80 columns, and loses
// none of either (a row per machine with 24 metric columns was 559 wide).
TEST(FleetMerge, TextTablesFitEightyColumnsAndHoldEveryValue) {
  FleetGroup g{"directmap", "host", "hardware", {}, {}, {}};
  for (int m = 0; m < 24; ++m) {
    g.metric_keys.push_back(fmt::format("anon-4k/threads={}/unpinned/faultin_rate", m + 1));
    g.units.push_back("GB/s");
  }
  for (int h = 0; h < 5; ++h) {
    FleetRow r{fmt::format("{:016x}", 0xabcdef00 + h), fmt::format("lab-machine-{}", h), "6.12.43", 3, 0, {}};
    for (int m = 0; m < 24; ++m) {
      FleetCell c;
      c.runs = 3;
      c.summary = stats::summarize(std::vector<double>{10.0 + m + h, 11.0 + m + h, 12.0 + m + h});
      r.cells.push_back(c);
    }
    g.rows.push_back(std::move(r));
  }
  const auto tables = fleet_text_tables({g});
  ASSERT_GE(tables.size(), 3u);  // the machines, then the metrics in two tables at least
  EXPECT_EQ(tables[0].rows.size(), 5u);
  std::size_t machine_columns = 0;
  for (std::size_t i = 1; i < tables.size(); ++i) {
    EXPECT_EQ(tables[i].rows.size(), 24u);
    machine_columns += tables[i].columns.size() - 1;
  }
  EXPECT_EQ(machine_columns, 5u);
  std::string text;
  for (const Table& t : tables) text += render_text(t);
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    EXPECT_LE(nl - start, 80u) << text.substr(start, nl - start);
  // Machine 3's last metric: 10 + 23 + 3 = 36 of (35, 36, 37): sd 1, t(0.975, 2) 4.303 / sqrt(3): +-2.5.
  EXPECT_NE(text.find("36 ±2.5 (n=3)"), std::string::npos) << text;
  EXPECT_NE(text.find("lab-machine-4"), std::string::npos) << text;
}

// Text reads each metric's row in one unit scaled for reading, from the
// machines' means; the data formats keep the metric's own (ns).
TEST(FleetMerge, TextScalesEachMetricsRowForReading) {
  FleetGroup g{"rmpopt", "host", "emulated", {"one-cpu/sweep_wall"}, {"ns"}, {}};
  for (int h = 0; h < 2; ++h) {
    FleetRow r{fmt::format("{:016x}", 0x1000 + h), fmt::format("m{}", h), "6.1", 1, 0, {}};
    FleetCell c;
    c.runs = 1;
    // (4.0, 4.1, 4.2) x 10^8 ns and 10x less: means 410 ms and 41 ms, sd
    // 10 ms and 1 ms; half-CI t(0.975, 2) 4.3027 x sd / sqrt(3) = 24.8 ms
    // and 2.48 ms.
    const double f = h == 0 ? 1 : 0.1;
    c.summary = stats::summarize(std::vector<double>{4.0e8 * f, 4.1e8 * f, 4.2e8 * f});
    r.cells.push_back(c);
    g.rows.push_back(std::move(r));
  }
  std::string text;
  for (const Table& t : fleet_text_tables({g})) text += render_text(t);
  // The median of two means is the larger here (410 ms): ms for both.
  EXPECT_NE(text.find("one-cpu/sweep_wall (ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("410 ±25 (n=3)"), std::string::npos) << text;
  EXPECT_NE(text.find("41 ±2.5 (n=3)"), std::string::npos) << text;
  const auto data = fleet_tables({g});
  ASSERT_EQ(data.size(), 1u);
  EXPECT_NE(data[0].rows[0][4].text.find("410000000"), std::string::npos) << data[0].rows[0][4].text;
}

}  // namespace
}  // namespace kvmbench
