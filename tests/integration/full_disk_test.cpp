// A disk that fills: a small tmpfs mounted in a mount namespace of the
// command's own (so that nothing outlives it), the run directories copied
// out before it goes. Needs root and unshare(1); skipped, saying why, where
// either is missing.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_command;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kReplay = fs::path(KVMBENCH_TEST_DATA) / "replay";

struct OnSmallDisk {
  kvmbench::test_support::CommandResult result;
  std::string left;  // `ls -A` of the runs folder on the disk
  std::string disk;  // `ls -A` of the disk, less the file that fills it
  std::string skip;  // why the disk could not be had ("" when it was)
};

// Runs kvmbench with `args` (where "{disk}" stands for the tmpfs) on a
// tmpfs of `size` that a file of `fill_kib` KiB fills first (all of it:
// -1), and copies what it left under runs/ to `out`.
OnSmallDisk on_small_disk(const TempDir& t, const std::string& size, long fill_kib, std::vector<std::string> args,
                          const fs::path& out) {
  OnSmallDisk r;
  if (::geteuid() != 0) {
    r.skip = "mounting a small tmpfs needs root";
    return r;
  }
  const auto ns = run_command({"/usr/bin/unshare", "--mount", "/bin/true"});
  if (ns.exit_code != 0) {
    r.skip = "no mount namespace here: " + ns.err;
    return r;
  }
  const fs::path disk = t.path / "disk";
  fs::create_directories(disk);
  fs::create_directories(out);
  std::string command = fmt::format("'{}'", KVMBENCH_BINARY);
  for (auto& a : args) {
    for (std::size_t at; (at = a.find("{disk}")) != std::string::npos;) a.replace(at, 6, disk.string());
    command += fmt::format(" '{}'", a);
  }
  const std::string fill = fill_kib < 0 ? fmt::format("cat /dev/zero > '{}/fill' 2>/dev/null;", disk.string())
                                        : fmt::format("head -c {}K /dev/zero > '{}/fill';", fill_kib, disk.string());
  const std::string script = fmt::format(
      "mount -t tmpfs -o size={0} tmpfs '{1}' || exit 99; {2} {3}; rc=$?; "
      "echo \"left:[$(ls -A '{1}/runs' 2>/dev/null)]\" >&2; echo \"disk:[$(ls -A '{1}' | grep -vx fill)]\" >&2; "
      "cp -a '{1}/runs/.' '{4}/' 2>/dev/null; exit $rc",
      size, disk.string(), fill, command, out.string());
  r.result = run_command({"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script}, 120,
                         "", {kvmbench::test_support::private_state_dir_env()});
  if (r.result.exit_code == 99) r.skip = "cannot mount a tmpfs here: " + r.result.err;
  const auto l = r.result.err.rfind("left:[");
  if (l != std::string::npos) r.left = r.result.err.substr(l + 6, r.result.err.find(']', l) - l - 6);
  const auto d = r.result.err.rfind("disk:[");
  if (d != std::string::npos) r.disk = r.result.err.substr(d + 6, r.result.err.find(']', d) - d - 6);
  return r;
}

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::exists(dir))
    for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

}  // namespace

// A disk already full: the run directory cannot get its meta.json, and
// goes again (it was left behind, empty, by `run` and `ingest`), and so
// does the --out folder made for it (it was left, empty).
TEST(FullDisk, ARunThatCannotStartLeavesNoDirectory) {
  TempDir t;
  const fs::path log = t.path / "kernel.log";
  kvmbench::test_support::write_text(
      log, "[ 1.0] guest_memfd to_shared: nr_pages=1, make_shared=9 cycles, total=100 cycles\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"ingest", log.string(), "--out", "{disk}/runs"},
           {"run", "directmap", "--replay", (kReplay / "directmap").string(), "--out", "{disk}/runs"}}) {
    SCOPED_TRACE(args[0]);
    const auto d = on_small_disk(t, "256k", -1, args, t.path / ("out-" + args[0]));
    if (!d.skip.empty()) GTEST_SKIP() << d.skip;
    EXPECT_EQ(d.result.exit_code, 2) << d.result.err;
    EXPECT_NE(d.result.err.find("No space left on device"), std::string::npos) << d.result.err;
    EXPECT_EQ(d.left, "") << d.result.err;
    EXPECT_EQ(d.disk, "") << d.result.err;
  }
}

