// `--steady`'s settings (suites/engine/steady_host.h) on a made-up host
// tree: what it changes, what it leaves and why, and that the KnobSet puts
// everything back.
#include "suites/engine/steady_host.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/run_command.h"

using namespace kvmbench::host;
using namespace kvmbench::engine;
using kvmbench::test_support::read_text;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;
namespace fs = std::filesystem;

namespace {

const char* kOrder = "sys/module/page_reporting/parameters/page_reporting_order";
const char* kFeatures = "sys/bus/virtio/drivers/virtio_balloon/virtio0/features";
const char* kAslr = "proc/sys/kernel/randomize_va_space";
const char* kDefrag = "sys/kernel/mm/transparent_hugepage/defrag";
const char* kGovernor0 = "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor";
const char* kGovernor1 = "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor";

// A host as this VM is (a reporting balloon at order 9, ASLR 2) with
// cpufreq and THP defrag "always" added; the journal in a private state dir.
struct SteadyHost : ::testing::Test {
  TempDir dir;
  fs::path root;
  std::string saved_state;
  bool had_state = false;

  void SetUp() override {
    root = dir.path / "root";
    if (const char* s = std::getenv("KVMBENCH_STATE_DIR")) had_state = true, saved_state = s;
    ::setenv("KVMBENCH_STATE_DIR", (dir.path / "state").c_str(), 1);
    write_text(root / kFeatures, "0110010000000000000000000000000010000000\n");  // bit 5: reporting
    write_text(root / kOrder, "9\n");
    write_text(root / kAslr, "2\n");
    write_text(root / kDefrag, "[always] defer defer+madvise madvise never\n");
    write_text(root / kGovernor0, "schedutil\n");
    write_text(root / kGovernor1, "schedutil\n");
  }
  void TearDown() override {
    if (had_state)
      ::setenv("KVMBENCH_STATE_DIR", saved_state.c_str(), 1);
    else
      ::unsetenv("KVMBENCH_STATE_DIR");
  }
  std::string at(const char* rel) { return read_text(root / rel); }
  static const SteadySetting& named(const std::vector<SteadySetting>& all, const std::string& name) {
    for (const auto& s : all)
      if (s.name == name) return s;
    ADD_FAILURE() << "no setting " << name;
    return all.front();
  }
};

}  // namespace

TEST_F(SteadyHost, ChangesEachSettingAndPutsItBack) {
  {
    KnobSet knobs(root);
    const auto settings = make_host_steady(knobs, {});
    ASSERT_EQ(settings.size(), 4u);
    for (const auto& s : settings) EXPECT_TRUE(s.changed()) << s.name << ": " << s.left_why;
    EXPECT_EQ(at(kOrder), "11") << "one above MAX_PAGE_ORDER (10): nothing is reported";
    EXPECT_EQ(at(kAslr), "0");
    EXPECT_EQ(at(kGovernor0), "performance");
    EXPECT_EQ(at(kGovernor1), "performance");
    EXPECT_EQ(at(kDefrag), "madvise");
    EXPECT_EQ(named(settings, "free page reporting").was, "9");
    EXPECT_EQ(named(settings, "ASLR").was, "2");
    EXPECT_EQ(named(settings, "CPU frequency governor").was, "schedutil");
    EXPECT_EQ(named(settings, "THP defrag").was, "always");
    const auto j = steady_json(settings);
    ASSERT_EQ(j.size(), 4u);
    EXPECT_EQ(j[1]["setting"], "ASLR");
    EXPECT_EQ(j[1]["now"], "0");
    EXPECT_FALSE(j[1].contains("left"));
    EXPECT_EQ(steady_line(settings),
              "steady: free page reporting 9 -> 11, ASLR 2 -> 0, CPU frequency governor schedutil -> performance, "
              "THP defrag always -> madvise");
  }
  EXPECT_EQ(at(kOrder), "9");
  EXPECT_EQ(at(kAslr), "2");
  EXPECT_EQ(at(kGovernor0), "schedutil");
  EXPECT_EQ(at(kGovernor1), "schedutil");
  EXPECT_EQ(at(kDefrag), "always");
}

TEST_F(SteadyHost, LeavesWhatIsAlreadySteadyOrMeasuredOrAbsentAndSaysWhy) {
  write_text(root / kOrder, "11\n");
  write_text(root / kAslr, "0\n");
  fs::remove_all(root / "sys/devices/system/cpu");
  KnobSet knobs(root);
  const auto settings = make_host_steady(knobs, {.keep_thp_defrag = true});
  EXPECT_TRUE(knobs.changes().empty()) << "nothing to change";
  EXPECT_NE(named(settings, "free page reporting").left_why.find("already held off"), std::string::npos);
  EXPECT_EQ(named(settings, "ASLR").left_why, "already 0");
  EXPECT_NE(named(settings, "CPU frequency governor").left_why.find("no CPU has cpufreq"), std::string::npos);
  const auto& thp = named(settings, "THP defrag");
  EXPECT_NE(thp.left_why.find("measures THP"), std::string::npos);
  EXPECT_EQ(thp.now, "always");
  EXPECT_EQ(at(kDefrag), "[always] defer defer+madvise madvise never\n") << "left untouched";
  EXPECT_TRUE(steady_json(settings)[3].contains("left"));
  EXPECT_EQ(steady_line(settings).rfind("steady: nothing changed; left: free page reporting (already held off", 0),
            0u)
      << steady_line(settings);
}

TEST_F(SteadyHost, NoReportingBalloonAndDefragNotAlwaysAreLeft) {
  fs::remove(root / kFeatures);
  write_text(root / kDefrag, "always defer defer+madvise [madvise] never\n");
  KnobSet knobs(root);
  const auto settings = make_host_steady(knobs, {});
  EXPECT_EQ(named(settings, "free page reporting").left_why, "no virtio-balloon device here reports free pages");
  EXPECT_EQ(named(settings, "THP defrag").left_why, "already madvise (not always)");
  EXPECT_EQ(at(kOrder), "9\n") << "untouched";
}

// A kernel that clamps page_reporting_order to MAX_PAGE_ORDER answers the
// write of 11 with EINVAL. A file that reads but refuses every write, even
// to root, stands in for it: /proc/version (its text is no number, so the
// order reads as the default, 9).
TEST_F(SteadyHost, AReportingOrderTheKernelRefusesIsLeftWithItsAnswer) {
  fs::remove(root / kOrder);
  fs::create_symlink("/proc/version", root / kOrder);
  KnobSet knobs(root);
  const auto settings = make_host_steady(knobs, {});
  const auto& r = named(settings, "free page reporting");
  EXPECT_FALSE(r.changed());
  EXPECT_NE(r.left_why.find("cannot write '11'"), std::string::npos) << r.left_why;
  EXPECT_NE(r.left_why.find("still reported"), std::string::npos) << r.left_why;
  EXPECT_TRUE(named(settings, "ASLR").changed()) << "one refusal leaves the others to be made";
}
