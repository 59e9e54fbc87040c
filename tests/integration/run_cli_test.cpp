// `kvmbench list` and `kvmbench run` through the real binary: exit codes,
// run directories, skips with reasons, adaptive repetitions, Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>

#include <unistd.h>

#include <filesystem>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::load_run;
using kvmbench::test_support::lines_of;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

// The single run directory kvmbench made under `root`.
fs::path only_run_dir(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (auto& e : fs::directory_iterator(root))
    if (e.is_directory()) dirs.push_back(e.path());
  EXPECT_EQ(dirs.size(), 1u);
  return dirs.empty() ? fs::path() : dirs.front();
}

// Each test process its own state dir (run lock, knob journal): ctest runs
// tests in parallel, and two runs sharing the lock would exit 75 (busy).
std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }

}  // namespace

TEST(RunCli, ListShowsEverySuiteAndWhyNot) {
  auto r = run_kvmbench({"list", "--params"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"rmpopt:", "directmap:", "make_shared:", "asid:"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  EXPECT_NE(r.out.find("can run here"), std::string::npos);
  EXPECT_NE(r.out.find("--set ram="), std::string::npos);
  for (std::size_t pos = 0, nl; pos < r.out.size(); pos = nl + 1) {
    nl = r.out.find('\n', pos);
    if (nl == std::string::npos) nl = r.out.size();
    EXPECT_LE(nl - pos, 80u) << r.out.substr(pos, nl - pos);
  }
}

TEST(RunCli, UnknownSuiteParameterOrPresetIsUsageError) {
  TempDir tmp;
  auto a = run_kvmbench({"run", "nosuch", "--out", tmp.path.string()}, 60, "", env());
  EXPECT_EQ(a.exit_code, 2) << a.err;
  EXPECT_NE(a.err.find("unknown suite 'nosuch'"), std::string::npos) << a.err;
  auto b = run_kvmbench({"run", "rmpopt", "--preset", "host", "--set", "bogus=1", "--out", tmp.path.string()}, 60,
                        "", env());
  EXPECT_EQ(b.exit_code, 2) << b.err;
  EXPECT_NE(b.err.find("'bogus'"), std::string::npos) << b.err;
  auto c = run_kvmbench({"run", "rmpopt", "--preset", "nosuch", "--out", tmp.path.string()}, 60, "", env());
  EXPECT_EQ(c.exit_code, 2) << c.err;
  auto d = run_kvmbench({"run", "rmpopt", "-r", "zero", "--out", tmp.path.string()}, 60, "", env());
  EXPECT_EQ(d.exit_code, 2) << d.err;
  // A malformed parameter value is refused before the run starts.
  auto e = run_kvmbench({"run", "directmap", "--preset", "host", "-b", "1Q", "--out", tmp.path.string()},
                        60, "", env());
  EXPECT_EQ(e.exit_code, 2) << e.err;
  EXPECT_NE(e.err.find("'1Q' is not a size"), std::string::npos) << e.err;
  // Nothing was measured, so nothing was written.
  EXPECT_TRUE(fs::is_empty(tmp.path));
}

// A bad --set value is exit 2 before anything runs: the message names the
// parameter, the value and what is valid (the host's own CPU count for
// cpus), and --out gets no entry, not even a failed run directory.
TEST(RunCli, BadParameterValuesAreRefusedBeforeTheRunStarts) {
  TempDir tmp;
  const std::string cpus = std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"rmpopt", "--preset", "host", "--set", "layouts=bogus"},
       "--set layouts=bogus: layouts is a comma-separated list of none, first, last, random:K"},
      {{"rmpopt", "--preset", "host", "--set", "cpus=99999"},
       "--set cpus=99999: cpus is all, or a CPU list such as 0-1,3 of this host's " + cpus + " online CPUs"},
      {{"directmap", "--preset", "host", "--set", "bytes=0"},
       "--set bytes=0: bytes is a size such as 4K, 1G or 2T, at least 4K; 0 is less"},
      {{"directmap", "--preset", "host", "--set", "backings=nope"},
       "--set backings=nope: backings is a comma-separated list of anon-4k, thp, hugetlb-2m, hugetlb-1g, memfd, "
       "guest_memfd (empty: all); 'nope' is not one"},
      {{"directmap", "--preset", "host", "--set", "nosuchkey=1"}, "'nosuchkey' is not a parameter"},
      // `run all`: every suite's parameters before the first suite runs
      // (rmpopt runs first and has no threads parameter).
      {{"all", "--set", "threads=0"}, "--set threads=0: threads is a comma-separated list of whole numbers"},
      // Values no per-value check refuses but the preset's parse does (a
      // parameter without a check; a combination): refused as early.
      {{"rmpopt", "--preset", "host", "--set", "dirty-fraction=x"}, "parameter dirty-fraction: 'x' is not a number"},
      {{"directmap", "--replay", std::string(KVMBENCH_TEST_DATA) + "/replay/directmap", "--set", "vcpus=2", "--set",
        "bytes=512M", "--set", "guest-mem=1G"},
       "vcpus x bytes (2 x 512M) does not fit in guest-mem 1G"},
      {{"directmap", "--steady", "--replay", std::string(KVMBENCH_TEST_DATA) + "/replay/directmap"},
       "--steady holds this host still for a measurement: a replay (--replay) measures nothing here"},
  };
  const fs::path out = tmp.path / "out";
  for (const auto& c : cases) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--out", out.string()});
    auto r = run_kvmbench(args, 60, "", env());
    EXPECT_EQ(r.exit_code, 2) << c.args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    // The message is all it says: no "skipping" line, no run started.
    EXPECT_EQ(r.err.find("->"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args.back();
  }
  EXPECT_TRUE(fs::is_empty(tmp.path));
}

