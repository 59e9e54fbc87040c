// `kvmbench run` against a run lock another run holds: exit 75 (busy, not
// 77: the host can run it, only not now) naming the holder, at once or
// after --wait-lock=SECONDS; with --wait-lock it runs once the holder lets
// go, and Ctrl-C ends the wait with 130. The test process holds the lock
// itself, in a state directory of its own (KVMBENCH_STATE_DIR).
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>
#include <thread>

#include "hostlib/state/run_lock.h"
#include "tests/support/run_command.h"

using kvmbench::host::RunLock;
using kvmbench::test_support::exec_or_exit;
using kvmbench::test_support::read_text;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::short_live_run;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

constexpr const char* kHolder = "the test's holder";
constexpr const char* kWaiting = "waiting for another run";

struct Waited {
  int exit_code = -1;
  bool said = false;  // the marker appeared on stderr (and `then` ran)
  bool timed_out = false;
  std::string err;
};

// Runs kvmbench (stdout and stderr into files under `dir`), calls
// `then(pid)` once its stderr says `marker`, and waits for it to end: the
// test acts when kvmbench is known to be waiting, however loaded the
// machine, instead of after a guessed delay.
Waited run_acting_on(const std::vector<std::string>& args, const std::string& env, const fs::path& dir,
                     const std::string& marker, const std::function<void(pid_t)>& then, double timeout_s = 120) {
  const fs::path out = dir / "stdout", err = dir / "stderr";
  std::vector<std::string> argv = {KVMBENCH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string env_entry = env;  // putenv keeps the pointer
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
    ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
    ::putenv(env_entry.data());
    exec_or_exit(argv);
  }
  Waited w;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      w.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    if (!w.said && read_text(err).find(marker) != std::string::npos) {
      w.said = true;
      then(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (WIFEXITED(status)) w.exit_code = WEXITSTATUS(status);
  w.err = read_text(err);
  return w;
}

}  // namespace

TEST(RunLockCli, HeldLockExits75NamingTheHolder) {
  TempDir tmp;
  const std::string env = "KVMBENCH_STATE_DIR=" + (tmp.path / "state").string();
  RunLock held(std::chrono::milliseconds(0), kHolder, tmp.path / "state" / "run.lock");
  const std::string holder = "pid " + std::to_string(::getpid()) + ": " + kHolder;

  auto r = run_kvmbench(short_live_run(tmp.path / "out", ""), 120, "", {env});
  EXPECT_EQ(r.exit_code, 75) << r.err;
  EXPECT_NE(r.err.find("another kvmbench run (" + holder + ") holds " + (tmp.path / "state/run.lock").string()),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("pass --wait-lock to wait for it"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(kWaiting), std::string::npos) << "it did not wait: " << r.err;
  // Nothing measured, nothing written.
  EXPECT_FALSE(fs::exists(tmp.path / "out"));

  // --wait-lock=1: the same after waiting (at least) that second. No upper
  // bound: a loaded machine may take long to start kvmbench.
  const auto start = std::chrono::steady_clock::now();
  r = run_kvmbench(short_live_run(tmp.path / "out", "--wait-lock=1"), 120, "", {env});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 75) << r.err;
  EXPECT_GE(took, 1.0);
  EXPECT_NE(r.err.find("kvmbench: " + std::string(kWaiting) + " (" + holder + ") to finish"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("still after 1 s of --wait-lock"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path / "out"));
}

TEST(RunLockCli, WaitLockTakesWholeSecondsOnly) {
  TempDir tmp;
  const std::string env = "KVMBENCH_STATE_DIR=" + (tmp.path / "state").string();
  for (const char* bad : {"--wait-lock=soon", "--wait-lock=-1", "--wait-lock=1.5"}) {
    auto r = run_kvmbench(short_live_run(tmp.path / "out", bad), 60, "", {env});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("SECONDS is a whole number of seconds"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp.path / "out"));
}

// Bare --wait-lock (before the suite name, which it must not take as its
// value) waits until the holder lets go, then runs.
TEST(RunLockCli, WaitLockRunsOnceTheHolderLetsGo) {
  TempDir tmp;
  const std::string env = "KVMBENCH_STATE_DIR=" + (tmp.path / "state").string();
  auto held = std::make_unique<RunLock>(std::chrono::milliseconds(0), kHolder, tmp.path / "state" / "run.lock");
  const Waited w =
      run_acting_on(short_live_run(tmp.path / "out", "--wait-lock"), env, tmp.path, kWaiting, [&](pid_t) { held.reset(); });
  EXPECT_TRUE(w.said) << w.err;
  EXPECT_FALSE(w.timed_out) << w.err;
  EXPECT_EQ(w.exit_code, 0) << w.err;
  // It ran: one run directory.
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path / "out"), fs::directory_iterator()), 1);
  // And the lock is free again once the run is over.
  EXPECT_EQ(RunLock::holder(tmp.path / "state" / "run.lock"), "");
}

