// Monitors through the binary (issue 43): a host run of directmap stores
// vmstat.* monitors each repetition with the monitor role in meta.json;
// compare prints them below the verdict, never in it; report --verbose
// lists them; --monitors off stores none; a bad level is exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

using kvmbench::test_support::private_state_dir_env;
using kvmbench::test_support::read_text;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

// A short host run of directmap (one thread, two backings, no bandwidth).
std::vector<std::string> short_directmap(const fs::path& out, const std::string& monitors = "") {
  std::vector<std::string> a = {"run", "directmap", "--preset", "host", "-r", "2", "--set", "threads=1",
                                "--set", "backings=anon-4k,thp", "--set", "write-bandwidth=0", "--out", out.string()};
  if (!monitors.empty()) a.insert(a.end(), {"--monitors", monitors});
  return a;
}

std::vector<fs::path> runs_in(const fs::path& out) {
  std::vector<fs::path> v;
  for (auto& e : fs::directory_iterator(out)) v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<nlohmann::json> samples_of(const fs::path& run) {
  std::vector<nlohmann::json> v;
  std::ifstream in(run / "samples.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) v.push_back(nlohmann::json::parse(line));
  return v;
}

}  // namespace

TEST(MonitorsCli, HostRunStoresVmstatMonitorsAndCompareShowsThemBelowTheVerdict) {
  if (!fs::exists("/proc/vmstat")) GTEST_SKIP() << "no /proc/vmstat here";
  TempDir d;
  for (int i = 0; i < 2; ++i) {
    const auto r = run_kvmbench(short_directmap(d.path), 120, "", {private_state_dir_env()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto runs = runs_in(d.path);
  ASSERT_EQ(runs.size(), 2u);
  const auto meta = nlohmann::json::parse(read_text(runs[0] / "meta.json"));
  ASSERT_TRUE(meta["metric_roles"].contains("monitor")) << meta["metric_roles"].dump();
  const auto sources = meta["metric_roles"]["monitor"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(sources.begin(), sources.end(), "vmstat"), sources.end());
  EXPECT_EQ(meta["monitors"]["level"], "basic");
  EXPECT_TRUE(meta["monitors"]["skipped"].is_array());
  // At least five vmstat.* monitors in each repetition; none primary.
  std::map<int, std::set<std::string>> per_rep;
  for (const auto& s : samples_of(runs[0])) {
    const std::string m = s["metric"];
    if (m.rfind("vmstat.", 0) == 0) {
      per_rep[s["iteration"].get<int>()].insert(m);
      EXPECT_EQ(s["case"], "repetition");
    }
  }
  ASSERT_EQ(per_rep.size(), 2u);
  for (const auto& [it, names] : per_rep) EXPECT_GE(names.size(), 5u) << "repetition " << it;
  for (const auto& p : meta["metric_roles"]["primary"]) EXPECT_EQ(p.get<std::string>().find('.'), std::string::npos);

  for (const std::string format : {"text", "mail"}) {
    const auto c = run_kvmbench({"compare", runs[0].string(), runs[1].string(), "--format", format});
    ASSERT_TRUE(c.exit_code == 0 || c.exit_code == 3) << c.err;  // an A/A pair: no regression
    // A table of the changed ones, or one line where none changed.
    std::size_t section = c.out.find("Monitors that changed beyond noise");
    if (section == std::string::npos) section = c.out.find("Monitors: none of the");
    ASSERT_NE(section, std::string::npos) << c.out;
    EXPECT_EQ(c.out.substr(0, section).find("vmstat."), std::string::npos) << c.out;

  }
  // The gate decides on the suite's metrics alone; the monitors come below
  // its verdict, in its text and in its Markdown.
  for (const std::string format : {"text", "md"}) {
    const auto g =
        run_kvmbench({"gate", runs[0].string(), runs[1].string(), "--min-samples", "2", "--format", format});
    // A verdict, whichever (this test is about where the monitors go): two
    // real runs of two repetitions on a shared 2-CPU host busy with other
    // tests can differ beyond their spread (it failed once so, exit 1,
    // under ctest -j2); never bad input (2) or a bug (70).
    ASSERT_TRUE(g.exit_code == 0 || g.exit_code == 1 || g.exit_code == 3) << g.err;
    if (g.exit_code == 1) {
      EXPECT_NE(g.out.find("FAIL"), std::string::npos) << g.out;
    }
    std::size_t section = g.out.find("Monitors that changed beyond noise");
    if (section == std::string::npos) section = g.out.find("Monitors: none of the");
    ASSERT_NE(section, std::string::npos) << g.out;
    EXPECT_EQ(g.out.substr(0, section).find("vmstat."), std::string::npos) << g.out;
  }

  const auto brief = run_kvmbench({"report", runs[0].string()});
  ASSERT_EQ(brief.exit_code, 0) << brief.err;
  EXPECT_EQ(brief.out.find("vmstat.pgfault"), std::string::npos) << brief.out;
  EXPECT_NE(brief.out.find("monitors (what the kernel counted)"), std::string::npos) << brief.out;
  const auto verbose = run_kvmbench({"report", runs[0].string(), "--verbose"});
  ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
  EXPECT_NE(verbose.out.find("# Monitors: what the kernel counted in each repetition"), std::string::npos)
      << verbose.out;
  EXPECT_NE(verbose.out.find("vmstat.pgfault"), std::string::npos) << verbose.out;
}

TEST(MonitorsCli, OffStoresNoneAndABadLevelIsAUsageError) {
  TempDir d;
  const auto r = run_kvmbench(short_directmap(d.path, "off"), 120, "", {private_state_dir_env()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto runs = runs_in(d.path);
  ASSERT_EQ(runs.size(), 1u);
  const auto meta = nlohmann::json::parse(read_text(runs[0] / "meta.json"));
  EXPECT_FALSE(meta["metric_roles"].contains("monitor"));
  EXPECT_EQ(meta["monitors"]["level"], "off");
  for (const auto& s : samples_of(runs[0])) EXPECT_EQ(s["metric"].get<std::string>().find('.'), std::string::npos);

  TempDir e;
  const auto bad = run_kvmbench(short_directmap(e.path, "most"), 60, "", {private_state_dir_env()});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--monitors"), std::string::npos) << bad.err;
  EXPECT_TRUE(fs::is_empty(e.path));
}
