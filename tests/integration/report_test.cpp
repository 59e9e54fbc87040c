#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

static const std::string kData = std::string(KVMBENCH_TEST_DATA) + "/ingest/";
static const std::string kReference = std::string(KVMBENCH_SOURCE_DIR) + "/results/reference/";

static fs::path ingest(const TempDir& tmp, const std::string& file) {
  auto r = run_kvmbench({"ingest", file, "--out", tmp.path.string()});
  if (r.exit_code != 0) throw std::runtime_error(r.err);
  return fs::directory_iterator(tmp.path)->path();
}

TEST(ReportCommand, RecomputesTheStatisticsOfARun) {
  TempDir tmp;
  const fs::path dir = ingest(tmp, kData + "gbench_repetitions.json");
  auto r = run_kvmbench({"report", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("source: replay"), std::string::npos) << r.out;
  // real_time 120, 130, 140 ns: mean 130, sd 10, 95% CI 130 +- t(0.975, 2)
  // 10 / sqrt(3) = 130 +- 24.84: [105, 155] at 3 significant digits.
  EXPECT_NE(r.out.find("# real_time (ns)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[105, 155]"), std::string::npos) << r.out;
  // The per-case dump (CV 7.69%, median 130) is for --verbose.
  EXPECT_EQ(r.out.find("7.69%"), std::string::npos) << r.out;
  auto v = run_kvmbench({"report", dir.string(), "--verbose"});
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("7.69%"), std::string::npos) << v.out;
  // Google Benchmark's own aggregates are shown apart, as reported.
  EXPECT_NE(r.out.find("Google Benchmark's aggregates, as reported"), std::string::npos) << r.out;
  auto j = run_kvmbench({"report", dir.string(), "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["source"], "replay");
  // JSON holds the compact table's numbers in full, then the dumps.
  const auto& compact = doc["tables"][0];
  // Its title names no unit: the values are in their own, which each cell names.
  EXPECT_EQ(compact["title"], "real_time");
  EXPECT_EQ(compact["rows"][0][1]["unit"], "ns");
  EXPECT_EQ(compact["rows"][0][1]["value"], 130);
  EXPECT_NEAR(compact["rows"][0][4]["low"].get<double>(), 105.16, 0.01);
  nlohmann::json dump;
  for (const auto& t : doc["tables"])
    if (dump.is_null() && t["columns"].size() > 1 && t["columns"][1] == "real_time") dump = t;
  ASSERT_FALSE(dump.is_null()) << j.out;
  // The dump's numbers are numbers too: n, mean, sd.
  EXPECT_EQ(dump["rows"][1][1]["value"], 3);
  EXPECT_EQ(dump["rows"][2][1]["value"], 130);
  EXPECT_EQ(dump["rows"][2][1]["unit"], "ns");
  EXPECT_EQ(dump["rows"][3][1]["value"], 10);
  // One table per case in JSON: the 80-column split is the terminal's.
  for (const auto& t : doc["tables"]) EXPECT_EQ(t["title"].get<std::string>().find("(part "), std::string::npos);
}

TEST(ReportCommand, SuiteLayoutForMakeShared) {
  TempDir tmp;
  const fs::path dir = ingest(tmp, kReference + "make_shared_to_shared.log");
  for (const char* f : {"text", "md", "csv"}) {
    auto r = run_kvmbench({"report", dir.string(), "--format", f});
    ASSERT_EQ(r.exit_code, 0) << f << r.err;
    // As printed in text and Markdown; CSV holds the number itself,
    // 100 x 930 / 39278, with its unit in the header.
    const std::string want = std::string(f) == "csv" ? "\n1,930,39278,2.367737664850552" : "2.3677%";
    EXPECT_NE(r.out.find(want), std::string::npos) << f << r.out;
    if (std::string(f) == "csv") {
      EXPECT_NE(r.out.find("\nnr_pages,make_shared (cycles),total (cycles),percentage (%)\n"), std::string::npos)
          << r.out;
    }
    EXPECT_NE(r.out.find("replay"), std::string::npos) << f;
  }
}

TEST(ReportCommand, BadInput) {
  TempDir tmp;
  auto r = run_kvmbench({"report", (tmp.path / "nope").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
  const fs::path dir = ingest(tmp, kReference + "rmpopt_cycles.log");
  r = run_kvmbench({"report", dir.string(), "--format", "pdf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pdf"), std::string::npos) << r.err;
}

TEST(ReportCommand, HtmlIsOneSelfContainedPage) {
  TempDir tmp;
  const fs::path dir = ingest(tmp, kReference + "rmpopt_cycles.log");
  auto r = run_kvmbench({"report", dir.string(), "--format", "html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u) << r.out.substr(0, 200);
  EXPECT_NE(r.out.find("<svg"), std::string::npos);
  EXPECT_NE(r.out.find("replay"), std::string::npos);
  EXPECT_EQ(r.out.find("<script"), std::string::npos);
  EXPECT_EQ(r.out.find("http://"), std::string::npos);
}
