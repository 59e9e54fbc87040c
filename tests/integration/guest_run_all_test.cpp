// `kvmbench run all` on this host: the document preset where it can run,
// else the host preset, plus the smoke preset (a TCG guest) where the
// document preset cannot run. A guest test: it boots QEMU, so it holds the
// guest tests' lock and stays out of the asan workflow.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::load_run;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }

std::vector<fs::path> run_dirs(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (auto& e : fs::directory_iterator(root))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}


// suite -> preset -> can it run here, from `kvmbench list`.
std::map<std::string, std::map<std::string, bool>> listed_presets() {
  auto r = run_kvmbench({"list"});
  std::map<std::string, std::map<std::string, bool>> out;
  std::string suite, preset;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != ' ') {
      suite = line.substr(0, line.find(':'));
    } else if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      preset = line.substr(2, line.find(' ', 2) - 2);
    } else if (line.rfind("    can run here", 0) == 0) {
      out[suite][preset] = true;
    } else if (line.rfind("    cannot run here", 0) == 0) {
      out[suite][preset] = false;
    }
  }
  return out;
}

}  // namespace

// `kvmbench run all` (no --preset): per suite the document preset where it
// can run, else the host preset, plus the smoke preset where the document
// preset cannot run; what is left out is said with the reason.
TEST(RunCliAll, RunsHostAndSmokeWhereTheDocumentCannot) {
  auto listed = listed_presets();
  ASSERT_EQ(listed.size(), 4u);
  TempDir tmp;
  auto r = run_kvmbench({"run", "all", "-r", "1", "--set", "ram=1G", "--set", "layouts=none", "--set",
                         "strategies=one-cpu", "--set", "threads=1", "--set", "backings=anon-4k", "--set",
                         "write-bandwidth=0", "--set", "bytes=16M", "--set", "sizes=4K", "--set",
                         "workloads=cpuid_rate", "--set", "seconds=1", "--out", tmp.path.string()},
                        140, "", env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // What a user reads of it: within 150 lines (issue 44; the full `run all`
  // of this host, every workload, was 143 lines on 2026-12-07, from 187).
  const std::string all = r.out + r.err;
  EXPECT_LE(std::count(all.begin(), all.end(), '\n'), 150) << all;
  std::set<std::string> ran;
  for (auto& d : run_dirs(tmp.path)) {
    kvmbench::Run run = load_run(d);
    ran.insert(run.suite() + "/" + run.meta["preset"].get<std::string>());
  }
  for (auto& [suite, presets] : listed) {
    const bool doc = presets.count("document") && presets.at("document");
    EXPECT_EQ(ran.count(suite + "/document"), doc ? 1u : 0u) << suite;
    if (!doc) {
      // Where no preset of the suite can run (make_shared without /dev/kvm),
      // it is skipped whole; presets left out for one reason share it.
      const std::regex said("(" + suite + ": not run here|skipping " + suite + "): document[:,]");
      EXPECT_TRUE(std::regex_search(r.err, said)) << suite << ":\n" << r.err;
      if (presets.count("host") && presets.at("host")) { EXPECT_EQ(ran.count(suite + "/host"), 1u) << suite; }
      if (presets.count("smoke") && presets.at("smoke")) { EXPECT_EQ(ran.count(suite + "/smoke"), 1u) << suite; }
    } else {
      EXPECT_EQ(ran.count(suite + "/smoke"), 0u) << suite;
    }
  }
}
