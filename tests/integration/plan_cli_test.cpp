// kvmbench plan through the real binary: a pilot of three boots of one
// made-up lab machine (tests/support/synthetic_lab.h), as run directories
// and from the results database, gives boots x repetitions per primary
// metric; a pilot of two machines or suites, of one boot, and a bad --mde
// are refused with the reason (exit 2).
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"
#include "tests/support/synthetic_lab.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::unwrapped;
namespace fs = std::filesystem;

namespace {

const fs::path kHosts = fs::path(KVMBENCH_TEST_DATA) / "hosts";

// Three days of the three lab machines, with the seconds `kvmbench run`
// records (5 repetitions of 4 s, 30 s a process); the runs of `host`.
std::vector<fs::path> pilot(const fs::path& out, const std::string& host, std::vector<fs::path>* all = nullptr) {
  const auto lab = kvmbench::test_support::write_synthetic_year(out, kHosts, 3);
  std::vector<fs::path> mine;
  for (const auto& r : lab.runs) {
    auto meta = nlohmann::json::parse(kvmbench::read_file(r / "meta.json"));
    meta["repetition_seconds"] = {4, 4, 4, 4, 4};
    meta["invocation_seconds"] = 30;
    std::ofstream(r / "meta.json") << meta.dump();
    if (r.filename().string().find(host) != std::string::npos) mine.push_back(r);
    if (all) all->push_back(r);
  }
  return mine;
}

}  // namespace

TEST(PlanCli, BootsAndRepetitionsFromRunsAndFromTheDatabase) {
  TempDir t;
  const auto runs = pilot(t.path / "runs", "lab-plain-1");
  ASSERT_EQ(runs.size(), 3u);
  std::vector<std::string> args = {"plan"};
  for (const auto& r : runs) args.push_back(r.string());
  auto r = run_kvmbench(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = unwrapped(r.out);
  EXPECT_NE(out.find("PLAN: "), std::string::npos) << r.out;
  EXPECT_NE(out.find("a regression of 5% found with 95% power"), std::string::npos) << r.out;
  EXPECT_NE(out.find("pilot: 3 boots of directmap on lab-plain-1"), std::string::npos) << r.out;
  // One row per primary metric (faultin_rate of the three cases), none for
  // the derived fault_ns.
  for (const std::string c : {"anon-4k", "thp", "hugetlb-2m"})
    EXPECT_NE(out.find(c + "/1-thread/faultin_rate"), std::string::npos) << r.out;
  EXPECT_EQ(out.find("fault_ns"), std::string::npos) << r.out;
  // JSON: the table's numbers are numbers.
  args.insert(args.end(), {"--format", "json", "--mde", "10"});
  auto j = run_kvmbench(args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_TRUE(nlohmann::json::accept(j.out)) << j.out;

  // The same pilot from the results database, by machine name.
  const fs::path db = t.path / "k.db";
  auto imp = run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db.string()});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  auto d = run_kvmbench({"plan", "--db", db.string(), "--suite", "directmap", "--machine", "lab-plain-1"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(unwrapped(d.out).find("pilot: 3 boots of directmap on lab-plain-1"), std::string::npos) << d.out;
  auto none = run_kvmbench({"plan", "--db", db.string(), "--suite", "asid", "--machine", "lab-plain-1"});
  EXPECT_EQ(none.exit_code, 2) << none.out;
  EXPECT_NE(none.err.find("no complete runs of asid"), std::string::npos) << none.err;
}

TEST(PlanCli, RefusesAPilotItCannotPlanFrom) {
  TempDir t;
  std::vector<fs::path> all;
  const auto runs = pilot(t.path / "runs", "lab-plain-1", &all);
  ASSERT_EQ(runs.size(), 3u);
  // Two machines.
  auto two = run_kvmbench({"plan", (t.path / "runs").string()});
  EXPECT_EQ(two.exit_code, 2) << two.out;
  EXPECT_NE(two.err.find("a pilot is one machine"), std::string::npos) << two.err;
  // One boot.
  auto one = run_kvmbench({"plan", runs[0].string()});
  EXPECT_EQ(one.exit_code, 2) << one.out;
  EXPECT_NE(one.err.find("at least 2"), std::string::npos) << one.err;
  // Bad --mde: negative, zero, not a number; nothing printed.
  for (const std::string mde : {"-5", "0", "five"}) {
    auto bad = run_kvmbench({"plan", runs[0].string(), runs[1].string(), "--mde", mde});
    EXPECT_EQ(bad.exit_code, 2) << mde << ": " << bad.out;
    EXPECT_NE(bad.err.find("--mde"), std::string::npos) << mde << ": " << bad.err;
    EXPECT_TRUE(bad.out.empty()) << bad.out;
  }
  // Another suite.
  auto meta = nlohmann::json::parse(kvmbench::read_file(runs[2] / "meta.json"));
  meta["suite"] = "asid";
  std::ofstream(runs[2] / "meta.json") << meta.dump();
  auto other = run_kvmbench({"plan", runs[0].string(), runs[1].string(), runs[2].string()});
  EXPECT_EQ(other.exit_code, 2) << other.out;
  EXPECT_NE(other.err.find("a pilot is one suite"), std::string::npos) << other.err;
}
