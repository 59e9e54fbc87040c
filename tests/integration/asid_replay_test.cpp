// `kvmbench run asid --preset document --replay DIR` through the real
// binary: NPT on and off as two variants, the native baseline in the same
// run, and the guest/native ratio table, from the synthesized captures in
// tests/data/replay/asid/ (numbers in its README.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::load_run;
using kvmbench::Sample;
using kvmbench::test_support::CommandResult;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kCaptures = fs::path(KVMBENCH_TEST_DATA) / "replay" / "asid";

std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }

CommandResult replay(const fs::path& dir, const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", "asid", "--preset", "document", "--replay", dir.string(), "--out",
                                   out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_kvmbench(args, 120, "", env());
}

kvmbench::Run the_run(const fs::path& out) {
  std::vector<fs::path> dirs;
  for (auto& e : fs::directory_iterator(out))
    if (e.is_directory()) dirs.push_back(e.path());
  EXPECT_EQ(dirs.size(), 1u);
  if (dirs.empty()) return {};
  return load_run(dirs.front());
}

std::vector<double> values(const kvmbench::Run& run, const std::string& metric, const std::string& variant) {
  std::vector<double> out;
  for (auto& s : run.samples)
    if (s.metric == metric && s.variant == variant) out.push_back(s.value);
  return out;
}

// The line of `text` that starts with `prefix` (after spaces), or "".
std::string line_starting(const std::string& text, const std::string& prefix, std::size_t from = 0) {
  std::size_t start = from;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (line.find_first_not_of(' ') != std::string::npos && line.substr(line.find_first_not_of(' ')).starts_with(prefix))
      return line;
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return "";
}

void copy_as(const fs::path& from, const fs::path& to) { fs::copy_file(from, to, fs::copy_options::overwrite_existing); }

}  // namespace

