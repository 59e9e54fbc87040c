#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

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

// The same spelling on every command: --format json where JSON is printed
// (--json kept as the older spelling), '-' as stdin wherever a file is read.
TEST(Cli, FormatJsonAndStdinAlike) {
  auto s = kvmbench::test_support::run_kvmbench({"summarize", "--format", "json", "-"}, 60, "1\n2\n3\n");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(s.out).at("mean").get<double>(), 2.0) << s.out;
  EXPECT_EQ(kvmbench::test_support::run_kvmbench({"summarize", "--json", "-"}, 60, "1\n2\n3\n").out, s.out);
  auto p = kvmbench::test_support::run_kvmbench({"probe", "--format", "json"}, 120);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(nlohmann::json::parse(p.out).contains("cpu")) << p.out;
  EXPECT_EQ(kvmbench::test_support::run_kvmbench({"probe", "--format", "yaml"}).exit_code, 2);

  kvmbench::test_support::TempDir tmp;
  auto i = kvmbench::test_support::run_kvmbench({"ingest", "-", "--out", tmp.path.string()}, 60, "10\n11\n12\n");
  ASSERT_EQ(i.exit_code, 0) << i.err;
  std::vector<std::filesystem::path> runs;
  for (auto& d : std::filesystem::directory_iterator(tmp.path)) runs.push_back(d.path());
  ASSERT_EQ(runs.size(), 1u);
  // What stdin gave is kept as the run's raw copy, under a name of its own.
  EXPECT_EQ(kvmbench::test_support::read_text(runs[0] / "raw" / "stdin"), "10\n11\n12\n");
}

// Bash completion: the installed script asks the binary for the words
// (`kvmbench complete`), so commands, options and suites are its own.
TEST(Cli, BashCompletionOffersCommandsOptionsAndSuites) {
  auto complete = [](const std::string& words, int cword) {
    const std::string script = std::string("source '") + KVMBENCH_SOURCE_DIR +
                               "/scripts/kvmbench.bash-completion'; COMP_WORDS=('" + KVMBENCH_BINARY + "' " + words +
                               "); COMP_CWORD=" + std::to_string(cword) + "; _kvmbench; echo \"${COMPREPLY[*]}\"";
    auto r = kvmbench::test_support::run_command({"/bin/bash", "-c", script}, 60);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  EXPECT_EQ(complete("comp", 1), "compare\n");
  EXPECT_EQ(complete("run --pre", 2), "--preset\n");
  EXPECT_EQ(complete("run dir", 2), "directmap\n");
  EXPECT_EQ(complete("db imp", 2), "import\n");
  EXPECT_EQ(complete("gate --max-reg", 2), "--max-regression\n");
  // The hidden commands are not offered.
  EXPECT_EQ(complete("test-hold-kn", 1), "\n");
}
