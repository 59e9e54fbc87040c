// kvmbench gate --baseline db CAND and the machine check of compare and
// gate, through the real binary, on the synthetic lab (140 days: lab-snp-1's
// thp rate is 6 % lower from day 126, kernel 6.11.0).
#include <gtest/gtest.h>

#include "tests/support/run_command.h"
#include "tests/support/synthetic_lab.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

TEST(GateBaselineCli, BaselineFromTheDatabaseAndTheMachineCheck) {
  TempDir t;
  const auto year =
      kvmbench::test_support::write_synthetic_year(t.path / "runs", fs::path(KVMBENCH_TEST_DATA) / "hosts", 140);
  const std::string db = (t.path / "lab.db").string();
  ASSERT_EQ(run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db}).exit_code, 0);
  const std::string cand = year.runs.at(139).string();  // lab-snp-1, day 139
  // Against the newest runs (after the step too): passes.
  auto r = run_kvmbench({"gate", "--baseline", "db", cand, "--db", db, "--max-regression", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("history: 10 runs of directmap on lab-snp-1"), std::string::npos) << r.out;
  // Against 6.10.0 (before it): thp fails, with a JUnit file saying so.
  const std::string junit = (t.path / "gate.xml").string();
  r = run_kvmbench({"gate", "--baseline", "db:kernel=6.10.0,last=8", cand, "--db", db, "--max-regression", "1",
                    "--junit", junit});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("history: 8 runs of directmap on lab-snp-1, kernel 6.10.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 3 gated metrics regressed"), std::string::npos) << r.out;
  EXPECT_NE(kvmbench::read_file(junit).find("failures=\"1\""), std::string::npos);
  // No history to take, no database, a query it cannot read: exit 2.
  r = run_kvmbench({"gate", "--baseline", "db:kernel=5.4.0", cand, "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("0 complete hardware run(s)"), std::string::npos) << r.err;
  r = run_kvmbench({"gate", "--baseline", "db", cand, "--db", (t.path / "none.db").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
  r = run_kvmbench({"gate", "--baseline", "db:last=0", cand, "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot read 'last=0'"), std::string::npos) << r.err;

  // Two runs of two machines (lab-snp-1 and lab-tdx-1, day 5).
  const std::string snp = year.runs.at(5).string(), tdx = year.runs.at(140 + 5).string();
  r = run_kvmbench({"gate", snp, tdx});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("base and cand come from different machines"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cpu.vendor_id AuthenticAMD -> GenuineIntel"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--cross-machine"), std::string::npos) << r.err;  // (to gate anyway: text breaks the line)
  r = run_kvmbench({"gate", snp, tdx, "--cross-machine"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // the TDX host is 20 % faster: no regression
  EXPECT_NE(r.err.find("note: base and cand come from different machines"), std::string::npos) << r.err;
  r = run_kvmbench({"compare", snp, tdx});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: base and cand come from different machines"), std::string::npos) << r.err;
  // The same machine on another day: nothing said.
  r = run_kvmbench({"compare", snp, year.runs.at(6).string()});
  EXPECT_EQ(r.err.find("different machines"), std::string::npos) << r.err;
}
