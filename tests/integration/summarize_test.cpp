// `kvmbench summarize` run as a real process: output formats, exit codes and
// error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analysis/parse/plain_numbers.h"
#include "analysis/stats/statistics.h"
#include "tests/support/run_command.h"

namespace kvmbench {
namespace {

using test_support::run_kvmbench;
using test_support::TempDir;

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
  auto path = (dir.path / name).string();
  std::ofstream(path) << text;
  return path;
}

// "key value" lines -> map (the value is the rest of the line).
std::map<std::string, std::string> parse_text(const std::string& out) {
  std::map<std::string, std::string> kv;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    auto sp = line.find(' ');
    if (sp == std::string::npos) continue;
    auto start = line.find_first_not_of(' ', sp);
    kv[line.substr(0, sp)] = start == std::string::npos ? "" : line.substr(start);
  }
  return kv;
}

TEST(Summarize, OneFileText) {
  TempDir dir;
  // {1..5}: mean 3, sd sqrt(2.5), median 3, cv sqrt(2.5)/3.
  auto f = write_file(dir, "a.txt", "# times in ms\n5\n1\n\n4\n2\n3\n");
  auto r = run_kvmbench({"summarize", f});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto kv = parse_text(r.out);
  EXPECT_EQ(kv["n"], "5");
  // Four significant digits: sd sqrt(2.5) = 1.5811; cv 1.5811 / 3 = 52.70%;
  // 95% CI 3 -+ t(0.975, 4) * 1.5811 / sqrt(5) = 3 -+ 2.7764 * 0.70711 = 3 -+ 1.9632.
  EXPECT_EQ(kv["mean"], "3.000");
  EXPECT_EQ(kv["stddev"], "1.581");
  EXPECT_EQ(kv["min"], "1.000");
  EXPECT_EQ(kv["median"], "3.000");
  EXPECT_EQ(kv["max"], "5.000");
  EXPECT_EQ(kv["cv"], "52.7%");
  EXPECT_EQ(kv["ci95_low"], "1.037");
  EXPECT_EQ(kv["ci95_high"], "4.963");
  // Lines fit in 80 columns and use no tabs.
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    EXPECT_LE(line.size(), 80u) << line;
    EXPECT_EQ(line.find('\t'), std::string::npos) << line;
  }
}

