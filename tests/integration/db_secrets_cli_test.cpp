// A PostgreSQL password never reaches output or a file, however the
// connection string is written: gate --baseline db against a server that
// refuses or is not there, writing its JUnit and Markdown files, and the
// other commands that open a database. The forms are those the reliability
// check found shown (sslpassword=, an unencoded '@', a bad %-escape,
// `password = X`, a mistyped keyword) and their kin.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/export_runs.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::read_text;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

TEST(DbSecretsCli, NoPasswordInOutputOrFiles) {
  TempDir t;
  const fs::path cand = kvmbench::test_support::write_export_run(t.path / "runs", "rmpopt-20260102T030405Z-lab-7");
  // Nothing listens on this socket's directory; nothing on TCP port 1.
  const std::string nowhere = (t.path / "no-server").string();
  fs::create_directories(nowhere);
  const std::vector<std::string> forms = {
      "postgresql://lab:Zq7secretPW@localhost:1/kvmbench",
      "postgresql://lab@localhost:1/k?sslpassword=Zq7secretPW",
      "postgresql://lab@localhost:1/k?password=Zq7secretPW&sslmode=disable",
      "postgresql://lab:Zq7se@cretPW@localhost:1/kvmbench",
      "postgresql://lab:Zq7se%zzcretPW@localhost:1/kvmbench",
      "postgresql://lab:Zq7se%4cretPW@localhost:1/kvmbench",
      "postgresql://lab@localhost:Zq7secretPW/kvmbench",
      "postgresql://localhost:1/k?passwrod=Zq7secretPW",
      "host=" + nowhere + " sslpassword=Zq7secretPW",
      "host=" + nowhere + " password = Zq7secretPW",
      "host=" + nowhere + " password='Zq7se cretPW'",
      "host=" + nowhere + " passwrod=Zq7secretPW",
      "hots=" + nowhere + " password=Zq7secretPW",
      "host=" + nowhere + " dbname=k Zq7secretPW",
      "host=" + nowhere + " password='Zq7secretPW",
  };
  int tried = 0;
  for (const auto& db : forms) {
    SCOPED_TRACE(db);
    const fs::path junit = t.path / "gate.xml", md = t.path / "gate.md";
    fs::remove(junit);
    fs::remove(md);
    const std::vector<std::vector<std::string>> commands = {
        {"gate", "--baseline", "db", cand.string(), "--db", db, "--junit", junit.string(), "--markdown", md.string()},
        {"db", "info", "--db", db},
        {"db", "import", cand.string(), "--db", db},
        {"history", "rmpopt", "--db", db},
        {"db", "info"},  // from $KVMBENCH_DB
    };
    for (const auto& args : commands) {
      SCOPED_TRACE(fmt::format("{}", fmt::join(args, " ")));
      const auto r = run_kvmbench(args, 60, "", {"KVMBENCH_DB=" + db});
      ++tried;
      EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
      for (const std::string& text : {r.out, r.err, read_text(junit), read_text(md)}) {
        EXPECT_EQ(text.find("Zq7se"), std::string::npos) << text;
        EXPECT_EQ(text.find("cretPW"), std::string::npos) << text;
      }
    }
    // The gate's files are written in every case, saying why it could not run.
    EXPECT_NE(read_text(junit).find("PostgreSQL"), std::string::npos) << read_text(junit);
    EXPECT_NE(read_text(md).find("PostgreSQL"), std::string::npos) << read_text(md);
  }
  EXPECT_EQ(tried, 75);
}
