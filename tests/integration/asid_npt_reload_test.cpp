// The kvm_amd reload the asid document preset makes for npt=off, through a
// real kvmbench process (the hidden `test-hold-knob --module`), against a
// fake sysfs tree and a fake modprobe (a shell script written here):
// Ctrl-C unwinds to the KnobSet destructor, which reloads the module with
// its old npt; after a SIGKILL `kvmbench restore` (or the next start) does.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "tests/support/run_command.h"

using namespace kvmbench::test_support;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* kFakeModprobe = R"(#!/bin/sh
root="$FAKE_ROOT"
echo "$*" >> "$root/modprobe.log"
if [ "$1" = "-r" ]; then rm -rf "$root/sys/module/$2"; exit 0; fi
m=$1; shift
d="$root/sys/module/$m"
mkdir -p "$d/parameters"
echo 0 > "$d/refcnt"
echo Y > "$d/parameters/npt"
for a in "$@"; do
  k=${a%%=*}; v=${a#*=}
  case $v in 1|y|Y) v=Y;; 0|n|N) v=N;; esac
  echo "$v" > "$d/parameters/$k"
done
)";

struct NptReload : ::testing::Test {
  TempDir dir;
  fs::path root, state, script, npt;
  std::vector<std::string> env;
  void SetUp() override {
    root = dir.path / "root";
    state = dir.path / "state";
    script = dir.path / "fake-modprobe";
    npt = root / "sys/module/kvm_amd/parameters/npt";
    fs::create_directories(npt.parent_path());
    std::ofstream(npt) << "Y\n";
    std::ofstream(root / "sys/module/kvm_amd/refcnt") << "0\n";
    std::ofstream(script) << kFakeModprobe;
    ::chmod(script.c_str(), 0755);
    env = {"KVMBENCH_STATE_DIR=" + state.string(), "KVMBENCH_MODPROBE=" + script.string(),
           "FAKE_ROOT=" + root.string()};
  }

  // `kvmbench test-hold-knob --module kvm_amd npt 0`, once it says it holds
  // the reload. Its pid (own process group), or -1.
  pid_t start_holder() {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return -1;
    std::vector<std::string> envs = env;
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      dup2(out[1], 1);
      for (auto& e : envs) putenv(e.data());
      execl(KVMBENCH_BINARY, KVMBENCH_BINARY, "test-hold-knob", "--root", root.c_str(), "--module", "kvm_amd", "npt",
            "0", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    std::string got;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (got.find("holding") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out[0], POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[256];
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    close(out[0]);
    if (got.find("holding") == std::string::npos) {
      kill(-pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return -1;
    }
    return pid;
  }
};

}  // namespace

TEST_F(NptReload, CtrlCReloadsTheModuleBackOnUnwind) {
  pid_t pid = start_holder();
  ASSERT_GT(pid, 0) << "test-hold-knob did not start";
  EXPECT_EQ(slurp(npt), "N\n");
  kill(-pid, SIGINT);  // the whole group, as a terminal does: modprobe is in its own
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(slurp(npt), "Y\n");
  EXPECT_EQ(slurp(root / "modprobe.log"), "-r kvm_amd\nkvm_amd npt=0\n-r kvm_amd\nkvm_amd npt=Y\n");
  auto r = run_kvmbench({"restore"}, 30, "", env);
  EXPECT_NE(r.out.find("0 setting(s) restored"), std::string::npos) << r.out << r.err;
}

TEST_F(NptReload, SigkilledHolderIsReloadedByRestore) {
  pid_t pid = start_holder();
  ASSERT_GT(pid, 0);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_EQ(slurp(npt), "N\n");  // nothing ran in the killed process
  auto r = run_kvmbench({"restore"}, 30, "", env);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(slurp(npt), "Y\n");
  EXPECT_NE(r.err.find("restored " + (root / "sys/module/kvm_amd").string() + " = 'npt=Y'"), std::string::npos)
      << r.err;
}

TEST_F(NptReload, NextStartReloadsItToo) {
  pid_t pid = start_holder();
  ASSERT_GT(pid, 0);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto r = run_kvmbench({"version"}, 30, "", env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(npt), "Y\n");
}
