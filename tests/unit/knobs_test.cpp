#include "hostlib/state/knobs.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "hostlib/state/knob_journal.h"
#include "tests/support/run_command.h"

using namespace kvmbench::host;
using kvmbench::test_support::read_text;
using kvmbench::test_support::write_text;
namespace fs = std::filesystem;

namespace {

// A fake sysfs/procfs tree and a private state directory (journal) for one
// test; the environment is put back afterwards.
struct FakeHost : ::testing::Test {
  kvmbench::test_support::TempDir dir;
  fs::path root, state;
  std::string saved_state;
  bool had_state = false;

  void SetUp() override {
    root = dir.path / "root";
    state = dir.path / "state";
    if (const char* s = std::getenv("KVMBENCH_STATE_DIR")) had_state = true, saved_state = s;
    ::setenv("KVMBENCH_STATE_DIR", state.c_str(), 1);
    write_text(root / "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
    write_text(root / "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n");
    write_text(root / "sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages", "0\n");
    write_text(root / "sys/module/kvm_amd/parameters/npt", "Y\n");
    write_text(root / "sys/module/kvm/parameters/halt_poll_ns", "200000\n");
    write_text(root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "schedutil\n");
    write_text(root / "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    write_text(root / "proc/sys/vm/drop_caches", "");
    ::chmod((root / "sys/module/kvm_amd/parameters/npt").c_str(), 0444);
  }
  void TearDown() override {
    if (had_state)
      ::setenv("KVMBENCH_STATE_DIR", saved_state.c_str(), 1);
    else
      ::unsetenv("KVMBENCH_STATE_DIR");
  }
  std::string thp() { return read_text(root / "sys/kernel/mm/transparent_hugepage/enabled"); }
};

}  // namespace

TEST(KnobValue, SelectedWordOrTrimmedText) {
  EXPECT_EQ(knob_value_from_text("always [madvise] never\n"), "madvise");
  EXPECT_EQ(knob_value_from_text("[always] madvise never"), "always");
  EXPECT_EQ(knob_value_from_text("1024\n"), "1024");
  EXPECT_EQ(knob_value_from_text("Y"), "Y");
  EXPECT_EQ(knob_value_from_text(""), "");
}

TEST_F(FakeHost, ScopeExitPutsBackAndJournalsBeforeAndAfter) {
  {
    KnobSet k(root);
    k.set_thp_enabled("never");
    EXPECT_EQ(thp(), "never");
    // Journaled before the change, with the full path and the old value.
    auto j = nlohmann::json::parse(read_text(knob_journal_path()).substr(0, read_text(knob_journal_path()).find('\n')));
    EXPECT_EQ(j["op"], "set");
    EXPECT_EQ(j["old"], "madvise");
    EXPECT_EQ(j["path"], (root / "sys/kernel/mm/transparent_hugepage/enabled").string());
    EXPECT_EQ(j["pid"], ::getpid());
  }
  EXPECT_EQ(thp(), "madvise");
  EXPECT_NE(read_text(knob_journal_path()).find("\"done\""), std::string::npos);
  auto rep = restore_dead_knob_changes();
  EXPECT_TRUE(rep.restored.empty());
  EXPECT_EQ(rep.kept_live, 0u);
  EXPECT_EQ(read_text(knob_journal_path()), "");  // finished changes are compacted away
}

TEST_F(FakeHost, KnobChangedTwiceEndsAtItsFirstValue) {
  KnobSet k(root);
  k.set_thp_enabled("never");
  k.set_thp_enabled("always");
  EXPECT_EQ(thp(), "always");
  EXPECT_TRUE(k.restore().empty());
  EXPECT_EQ(thp(), "madvise");
  EXPECT_TRUE(k.changes().empty());
}

TEST_F(FakeHost, TypedKnobs) {
  KnobSet k(root);
  EXPECT_EQ(k.set_hugepages(2048, 16), 16u);
  EXPECT_EQ(k.set_hugepages(1048576, 2, 0), 2u);
  EXPECT_THROW(k.set_hugepages(1048576, 2), std::runtime_error);  // no system-wide 1G pool in the fake tree
  EXPECT_THROW(k.set_hugepages(2048, 1, 3), std::runtime_error);  // no node 3
  EXPECT_EQ(k.set_kvm_param("kvm", "halt_poll_ns", "0"), "0");
  try {
    k.set_kvm_param("kvm_amd", "npt", "N");
    FAIL() << "read-only parameter accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
  }
  EXPECT_THROW(k.set_kvm_param("kvm_amd", "nope", "1"), std::runtime_error);
  k.set_governor("performance");
  EXPECT_EQ(read_text(root / "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor"), "performance");
  k.drop_caches(3);
  EXPECT_EQ(read_text(root / "proc/sys/vm/drop_caches"), "3");
  EXPECT_THROW(k.drop_caches(4), std::invalid_argument);
  EXPECT_TRUE(k.restore().empty());
  EXPECT_EQ(read_text(root / "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"), "0");
  EXPECT_EQ(read_text(root / "sys/module/kvm/parameters/halt_poll_ns"), "200000");
  EXPECT_EQ(read_text(root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"), "schedutil");
  EXPECT_EQ(read_text(root / "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor"), "powersave");
}

TEST_F(FakeHost, NoGovernorWithoutCpufreq) {
  fs::remove_all(root / "sys/devices/system/cpu");
  fs::create_directories(root / "sys/devices/system/cpu/cpu0");
  KnobSet k(root);
  EXPECT_THROW(k.set_governor("performance"), std::runtime_error);
}

TEST_F(FakeHost, DeadProcessChangesArePutBackFromTheJournal) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    KnobSet* k = new KnobSet(root);  // never destroyed: the process "crashes"
    k->set_thp_enabled("never");
    k->set_hugepages(2048, 8);
    _exit(0);  // no destructors, no atexit handlers: like SIGKILL
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(thp(), "never");
  auto rep = restore_dead_knob_changes();
  ASSERT_EQ(rep.restored.size(), 2u);
  EXPECT_TRUE(rep.restored[0].ok) << rep.restored[0].error;
  EXPECT_EQ(rep.restored[0].value, "0");  // newest first
  EXPECT_EQ(rep.restored[1].value, "madvise");
  EXPECT_EQ(rep.restored[0].pid, child);
  EXPECT_EQ(thp(), "madvise");
  EXPECT_EQ(read_text(root / "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"), "0");
  // Done: the journal no longer mentions them.
  EXPECT_EQ(read_text(knob_journal_path()), "");
  EXPECT_TRUE(restore_dead_knob_changes().restored.empty());
}

TEST_F(FakeHost, LiveProcessChangesAreKept) {
  KnobSet k(root);
  k.set_thp_enabled("never");
  auto rep = restore_dead_knob_changes();
  EXPECT_TRUE(rep.restored.empty());
  EXPECT_EQ(rep.kept_live, 1u);
  EXPECT_EQ(thp(), "never");
}

TEST_F(FakeHost, LinesFromAnEarlierBootAreDroppedNotWritten) {
  fs::create_directories(state);
  nlohmann::json line = {{"op", "set"}, {"pid", 1}, {"start", -12345}, {"boot", "another-boot"}, {"id", 1},
                         {"path", (root / "sys/kernel/mm/transparent_hugepage/enabled").string()}, {"old", "always"}};
  std::ofstream(knob_journal_path()) << line.dump() << "\n{\"op\":\"se";  // and a torn last line
  auto rep = restore_dead_knob_changes();
  EXPECT_EQ(rep.dropped_stale_boot, 1u);
  EXPECT_TRUE(rep.restored.empty());
  EXPECT_EQ(thp(), "always [madvise] never\n");
  EXPECT_EQ(read_text(knob_journal_path()), "");
}

TEST_F(FakeHost, NoChangeWithoutAJournal) {
  ::setenv("KVMBENCH_STATE_DIR", "/proc/kvmbench-no-such-dir", 1);
  KnobSet k(root);
  EXPECT_THROW(k.set_thp_enabled("never"), std::runtime_error);
  EXPECT_EQ(thp(), "always [madvise] never\n");
  EXPECT_THROW(k.set("/sys/does/not/exist", "1"), std::runtime_error);
}

TEST_F(FakeHost, EmergencyRestoreWritesOldValuesWithoutTheStack) {
  KnobSet k(root);
  k.set_thp_enabled("never");
  k.set_hugepages(2048, 4);
  emergency_restore_knobs();  // what the second SIGINT does before _exit
  EXPECT_EQ(thp(), "madvise");
  EXPECT_EQ(read_text(root / "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"), "0");
}
