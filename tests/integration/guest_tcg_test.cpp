// End to end under QEMU TCG: the build's initramfs on the cached distro
// kernel runs each workload with tiny sizes and its parsed results arrive;
// a hung guest is killed by the watchdog; a panicking guest is reported;
// an interrupted run leaves no QEMU behind. Skips with the reason when the
// kernel or QEMU is missing. Each test boots once (a few seconds of TCG).
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "hostlib/os/interrupt.h"
#include "hostlib/qemu/qemu_launcher.h"
#include "hostlib/qemu/qemu_paths.h"
#include "tests/support/run_command.h"

using namespace kvmbench;
using namespace kvmbench::host;
namespace fs = std::filesystem;

namespace {

// Skips the test unless kernel, initramfs and QEMU are all there.
#define REQUIRE_GUEST()                                                 \
  do {                                                                  \
    if (auto q = find_qemu(); !q) GTEST_SKIP() << q.reason;             \
    if (auto k = default_guest_kernel(); !k) GTEST_SKIP() << k.reason;  \
    if (auto i = default_guest_initramfs(); !i) GTEST_SKIP() << i.reason; \
  } while (0)

GuestSpec tcg(const std::string& workload, std::vector<std::string> args) {
  GuestSpec s;
  s.workload = workload;
  s.args = std::move(args);
  s.accel = Accel::tcg;  // the test is about the pipeline, on any host
  s.timeout_s = 100;     // a loaded 2-core CI machine boots slowly
  return s;
}

// Is any process running with `needle` in its command line?
bool process_with_arg(const std::string& needle) {
  for (auto& de : fs::directory_iterator("/proc")) {
    const std::string name = de.path().filename().string();
    if (!std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream in(de.path() / "cmdline", std::ios::binary);
    std::string cmd(std::istreambuf_iterator<char>(in), {});
    if (cmd.find(needle) != std::string::npos && std::stoi(name) != getpid()) return true;
  }
  return false;
}

void expect_results(const GuestRunResult& r, const std::vector<std::string>& metrics) {
  ASSERT_TRUE(r.ok()) << to_string(r.status) << ": " << r.reason << "\nconsole:\n"
                      << r.console_tail << "\nqemu:\n" << r.qemu_stderr;
  EXPECT_EQ(r.source, Source::emulated);
  EXPECT_FALSE(r.killed_by_watchdog);
  EXPECT_EQ(r.qemu_exit_code, 0);
  EXPECT_GT(r.boot_to_begin_s, 0);
  EXPECT_GE(r.boot_to_result_s, r.boot_to_begin_s);
  for (const auto& m : metrics) {
    auto it = std::find_if(r.samples.begin(), r.samples.end(), [&](const Sample& s) { return s.metric == m; });
    ASSERT_NE(it, r.samples.end()) << "no '" << m << "' result\n" << r.console_tail;
    EXPECT_GT(it->value, 0) << m;
    EXPECT_EQ(it->iteration, 1) << m;
  }
  std::printf("[ guest    ] %s: begin %.2f s, result %.2f s, wall %.2f s\n", r.output.workload.c_str(),
              r.boot_to_begin_s, r.boot_to_result_s, r.wall_s);
}

}  // namespace

TEST(GuestTcg, Faultin) {
  REQUIRE_GUEST();
  test_support::TempDir dir;
  auto r = run_guest_workload(tcg("faultin", {"--threads=2", "--bytes=8M", "--iteration=1"}),
                              dir.path / "console.log");
  expect_results(r, {"faultin_rate", "faultin_time", "thread_faultin_rate"});
  EXPECT_EQ(std::count_if(r.samples.begin(), r.samples.end(),
                          [](const Sample& s) { return s.metric == "thread_faultin_rate"; }),
            2);
  EXPECT_TRUE(fs::file_size(dir.path / "console.log") > 0);
}

TEST(GuestTcg, MmapChurn) {
  REQUIRE_GUEST();
  test_support::TempDir dir;
  GuestSpec s = tcg("mmap_churn", {"--bytes=4M", "--rounds=5", "--iteration=1"});
  s.backend = MemoryBackend::memfd;  // a non-default backend on the way
  auto r = run_guest_workload(s, dir.path / "console.log");
  expect_results(r, {"time_per_round", "total_time"});
  EXPECT_NE(std::find(r.argv.begin(), r.argv.end(), "memory-backend-memfd,id=ram0,size=256M,share=on"), r.argv.end());
}

TEST(GuestTcg, CpuidRate) {
  REQUIRE_GUEST();
  test_support::TempDir dir;
  // With vCPU pinning on the way (QMP query-cpus-fast + sched_setaffinity),
  // on the first CPU this test may use.
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed)) ++cpu;
  GuestSpec s = tcg("cpuid_rate", {"--seconds=0.2", "--iteration=1"});
  s.pin_host_cpus = {cpu};
  auto r = run_guest_workload(s, dir.path / "console.log");
  expect_results(r, {"cpuid_rate"});
  EXPECT_NE(r.pinning.find("vcpu0(tid "), std::string::npos) << r.pinning;
  EXPECT_NE(r.pinning.find("->cpu " + std::to_string(cpu)), std::string::npos) << r.pinning;
}

