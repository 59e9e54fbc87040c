// kvmbench history through the real binary: the primary metric by default,
// one machine, the HTML page, a regression that lasts one kernel and is
// fixed in the next, and bad input (exit 2 with the reason).
#include <gtest/gtest.h>

#include "tests/support/run_command.h"
#include "tests/support/synthetic_lab.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

TEST(HistoryCli, TableChartAndBadInput) {
  TempDir t;
  // 140 days: lab-snp-1's thp step (day 126, 6.11.0) is in it; and on
  // lab-plain-1, anon-4k 3 % slower in 6.10.0-rc5 only (days 70..83, 14
  // runs), fixed in 6.10.0.
  auto planted = kvmbench::test_support::planted_changes();
  planted.push_back({"lab-plain-1", "anon-4k", 70, 0.97, 84});
  kvmbench::test_support::write_synthetic_year(t.path / "runs", fs::path(KVMBENCH_TEST_DATA) / "hosts", 140, 2026,
                                               planted);
  const std::string db = (t.path / "lab.db").string();
  ASSERT_EQ(run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db}).exit_code, 0);
  auto r = run_kvmbench({"history", "directmap", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // directmap's host preset has one primary metric, faultin_rate; fault_ns
  // (derived from it) is not scanned.
  EXPECT_NE(r.out.find("# directmap faultin_rate (GB/s)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("fault_ns"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Holm over the\n# 9 series scanned"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("thp/1-thread faultin_rate: -"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first after: run 127, 6.11.0,"), std::string::npos) << r.out;
  r = run_kvmbench({"history", "directmap", "fault_ns", "--machine", "lab-snp-1", "--kernel-order", "release",
                    "--format", "html", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<svg"), std::string::npos);
  // The closing lines as text has them.
  EXPECT_NE(r.out.find("Holm over the\n# 3 series scanned"), std::string::npos);

  // The short regression: both edges, each at its kernel, found by the
  // windowed scan; the whole-segment scan alone finds neither.
  r = run_kvmbench({"history", "directmap", "--machine", "lab-plain-1", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6.10.0-rc5    14   2.105*"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first after: run 71, 6.10.0-rc5,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first after: run 85, 6.10.0,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("short changes: windows of 50 runs"), std::string::npos) << r.out;
  r = run_kvmbench({"history", "directmap", "--machine", "lab-plain-1", "--window", "0", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  no change points"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no scan for short changes (--window 0)"), std::string::npos) << r.out;
  r = run_kvmbench({"history", "directmap", "--machine", "lab-plain-1", "--window", "5", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("a window of 5 points cannot hold two segments of 3"), std::string::npos) << r.err;

  r = run_kvmbench({"history", "directmap", "--kernel-order", "alphabetical", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--kernel-order is 'time' or 'release'"), std::string::npos) << r.err;
  r = run_kvmbench({"history", "nosuite", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown suite 'nosuite'"), std::string::npos) << r.err;
  r = run_kvmbench({"history", "directmap", "--machine", "ffff", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no machine 'ffff'"), std::string::npos) << r.err;
  r = run_kvmbench({"history", "directmap", "--db", (t.path / "none.db").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
  r = run_kvmbench({"history", "directmap", "--alpha", "2", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
}