TEST(AsidReplay, NptOnAndOffBesideNativeWithRatios) {
  TempDir tmp;
  auto r = replay(kCaptures, tmp.path, {"-r", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto run = the_run(tmp.path);
  EXPECT_EQ(run.status(), "complete");
  EXPECT_EQ(run.meta["source"], "replay");
  EXPECT_EQ(values(run, "transaction_rate", "npt=on"), (std::vector<double>{41250, 41250}));
  EXPECT_EQ(values(run, "transaction_rate", "npt=off"), (std::vector<double>{40425, 40425}));
  EXPECT_EQ(values(run, "transaction_rate", "native"), (std::vector<double>{50000, 51000}));  // it0, it1 captures
  EXPECT_EQ(values(run, "time_per_round", "npt=off").size(), 2u);
  EXPECT_EQ(values(run, "cpuid_rate", "native"), (std::vector<double>{10000000, 10400000}));
  // FLUSHBYASID: whether the CPU had it is recorded, off is skipped with why.
  const std::string skips = run.meta["skipped_parts"].dump();
  EXPECT_NE(skips.find("flushbyasid=off"), std::string::npos) << skips;
  EXPECT_NE(skips.find("the captured host has FLUSHBYASID (/proc/cpuinfo flags)"), std::string::npos) << skips;
  EXPECT_NE(skips.find("clearcpuid=flushbyasid"), std::string::npos) << skips;
  for (auto& s : run.samples)
    if (s.variant.starts_with("npt=")) { EXPECT_EQ(s.extra.value("flushbyasid", ""), "yes"); }

  // The table: tcp_rr guest 41250 (both repetitions) over native 50000 and
  // 51000 (mean 50500): ratio 41250 / 50500 = 0.816832. Fieller with no
  // spread in the guest: df = 1 (native n - 1), t = 12.706205, se^2 of the
  // native mean = 500000 / 2 = 250000; bounds (ab -+ t a sqrt(vb)) /
  // (b^2 - t^2 vb) = (2083125000 -+ 262065473) / 2509888090 = [0.725554,
  // 0.934380]. npt=off: 40425 / 50500 = 0.800495, [0.711043, 0.915693].
  const std::string& out = r.out;
  // The run skipped flushbyasid=off (above): its title says it is partial.
  // One table, a row per metric and variant.
  auto title = out.find("# [PARTIAL: 1 part skipped] asid: guest vs native\n");
  ASSERT_NE(title, std::string::npos) << out;
  EXPECT_NE(out.find("source: replay", title), std::string::npos);
  const std::string on = line_starting(out, "transaction_rate npt=on", title),
                    off = line_starting(out, "transaction_rate npt=off", title);
  EXPECT_NE(on.find("2/2"), std::string::npos) << on;
  // 41250 and 50500 transactions/s, counts past 10^4 with their prefix, to
  // three significant digits (their CIs are wider than a tenth of a k):
  // 41.25 k prints as 41.2 (a tie, rounded to even), 50.5 k.
  EXPECT_NE(on.find("41.2 k 50.5 k transactions/s 0.817  [0.726, 0.934]"), std::string::npos) << on;
  EXPECT_NE(off.find("0.800  [0.711, 0.916]"), std::string::npos) << off;
  for (const char* row : {"throughput       npt=on", "cpuid_rate       npt=off", "time_per_round   npt=on"})
    EXPECT_NE(out.find(row, title), std::string::npos) << row << "\n" << out;
  EXPECT_NE(kvmbench::test_support::unwrapped(out).find("mmap_churn bytes=104857600,rounds=100"), std::string::npos)
      << out;
  EXPECT_NE(out.find("FLUSHBYASID in the measured boot (/proc/cpuinfo flags): yes"), std::string::npos) << out;
  // The consoles and native outputs are kept in the run as a live run keeps them.
  EXPECT_TRUE(fs::exists(run.dir / "raw" / "tcp_rr.npt-off.it1.console.log"));
  EXPECT_TRUE(fs::exists(run.dir / "raw" / "tcp_rr.it1.native.log"));
}

TEST(AsidReplay, OneSettingOnly) {
  TempDir tmp;
  auto r = replay(kCaptures, tmp.path, {"-r", "1", "--set", "npt=off"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto run = the_run(tmp.path);
  EXPECT_TRUE(values(run, "cpuid_rate", "npt=on").empty());
  EXPECT_EQ(values(run, "cpuid_rate", "npt=off"), (std::vector<double>{1237500}));
}

TEST(AsidReplay, AsLoadedReadsTheOlderLayout) {
  // One console per workload (no NPT setting in the name) and npt.txt: the
  // captured state goes with each sample; no native capture: skipped, no
  // ratio.
  TempDir caps, out;
  for (const char* w : {"tcp_rr", "tcp_stream", "cpuid_rate", "mmap_churn"})
    copy_as(kCaptures / (std::string(w) + ".npt-off.console.log"), caps.path / (std::string(w) + ".console.log"));
  std::ofstream(caps.path / "npt.txt") << "# SYNTHESIZED for kvmbench tests\nN\n";
  auto r = replay(caps.path, out.path, {"-r", "1", "--set", "npt=as-loaded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto run = the_run(out.path);
  // The variant is what was asked; the state the boot had is each sample's.
  EXPECT_EQ(values(run, "transaction_rate", "npt=as-loaded"), (std::vector<double>{40425}));
  for (const auto& s : run.samples)
    if (s.variant == "npt=as-loaded") {
      EXPECT_EQ(s.extra.value("npt", ""), "off") << s.metric;
    }
  EXPECT_TRUE(values(run, "transaction_rate", "native").empty());
  const std::string skips = run.meta["skipped_parts"].dump();
  EXPECT_NE(skips.find("tcp_rr (native)"), std::string::npos) << skips;
  EXPECT_NE(skips.find("does not say whether the kernel had FLUSHBYASID"), std::string::npos) << skips;
  EXPECT_EQ(r.out.find("guest vs native"), std::string::npos) << r.out;
}

TEST(AsidReplay, BadNptParameterOrContradictingCaptureIsBadInput) {
  TempDir out;
  for (const char* bad : {"npt=sideways", "npt=on,on", "npt=on,as-loaded"}) {
    auto r = replay(kCaptures, out.path, {"-r", "1", "--set", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << r.err;
    EXPECT_NE(r.err.find(std::string("--set ") + bad + ": npt is on, off, on,off, off,on or as-loaded"),
              std::string::npos)
        << r.err;
  }
  EXPECT_TRUE(fs::is_empty(out.path));  // nothing half-written

  TempDir caps, out2;
  for (auto& e : fs::directory_iterator(kCaptures)) copy_as(e.path(), caps.path / e.path().filename());
  std::ofstream(caps.path / "npt-off.txt") << "Y\n";  // "off" but the host read npt=Y
  auto r = replay(caps.path, out2.path, {"-r", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("npt-off.txt"), std::string::npos) << r.err;
}
