// kvmbench db import / dump / load / info through the real binary: on a
// synthetic month of three machines, run directories and a tarball of
// them, idempotence, a refused conflicting copy, bad input (exit 2 with the
// reason), and a dump moved SQLite -> PostgreSQL -> SQLite unchanged.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <set>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/store/db/results_db.h"
#include "analysis/store/run_record.h"
#include "analysis/store/run_store.h"
#include "tests/support/export_runs.h"
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

// Runs kvmbench as a user who cannot write what root made read-only: root
// itself writes a file whatever its mode says, so as root (CI) the command
// runs as `nobody` (setpriv, from util-linux).
kvmbench::test_support::CommandResult run_unprivileged(const std::vector<std::string>& args) {
  if (::geteuid() != 0) return run_kvmbench(args);
  std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                   KVMBENCH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
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

// A dump that `db load` refuses loads nothing: the whole dump is read
// before the database is opened, so no database file is made either (a
// refused load left an empty one, or the runs before the damaged line).
TEST(DbCli, ARefusedLoadLeavesNoDatabase) {
  TempDir t;
  kvmbench::test_support::write_synthetic_year(t.path / "runs", kHosts, 2);
  const std::string db = (t.path / "lab.db").string();
  ASSERT_EQ(run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db}).exit_code, 0);
  auto r = run_kvmbench({"db", "dump", (t.path / "dump.jsonl").string(), "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string dump = kvmbench::read_file(t.path / "dump.jsonl");
  const std::string damaged = dump.substr(0, dump.rfind("\"samples\"")) + "\"samples\":7}\n";
  kvmbench::write_file_atomic(t.path / "damaged.jsonl", damaged, false);
  const fs::path fresh = t.path / "fresh.db";
  r = run_kvmbench({"db", "load", (t.path / "damaged.jsonl").string(), "--db", fresh.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("damaged.jsonl:7: damaged line: \"samples\" is number where an array belongs; nothing "
                       "loaded"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(fresh)) << "a refused load made a database";
  // The same from standard input, and a file that is no dump at all.
  r = run_kvmbench({"db", "load", "-", "--db", fresh.string()}, 60, damaged);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(stdin):7: damaged line"), std::string::npos) << r.err;
  r = run_kvmbench({"db", "load", "-", "--db", fresh.string()}, 60, "not a dump\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a kvmbench database dump"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fresh));
  // A whole dump from standard input loads.
  r = run_kvmbench({"db", "load", "-", "--db", fresh.string()}, 60, dump);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 runs loaded"), std::string::npos) << r.out;
}

// A database that cannot be written is read: a file without write
// permission, and one in a directory where nothing can be made (its WAL
// index cannot be made there: read as immutable). One whose write-ahead
// log still holds commits cannot be read that way, and says why.
TEST(DbCli, AReadOnlyDatabaseIsRead) {
  TempDir t;
  kvmbench::test_support::write_synthetic_year(t.path / "runs", kHosts, 2);
  const fs::path shared = t.path / "share";
  fs::create_directories(shared);
  const fs::path db = shared / "lab.db";
  ASSERT_EQ(run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db.string()}).exit_code, 0);
  ASSERT_FALSE(fs::exists(db.string() + "-wal"));  // written back when the import closed it
  fs::permissions(t.path, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  const fs::path busy = t.path / "busy";
  struct Writable {  // again, so that the temporary directory can go
    std::vector<fs::path> dirs;
    ~Writable() {
      std::error_code ec;
      for (const auto& d : dirs) fs::permissions(d, fs::perms::all, ec);
    }
  } writable{{shared, busy}};
  auto reads = [&](const std::string& what) {
    SCOPED_TRACE(what);
    auto r = run_unprivileged({"db", "info", "--db", db.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("6 runs, 216 samples, 3 machines"), std::string::npos) << r.out;
    r = run_unprivileged({"history", "directmap", "faultin_rate", "--db", db.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("faultin_rate"), std::string::npos) << r.out;
    r = run_unprivileged({"db", "dump", "--db", db.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 7) << r.err;
  };
  // The file read-only, its directory open to all (the -shm can be made).
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(shared, fs::perms::all);
  reads("a read-only file");
  for (const char* left : {"-wal", "-shm"}) fs::remove(db.string() + left);
  // The directory read-only too.
  fs::permissions(shared, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  reads("a read-only directory");
  EXPECT_FALSE(fs::exists(db.string() + "-shm"));

  // A copy taken while a writer had commits in its write-ahead log.
  fs::create_directories(busy);
  {
    const fs::path live = t.path / "live.db";
    auto writer = kvmbench::db::ResultsDb(kvmbench::db::open_sqlite(live.string(), kvmbench::db::Access::create));
    writer.import_run(kvmbench::db::read_run_record(fs::directory_iterator(t.path / "runs")->path()));
    ASSERT_GT(fs::file_size(live.string() + "-wal"), 0u);
    fs::copy_file(live, busy / "lab.db");
    fs::copy_file(live.string() + "-wal", busy / "lab.db-wal");
  }
  fs::permissions(busy, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(busy / "lab.db", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  auto r = run_unprivileged({"db", "info", "--db", (busy / "lab.db").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(kvmbench::test_support::unwrapped(r.err).find("its write-ahead log " + (busy / "lab.db").string() +
                                                          "-wal holds commits"),
            std::string::npos)
      << r.err;
}

// Three ingests at once, each into its own --out (three jobs of one
// machine): their runs, begun in the same second, shared a name, and the
// database kept the first and refused the others. Each is imported.
TEST(DbCli, RunsIngestedInOneSecondAreEachImported) {
  TempDir t;
  const std::string log = kvmbench::read_file(std::string(KVMBENCH_SOURCE_DIR) + "/results/reference/make_shared_to_shared.log");
  std::vector<std::thread> ingests;
  std::vector<int> codes(3, -1);
  for (int i = 0; i < 3; ++i) {
    const fs::path input = t.path / ("capture-" + std::to_string(i) + ".log");
    kvmbench::test_support::write_text(input, log);
    ingests.emplace_back([&, i, input] {
      codes[i] = run_kvmbench({"ingest", input.string(), "--out", (t.path / ("out" + std::to_string(i))).string()})
                     .exit_code;
    });
  }
  for (auto& th : ingests) th.join();
  std::set<std::string> names;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(codes[i], 0);
    names.insert(fs::directory_iterator(t.path / ("out" + std::to_string(i)))->path().filename().string());
  }
  EXPECT_EQ(names.size(), 3u);
  const std::string db = (t.path / "lab.db").string();
  const auto r = run_kvmbench({"db", "import", (t.path / "out0").string(), (t.path / "out1").string(),
                               (t.path / "out2").string(), "--db", db});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const Tally tally = tally_of(r.out);
  EXPECT_EQ(tally.added, 3) << r.out << r.err;
  EXPECT_EQ(tally.refused, 0) << r.out << r.err;
}

// What `report` refuses, `db import` refuses, with the same reason, and
// stores nothing of it: it stored them (a numeric preset as ''), and a run
// in the database that its own directory could not report.
TEST(DbCli, ImportRefusesWhatReportRefuses) {
  TempDir t;
  struct Case {
    std::string name, reason;
    std::function<void(nlohmann::json& meta, std::string& samples)> spoil;
  };
  const std::vector<Case> cases = {
      {"numeric-preset", "\"preset\" is number where a string belongs",
       [](auto& meta, auto&) { meta["preset"] = 5; }},
      {"skipped-part-reason", "\"skipped_parts\"[0].\"reason\" is number where a string belongs",
       [](auto& meta, auto&) { meta["skipped_parts"][0]["reason"] = 3; }},
      {"metric-roles", "metric_roles.derived.sweep_rate is not a metric name",
       [](auto& meta, auto&) { meta["metric_roles"]["derived"]["sweep_rate"] = 1; }},
      {"two-units", "series ram=64G/layout=last/emulated_sweep_wall mixes units 'ms' and 's'",
       [](auto&, auto& samples) {
         samples += nlohmann::json{{"case", "ram=64G"}, {"variant", "layout=last"}, {"metric", "emulated_sweep_wall"},
                                   {"unit", "s"}, {"value", 0.01}, {"iteration", 5}}.dump() + "\n";
       }},
  };
  const std::string db = (t.path / "lab.db").string();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path run = kvmbench::test_support::write_export_run(t.path / c.name, "rmpopt-20260102T030405.000001Z-lab-7");
    nlohmann::json meta = kvmbench::test_support::export_run_meta("complete");
    std::string samples = kvmbench::read_file(run / "samples.jsonl");
    c.spoil(meta, samples);
    kvmbench::test_support::write_text(run / "meta.json", meta.dump(2));
    kvmbench::test_support::write_text(run / "samples.jsonl", samples);
    const auto report = run_kvmbench({"report", run.string()});
    EXPECT_EQ(report.exit_code, 2) << report.out << report.err;
    EXPECT_NE(report.err.find(c.reason), std::string::npos) << report.err;
    const auto import = run_kvmbench({"db", "import", run.string(), "--db", db});
    EXPECT_EQ(import.exit_code, 2) << import.out << import.err;
    EXPECT_NE(import.err.find(c.reason), std::string::npos) << import.err;
    EXPECT_EQ(tally_of(import.out).unreadable, 1) << import.out;
  }
  const auto info = run_kvmbench({"db", "info", "--db", db});
  EXPECT_NE(info.out.find("0 runs, 0 samples"), std::string::npos) << info.out << info.err;
}
