// `kvmbench report` on directmap document runs, through the real binary:
// one replayed run shows the host allocation rate (host_alloc_rate) in the
// document's layout, row named from the run's DirectMap lines; two runs (a
// 2M+split kernel and a 4K-pre-split kernel) make the document's table with
// its Welch test: `kvmbench report RUN_A RUN_B`.
//
// The 4K kernel's captures are derived here from the synthesized captures in
// tests/data/replay/directmap (README.md there): DirectMap lines with no 2M /
// 1G mappings, and the meminfo series' time axis scaled, so that the fitted
// rates are the originals divided by the scale (unpinned 12.0, 12.5, 13.0 ->
// / 0.5; pinned 8.0 -> / 0.5, / 0.55, / 0.6). Made-up numbers, not measurements.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::CommandResult;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kCaptures = fs::path(KVMBENCH_TEST_DATA) / "replay";

std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }

// Replays SUITE's document preset from `captures` into `out`; returns the run dir.
fs::path replay_run(const std::string& suite, const fs::path& captures, const fs::path& out) {
  auto r = run_kvmbench({"run", suite, "--preset", "document", "--replay", captures.string(), "--out", out.string()},
                        120, "", env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (auto& e : fs::directory_iterator(out))
    if (e.is_directory()) return e.path();
  ADD_FAILURE() << "no run directory under " << out;
  return {};
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A meminfo CSV with its time column multiplied by `k`.
void write_scaled(const fs::path& from, const fs::path& to, double k) {
  std::istringstream in(read(from));
  std::ofstream out(to);
  std::string line;
  out << "# SYNTHESIZED for kvmbench tests: " << from.filename().string() << " with time x " << k << "\n";
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.starts_with("t_s")) {
      out << line << "\n";
      continue;
    }
    auto comma = line.find(',');
    out << fmt::format("{:.6f}", std::stod(line.substr(0, comma)) * k) << line.substr(comma) << "\n";
  }
}

// The capture directory of a 4K-pre-split kernel (see the file comment).
void make_4k_captures(const fs::path& dir) {
  const fs::path src = kCaptures / "directmap";
  for (const char* f : {"faultin-unpinned.console.log", "faultin-pinned-node0.console.log"})
    fs::copy_file(src / f, dir / f);
  std::ofstream(dir / "directmap.txt") << "# SYNTHESIZED for kvmbench tests: a 4K-pre-split directmap\n"
                                       << "DirectMap4k:  1612709888 kB\nDirectMap2M:           0 kB\n"
                                       << "DirectMap1G:           0 kB\n";
  for (int i = 0; i < 3; ++i) {
    write_scaled(src / fmt::format("meminfo-unpinned.it{}.csv", i), dir / fmt::format("meminfo-unpinned.it{}.csv", i),
                 0.5);
    write_scaled(src / "meminfo-pinned-node0.csv", dir / fmt::format("meminfo-pinned-node0.it{}.csv", i),
                 0.5 + 0.05 * i);
  }
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

void expect_80_columns(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.starts_with("run") && !line.starts_with("  /")) { EXPECT_LE(line.size(), 80u) << line; }
}

}  // namespace

TEST(DirectmapReportCli, OneRunShowsTheHostAllocationRate) {
  TempDir out;
  fs::path run = replay_run("directmap", kCaptures / "directmap", out.path);
  auto r = run_kvmbench({"report", run.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // host_alloc_rate: unpinned 12.0, 12.5, 13.0 (mean 12.5, sd 0.5), pinned 8.0;
  // the guest's own faultin_rate (12.9 | 8.0) is not the document's figure.
  EXPECT_TRUE(has(r.out, "# Average fault-in rate across 3 repetitions, measured in GB/s\nsource: replay\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\nDirectMap2M+split      12.5  |   8.0\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\n  stddev                0.5  |   0.0\n")) << r.out;
  EXPECT_FALSE(has(r.out, "12.9  |")) << r.out;
  EXPECT_TRUE(has(r.out, "the ramp of Shmem in /proc/meminfo (the document: FileHugePages)")) << r.out;
  expect_80_columns(r.out);
}

TEST(DirectmapReportCli, TwoKernelsInTheDocumentsLayout) {
  TempDir out2m, out4k, captures4k;
  make_4k_captures(captures4k.path);
  fs::path run2m = replay_run("directmap", kCaptures / "directmap", out2m.path);
  fs::path run4k = replay_run("directmap", captures4k.path, out4k.path);
  auto r = run_kvmbench({"report", run4k.string(), run2m.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 4K: unpinned 24, 25, 26 (mean 25.0, sd 1.0); pinned 8/0.5, 8/0.55, 8/0.6.
  const std::vector<double> p = {8 / 0.5, 8 / 0.55, 8 / 0.6};
  const double pm = (p[0] + p[1] + p[2]) / 3;
  double ss = 0;
  for (double x : p) ss += (x - pm) * (x - pm);
  const double psd = std::sqrt(ss / 2);
  EXPECT_TRUE(has(r.out, fmt::format("\nDirectMap4K            25.0  |  {:4.1f}\n", pm))) << r.out;
  EXPECT_TRUE(has(r.out, fmt::format("\n  stddev                1.0  |  {:4.1f}\n", psd))) << r.out;
  EXPECT_TRUE(has(r.out, "\nDirectMap2M+split      12.5  |   8.0\n")) << r.out;
  // The note names the run (by its path when both runs started in the same
  // second and so share a directory name).
  const bool by_name = has(r.out, "DirectMap4K: " + run4k.filename().string());
  EXPECT_TRUE(by_name || has(r.out, "DirectMap4K: " + run4k.string())) << r.out;
  // Welch per column, 4K against 2M+split: unpinned t = 12.5 / sqrt(1/3 + 0.25/3).
  EXPECT_TRUE(has(r.out, "DirectMap4K vs DirectMap2M+split: Welch t-test per column (GB/s)")) << r.out;
  EXPECT_TRUE(has(r.out, fmt::format("{:.2f}", 12.5 / std::sqrt(1.0 / 3 + 0.25 / 3)))) << r.out;
  expect_80_columns(r.out);
  // json carries the same table.
  auto j = run_kvmbench({"report", run4k.string(), run2m.string(), "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["tables"][0]["rows"][0][0], "DirectMap4K");
}

TEST(DirectmapReportCli, SeveralRunsOfAnotherSuiteOrTheSameRunTwiceAreUsageErrors) {
  TempDir outdm, outms;
  fs::path dm = replay_run("directmap", kCaptures / "directmap", outdm.path);
  fs::path ms = replay_run("make_shared", kCaptures / "make_shared", outms.path);
  auto r = run_kvmbench({"report", dm.string(), ms.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "a make_shared run; several runs in one report are for directmap")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto twice = run_kvmbench({"report", dm.string(), dm.string() + "/"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_TRUE(has(twice.err, "the same run twice")) << twice.err;
  auto html = run_kvmbench({"report", dm.string(), dm.string(), "--format", "html"});
  EXPECT_EQ(html.exit_code, 2);
}
