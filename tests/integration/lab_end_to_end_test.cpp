// The emulated lab machine end to end (`kvmbench lab`, ctest label `lab`):
// QEMU TCG with SVM and nested paging, the lab kernel's real kvm_amd, the
// host's build run inside. Each test boots its own lab machine; what runs in
// there is real (module reloads, the knob journal, KVM guests, the meminfo
// sampler, the guest watchdog) and labelled `emulated`.
//
// The lab needs root (virtiofsd), QEMU, virtiofsd and a kernel package
// (scripts/bootstrap.sh fetches one); without them `kvmbench lab` exits 77
// and the test is skipped with its reason.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/model/metric_roles.h"
#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::CommandResult;
using kvmbench::test_support::private_state_dir_env;
using kvmbench::test_support::read_text;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

// `kvmbench lab ARGS...`, skipping the test when this host cannot boot a lab.
#define RUN_LAB(result, timeout_s, ...)                                                                   \
  CommandResult result = run_kvmbench({"lab", __VA_ARGS__}, timeout_s, "", {private_state_dir_env()}); \
  if (result.exit_code == 77) GTEST_SKIP() << result.err;                                                 \
  ASSERT_FALSE(result.timed_out) << result.err

// The run directories under `out`.
std::vector<fs::path> runs_in(const fs::path& out) {
  std::vector<fs::path> runs;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(out, ec))
    if (fs::exists(e.path() / "meta.json")) runs.push_back(e.path());
  std::sort(runs.begin(), runs.end());
  return runs;
}

// The value after "KEY=" on a line of `text` ("" when there is none).
std::string value_of(const std::string& text, const std::string& key) {
  const auto at = text.find(key + "=");
  if (at == std::string::npos) return "";
  const auto from = at + key.size() + 1;
  return text.substr(from, text.find('\n', from) - from);
}

}  // namespace