TEST(RunLockCli, CtrlCEndsTheWaitWith130) {
  TempDir tmp;
  const std::string env = "KVMBENCH_STATE_DIR=" + (tmp.path / "state").string();
  RunLock held(std::chrono::milliseconds(0), kHolder, tmp.path / "state" / "run.lock");
  const Waited w = run_acting_on(short_live_run(tmp.path / "out", "--wait-lock"), env, tmp.path, kWaiting,
                                 [](pid_t pid) { ::kill(pid, SIGINT); });
  EXPECT_TRUE(w.said) << w.err;
  EXPECT_FALSE(w.timed_out) << w.err;
  EXPECT_EQ(w.exit_code, 130) << w.err;
  EXPECT_NE(w.err.find("interrupted while waiting for the run lock"), std::string::npos) << w.err;
  EXPECT_FALSE(fs::exists(tmp.path / "out"));
}

// A lock that can never be taken (a directory where the lock file goes, a
// state directory on a read-only file system) is bad set-up: exit 2 with
// the path and the reason. `ab` said 75 (busy), which a poller retries for
// ever; `run` said 77 (this host cannot), which a job engine may let pass.
TEST(RunLockCli, ALockThatCannotBeTakenIsExit2WithThePath) {
  TempDir tmp;
  const fs::path state = tmp.path / "state";
  fs::create_directories(state / "run.lock");
  fs::create_directories(state / "ab" / "lock");
  const std::string env = "KVMBENCH_STATE_DIR=" + state.string();
  for (const auto& args : std::vector<std::vector<std::string>>{
           short_live_run(tmp.path / "runs", ""), {"ab", "--resume"}, {"ab", "--abort"}, {"ab", "--resume", "--state", (state / "ab").string()}}) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    const auto r = run_kvmbench(args, 60, "", {env});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    const std::string lock = (state / (args[0] == "run" ? "run.lock" : "ab/lock")).string();
    EXPECT_NE(r.err.find("cannot open run lock " + lock + ": Is a directory"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(tmp.path / "runs"));

  // A read-only file system: a tmpfs mounted so in a mount namespace of the
  // command's own (root and unshare(1) needed).
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a read-only tmpfs needs root";
  if (kvmbench::test_support::run_command({"/usr/bin/unshare", "--mount", "/bin/true"}).exit_code != 0)
    GTEST_SKIP() << "no mount namespace here";
  const fs::path ro = tmp.path / "read-only";
  fs::create_directories(ro);
  for (const std::string& command :
       {fmt::format("KVMBENCH_STATE_DIR='{}' '{}' run rmpopt --preset host -r 1 --set ram=1G --set layouts=none "
                    "--set strategies=one-cpu --out '{}/runs'",
                    ro.string(), KVMBENCH_BINARY, tmp.path.string()),
        fmt::format("'{}' ab --abort --state '{}'", KVMBENCH_BINARY, ro.string()),
        fmt::format("'{}' ab --resume --state '{}'", KVMBENCH_BINARY, (ro / "ab").string())}) {
    SCOPED_TRACE(command);
    const auto r = kvmbench::test_support::run_command(
        {"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
         fmt::format("mount -t tmpfs -o ro tmpfs '{}' || exit 99; {}", ro.string(), command)},
        60);
    if (r.exit_code == 99) GTEST_SKIP() << "cannot mount a tmpfs here: " << r.err;
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("cannot open run lock " + ro.string()), std::string::npos) << r.err;
    EXPECT_TRUE(r.err.find("Read-only file system") != std::string::npos ||
                r.err.find("cannot make its directory") != std::string::npos)
        << r.err;
  }
}
