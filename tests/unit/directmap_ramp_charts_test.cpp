// directmap's ramp pictures for the HTML report: the saved meminfo points
// and the fitted line over the ramp, from a run directory written here.
#include "suites/directmap/ramp_charts.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/run_command.h"

using namespace kvmbench;
namespace fs = std::filesystem;

namespace {

Sample alloc_rate(double gbps, nlohmann::json extra) {
  Sample s;
  s.case_name = "vcpus=1/bytes=32M";
  s.variant = "unpinned";
  s.metric = "host_alloc_rate";
  s.unit = "GB/s";
  s.value = gbps;
  s.iteration = 0;
  s.extra = std::move(extra);
  return s;
}

}  // namespace

TEST(DirectmapRampCharts, PointsOfTheSavedFieldAndTheFittedLineOverTheRamp) {
  test_support::TempDir run;
  fs::create_directories(run.path / "raw");
  std::ofstream(run.path / "raw" / "meminfo-unpinned.it0.csv") << "t_s,Shmem_bytes\n0,1000\n0.5,1000\n1,2e9\n1.5,4e9\n2,4e9\n";
  // Fitted 4 GB/s over [0.5, 1.5] s with intercept -2e9 bytes: the line
  // runs from (0.5, 0) to (1.5, 4e9).
  const auto s = alloc_rate(4, {{"meminfo_field", "Shmem"},
                                {"ramp_t_begin", 0.5},
                                {"ramp_t_end", 1.5},
                                {"fit_intercept_bytes", -2e9}});
  auto charts = suites::directmap::ramp_charts(run.path, {s});
  ASSERT_EQ(charts.size(), 1u);
  const Chart& c = charts[0];
  EXPECT_EQ(c.kind, Chart::Kind::xy);
  EXPECT_EQ(c.title, "vcpus=1/bytes=32M unpinned repetition 0: Shmem while the guest faulted in");
  ASSERT_EQ(c.xy.size(), 5u);
  EXPECT_DOUBLE_EQ(c.xy[3].x, 1.5);
  EXPECT_DOUBLE_EQ(c.xy[3].y, 4e9);
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_DOUBLE_EQ(c.lines[0].x0, 0.5);
  EXPECT_DOUBLE_EQ(c.lines[0].y0, 0);
  EXPECT_DOUBLE_EQ(c.lines[0].x1, 1.5);
  EXPECT_DOUBLE_EQ(c.lines[0].y1, 4e9);
  EXPECT_EQ(c.caption, "fitted 4 GB/s over 0.50-1.50 s");
}

TEST(DirectmapRampCharts, AnOlderRunHasThePointsAndSaysTheLineIsMissing) {
  test_support::TempDir run;
  fs::create_directories(run.path / "raw");
  std::ofstream(run.path / "raw" / "meminfo-unpinned.it0.csv") << "t_s,Shmem_bytes\n0,1\n1,2\n";
  auto charts = suites::directmap::ramp_charts(
      run.path, {alloc_rate(1, {{"ramp_t_begin", 0.0}, {"ramp_t_end", 1.0}}),
                 alloc_rate(1, {{"ramp_t_begin", 0.0}, {"ramp_t_end", 1.0}})});
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].xy.size(), 2u);
  EXPECT_TRUE(charts[0].lines.empty());
  EXPECT_NE(charts[0].caption.find("the line was not recorded"), std::string::npos) << charts[0].caption;
  // No file for the sample: a chart saying so, not an exception.
  auto none = suites::directmap::ramp_charts(run.path / "elsewhere", {alloc_rate(1, {})});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].xy.empty());
  EXPECT_NE(none[0].caption.find("raw/meminfo-unpinned.it0.csv is not in the run"), std::string::npos);
}
