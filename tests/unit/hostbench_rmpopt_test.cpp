// The emulated RMPOPT sweep: the table's scan semantics and the sweep
// strategies' work are deterministic, so they are checked exactly; the
// benchmarks only for structure (names say "emulated", units, finite values).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "hostlib/measure/bench_threads.h"
#include "hostlib/measure/pinning.h"
#include "suites/rmpopt/emulated_sweep.h"
#include "suites/rmpopt/measure.h"

using namespace kvmbench;
using namespace kvmbench::host;
using namespace kvmbench::suites::rmpopt;

TEST(HostbenchRmpopt, LayoutsAndStrategiesParse) {
  EXPECT_EQ(to_string(parse_page_layout("none")), "none");
  EXPECT_EQ(to_string(parse_page_layout("last")), "last");
  EXPECT_EQ(to_string(parse_page_layout("random:7")), "random:7");
  for (const char* bad : {"", "middle", "random:", "random:0", "random:x", "random:3x"})
    EXPECT_THROW(parse_page_layout(bad), std::invalid_argument) << bad;
  for (SweepStrategy s : all_sweep_strategies()) EXPECT_EQ(parse_sweep_strategy(to_string(s)), s);
  EXPECT_FALSE(parse_sweep_strategy("everything").has_value());
}

TEST(HostbenchRmpopt, ScanStopsAtTheFirstAssignedEntry) {
  RmpLikeTable t(3, 100);
  EXPECT_EQ(t.bytes(), 3u * 100 * 16);
  t.apply_layout(parse_page_layout("none"));
  for (std::uint64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(t.scan_region(r), 100u);
    EXPECT_TRUE(t.region_clean_after_scan(r, 100));
  }
  t.apply_layout(parse_page_layout("first"));
  for (std::uint64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(t.scan_region(r), 1u);
    EXPECT_FALSE(t.region_clean_after_scan(r, 1));
  }
  t.apply_layout(parse_page_layout("last"));  // the reviewer's worst case
  for (std::uint64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(t.scan_region(r), 100u);
    EXPECT_FALSE(t.region_clean_after_scan(r, 100));
  }
  t.apply_layout(parse_page_layout("random:5"), 42);
  for (std::uint64_t r = 0; r < 3; ++r) {
    std::uint64_t n = t.scan_region(r);
    EXPECT_GE(n, 1u);
    EXPECT_LE(n, 100u);
    EXPECT_FALSE(t.region_clean_after_scan(r, n));
  }
  // Same seed, same placement.
  std::vector<std::uint64_t> a, b;
  t.apply_layout(parse_page_layout("random:2"), 9);
  for (std::uint64_t r = 0; r < 3; ++r) a.push_back(t.scan_region(r));
  t.apply_layout(parse_page_layout("random:2"), 9);
  for (std::uint64_t r = 0; r < 3; ++r) b.push_back(t.scan_region(r));
  EXPECT_EQ(a, b);
}

