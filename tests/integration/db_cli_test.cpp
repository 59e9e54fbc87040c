// kvmbench db import / dump / load / info through the real binary: on a
// synthetic month of three machines, run directories and a tarball of
// them, idempotence, a refused conflicting copy, bad input (exit 2 with the
// reason), and a dump moved SQLite -> PostgreSQL -> SQLite unchanged.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/run_store.h"
#include "tests/support/postgres_server.h"
#include "tests/support/run_command.h"
#include "tests/support/synthetic_lab.h"

using kvmbench::test_support::run_command;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kHosts = fs::path(KVMBENCH_TEST_DATA) / "hosts";

// "N runs imported (S samples), P already there, R refused, U unreadable"
struct Tally {
  long added = -1, samples = -1, present = -1, refused = -1, unreadable = -1;
};
Tally tally_of(const std::string& out) {
  Tally t;
  std::sscanf(out.c_str(), "%ld runs imported (%ld samples), %ld already there, %ld refused, %ld unreadable",
              &t.added, &t.samples, &t.present, &t.refused, &t.unreadable);
  return t;
}

}  // namespace

TEST(DbCli, ImportIsIdempotentAndRefusesAChangedCopy) {
  TempDir t;
  const auto lab = kvmbench::test_support::write_synthetic_year(t.path / "runs", kHosts, 10);
  const std::string db = (t.path / "lab.db").string();
  auto r = run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 30 runs of 36 samples each.
  Tally a = tally_of(r.out);
  EXPECT_EQ(a.added, 30);
  EXPECT_EQ(a.samples, 30 * 36);
  // Again, one run named on its own: nothing added.
  r = run_kvmbench({"db", "import", (t.path / "runs").string(), lab.runs.at(4).string(), "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  a = tally_of(r.out);
  EXPECT_EQ(a.added, 0);
  EXPECT_EQ(a.present, 31);
  // A copy of run 4 with one value changed: refused, exit 2, the rest kept.
  const fs::path copy = t.path / "changed" / lab.runs.at(4).filename();
  fs::create_directories(copy.parent_path());
  fs::copy(lab.runs.at(4), copy, fs::copy_options::recursive);
  std::string s = kvmbench::read_file(copy / "samples.jsonl");
  const auto at = s.find("\"value\":") + 8;
  s[at] = s[at] == '9' ? '8' : '9';
  kvmbench::write_file_atomic(copy / "samples.jsonl", s, false);
  r = run_kvmbench({"db", "import", copy.string(), "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("refused: the database holds a run of this machine with this name and other content (the "
                       "samples differ (both 36 lines))"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(tally_of(r.out).refused, 1);
  // KVMBENCH_DB names the database when --db does not.
  r = run_kvmbench({"db", "info"}, 60, "", {"KVMBENCH_DB=" + db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("30 runs, 1080 samples, 3 machines"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lab-tdx-1"), std::string::npos) << r.out;
}

TEST(DbCli, ImportsATarballOfRuns) {
  TempDir t;
  kvmbench::test_support::write_synthetic_year(t.path / "runs", kHosts, 3);
  const std::string tgz = (t.path / "runs.tar.gz").string();
  auto tar = run_command({"/usr/bin/tar", "-czf", tgz, "-C", t.path.string(), "runs"});
  ASSERT_EQ(tar.exit_code, 0) << tar.err;
  const std::string db = (t.path / "t.db").string();
  auto r = run_kvmbench({"db", "import", tgz, "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tally_of(r.out).added, 9);
  r = run_kvmbench({"db", "import", tgz, "--db", db});
  EXPECT_EQ(tally_of(r.out).present, 9);
}

TEST(DbCli, BadInputIsExit2WithTheReason) {
  TempDir t;
  const std::string db = (t.path / "x.db").string();
  auto r = run_kvmbench({"db", "info", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such file (import runs first"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(db)) << "reading must not create the database";
  r = run_kvmbench({"db", "info", "--db", "mysql://u@h/d"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown database URL scheme 'mysql'"), std::string::npos) << r.err;
  r = run_kvmbench({"db", "info", "--db", "postgresql:///kvmbench?host=" + t.path.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot connect"), std::string::npos) << r.err;
  kvmbench::write_file_atomic(t.path / "junk.db", std::string(8192, 'j'), false);
  r = run_kvmbench({"db", "info", "--db", (t.path / "junk.db").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a database"), std::string::npos) << r.err;
  kvmbench::write_file_atomic(t.path / "junk.tar", "not a tarball\n", false);
  r = run_kvmbench({"db", "import", (t.path / "junk.tar").string(), "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("junk.tar: cannot unpack: tar: "), std::string::npos) << r.err;
  r = run_kvmbench({"db", "import", (t.path / "none").string(), "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such file or directory"), std::string::npos) << r.err;
  // A run cut short: named, not imported; the good one beside it is.
  kvmbench::test_support::write_synthetic_year(t.path / "runs", kHosts, 2);
  const fs::path cut = t.path / "runs" / "directmap-20260102T020000Z-lab-snp-1" / "samples.jsonl";
  std::string s = kvmbench::read_file(cut);
  kvmbench::write_file_atomic(cut, s.substr(0, s.size() / 2), false);
  r = run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("samples.jsonl:"), std::string::npos) << r.err;
  EXPECT_EQ(tally_of(r.out).added, 5);
  EXPECT_EQ(tally_of(r.out).unreadable, 1);
  r = run_kvmbench({"db", "load", (t.path / "junk.tar").string(), "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a kvmbench database dump"), std::string::npos) << r.err;
}

TEST(DbCli, DumpMovesADatabaseToPostgresqlAndBackUnchanged) {
  if (auto why = kvmbench::test_support::PostgresServer::missing_package_reason(); !why.empty()) GTEST_SKIP() << why;
  TempDir t;
  kvmbench::test_support::write_synthetic_year(t.path / "runs", kHosts, 5);
  const std::string lite = (t.path / "a.db").string(), back = (t.path / "b.db").string();
  const std::string pg = kvmbench::test_support::PostgresServer::shared().fresh_database_url();
  ASSERT_EQ(run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", lite}).exit_code, 0);
  auto r = run_kvmbench({"db", "dump", (t.path / "1.jsonl").string(), "--db", lite});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_kvmbench({"db", "load", (t.path / "1.jsonl").string(), "--db", pg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("15 runs loaded"), std::string::npos) << r.out;
  r = run_kvmbench({"db", "dump", (t.path / "2.jsonl").string(), "--db", pg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_kvmbench({"db", "load", (t.path / "2.jsonl").string(), "--db", back});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_kvmbench({"db", "dump", "--db", back});  // to standard output
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string one = kvmbench::read_file(t.path / "1.jsonl");
  EXPECT_EQ(one, kvmbench::read_file(t.path / "2.jsonl"));
  EXPECT_EQ(one, r.out);
  // What the server now holds.
  r = run_kvmbench({"db", "info", "--db", pg});
  EXPECT_NE(r.out.find("15 runs, 540 samples, 3 machines"), std::string::npos) << r.out;
}