// `db dump` onto a disk that fills: exit 2, and no dump, not even its
// FILE.partial (it was left).
TEST(FullDisk, ADumpThatDoesNotFitLeavesNothing) {
  TempDir t;
  std::string log;
  for (int i = 0; i < 2000; ++i)
    log += fmt::format("[ {}.0] guest_memfd to_shared: nr_pages={}, make_shared=9 cycles, total=100 cycles\n", i + 1,
                       1 << (i % 10));
  kvmbench::test_support::write_text(t.path / "kernel.log", log);
  ASSERT_EQ(kvmbench::test_support::run_kvmbench({"ingest", (t.path / "kernel.log").string(), "--out",
                                                  (t.path / "runs").string()})
                .exit_code,
            0);
  const std::string db = (t.path / "lab.db").string();
  ASSERT_EQ(kvmbench::test_support::run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db}).exit_code,
            0);
  const auto d = on_small_disk(t, "256k", 128, {"db", "dump", "{disk}/lab.jsonl", "--db", db}, t.path / "out");
  if (!d.skip.empty()) GTEST_SKIP() << d.skip;
  EXPECT_EQ(d.result.exit_code, 2) << d.result.err;
  EXPECT_NE(d.result.err.find("cannot write"), std::string::npos) << d.result.err;
  EXPECT_EQ(d.disk, "") << d.result.err;
}

// A disk that fills during `run`: the run ends failed, with the reason in
// meta.json and on stderr, every whole sample kept and no line cut (it
// was left "running", samples.jsonl cut mid-line, with a message naming
// only meta.json.tmp).
TEST(FullDisk, ARunThatFillsTheDiskEndsFailedWithItsWholeSamples) {
  TempDir t;
  const fs::path out = t.path / "out";
  // The directmap replay writes about 300 KB of samples; the disk has room
  // for meta.json, the room kept for it, the raw copies and a part of them.
  const auto d = on_small_disk(
      t, "1m", 640, {"run", "directmap", "--replay", (kReplay / "directmap").string(), "--out", "{disk}/runs"}, out);
  if (!d.skip.empty()) GTEST_SKIP() << d.skip;
  // A failed run is exit 1 (run_driver.h); which write met the full disk
  // first (a sample, or a repetition's raw copy) depends on the sizes.
  EXPECT_EQ(d.result.exit_code, 1) << d.result.err;
  const std::string err = kvmbench::test_support::unwrapped(d.result.err);
  EXPECT_NE(err.find("directmap / document failed: cannot "), std::string::npos) << err;
  EXPECT_NE(err.find("No space left on device"), std::string::npos) << err;
  EXPECT_NE(err.find("(status: failed)"), std::string::npos) << err;
  const auto dirs = entries(out);
  ASSERT_EQ(dirs.size(), 1u) << err;
  const kvmbench::Run run = kvmbench::load_run(dirs[0]);  // throws on a line cut short
  EXPECT_EQ(run.status(), "failed");
  EXPECT_NE(run.meta.value("error", "").find("No space left on device"), std::string::npos) << run.meta.dump(2);
  EXPECT_EQ(run.meta["n_samples"], run.samples.size());
  EXPECT_GT(run.samples.size(), 0u);
  EXPECT_LT(run.samples.size(), 786u);
  const std::string text = kvmbench::read_file(dirs[0] / "samples.jsonl");
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), run.samples.size());
  EXPECT_FALSE(fs::exists(dirs[0] / ".meta.json.reserve"));
}
