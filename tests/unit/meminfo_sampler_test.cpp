#include "hostlib/measure/meminfo_sampler.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "analysis/stats/rate_fit.h"
#include "tests/support/run_command.h"

using namespace kvmbench;
using namespace kvmbench::host;

TEST(MeminfoSampler, SamplesChosenFieldsWithIncreasingTimestamps) {
  test_support::TempDir dir;
  auto path = dir.path / "meminfo";
  std::ofstream(path) << "MemFree: 100 kB\nFileHugePages: 2048 kB\nHugePages_Free: 7\n";
  MeminfoSampler s({.fields = {"FileHugePages", "HugePages_Free", "Missing"},
                    .period = std::chrono::milliseconds(5),
                    .path = path.string()});
  s.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  s.stop();
  auto pts = s.points();
  ASSERT_GE(pts.size(), 2u);  // one at start, more from the thread (loaded machine: at least one)
  for (std::size_t i = 1; i < pts.size(); ++i) EXPECT_GT(pts[i].monotonic_ns, pts[i - 1].monotonic_ns);
  EXPECT_EQ(pts[0].values.at(0), 2048u * 1024);
  EXPECT_EQ(pts[0].values.at(1), 7u);
  EXPECT_FALSE(pts[0].values.at(2).has_value());
  EXPECT_EQ(s.read_errors(), 0u);
}

TEST(MeminfoSampler, SeriesFeedsTheRateFit) {
  test_support::TempDir dir;
  auto path = dir.path / "meminfo";
  MeminfoSampler s({.fields = {"FileHugePages"}, .period = std::chrono::seconds(1), .path = path.string()});
  // Sample by hand: the file changes between samples like a ramp.
  std::vector<int> kb = {0, 0, 1024, 2048, 3072, 4096, 4096};
  for (int v : kb) {
    std::ofstream(path, std::ios::trunc) << "FileHugePages: " << v << " kB\n";
    s.sample_now();
  }
  std::vector<double> t, v;
  s.series("FileHugePages", t, v);
  ASSERT_EQ(v.size(), kb.size());
  EXPECT_EQ(v[3], 2048.0 * 1024);
  auto r = fit_ramp_rate(t, v);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.begin, 1u);
  EXPECT_EQ(r.end, 5u);
  EXPECT_GT(r.fit.slope, 0);
  EXPECT_THROW(s.series("Other", t, v), std::invalid_argument);
}

TEST(MeminfoSampler, StopIsPromptWithALongPeriod) {
  MeminfoSampler s({.fields = {"MemTotal"}, .period = std::chrono::seconds(30), .path = "/proc/meminfo"});
  s.start();
  auto t0 = std::chrono::steady_clock::now();
  s.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  auto pts = s.points();
  ASSERT_EQ(pts.size(), 1u);
  ASSERT_TRUE(pts[0].values[0].has_value());
  EXPECT_GT(*pts[0].values[0], 0u);
}

TEST(MeminfoSampler, UnreadableFileIsAnError) {
  MeminfoSampler s({.fields = {"MemFree"}, .period = std::chrono::milliseconds(10), .path = "/nonexistent/meminfo"});
  EXPECT_THROW(s.start(), std::runtime_error);
  MeminfoSampler z({.fields = {"MemFree"}, .period = std::chrono::milliseconds(0), .path = "/proc/meminfo"});
  EXPECT_THROW(z.start(), std::runtime_error);
}
