#include "suites/run_report.h"

#include <gtest/gtest.h>

using namespace kvmbench;

namespace {
Sample with_metric(const char* metric) { return {"c", "", metric, "x", 1, 0, false, {}}; }
}  // namespace

// ingest names a run's suite from its metrics; a directmap capture may hold
// only the host allocation rate (a meminfo series), not the guest's rate.
TEST(RunReport, InferSuiteFromMetrics) {
  EXPECT_EQ(suites::infer_suite({with_metric("total_cycles")}), "make_shared");
  EXPECT_EQ(suites::infer_suite({with_metric("sweep_time")}), "rmpopt");
  EXPECT_EQ(suites::infer_suite({with_metric("rmpopt_cycles_largest")}), "rmpopt");
  EXPECT_EQ(suites::infer_suite({with_metric("faultin_rate")}), "directmap");
  EXPECT_EQ(suites::infer_suite({with_metric("host_alloc_rate")}), "directmap");
  EXPECT_EQ(suites::infer_suite({with_metric("value")}), "");
  EXPECT_EQ(suites::infer_suite({}), "");
}
