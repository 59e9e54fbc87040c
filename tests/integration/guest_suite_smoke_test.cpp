// End to end: `kvmbench run SUITE --preset smoke` boots the guest image
// under TCG, runs the suite's workloads and prints their tables marked
// `emulated` (issue: guests, "done when").
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <set>

#include "analysis/model/metric_roles.h"
#include "analysis/store/run_store.h"
#include "hostlib/qemu/qemu_paths.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;


TEST(SuiteSmoke, AsidRunsEveryWorkloadInATcgGuest) {
  if (!kvmbench::host::find_qemu()) GTEST_SKIP() << kvmbench::host::find_qemu().reason;
  if (!kvmbench::host::default_guest_kernel()) GTEST_SKIP() << kvmbench::host::default_guest_kernel().reason;
  TempDir tmp;
  auto r = run_kvmbench({"run", "asid", "--preset", "smoke", "--set", "seconds=0.5", "--out", tmp.path.string()},
                        110, "", {kvmbench::test_support::private_state_dir_env()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("source: emulated"), std::string::npos) << r.out;
  fs::path dir;
  for (auto& e : fs::directory_iterator(tmp.path)) dir = e.path();
  auto run = kvmbench::load_run(dir);
  EXPECT_EQ(run.status(), "complete");
  EXPECT_EQ(run.source(), kvmbench::Source::emulated);
  std::set<std::string> metrics;
  std::set<std::string> variants;
  const auto roles = kvmbench::MetricRoles::from_json(run.meta.value("metric_roles", nlohmann::json()));
  for (auto& s : run.samples) {
    if (roles.is_monitor(s.metric)) continue;  // the host's counters, beside the suite's figures
    metrics.insert(s.metric);
    variants.insert(s.variant);
    // The native baseline runs on the host; the guest's under TCG.
    if (s.variant != "native") {
      EXPECT_EQ(s.extra.value("accel", ""), "tcg");
    }
  }
  EXPECT_EQ(variants, (std::set<std::string>{"native", "tcg"}));
  // The guest/native table, labelled as emulated.
  EXPECT_NE(r.out.find("asid: guest vs native"), std::string::npos) << r.out;
  EXPECT_NE(kvmbench::test_support::unwrapped(r.out).find("cpuid_rate tcg 1/1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("source: emulated (QEMU TCG: a functional check, not a performance figure)"), std::string::npos)
      << r.out;
  for (const char* m : {"transaction_rate", "throughput", "cpuid_rate", "time_per_round"})
    EXPECT_TRUE(metrics.count(m)) << "missing " << m;
  // Each guest's console is kept beside the samples.
  EXPECT_TRUE(fs::exists(dir / "raw" / "cpuid_rate.it0.console.log"));
}