TEST(RunCli, DocumentPresetThatCannotRunExits77WithReason) {
  TempDir tmp;
  auto list = run_kvmbench({"list"});
  if (list.out.find("cannot run here: CPU lacks sev_snp") == std::string::npos)
    GTEST_SKIP() << "this host might run SNP guests";
  auto r = run_kvmbench({"run", "rmpopt", "--preset", "document", "--out", tmp.path.string()}, 60, "", env());
  EXPECT_EQ(r.exit_code, 77) << r.err;
  EXPECT_NE(r.err.find("sev_snp"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(tmp.path));
}

// directmap's guest_memfd backing where this kernel's KVM has none (or
// cannot mmap it): a part the kernel never offers is a note with its
// reason, never a PARTIAL run; where KVM has it, it is measured.
TEST(RunCli, ABackingTheKernelNeverOffersIsANoteNotAPartialRun) {
  TempDir tmp;
  auto r = run_kvmbench({"run", "directmap", "--preset", "host", "--set", "backings=anon-4k,guest_memfd", "--set",
                         "threads=1", "--set", "bytes=8M", "-r", "2", "--out", tmp.path.string()},
                        120, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto run = load_run(only_run_dir(tmp.path));
  bool skipped = false;
  for (const auto& s : run.meta.value("skipped_parts", nlohmann::json::array()))
    if (s.value("part", "").starts_with("guest_memfd")) {
      skipped = true;
      const std::string reason = s.value("reason", "");
      if (reason.starts_with("KVM has no guest_memfd") || reason.starts_with("guest_memfd cannot be mmap'ed here")) {
        EXPECT_TRUE(s.value("not_offered", false)) << s.dump();
        EXPECT_EQ(r.out.find("PARTIAL"), std::string::npos) << r.out;
        EXPECT_NE(kvmbench::test_support::unwrapped(r.out).find("guest_memfd/threads=1: not offered here (" + reason),
                  std::string::npos)
            << r.out;
      }
    }
  if (!skipped) GTEST_SKIP() << "this kernel's KVM offers guest_memfd with MMAP: measured, nothing to note";
}

TEST(RunCli, HostPresetStoresARunAndPrintsItsReport) {
  TempDir tmp;
  auto r = run_kvmbench({"run", "rmpopt", "--preset", "host", "-r", "2", "--set", "ram=1G", "--set",
                         "layouts=none,last", "--set", "strategies=one-cpu,all-cpus", "--out", tmp.path.string()},
                        120, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("source: hardware"), std::string::npos) << r.out;
  // The preset's primary metric in its strategy x layout table, not again
  // in a compact table; the other metrics with --verbose.
  EXPECT_NE(r.out.find("Emulated sweep wall time over 1 GiB of RAM, per page layout"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("# rmpopt: emulated_sweep_wall ("), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("95% CI high"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kvmbench report --verbose DIR"), std::string::npos) << r.out;
  for (const auto& l : lines_of(r.out)) EXPECT_LE(l.size(), 80u) << l;
  auto run = load_run(only_run_dir(tmp.path));
  EXPECT_EQ(run.status(), "complete");
  EXPECT_EQ(run.suite(), "rmpopt");
  EXPECT_EQ(run.meta["preset"], "host");
  EXPECT_EQ(run.meta["parameters"]["ram"], "1G");
  EXPECT_TRUE(run.meta["host"].contains("cpu"));
  int walls = 0, it1 = 0;
  for (auto& s : run.samples)
    if (s.metric == "emulated_sweep_wall") {
      ++walls;
      EXPECT_GT(s.value, 0);
      if (s.iteration == 1) ++it1;
    }
  // 2 layouts x 2 strategies x 2 repetitions.
  EXPECT_EQ(walls, 8);
  EXPECT_EQ(it1, 4);
}

// --steady on a made-up host tree ($KVMBENCH_SYSFS_ROOT: where knobs are
// written): each setting changed for the run, said on stderr and in
// meta.json, and put back after it; directmap measures THP, so its defrag
// setting is left, saying why.
TEST(RunCli, SteadyHoldsTheHostStillAndPutsItBack) {
  TempDir tmp;
  using kvmbench::test_support::read_text;
  using kvmbench::test_support::write_text;
  const fs::path root = tmp.path / "root";
  write_text(root / "sys/bus/virtio/drivers/virtio_balloon/virtio0/features", "0000010000\n");
  write_text(root / "sys/module/page_reporting/parameters/page_reporting_order", "9\n");
  write_text(root / "proc/sys/kernel/randomize_va_space", "2\n");
  write_text(root / "sys/kernel/mm/transparent_hugepage/defrag", "[always] defer defer+madvise madvise never\n");
  write_text(root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
  auto e = env();
  e.push_back("KVMBENCH_SYSFS_ROOT=" + root.string());
  auto r = run_kvmbench({"run", "directmap", "--preset", "host", "--steady", "-r", "2", "--set", "backings=anon-4k",
                         "--set", "threads=1", "--set", "bytes=8M", "--set", "write-bandwidth=0", "--out",
                         (tmp.path / "out").string()},
                        120, "", e);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string err = kvmbench::test_support::unwrapped(r.err);
  EXPECT_NE(err.find("steady: free page reporting 9 -> 11, ASLR 2 -> 0, CPU frequency governor powersave -> "
                     "performance; left: THP defrag (a suite of this run measures THP"),
            std::string::npos)
      << r.err;
  const auto run = load_run(only_run_dir(tmp.path / "out"));
  ASSERT_TRUE(run.meta.contains("steady")) << run.meta.dump(2);
  const auto& steady = run.meta["steady"];
  ASSERT_EQ(steady.size(), 4u) << steady.dump(2);
  EXPECT_EQ(steady[0]["setting"], "free page reporting");
  EXPECT_EQ(steady[0]["was"], "9");
  EXPECT_EQ(steady[0]["now"], "11");
  EXPECT_EQ(steady[3]["setting"], "THP defrag");
  EXPECT_TRUE(steady[3].contains("left"));
  // Put back once the run is over.
  EXPECT_EQ(read_text(root / "sys/module/page_reporting/parameters/page_reporting_order"), "9");
  EXPECT_EQ(read_text(root / "proc/sys/kernel/randomize_va_space"), "2");
  EXPECT_EQ(read_text(root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"), "powersave");
  // Without --steady nothing is touched and meta.json has no "steady".
  auto plain = run_kvmbench({"run", "directmap", "--preset", "host", "-r", "2", "--set", "backings=anon-4k", "--set",
                             "threads=1", "--set", "bytes=8M", "--out", (tmp.path / "plain").string()},
                            120, "", e);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(load_run(only_run_dir(tmp.path / "plain")).meta.contains("steady"));
}

TEST(RunCli, AdaptiveRepetitionsStopAtABoundAndSayWhy) {
  TempDir tmp;
  auto r = run_kvmbench({"run", "asid", "--preset", "host", "-r", "auto", "--max-runs", "3", "--target-ci",
                         "0.000001", "--set", "workloads=mmap_churn", "--set", "mmap-bytes=1M", "--set",
                         "mmap-rounds=2", "--out", tmp.path.string()},
                        120, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("-r auto:"), std::string::npos) << r.err;
  auto run = load_run(only_run_dir(tmp.path));
  ASSERT_TRUE(run.meta.contains("adaptive_stop")) << run.meta.dump(2);
  EXPECT_EQ(run.meta["measured_repetitions"], 3);
  int warm = 0;
  for (auto& s : run.samples) warm += s.warmup;
  EXPECT_GT(warm, 0) << "the warm-up repetition is stored, marked as such";
}

TEST(RunCli, InterruptKeepsWhatWasMeasuredMarkedInterrupted) {
  TempDir tmp;
  auto r = run_kvmbench({"run", "rmpopt", "--preset", "host", "-r", "1000", "--set", "ram=1G", "--set",
                         "layouts=none", "--set", "strategies=one-cpu", "--out", tmp.path.string()},
                        120, "", env(), SIGINT, 3.0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  auto run = load_run(only_run_dir(tmp.path));
  EXPECT_EQ(run.status(), "interrupted");
}
