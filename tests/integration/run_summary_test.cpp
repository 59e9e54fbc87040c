// What `kvmbench run` prints at its end, through the real binary: the
// summary (one line per suite and preset with its outcome, the run
// directory and the wall time; warnings once per kind), every message line
// within 80 columns, and partial runs marked in their tables' titles and
// in `report`.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::load_run;
using kvmbench::test_support::run_command;
using kvmbench::test_support::lines_of;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kCaptures = fs::path(KVMBENCH_TEST_DATA) / "replay";

std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }


// The lines from "kvmbench: summary" on.
std::vector<std::string> summary_of(const std::string& err) {
  auto lines = lines_of(err);
  auto it = std::find_if(lines.begin(), lines.end(),
                         [](const std::string& l) { return l.rfind("kvmbench: summary (wall time ", 0) == 0; });
  return {it, lines.end()};
}

std::vector<fs::path> run_dirs(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (auto& e : fs::directory_iterator(root))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace

TEST(RunSummary, RunAllEndsWithOneLinePerPresetWithinEightyColumns) {
  TempDir tmp;
  auto r = run_kvmbench({"run", "all", "--replay", kCaptures.string(), "-r", "1", "--out", tmp.path.string()}, 180,
                        "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& l : lines_of(r.err)) EXPECT_LE(l.size(), 80u) << l;
  // The tables too: a short one per suite, each line within 80 columns.
  for (const auto& l : lines_of(r.out)) EXPECT_LE(l.size(), 80u) << l;
  EXPECT_LE(lines_of(r.out).size(), 150u) << r.out;
  const auto summary = summary_of(r.err);
  ASSERT_FALSE(summary.empty()) << r.err;
  EXPECT_TRUE(std::regex_search(summary.front(), std::regex(R"(wall time [0-9]+\.[0-9] s\):$)"))) << summary.front();
  // One summary, at the end of the messages.
  EXPECT_EQ(std::count_if(summary.begin(), summary.end(),
                          [](const std::string& l) { return l.rfind("kvmbench: summary", 0) == 0; }),
            1);
  const auto dirs = run_dirs(tmp.path);
  ASSERT_EQ(dirs.size(), 4u) << r.err;
  for (const auto& d : dirs) {
    const auto run = load_run(d);
    const std::string head = "  " + run.suite() + " / document: ";
    std::size_t found = 0;
    for (std::size_t i = 0; i < summary.size(); ++i)
      if (summary[i].rfind(head, 0) == 0) {
        ++found;
        // The directory goes under the line where both do not fit.
        const bool below = i + 1 < summary.size() && summary[i + 1].rfind("    -> ", 0) == 0;
        const std::string l = below ? summary[i] + summary[i + 1].substr(3) : summary[i];
        // Its outcome, its seconds and its directory, on its line.
        EXPECT_TRUE(l.find(": ran, 1 repetition, ") != std::string::npos || l.find(": PARTIAL: ") != std::string::npos)
            << l;
        EXPECT_TRUE(std::regex_search(l, std::regex(R"(, [0-9]+\.[0-9] s -> )"))) << l;
        EXPECT_NE(l.find(d.filename().string()), std::string::npos) << l;
        // A run with skipped parts says so here, not "ran".
        const bool skipped = !run.meta.value("skipped_parts", nlohmann::json::array()).empty();
        EXPECT_EQ(l.find(": PARTIAL: ") != std::string::npos, skipped) << l;
      }
    EXPECT_EQ(found, 1u) << run.suite() << "\n" << r.err;
  }
  EXPECT_NE(std::find(summary.begin(), summary.end(), "  runs in " + tmp.path.string()), summary.end()) << r.err;
}

// A host preset run live: its warnings once per kind with a count (the
// host's settings said once, not once per run), none about variation over
// fewer than 5 runs; meta.json keeps every warning.
TEST(RunSummary, WarningsAreCountedOncePerKindAndFewRunsSayNothingOfVariation) {
  TempDir tmp;
  auto r = run_kvmbench({"run", "rmpopt", "--preset", "host", "-r", "3", "--set", "ram=1G", "--set",
                         "layouts=none,last", "--set", "strategies=one-cpu,all-cpus", "--out", tmp.path.string()},
                        120, "", env());
  if (r.exit_code == 77) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& l : lines_of(r.err)) EXPECT_LE(l.size(), 80u) << l;
  EXPECT_EQ(r.err.find("high variation"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("runs are outliers"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("kvmbench: warning: "), std::string::npos) << "warnings go to the summary\n" << r.err;
  std::map<std::string, int> kinds;
  const std::regex kind_line(R"(^  (.+) \(([0-9]+)x\), e\.g\.:$)");
  for (const auto& l : summary_of(r.err)) {
    std::smatch m;
    if (std::regex_match(l, m, kind_line)) {
      ++kinds[m[1]];
      EXPECT_GE(std::stoi(m[2]), 1) << l;
    }
  }
  for (const auto& [kind, n] : kinds) EXPECT_EQ(n, 1) << kind;
  // meta.json keeps what the terminal left out: every stability warning.
  const auto dirs = run_dirs(tmp.path);
  ASSERT_EQ(dirs.size(), 1u);
  const auto run = load_run(dirs.front());
  if (run.meta.contains("stability_warnings")) {
    auto report = run_kvmbench({"report", "--verbose", dirs.front().string()});
    ASSERT_EQ(report.exit_code, 0) << report.err;
    EXPECT_NE(report.out.find(fmt::format("stability warnings ({}):", run.meta["stability_warnings"].size())),
              std::string::npos)
        << report.out;
  }
}

TEST(RunSummary, InterruptedRunSaysSoInItsTablesAndSummary) {
  TempDir tmp;
  auto r = run_kvmbench({"run", "rmpopt", "--preset", "host", "-r", "1000", "--set", "ram=1G", "--set",
                         "layouts=none", "--set", "strategies=one-cpu", "--out", tmp.path.string()},
                        120, "", env(), SIGINT, 3.0);
  ASSERT_EQ(r.exit_code, 130) << r.err;
  const auto dirs = run_dirs(tmp.path);
  ASSERT_EQ(dirs.size(), 1u);
  const auto run = load_run(dirs.front());
  ASSERT_EQ(run.status(), "interrupted");
  const int measured = run.meta["measured_repetitions"].get<int>();
  const std::string note = fmt::format("INTERRUPTED: {} of 1000 repetitions measured", measured);
  if (!run.samples.empty()) {
    // Every table title carries it; here the first line of the report.
    EXPECT_NE(r.out.find("[" + note + "] "), std::string::npos) << r.out;
  }
  bool said = false;
  for (const auto& l : summary_of(r.err)) said |= l.rfind("  rmpopt / host: " + note, 0) == 0;
  EXPECT_TRUE(said) << r.err;
  auto report = run_kvmbench({"report", dirs.front().string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("status: interrupted"), std::string::npos) << report.out;
  if (!run.samples.empty()) { EXPECT_NE(report.out.find("[" + note + "] "), std::string::npos) << report.out; }
}

// asid's host preset run by a copy of kvmbench outside the build tree:
// none of its workload binaries is beside it, so every part is skipped.
TEST(RunSummary, RunWhoseEveryPartWasSkippedSaysNothingWasMeasured) {
  TempDir tmp;
  const fs::path copy = tmp.path / "bin" / "kvmbench";
  fs::create_directories(copy.parent_path());
  fs::copy_file(KVMBENCH_BINARY, copy);
  std::vector<std::string> e = env();
  auto r = run_command({copy.string(), "run", "asid", "--preset", "host", "-r", "1", "--set", "workloads=cpuid_rate",
                        "--out", (tmp.path / "out").string()},
                       120, "", e);
  if (r.exit_code == 77) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto dirs = run_dirs(tmp.path / "out");
  ASSERT_EQ(dirs.size(), 1u);
  const auto run = load_run(dirs.front());
  ASSERT_TRUE(run.samples.empty()) << "a workload binary was found beside the copy";
  const auto skips = run.meta["skipped_parts"];
  ASSERT_FALSE(skips.empty());
  EXPECT_NE(r.out.find("no samples (every part was skipped on this host)"), std::string::npos) << r.out;
  bool said = false;
  for (const auto& l : summary_of(r.err)) said |= l.rfind("  asid / host: NOTHING MEASURED: ", 0) == 0;
  EXPECT_TRUE(said) << r.err;

  auto report = run_kvmbench({"report", dirs.front().string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  // That nothing was measured, first; then "status: complete".
  EXPECT_EQ(report.out.rfind(fmt::format("note: NOTHING MEASURED: {} part", skips.size()), 0), 0u) << report.out;
  EXPECT_NE(report.out.find("status: complete  source: hardware  samples: 0\n"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find(fmt::format("skipped parts ({}):", skips.size())), std::string::npos) << report.out;
  for (const auto& s : skips)
    EXPECT_NE(report.out.find("  " + s["part"].get<std::string>() + ": "), std::string::npos) << report.out;
  // (The "run: DIR" line is as long as the path given.)
  for (const auto& l : lines_of(report.out))
    if (l.rfind("run: ", 0) != 0) { EXPECT_LE(l.size(), 80u) << l; }
}
