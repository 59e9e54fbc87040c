// kvmbench --version, kvmbench help [COMMAND...], and help text that fits
// 80 columns for every command and subcommand (suites/kvmbench/help_formatter.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

using kvmbench::test_support::lines_of;
using kvmbench::test_support::subcommands_in;
using kvmbench::test_support::run_kvmbench;

namespace {


// Also: no path of this build in it, whose length would decide the width
// (a checkout's path is longer in CI than here).
void expect_fits_80_columns(const std::string& text, const std::string& what) {
  for (const std::string& line : lines_of(text))
    EXPECT_LE(line.size(), 80u) << what << ": " << line.size() << " columns:\n" << line;
  EXPECT_EQ(text.find(KVMBENCH_BINARY_DIR), std::string::npos) << what << " names the build tree:\n" << text;
}

TEST(HelpCli, VersionFlagAndCommandAgree) {
  auto flag = run_kvmbench({"--version"});
  EXPECT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_EQ(flag.out.rfind("kvmbench ", 0), 0u) << flag.out;
  auto cmd = run_kvmbench({"version"});
  EXPECT_EQ(cmd.exit_code, 0) << cmd.err;
  EXPECT_EQ(flag.out, cmd.out);
}

TEST(HelpCli, HelpCommandPrintsTheHelpOfWhatItNames) {
  auto top = run_kvmbench({"help"});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("Usage: kvmbench [OPTIONS] SUBCOMMAND"), std::string::npos) << top.out;
  const auto names = subcommands_in(top.out);
  for (const char* expected : {"run", "compare", "gate", "db", "help"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected << "\n" << top.out;

  auto nested = run_kvmbench({"help", "db", "import"});
  EXPECT_EQ(nested.exit_code, 0) << nested.err;
  EXPECT_NE(nested.out.find("Usage: kvmbench db import"), std::string::npos) << nested.out;
  // The same text as the command's own --help.
  EXPECT_EQ(nested.out, run_kvmbench({"db", "import", "--help"}).out);

  auto unknown = run_kvmbench({"help", "db", "frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("`kvmbench db` has no command 'frobnicate' (`kvmbench help db` lists them)"),
            std::string::npos)
      << unknown.err;
}

TEST(HelpCli, EveryHelpTextFits80Columns) {
  auto top = run_kvmbench({"--help"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  expect_fits_80_columns(top.out, "kvmbench --help");
  std::size_t checked = 0;
  for (const std::string& name : subcommands_in(top.out)) {
    auto help = run_kvmbench({name, "--help"});
    EXPECT_EQ(help.exit_code, 0) << name << ": " << help.err;
    // Every command's help says what its exit codes mean.
    EXPECT_NE(kvmbench::test_support::unwrapped(help.out).find("Exit status: 0"), std::string::npos)
        << "kvmbench " << name << " --help states no exit status:\n" << help.out;
    expect_fits_80_columns(help.out, "kvmbench " + name + " --help");
    ++checked;
    for (const std::string& sub : subcommands_in(help.out)) {
      auto nested = run_kvmbench({name, sub, "--help"});
      EXPECT_EQ(nested.exit_code, 0) << name << " " << sub << ": " << nested.err;
      expect_fits_80_columns(nested.out, "kvmbench " + name + " " + sub + " --help");
      ++checked;
    }
  }
  EXPECT_GE(checked, 20u) << "the command list was not found in:\n" << top.out;
}

}  // namespace