TEST(Lab, ProbeRunsGuestsOnSvmWithNestedPagingAndCallsItEmulated) {
  RUN_LAB(r, 240, "probe", "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = nlohmann::json::parse(r.out);
  EXPECT_EQ(m["source"], "emulated");
  EXPECT_EQ(m["virtualization"]["hypervisor"], "tcg");
  EXPECT_EQ(m["virtualization"]["emulated"], true);
  EXPECT_EQ(m["virtualization"]["kvm_nested"], true);
  EXPECT_EQ(m["kvm"]["module"], "kvm_amd");
  EXPECT_EQ(m["kvm"]["runs_guests"], true) << m["kvm"].dump();
  std::set<std::string> features(m["cpu"]["features"].begin(), m["cpu"]["features"].end());
  EXPECT_TRUE(features.count("svm") && features.count("npt")) << m["cpu"]["features"].dump();
  EXPECT_EQ(m["kvm_modules"]["kvm_amd"]["parameters"]["npt"], "Y");
  EXPECT_NE(r.err.find("lab machine up in"), std::string::npos) << r.err;
  // No run holds its console and no --lab-out was given: it is kept in the
  // lab's cache, not among the runs of the directory it was typed in.
  const auto at = r.err.find("kvmbench lab: lab console in ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string where = r.err.substr(at + 29, r.err.find('\n', at) - at - 29);
  EXPECT_NE(where.find("/consoles/lab-"), std::string::npos) << where;
  EXPECT_TRUE(fs::exists(where)) << where;
}

// asid's document pipeline (the lab preset: the same, scaled): natively,
// then in KVM guests with kvm_amd reloaded for npt=on and npt=off; npt is
// back to Y when the run is over, and meta.json says so. One workload, the
// one whose guest figure NPT changes most (two guest boots, not four).
TEST(Lab, AsidReloadsKvmAmdForBothNptSettingsAndPutsItBack) {
  TempDir out;
  RUN_LAB(r, 540, "--lab-out", out.path.string(), "--lab-sh",
          "kvmbench run asid --preset lab --set npt=on,off --set workloads=mmap_churn -r 1 "
          "--out \"$KVMBENCH_LAB_OUT\"; echo \"rc=$?\"; echo \"npt-after=$(cat /sys/module/kvm_amd/parameters/npt)\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(value_of(r.out, "rc"), "0") << r.out << r.err;
  EXPECT_EQ(value_of(r.out, "npt-after"), "Y") << r.out;
  EXPECT_NE(r.out.find("asid: guest vs native"), std::string::npos) << r.out;
  EXPECT_NE(kvmbench::test_support::unwrapped(r.out).find("time_per_round npt=off 1/1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ratio = guest mean / native mean"), std::string::npos) << r.out;
  auto runs = runs_in(out.path);
  ASSERT_EQ(runs.size(), 1u);
  auto run = kvmbench::load_run(runs[0]);
  EXPECT_EQ(run.status(), "complete");
  EXPECT_EQ(run.source(), kvmbench::Source::emulated);
  EXPECT_TRUE(run.meta["lab"].contains("id")) << run.meta.dump();
  EXPECT_TRUE(fs::exists(runs[0] / "raw" / "lab-console.log"));
  std::set<std::string> variants, kvm_monitors;
  const auto roles = kvmbench::MetricRoles::from_json(run.meta.value("metric_roles", nlohmann::json()));
  for (const auto& s : run.samples) {
    if (s.metric.rfind("kvm.", 0) == 0) kvm_monitors.insert(s.metric);
    if (roles.is_monitor(s.metric)) continue;  // the host's counters, beside the suite's figures
    variants.insert(s.variant);
    if (s.variant != "native") {
      EXPECT_EQ(s.extra.value("accel", ""), "kvm") << s.variant;
    }
  }
  EXPECT_EQ(variants, (std::set<std::string>{"native", "npt=on", "npt=off"}));
  // The QEMU guests' KVM statistics (QMP query-stats), counted as monitors.
  EXPECT_GE(kvm_monitors.size(), 3u);
  EXPECT_TRUE(kvm_monitors.count("kvm.exits")) << run.meta["monitors"].dump();
  // The reload to npt=0 and its restore, with both values and times.
  bool reload_recorded = false;
  for (const auto& c : run.meta.value("host_changes", nlohmann::json::array()))
    if (c.value("kind", "") == "module_reload" && c.value("path", "") == "/sys/module/kvm_amd" &&
        c.value("old", "") == "npt=Y" && c.value("new", "") == "npt=0") {
      reload_recorded = true;
      EXPECT_FALSE(c.value("set_at", "").empty()) << c.dump();
      EXPECT_FALSE(c.value("restored_at", "").empty()) << c.dump();
    }
  EXPECT_TRUE(reload_recorded) << run.meta["host_changes"].dump();
}

// A run killed with SIGKILL while kvm_amd is loaded with npt=0 cannot put it
// back; `kvmbench restore` does, from the journal.
TEST(Lab, RestorePutsNptBackAfterTheRunIsKilled) {
  TempDir out;
  RUN_LAB(r, 420, "--lab-out", out.path.string(), "--lab-sh",
          "kvmbench run asid --preset lab --set npt=off --set workloads=cpuid_rate --set seconds=3 -r 1 "
          "--out \"$KVMBENCH_LAB_OUT\" >/dev/null 2>&1 & pid=$!\n"
          "i=0; while [ \"$(cat /sys/module/kvm_amd/parameters/npt)\" != N ] && [ $i -lt 900 ]; do sleep 0.1; "
          "i=$((i+1)); done\n"
          "echo \"npt-during=$(cat /sys/module/kvm_amd/parameters/npt)\"\n"
          "sleep 2; kill -9 $pid; wait $pid; echo \"killed=$?\"\n"
          "sleep 2; kvmbench restore; echo \"restore=$?\"\n"
          "echo \"npt-after=$(cat /sys/module/kvm_amd/parameters/npt)\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(value_of(r.out, "npt-during"), "N") << r.out << r.err;
  EXPECT_EQ(value_of(r.out, "killed"), "137") << r.out;
  EXPECT_EQ(value_of(r.out, "restore"), "0") << r.out << r.err;
  EXPECT_EQ(value_of(r.out, "npt-after"), "Y") << r.out << r.err;
  EXPECT_NE(r.err.find("restored /sys/module/kvm_amd"), std::string::npos) << r.err;
}

// Ctrl-C on the host is sent into the lab as a Ctrl-C of the command: the
// run there stops between samples, puts kvm_amd's npt back and ends
// `interrupted`; the lab powers off and `kvmbench lab` exits 130. The
// script says on stdout when kvm_amd has been reloaded with npt=0 (the
// signal is sent then) and writes what it sees afterwards into a file on
// the host; it ignores SIGINT itself to get that far (kvmbench installs its
// own handler).
TEST(Lab, CtrlCOnTheHostStopsTheRunInsideWhichPutsNptBack) {
  TempDir out;
  const fs::path result = out.path / "after.txt";
  // The script waits while the run lives; a run that ended before npt=N
  // says so with the end of its stderr (CI once saw npt never go to N).
  std::string seen;
  pid_t pid = kvmbench::test_support::start_until_ready(
      {KVMBENCH_BINARY, "lab", "--lab-out", out.path.string(), "--lab-sh",
       "trap '' INT\n"
       "kvmbench run asid --preset lab --set npt=off --set workloads=cpuid_rate --set seconds=20 -r 1 "
       "--out \"$KVMBENCH_LAB_OUT\" >/dev/null 2>\"$KVMBENCH_LAB_OUT/run.err\" & pid=$!\n"
       "while kill -0 $pid 2>/dev/null && [ \"$(cat /sys/module/kvm_amd/parameters/npt 2>/dev/null)\" != N ]; do "
       "sleep 0.1; done\n"
       "now=$(cat /sys/module/kvm_amd/parameters/npt 2>/dev/null)\n"
       "if [ \"$now\" != N ]; then echo \"the run ended, npt=$now:\"; tail -n 8 \"$KVMBENCH_LAB_OUT/run.err\"; fi\n"
       "echo \"npt-now=$now (seen)\"\n"
       "wait $pid; rc=$?\n"
       "echo \"rc=$rc\nnpt-after=$(cat /sys/module/kvm_amd/parameters/npt)\" >\"$KVMBENCH_LAB_OUT/after.txt\""},
      {private_state_dir_env()}, "(seen)", 420, &seen);
  if (pid < 0) {
    // Not booted (exit 77 reads as never ready).
    auto probe = run_kvmbench({"lab", "probe"}, 120, "", {private_state_dir_env()});
    if (probe.exit_code == 77) GTEST_SKIP() << probe.err;
    FAIL() << "the lab never said npt-now= in 420 s; it said:\n" << seen;
  }
  if (seen.find("npt-now=N (seen)") == std::string::npos) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    FAIL() << "npt never went to N while the run lived:\n" << seen;
  }
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string after = read_text(result);
  EXPECT_EQ(value_of(after, "rc"), "130") << after;
  EXPECT_EQ(value_of(after, "npt-after"), "Y") << after;
  auto runs = runs_in(out.path);
  ASSERT_EQ(runs.size(), 1u);
  auto meta = nlohmann::json::parse(read_text(runs[0] / "meta.json"));
  EXPECT_EQ(meta["status"], "interrupted") << meta.dump();
}

// directmap's document pipeline in a plain KVM guest: the host's meminfo
// sampled while the guest faults its memory in, the allocation rate fitted
// over the ramp, unpinned and pinned to node 0.
TEST(Lab, DirectmapFitsTheHostAllocationRateFromARealMeminfoRamp) {
  TempDir out;
  RUN_LAB(r, 540, "--lab-out", out.path.string(), "run", "directmap", "--preset", "lab", "-r", "1");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto runs = runs_in(out.path);
  ASSERT_EQ(runs.size(), 1u);
  auto run = kvmbench::load_run(runs[0]);
  EXPECT_EQ(run.status(), "complete");
  EXPECT_EQ(run.source(), kvmbench::Source::emulated);
  std::set<std::string> rated;
  for (const auto& s : run.samples)
    if (s.metric == "host_alloc_rate") {
      rated.insert(s.variant);
      EXPECT_GT(s.value, 0);
      EXPECT_EQ(s.extra.value("meminfo_field", ""), "Shmem");
      EXPECT_GE(s.extra.value("fit_points", 0), 10) << s.extra.dump();
    }
  EXPECT_EQ(rated, (std::set<std::string>{"unpinned", "pinned-node0"}));
  EXPECT_TRUE(fs::exists(runs[0] / "raw" / "meminfo-unpinned.it0.csv"));
  EXPECT_NE(r.out.find("source: emulated"), std::string::npos) << r.out;
}

// A guest that never finishes, under the lab's KVM: the launcher's
// watchdog kills it and says why (its timeout leaves a nested guest time to
// reach its workload, so the console shows it, also on a host loaded three
// to four times over: 30 s did not, in 2 of 5 rounds beside two busy loops);
// no QEMU is left behind. The same in a
// run: the failure is recorded in its meta.json and the exit code is 1.
TEST(Lab, HungGuestIsKilledByTheWatchdogAndTheFailureRecorded) {
  TempDir out;
  RUN_LAB(r, 420, "--lab-out", out.path.string(), "--lab-sh",
          "kvmbench test-guest hang --accel kvm --timeout 60; echo \"hang=$?\"\n"
          "echo \"qemus-after=$(pgrep -c qemu-system || true)\"\n"
          "kvmbench run directmap --preset lab --set timeout=5 -r 1 --out \"$KVMBENCH_LAB_OUT\" >/dev/null 2>&1; "
          "echo \"run=$?\"\n"
          "echo \"qemus-after-run=$(pgrep -c qemu-system || true)\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(value_of(r.out, "hang"), "2") << r.out << r.err;
  auto j = nlohmann::json::parse(r.out.substr(0, r.out.find("\nhang=")));
  EXPECT_EQ(j["accel"], "kvm");
  EXPECT_EQ(j["killed_by_watchdog"], true);
  EXPECT_NE(j["reason"].get<std::string>().find("guest timed out after 60.0 s"), std::string::npos) << j.dump();
  EXPECT_NE(j["console_tail"].get<std::string>().find("KVMBENCH-BEGIN workload=hang"), std::string::npos) << j.dump();
  EXPECT_EQ(value_of(r.out, "qemus-after"), "0") << r.out;
  EXPECT_EQ(value_of(r.out, "run"), "1") << r.out;  // a run that failed
  EXPECT_EQ(value_of(r.out, "qemus-after-run"), "0") << r.out;
  auto runs = runs_in(out.path);
  ASSERT_EQ(runs.size(), 1u);
  auto meta = nlohmann::json::parse(read_text(runs[0] / "meta.json"));
  EXPECT_EQ(meta["status"], "failed");
  EXPECT_NE(meta.value("error", "").find("guest timed out after 5.0 s"), std::string::npos) << meta.dump();
}

// A machine that stops giving signs of life (its heartbeat silenced, the
// command quiet) is killed as stalled after --lab-silence, long before
// --lab-timeout, with the reason said, the vCPUs' registers taken and the
// console kept under --lab-out (no run directory holds it). A failed run:
// exit 1.
TEST(Lab, AMachineWithNoSignOfLifeIsKilledAsStalledWithItsConsoleKept) {
  TempDir out;
  RUN_LAB(r, 300, "--lab-silence", "20", "--lab-timeout", "600", "--lab-out", out.path.string(), "--lab-sh",
          "kill -STOP \"$(cat /run/kvmbench-lab/heartbeat.pid)\"; sleep 900");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("the lab machine stalled: no sign of life (heartbeat or command output) for 2"),
            std::string::npos)
      << r.err;
  std::vector<fs::path> consoles, vcpus;
  for (auto& e : fs::directory_iterator(out.path)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".console.log")) consoles.push_back(e.path());
    if (name.ends_with(".vcpus.txt")) vcpus.push_back(e.path());
  }
  ASSERT_EQ(consoles.size(), 1u);
  EXPECT_NE(read_text(consoles[0]).find("KVMBENCH-LAB-READY"), std::string::npos);
  ASSERT_EQ(vcpus.size(), 1u);
  EXPECT_NE(read_text(vcpus[0]).find("RIP="), std::string::npos);
}

// A lab kernel that panics at boot (here made to: no init in the initramfs,
// no root to fall back to) is a failed run, exit 1, reported from its panic
// line on rather than the stack it printed last, with the console kept.
TEST(Lab, AKernelThatPanicsAtBootIsReportedFromItsPanicLineWithTheConsoleKept) {
  TempDir out;
  RUN_LAB(r, 120, "--lab-append", "rdinit=/nonexistent", "--lab-out", out.path.string(), "probe");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("the lab machine did not boot (QEMU exit 0); the lab kernel reported"), std::string::npos)
      << r.err;
  const auto excerpt = r.err.find("--- lab console, from the kernel's first fault on ---\n");
  ASSERT_NE(excerpt, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Kernel panic - not syncing: VFS: Unable to mount root fs", excerpt), std::string::npos)
      << r.err;
  std::vector<fs::path> consoles;
  for (auto& e : fs::directory_iterator(out.path))
    if (e.path().filename().string().ends_with(".console.log")) consoles.push_back(e.path());
  ASSERT_EQ(consoles.size(), 1u);
  EXPECT_NE(read_text(consoles[0]).find("Kernel panic - not syncing"), std::string::npos);
}
