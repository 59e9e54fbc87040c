#include <gtest/gtest.h>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;

TEST(Cli, VersionPrintsAndExitsZero) {
  auto r = run_kvmbench({"version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("kvmbench ", 0), 0u) << r.out;
}

TEST(Cli, UnknownSubcommandIsUsageError) {
  auto r = run_kvmbench({"no-such-command"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_FALSE(r.err.empty());
}

TEST(Cli, NoSubcommandIsUsageError) {
  auto r = run_kvmbench({});
  EXPECT_EQ(r.exit_code, 2);
}