TEST(Summarize, NistFileJsonMatchesCertifiedAndLibrary) {
  const std::string path = std::string(KVMBENCH_TEST_DATA) + "/nist/Michelso.dat";
  auto r = run_kvmbench({"summarize", path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const std::vector<std::string> keys{"n",      "mean", "stddev",   "min",      "median",
                                      "max",    "cv",   "ci95_low", "ci95_high"};
  EXPECT_EQ(j.size(), keys.size());
  for (const auto& k : keys) EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["n"].get<int>(), 100);
  // NIST certified values, 12 significant digits.
  EXPECT_LE(std::fabs(j["mean"].get<double>() - 299.852400000000) / 299.8524, 1e-12);
  EXPECT_LE(std::fabs(j["stddev"].get<double>() - 0.0790105478190518) / 0.0790105478190518, 1e-12);
  // Full round-trip precision: identical to the library's doubles.
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto s = stats::summarize(parse_plain_numbers(ss.str()).values);
  EXPECT_EQ(j["mean"].get<double>(), s.mean);
  EXPECT_EQ(j["stddev"].get<double>(), s.stddev);
  EXPECT_EQ(j["ci95_low"].get<double>(), s.ci95_low);
  EXPECT_EQ(j["ci95_high"].get<double>(), s.ci95_high);
  EXPECT_EQ(j["cv"].get<double>(), s.cv);
  EXPECT_EQ(j["median"].get<double>(), s.median);
}

TEST(Summarize, TwoFilesJsonAndDirection) {
  TempDir dir;
  auto a = write_file(dir, "base.txt", "10.1\n9.9\n10.3\n9.7\n10.2\n9.8\n");
  auto b = write_file(dir, "cand.txt", "8.1\n7.9\n8.3\n7.7\n8.2\n7.8\n");
  auto r = run_kvmbench({"summarize", a, b, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const std::vector<std::string> keys{"a",          "b",       "change_pct",   "change_ci95_low",
                                      "change_ci95_high", "welch_p", "mannwhitney_p", "verdict"};
  EXPECT_EQ(j.size(), keys.size());
  for (const auto& k : keys) EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["a"]["n"].get<int>(), 6);
  EXPECT_EQ(j["b"]["n"].get<int>(), 6);
  EXPECT_EQ(j["a"].size(), 9u);
  EXPECT_NEAR(j["change_pct"].get<double>(), -20, 1e-9);
  EXPECT_LT(j["change_ci95_low"].get<double>(), -20);
  EXPECT_GT(j["change_ci95_high"].get<double>(), -20);
  EXPECT_LT(j["welch_p"].get<double>(), 1e-6);
  // Fully separated 6 vs 6, no ties: exact p = 2 / C(12,6) = 2/924.
  EXPECT_NEAR(j["mannwhitney_p"].get<double>(), 2.0 / 924, 1e-15);
  EXPECT_EQ(j["verdict"], "faster");  // lower is better by default

  auto h = run_kvmbench({"summarize", a, b, "--json", "--higher-is-better"});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_EQ(nlohmann::json::parse(h.out)["verdict"], "slower");

  auto t = run_kvmbench({"summarize", a, b});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto kv = parse_text(t.out);
  EXPECT_EQ(kv["a.n"], "6");
  EXPECT_EQ(kv["b.mean"], "8.000");
  EXPECT_EQ(kv["verdict"], "faster");
  EXPECT_NE(kv["direction"].find("lower is better"), std::string::npos);
  // Percentages with a "%", p in three digits or as a power of ten:
  // 8 / 10 - 1 = -20%; Mann-Whitney 2 / 924 = 0.0021645; Welch below 1e-6.
  EXPECT_EQ(kv["change_pct"], "-20.0%");
  EXPECT_EQ(kv["mannwhitney_p"], "0.00216");
  EXPECT_NE(kv["welch_p"].find("e-"), std::string::npos) << kv["welch_p"];
  for (const char* k : {"change_pct", "change_ci95_low", "change_ci95_high", "welch_p",
                        "mannwhitney_p", "a.stddev", "b.ci95_high"})
    EXPECT_TRUE(kv.count(k)) << k;
}

TEST(Summarize, NoDifferenceAndNaNIsNull) {
  TempDir dir;
  // Mean 0: cv is NaN, and a relative change against 0 does not exist.
  auto a = write_file(dir, "a.txt", "-1\n1\n-2\n2\n");
  auto b = write_file(dir, "b.txt", "-1.5\n1\n-2\n2.5\n");
  auto r = run_kvmbench({"summarize", a, b, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);  // must be valid JSON
  EXPECT_TRUE(j["a"]["cv"].is_null());
  EXPECT_TRUE(j["change_pct"].is_null());
  EXPECT_TRUE(j["change_ci95_low"].is_null());
  EXPECT_EQ(j["verdict"], "no significant difference");
  auto t = run_kvmbench({"summarize", a});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(parse_text(t.out)["cv"], "n/a");
}

TEST(Summarize, StdinDash) {
  auto r = run_kvmbench({"summarize", "-", "--json"}, 60, "1\n2\n3\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mean"].get<double>(), 2);
  EXPECT_EQ(j["stddev"].get<double>(), 1);
}

TEST(Summarize, BadInputExitsTwoWithMessage) {
  TempDir dir;
  auto empty = write_file(dir, "empty.txt", "");
  auto comments = write_file(dir, "comments.txt", "# nothing\n\n");
  auto one = write_file(dir, "one.txt", "42\n");
  auto garbage = write_file(dir, "garbage.txt", "1\n2\n12 ms\n4\n");
  auto good = write_file(dir, "good.txt", "1\n2\n");
  const std::string missing = (dir.path / "missing.txt").string();

  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"summarize", empty}, "no numbers"},
      {{"summarize", comments}, "no numbers"},
      {{"summarize", one}, "at least 2"},
      {{"summarize", good, one}, "at least 2"},
      {{"summarize", garbage}, garbage + ":3:"},
      {{"summarize", good, garbage, "--json"}, garbage + ":3:"},
      {{"summarize", missing}, missing},
      {{"summarize", good, missing}, missing},
      {{"summarize", dir.path.string()}, "directory"},
      {{"summarize", "-", "-"}, "only once"},
  };
  for (const auto& c : cases) {
    auto r = run_kvmbench(c.args);
    SCOPED_TRACE(c.args.back());
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");  // nothing half-written
  }
  // Three files and no file are usage errors.
  EXPECT_EQ(run_kvmbench({"summarize", good, good, good}).exit_code, 2);
  EXPECT_EQ(run_kvmbench({"summarize"}).exit_code, 2);
}

}  // namespace
}  // namespace kvmbench