TEST(GuestTcg, TcpRr) {
  REQUIRE_GUEST();
  test_support::TempDir dir;
  auto r = run_guest_workload(tcg("tcp_rr", {"--seconds=0.3", "--iteration=1"}), dir.path / "console.log");
  expect_results(r, {"transaction_rate", "latency"});
  EXPECT_EQ(r.net_peer.value("connected", false), true) << r.net_peer.dump();
  EXPECT_EQ(r.net_peer.value("mode", ""), "rr");
  EXPECT_GT(r.net_peer.value("transactions", 0), 0);
}

TEST(GuestTcg, TcpStream) {
  REQUIRE_GUEST();
  test_support::TempDir dir;
  auto r = run_guest_workload(tcg("tcp_stream", {"--seconds=0.3", "--iteration=1"}), dir.path / "console.log");
  expect_results(r, {"throughput"});
  EXPECT_EQ(r.net_peer.value("mode", ""), "stream") << r.net_peer.dump();
  EXPECT_GT(r.net_peer.value("bytes_received", 0), 0);
}

// A guest whose workload never finishes is killed a few seconds after it
// started, the failure says so with the console, and QEMU is gone.
TEST(GuestTcg, HungGuestIsKilledByTheWatchdog) {
  REQUIRE_GUEST();
  test_support::TempDir dir;
  GuestSpec s = tcg("hang", {});
  s.workload_timeout_s = 2;
  auto r = run_guest_workload(s, dir.path / "console.log");
  EXPECT_EQ(r.status, GuestRunStatus::failed);
  EXPECT_TRUE(r.killed_by_watchdog);
  EXPECT_TRUE(r.output.unfinished()) << r.console_tail;
  EXPECT_NE(r.reason.find("workload timed out"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("started but never finished"), std::string::npos) << r.reason;
  EXPECT_NE(r.console_tail.find("KVMBENCH-BEGIN workload=hang"), std::string::npos);
  EXPECT_GT(r.qemu_pid, 0);
  EXPECT_FALSE(process_with_arg((dir.path / "console.log").string()));
}

// A guest that panics (PID 1 exits) ends by itself (panic=-1, -no-reboot)
// and the run records the panic.
TEST(GuestTcg, PanicIsReported) {
  REQUIRE_GUEST();
  test_support::TempDir dir;
  auto r = run_guest_workload(tcg("panic", {}), dir.path / "console.log");
  EXPECT_EQ(r.status, GuestRunStatus::failed);
  EXPECT_FALSE(r.killed_by_watchdog) << r.reason;
  EXPECT_NE(r.reason.find("kernel panic"), std::string::npos) << r.reason << "\n" << r.console_tail;
}

// Ctrl-C (SIGINT) during a run: the run ends "interrupted" and QEMU is
// gone; SIGKILL of kvmbench itself also takes QEMU along (PDEATHSIG). Both
// in a child process, because the interrupt flag is process-wide.
TEST(GuestTcg, InterruptAndDeathLeaveNoQemu) {
  REQUIRE_GUEST();
  test_support::TempDir dir;
  for (int sig : {SIGINT, SIGKILL}) {
    const fs::path console = dir.path / ("console-" + std::to_string(sig) + ".log");
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      install_interrupt_handlers();
      GuestSpec s = tcg("hang", {});
      auto r = run_guest_workload(s, console);
      _exit(r.status == GuestRunStatus::interrupted && r.killed_by_watchdog ? 0 : 1);
    }
    // Signal once the guest's workload runs (or after 60 s at the latest).
    auto t0 = std::chrono::steady_clock::now();
    for (;;) {
      std::ifstream in(console);
      std::string text(std::istreambuf_iterator<char>(in), {});
      if (text.find("KVMBENCH-BEGIN") != std::string::npos) break;
      if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(60)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(process_with_arg(console.string())) << "QEMU not running before the signal";
    kill(child, sig);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    if (sig == SIGINT) {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    } else {
      // PDEATHSIG is asynchronous: give the kernel a moment.
      for (int i = 0; i < 100 && process_with_arg(console.string()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_FALSE(process_with_arg(console.string())) << "QEMU left running after signal " << sig;
  }
}

// Same inputs, same bytes: the image is built again from the build's own
// entry list, twice, and compared with the build's image.
TEST(GuestImage, Reproducible) {
  const fs::path entries = guest_initramfs_entries();
  const fs::path tool = guest_bin_dir() / "kvmbench-mkinitramfs";
  auto image = default_guest_initramfs();
  if (entries.empty() || !fs::exists(entries) || !image) GTEST_SKIP() << "no guest image in this build";
  test_support::TempDir dir;
  std::vector<std::string> outs;
  for (int i = 0; i < 2; ++i) {
    fs::path out = dir.path / ("image" + std::to_string(i) + ".cpio");
    auto r = test_support::run_command({tool.string(), "-o", out.string(), "@" + entries.string()}, 60, "",
                                       {"SOURCE_DATE_EPOCH=0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(out, std::ios::binary);
    outs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
  }
  std::ifstream in(image.path, std::ios::binary);
  std::string built(std::istreambuf_iterator<char>(in), {});
  ASSERT_GT(outs[0].size(), 1000000u);
  EXPECT_TRUE(outs[0] == outs[1]) << "two builds differ";
  EXPECT_TRUE(outs[0] == built) << "the build's image differs from a rebuild";
  // newc magic, and the trailer at the end.
  EXPECT_EQ(outs[0].substr(0, 6), "070701");
  EXPECT_NE(outs[0].rfind("TRAILER!!!"), std::string::npos);
}

// A different mtime must change the bytes: the test above can fail.
TEST(GuestImage, TimestampIsPartOfTheInput) {
  const fs::path tool = guest_bin_dir() / "kvmbench-mkinitramfs";
  if (!fs::exists(tool)) GTEST_SKIP() << "no kvmbench-mkinitramfs in this build";
  test_support::TempDir dir;
  std::ofstream(dir.path / "f") << "hello";
  std::string bytes[2];
  for (int i = 0; i < 2; ++i) {
    fs::path out = dir.path / ("o" + std::to_string(i));
    auto r = test_support::run_command({tool.string(), "-o", out.string(), "file:a/f:" + (dir.path / "f").string()},
                                       30, "", {"SOURCE_DATE_EPOCH=" + std::to_string(i)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(out, std::ios::binary);
    bytes[i].assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_NE(bytes[0], bytes[1]);
  auto bad = test_support::run_command({tool.string(), "-o", (dir.path / "x").string(), "file:../etc:/etc/passwd"});
  EXPECT_EQ(bad.exit_code, 2);
}
