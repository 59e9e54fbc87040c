// The kvm_amd reload the asid document preset makes for npt=off, through a
// real kvmbench process (the hidden `test-hold-knob --module`), against a
// fake sysfs tree and a fake modprobe (tests/support/fake_modprobe.h):
// Ctrl-C unwinds to the KnobSet destructor, which reloads the module with
// its old npt; after a SIGKILL `kvmbench restore` (or the next live run)
// does.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/fake_modprobe.h"
#include "tests/support/run_command.h"

using namespace kvmbench::test_support;
namespace fs = std::filesystem;

namespace {

struct NptReload : ::testing::Test {
  TempDir dir;
  fs::path root, state, script, npt;
  std::vector<std::string> env;
  void SetUp() override {
    root = dir.path / "root";
    state = dir.path / "state";
    script = dir.path / "fake-modprobe";
    npt = root / "sys/module/kvm_amd/parameters/npt";
    write_text(npt, "Y\n");
    write_text(root / "sys/module/kvm_amd/refcnt", "0\n");
    write_fake_modprobe(script);
    env = {"KVMBENCH_STATE_DIR=" + state.string(), "KVMBENCH_MODPROBE=" + script.string(),
           "FAKE_ROOT=" + root.string()};
  }

  // `kvmbench test-hold-knob --module kvm_amd npt 0`, once it says it holds
  // the reload. Its pid (own process group), or -1.
  pid_t start_holder() {
    return start_until_ready({KVMBENCH_BINARY, "test-hold-knob", "--root", root.string(), "--module", "kvm_amd", "npt",
                              "0"},
                             env, "holding");
  }
};

}  // namespace

TEST_F(NptReload, CtrlCReloadsTheModuleBackOnUnwind) {
  pid_t pid = start_holder();
  ASSERT_GT(pid, 0) << "test-hold-knob did not start";
  EXPECT_EQ(read_text(npt), "N\n");
  kill(-pid, SIGINT);  // the whole group, as a terminal does: modprobe is in its own
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(read_text(npt), "Y\n");
  EXPECT_EQ(read_text(root / "modprobe.log"), "rmmod kvm_amd\nfake-modprobe kvm_amd npt=0\nrmmod kvm_amd\nfake-modprobe kvm_amd npt=Y\n");
  auto r = run_kvmbench({"restore"}, 30, "", env);
  EXPECT_NE(r.out.find("0 setting(s) restored"), std::string::npos) << r.out << r.err;
}

TEST_F(NptReload, SigkilledHolderIsReloadedByRestore) {
  pid_t pid = start_holder();
  ASSERT_GT(pid, 0);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_EQ(read_text(npt), "N\n");  // nothing ran in the killed process
  auto r = run_kvmbench({"restore"}, 30, "", env);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_text(npt), "Y\n");
  EXPECT_NE(r.err.find("restored " + (root / "sys/module/kvm_amd").string() + " = 'npt=Y'"), std::string::npos)
      << r.err;
}

TEST_F(NptReload, TheNextLiveRunReloadsItToo) {
  pid_t pid = start_holder();
  ASSERT_GT(pid, 0);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto r = run_kvmbench(short_live_run(dir.path / "out"), 120, "", env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(npt), "Y\n");
}
