// `kvmbench model rmpopt`: tables on good options, exit 2 with a message on
// bad ones.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;

namespace {

void expect_mail_layout(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    EXPECT_LE(line.size(), 80u) << line;
    EXPECT_EQ(line.find('\t'), std::string::npos) << line;
  }
}

TEST(ModelRmpoptCli, CompareListsEveryStrategyAsModel) {
  auto r = run_kvmbench({"model", "rmpopt", "--memory", "2T", "--layout", "last", "--strategy",
                         "compare"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("source: model"), std::string::npos);
  for (const char* s : {"\nall ", "\nleader ", "\nprimary ", "\nbitmap "})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  // The worst case depends on the (assumed) bandwidth: its table is shown.
  EXPECT_NE(r.out.find("vs memory bandwidth"), std::string::npos);
  EXPECT_NE(r.out.find("assumed"), std::string::npos);
  expect_mail_layout(r.out);
}

TEST(ModelRmpoptCli, SingleStrategyWithAllOptions) {
  auto r = run_kvmbench({"model", "rmpopt", "--memory", "512G", "--cpus", "64", "--smt", "2",
                         "--tsc-ghz", "2.4", "--layout", "random:4", "--dirty-regions", "10",
                         "--strategy", "bitmap"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nbitmap "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nprimary "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("64 CPUs (SMT 2), TSC 2.4 GHz"), std::string::npos) << r.out;
  expect_mail_layout(r.out);
}

// The CI column is a half-width in ms, and says so; one entry is "1 entry".
TEST(ModelRmpoptCli, CiColumnInMsAndOneEntrySingular) {
  auto r = run_kvmbench({"model", "rmpopt", "--layout", "first", "--strategy", "all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  wall ms  95% CI ±ms  "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("+-95%"), std::string::npos) << r.out;
  // The first 4K is assigned: the scan stops at the region's first entry.
  EXPECT_NE(r.out.find("reads 1 entry of each"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("1 entries"), std::string::npos) << r.out;
}

TEST(ModelRmpoptCli, CalibratePrintsTheFit) {
  auto r = run_kvmbench({"model", "rmpopt", "--calibrate"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"fit to the published figures", "all CPUs, run 1", "first 4K private",
                        "model parameters", "CPU count and TSC rate"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  expect_mail_layout(r.out);
}

TEST(ModelRmpoptCli, JsonAndCsv) {
  auto j = run_kvmbench({"model", "rmpopt", "--layout", "first", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_TRUE(doc.is_array());
  ASSERT_FALSE(doc.empty());
  EXPECT_NE(doc.dump().find("model"), std::string::npos);
  auto c = run_kvmbench({"model", "rmpopt", "--strategy", "all", "--format", "csv"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out.rfind("strategy,mask,", 0), 0u) << c.out;
}

TEST(ModelRmpoptCli, BadOptionsAreUsageErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {"--memory", "3Q"},         {"--memory", "0"},          {"--cpus", "0"},
      {"--cpus", "511"},          {"--cpus", "many"},         {"--smt", "0"},
      {"--tsc-ghz", "-1"},        {"--tsc-ghz", "nan"},       {"--layout", "middle"},
      {"--layout", "random:0"},   {"--strategy", "fastest"},  {"--dirty-regions", "5000"},
      {"--format", "xml"},        {"--bandwidth-gbs", "0"},   {"--no-such-option"},
  };
  for (const auto& args : bad) {
    std::vector<std::string> argv = {"model", "rmpopt"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_kvmbench(argv);
    std::string what = args.front() + (args.size() > 1 ? " " + args[1] : "");
    EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << what;
    EXPECT_TRUE(r.out.empty()) << what << ": nothing half-written\n" << r.out;
  }
}

}  // namespace

namespace {

// The cross-check runs the emulated sweep for real: it must either produce
// its table or say why this host cannot (77). Its errors are not judged
// here: timing on a shared host is not a unit-test property.
TEST(ModelRmpoptCli, FromHostComparesWithTheEmulatedSweep) {
  auto r = run_kvmbench({"model", "rmpopt", "--from-host"}, 120);
  if (r.exit_code == 77) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("emulated sweep, not RMPOPT"), std::string::npos) << r.out;
  for (const char* s : {"\nnone ", "\nfirst ", "\nlast "})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  expect_mail_layout(r.out);
}

}  // namespace
