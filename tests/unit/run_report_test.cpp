#include "suites/engine/run_report.h"

#include <gtest/gtest.h>

using namespace kvmbench;

namespace {
Sample with_metric(const char* metric) { return {"c", "", metric, "x", 1, 0, false, {}}; }
}  // namespace

// ingest names a run's suite from its metrics; a directmap capture may hold
// only the host allocation rate (a meminfo series), not the guest's rate.
TEST(RunReport, InferSuiteFromMetrics) {
  EXPECT_EQ(engine::infer_suite({with_metric("total_cycles")}), "make_shared");
  EXPECT_EQ(engine::infer_suite({with_metric("sweep_time")}), "rmpopt");
  EXPECT_EQ(engine::infer_suite({with_metric("rmpopt_cycles_largest")}), "rmpopt");
  EXPECT_EQ(engine::infer_suite({with_metric("faultin_rate")}), "directmap");
  EXPECT_EQ(engine::infer_suite({with_metric("host_alloc_rate")}), "directmap");
  EXPECT_EQ(engine::infer_suite({with_metric("value")}), "");
  EXPECT_EQ(engine::infer_suite({}), "");
}

// The first sample a suite owns decides, wherever it is.
TEST(RunReport, InferSuiteSkipsSamplesNoSuiteOwns) {
  EXPECT_EQ(engine::infer_suite({with_metric("value"), with_metric("faultin_rate"), with_metric("total_cycles")}),
            "directmap");
}

// The layout of a run is its suite's; a suite name nothing registers has
// none, and neither has a suite for samples its layout does not read.
TEST(RunReport, LayoutTablesComeFromTheRunsSuite) {
  std::vector<Sample> rates;
  for (int i = 0; i < 3; ++i)
    rates.push_back({"anon-4k/threads=1", "unpinned", "faultin_rate", "GB/s", 1.0 + i, i, false, {}});
  const auto dm = engine::suite_layout_tables("directmap", rates, "hardware");
  ASSERT_FALSE(dm.empty());
  EXPECT_NE(dm.front().title.find("fault-in rate"), std::string::npos) << dm.front().title;
  EXPECT_TRUE(engine::suite_layout_tables("nosuch", rates, "hardware").empty());
  EXPECT_TRUE(engine::suite_layout_tables("make_shared", rates, "hardware").empty());
}
