// What the database commands leave when they cannot do their work: a
// command that only reads makes no database of an empty or missing file
// (history, db info and db dump turned an empty file into a 40 KB
// database), and `db import` stopped by SIGTERM says so, exit 130, with the
// runs before it in whole (it died with 143 and no word).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "analysis/store/db/sql_connection.h"
#include "tests/support/export_runs.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::read_text;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

TEST(DbLeavesNothingCli, ReadingAnEmptyOrMissingFileMakesNoDatabase) {
  TempDir t;
  const fs::path empty = t.path / "empty.db", missing = t.path / "missing.db";
  const fs::path cand = kvmbench::test_support::write_export_run(t.path / "runs", "rmpopt-20260102T030405.000001Z-lab-7");
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"db", "info"}, std::vector<std::string>{"history", "directmap"},
        std::vector<std::string>{"db", "dump", (t.path / "out.jsonl").string()},
        std::vector<std::string>{"gate", "--baseline", "db", cand.string()}}) {
    SCOPED_TRACE(command[0] + " " + command[1]);
    kvmbench::test_support::write_text(empty, "");
    auto args = command;
    args.insert(args.end(), {"--db", empty.string()});
    auto r = run_kvmbench(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    // gate's report wraps its lines at 80 columns: read them joined.
    std::string said;
    for (char ch : r.err + r.out) {
      if (ch == '\n') ch = ' ';
      if (!(ch == ' ' && !said.empty() && said.back() == ' ')) said += ch;
    }
    EXPECT_NE(said.find("SQLite database " + empty.string() + ": not a kvmbench results database"), std::string::npos)
        << r.out << r.err;
    EXPECT_EQ(fs::file_size(empty), 0u);
    for (const char* side : {"-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(empty.string() + side)) << side;
    args = command;
    args.insert(args.end(), {"--db", missing.string()});
    r = run_kvmbench(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE((r.err + r.out).find("no such file"), std::string::npos) << r.out << r.err;
    EXPECT_FALSE(fs::exists(missing));
    EXPECT_FALSE(fs::exists(t.path / "out.jsonl"));
    EXPECT_FALSE(fs::exists(t.path / "out.jsonl.partial"));
  }
}

namespace {

// Whether process `pid` catches signal `sig` (its SigCgt in /proc).
bool catches(pid_t pid, int sig) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1;
  return false;
}

}  // namespace

TEST(DbLeavesNothingCli, ImportStoppedBySigtermSaysSoWithExit130) {
  TempDir t;
  const fs::path runs = t.path / "runs";
  for (int i = 0; i < 3; ++i)
    kvmbench::test_support::write_export_run(runs, "rmpopt-20260102T03040" + std::to_string(i) + ".000001Z-lab-7");
  const std::string db = (t.path / "lab.db").string();
  ASSERT_EQ(run_kvmbench({"db", "info", "--db", db}).exit_code, 2);  // none yet
  ASSERT_EQ(run_kvmbench({"db", "import", (runs / "rmpopt-20260102T030400.000001Z-lab-7").string(), "--db", db})
                .exit_code,
            0);
  // Another writer holds the database, so that the import is still at its
  // start when SIGTERM comes; it lets go after.
  auto holder = kvmbench::db::open_sqlite(db, kvmbench::db::Access::write);
  holder->exec("BEGIN EXCLUSIVE");
  const fs::path out = t.path / "out.txt", err = t.path / "err.txt";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::freopen(out.c_str(), "w", stdout);
    std::freopen(err.c_str(), "w", stderr);
    kvmbench::test_support::exec_or_exit({KVMBENCH_BINARY, "db", "import", runs.string(), "--db", db});
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!catches(pid, SIGTERM) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(catches(pid, SIGTERM));
  ::kill(pid, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  holder->exec("ROLLBACK");
  holder.reset();
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_text(err);
  EXPECT_NE(read_text(err).find("interrupted: 0 runs imported before it, the others not"), std::string::npos)
      << read_text(err);
  // What was in stays in, whole; the rest goes in on the next import.
  auto r = run_kvmbench({"db", "info", "--db", db});
  EXPECT_NE(r.out.find("1 runs, 15 samples"), std::string::npos) << r.out << r.err;
  r = run_kvmbench({"db", "import", runs.string(), "--db", db});
  EXPECT_NE(r.out.find("2 runs imported (30 samples), 1 already there"), std::string::npos) << r.out << r.err;
}
