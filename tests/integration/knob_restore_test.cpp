// A kvmbench process holding a knob change is SIGKILLed (no destructor, no
// signal handler runs); `kvmbench restore` must put the knob back from the
// journal. Runs in a fake root and a private state directory, so it never
// touches the real host.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/run_command.h"

using namespace kvmbench::test_support;
namespace fs = std::filesystem;

namespace {

// Starts `kvmbench test-hold-knob` and waits until it says it holds the
// knob. Returns its pid (its own process group), or -1.
pid_t start_holder(const fs::path& root, const fs::path& state, const std::string& path, const std::string& value) {
  return start_until_ready({KVMBENCH_BINARY, "test-hold-knob", "--root", root.string(), path, value},
                           {"KVMBENCH_STATE_DIR=" + state.string()}, "holding");
}

struct KnobRestore : ::testing::Test {
  TempDir dir;
  fs::path root, state, thp;
  void SetUp() override {
    root = dir.path / "root";
    state = dir.path / "state";
    thp = root / "sys/kernel/mm/transparent_hugepage/enabled";
    fs::create_directories(thp.parent_path());
    std::ofstream(thp) << "always [madvise] never\n";
  }
};

}  // namespace

TEST_F(KnobRestore, SigkilledHolderIsRestoredByRestoreCommand) {
  pid_t pid = start_holder(root, state, "/sys/kernel/mm/transparent_hugepage/enabled", "never");
  ASSERT_GT(pid, 0) << "test-hold-knob did not start";
  EXPECT_EQ(read_text(thp), "never");
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(read_text(thp), "never");  // nothing ran in the killed process

  auto r = run_kvmbench({"restore"}, 30, "", {"KVMBENCH_STATE_DIR=" + state.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_text(thp), "madvise");
  EXPECT_NE(r.err.find("restored " + thp.string()), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 setting(s) restored"), std::string::npos) << r.out;

  // Nothing left: a second restore has nothing to do.
  auto again = run_kvmbench({"restore"}, 30, "", {"KVMBENCH_STATE_DIR=" + state.string()});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("0 setting(s) restored"), std::string::npos) << again.out;
}

// A command that only reads files (or says what it is) leaves the journal
// and the knobs as they are: only a live run and `restore` put knobs back
// (suites/engine/dead_run_knobs.h).
TEST_F(KnobRestore, ReadOnlyCommandsLeaveTheJournalAlone) {
  pid_t pid = start_holder(root, state, "/sys/kernel/mm/transparent_hugepage/enabled", "always");
  ASSERT_GT(pid, 0);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  const fs::path journal = state / "knobs.journal";
  const std::string before = read_text(journal);
  ASSERT_NE(before.find("\"op\":\"set\""), std::string::npos) << before;
  const auto written = fs::last_write_time(journal);
  const std::vector<std::string> env = {"KVMBENCH_STATE_DIR=" + state.string()};
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"version"}, {"compare", (dir.path / "a").string(), (dir.path / "b").string()},
        {"report", (dir.path / "a").string()}, {"help"},
        {"run", "rmpopt", "--dry-run", "--out", (dir.path / "out").string()}}) {
    auto r = run_kvmbench(args, 60, "", env);
    EXPECT_NE(r.exit_code, -1) << args[0];
    EXPECT_EQ(read_text(thp), "always") << args[0] << " put the knob back";
    EXPECT_EQ(r.err.find("restored"), std::string::npos) << args[0] << ": " << r.err;
  }
  EXPECT_EQ(read_text(journal), before);
  EXPECT_EQ(fs::last_write_time(journal), written);
  // The change is still pending: `restore` finds it.
  auto r = run_kvmbench({"restore"}, 30, "", env);
  EXPECT_NE(r.out.find("1 setting(s) restored"), std::string::npos) << r.out << r.err;
}

TEST_F(KnobRestore, TheNextLiveRunRestoresBeforeItMeasures) {
  pid_t pid = start_holder(root, state, "/sys/kernel/mm/transparent_hugepage/enabled", "always");
  ASSERT_GT(pid, 0);
  EXPECT_EQ(read_text(thp), "always");
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto r = run_kvmbench(short_live_run(dir.path / "out"), 120, "", {"KVMBENCH_STATE_DIR=" + state.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(thp), "madvise");
  // Said once, by the one printer, before the run's first line.
  const std::string said = "kvmbench: restored " + thp.string() + " = 'madvise' (left by dead pid ";
  ASSERT_NE(r.err.find(said), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(said, r.err.find(said) + 1), std::string::npos) << r.err;
  EXPECT_LT(r.err.find(said), r.err.find("kvmbench: rmpopt / host")) << r.err;
}

TEST_F(KnobRestore, SigtermRestoresAtScopeExit) {
  pid_t pid = start_holder(root, state, "/sys/kernel/mm/transparent_hugepage/enabled", "never");
  ASSERT_GT(pid, 0);
  EXPECT_EQ(read_text(thp), "never");
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(read_text(thp), "madvise");
  // Marked done in the journal: restore finds nothing to do.
  auto r = run_kvmbench({"restore"}, 30, "", {"KVMBENCH_STATE_DIR=" + state.string()});
  EXPECT_NE(r.out.find("0 setting(s) restored"), std::string::npos) << r.out << r.err;
}

TEST_F(KnobRestore, RunningHolderIsLeftAlone) {
  pid_t pid = start_holder(root, state, "/sys/kernel/mm/transparent_hugepage/enabled", "never");
  ASSERT_GT(pid, 0);
  auto r = run_kvmbench({"restore"}, 30, "", {"KVMBENCH_STATE_DIR=" + state.string()});
  EXPECT_EQ(read_text(thp), "never");
  EXPECT_NE(r.err.find("still running"), std::string::npos) << r.err;
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  EXPECT_EQ(read_text(thp), "madvise");
}