TEST(HostbenchRmpopt, StrategiesDoTheKernelLoopsWork) {
  std::vector<int> cpus = thread_affinity();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  cpus.resize(2);
  const std::uint64_t regions = 4, entries = 256;
  RmpLikeTable t(regions, entries);
  EmulatedSweeper sw(t, cpus, cpus);  // both primary

  t.apply_layout(parse_page_layout("none"));
  SweepResult one = sw.sweep(SweepStrategy::one_cpu);
  EXPECT_EQ(one.regions_visited, regions);
  EXPECT_EQ(one.entries_scanned, regions * entries);
  EXPECT_EQ(one.regions_optimized, (std::vector<std::uint64_t>{regions, 0}));
  EXPECT_GT(one.wall_ns, 0);

  // Leader first: the other CPU finds every region already clean and skips
  // the scan, but still marks it in its own table.
  SweepResult lf = sw.sweep(SweepStrategy::leader_first);
  EXPECT_EQ(lf.entries_scanned, regions * entries);
  EXPECT_EQ(lf.regions_optimized, (std::vector<std::uint64_t>{regions, regions}));
  ASSERT_EQ(lf.cpus, cpus);
  ASSERT_EQ(lf.busy_ns.size(), 2u);

  // All CPUs with a private page at the end of every region: nothing can be
  // optimized and every CPU reads every entry.
  t.apply_layout(parse_page_layout("last"));
  SweepResult all = sw.sweep(SweepStrategy::all_cpus);
  EXPECT_EQ(all.entries_scanned, 2 * regions * entries);
  EXPECT_EQ(all.regions_optimized, (std::vector<std::uint64_t>{0, 0}));

  // Dirty regions only: the loop visits just those.
  t.apply_layout(parse_page_layout("none"));
  SweepResult d = sw.sweep(SweepStrategy::dirty_regions, {1, 3});
  EXPECT_EQ(d.regions_visited, 2u);
  EXPECT_EQ(d.entries_scanned, 2 * entries);
  EXPECT_EQ(d.regions_optimized, (std::vector<std::uint64_t>{2, 2}));

  // Sweeps start clean each time and can be repeated.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(sw.sweep(SweepStrategy::all_cpus).regions_visited, regions);
  EXPECT_GT(sw.broadcast_round_ns(50), 0);
}

TEST(HostbenchRmpopt, BenchmarksReportEmulatedMetricsWithUnits) {
  RmpoptEmulationParams p;
  p.ram_gb = 2;
  p.entries_per_region = 1024;
  p.layouts = {"none", "last"};
  std::vector<Sample> got;
  BenchOutcome o = measure(p, [&](const Sample& s) { got.push_back(s); });
  const std::map<std::string, std::string> units = {
      {"emulated_sweep_wall", "ns"},      {"emulated_sweep_per_region", "ns"},
      {"emulated_sweep_cpu_busy", "ns"},  {"emulated_scan_bandwidth", "GB/s"},
      {"scan_cost_per_entry", "ns"},      {"broadcast_cost", "ns"},
      {"broadcast_cost_mean", "ns"},      {"broadcast_cost_p90", "ns"},
      {"read_bandwidth", "GB/s"}};
  std::set<std::string> variants;
  bool calibrated = false;
  for (const Sample& s : got) {
    ASSERT_TRUE(units.count(s.metric)) << s.metric;
    EXPECT_EQ(s.unit, units.at(s.metric));
    EXPECT_TRUE(std::isfinite(s.value) && s.value >= 0) << s.metric;
    EXPECT_NE(s.extra.value("emulation", "").find("not RMPOPT"), std::string::npos);
    if (s.case_name == "calibration") {
      calibrated = true;
      EXPECT_GT(s.value, 0) << s.metric;
    } else {
      EXPECT_EQ(s.metric.rfind("emulated_", 0), 0u) << s.metric;
      variants.insert(s.variant);
    }
    if (s.metric == "emulated_sweep_wall") {
      EXPECT_GT(s.value, 0);
    }
  }
  EXPECT_TRUE(calibrated);
  for (const SkippedCase& s : o.skipped) EXPECT_FALSE(s.reason.empty());
  // Every strategy ran or was skipped with a reason (single-CPU hosts).
  EXPECT_EQ(variants.size() + o.skipped.size() / p.layouts.size(), all_sweep_strategies().size());
}

TEST(HostbenchRmpopt, CalibrationsArePositive) {
  EXPECT_GT(measure_scan_cost_per_entry(1 << 20, 2), 0);
  EXPECT_GT(measure_read_bandwidth(1 << 20, 2), 0);
  EXPECT_GE(measure_broadcast_cost(1, 10), 0);
  BroadcastCost bc = measure_broadcast_costs(1, 20);
  EXPECT_LE(bc.median_ns, bc.p90_ns);
  EXPECT_GE(bc.mean_ns, 0);
  EXPECT_THROW(measure_broadcast_cost(100000, 1), std::invalid_argument);
  RmpoptEmulationParams p;
  p.strategies = {"sideways"};
  EXPECT_THROW(measure(p, [](const Sample&) {}), std::invalid_argument);
}
