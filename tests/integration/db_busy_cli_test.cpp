// A results database that another process holds locked past the wait
// (10 s): "busy", exit 75, as the run lock is, so that a job engine tries
// again; it was exit 2 for SQLite (bad input, not retried) and no end at
// all for PostgreSQL (db info waited on a LOCK TABLE for ever).
#include <gtest/gtest.h>

#include <libpq-fe.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "analysis/store/db/sql_connection.h"
#include "tests/support/export_runs.h"
#include "tests/support/postgres_server.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

// Seconds `run` took.
template <typename F>
double seconds_of(F run) {
  const auto t0 = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(DbBusyCli, ALockedSqliteDatabaseIsBusy) {
  TempDir t;
  const fs::path first = kvmbench::test_support::write_export_run(t.path / "a", "rmpopt-20260102T030405.000001Z-lab-7");
  const fs::path second = kvmbench::test_support::write_export_run(t.path / "b", "rmpopt-20260102T040405.000001Z-lab-7");
  const std::string db = (t.path / "lab.db").string();
  ASSERT_EQ(run_kvmbench({"db", "import", first.string(), "--db", db}).exit_code, 0);
  // Another writer in the middle of its transaction.
  auto holder = kvmbench::db::open_sqlite(db, kvmbench::db::Access::write);
  holder->exec("BEGIN EXCLUSIVE");
  kvmbench::test_support::CommandResult r;
  const double took = seconds_of([&] { r = run_kvmbench({"db", "import", second.string(), "--db", db}, 60); });
  EXPECT_EQ(r.exit_code, 75) << r.out << r.err;
  EXPECT_NE(r.err.find("busy: SQLite database " + db + ": locked by another process for more than 10 s"),
            std::string::npos)
      << r.err;
  EXPECT_GE(took, 9.5);
  holder->exec("ROLLBACK");
  holder.reset();
  // Once it has let go: the run goes in.
  r = run_kvmbench({"db", "import", second.string(), "--db", db});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 runs imported"), std::string::npos) << r.out;
}

TEST(DbBusyCli, ALockedPostgresqlTableIsBusy) {
  if (auto why = kvmbench::test_support::PostgresServer::missing_package_reason(); !why.empty()) GTEST_SKIP() << why;
  TempDir t;
  const fs::path run = kvmbench::test_support::write_export_run(t.path / "a", "rmpopt-20260102T030405.000001Z-lab-7");
  const std::string url = kvmbench::test_support::PostgresServer::shared().fresh_database_url();
  ASSERT_EQ(run_kvmbench({"db", "import", run.string(), "--db", url}).exit_code, 0);
  PGconn* holder = PQconnectdb(url.c_str());
  ASSERT_EQ(PQstatus(holder), CONNECTION_OK) << PQerrorMessage(holder);
  PQclear(PQexec(holder, "BEGIN"));
  PGresult* locked = PQexec(holder, "LOCK TABLE runs IN ACCESS EXCLUSIVE MODE");
  ASSERT_EQ(PQresultStatus(locked), PGRES_COMMAND_OK) << PQresultErrorMessage(locked);
  PQclear(locked);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"db", "info", "--db", url},
                                               std::vector<std::string>{"history", "rmpopt", "--db", url}}) {
    kvmbench::test_support::CommandResult r;
    const double took = seconds_of([&] { r = run_kvmbench(args, 60); });
    EXPECT_EQ(r.exit_code, 75) << args[0] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("locked by another session for more than 10 s"), std::string::npos) << r.err;
    EXPECT_GE(took, 9.5);
    EXPECT_LT(took, 40);
  }
  PQclear(PQexec(holder, "ROLLBACK"));
  PQfinish(holder);
  const auto r = run_kvmbench({"db", "info", "--db", url});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 runs, 15 samples"), std::string::npos) << r.out;
}
