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
  // real_time 120, 130, 140 ns: mean 130, sd 10, CV 7.69%, median 130
  EXPECT_NE(r.out.find("7.69%"), std::string::npos) << r.out;
  // Google Benchmark's own aggregates are shown apart, as reported.
  EXPECT_NE(r.out.find("Google Benchmark's aggregates, as reported"), std::string::npos) << r.out;
  auto j = run_kvmbench({"report", dir.string(), "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["source"], "replay");
  const auto& t = doc["tables"][0];
  EXPECT_EQ(t["columns"][1], "real_time");
  EXPECT_EQ(t["rows"][1][1], "3");    // n
  EXPECT_EQ(t["rows"][2][1], "130");  // mean
  EXPECT_EQ(t["rows"][3][1], "10");   // sd
}

TEST(ReportCommand, SuiteLayoutForMakeShared) {
  TempDir tmp;
  const fs::path dir = ingest(tmp, kReference + "make_shared_to_shared.log");
  for (const char* f : {"text", "md", "csv"}) {
    auto r = run_kvmbench({"report", dir.string(), "--format", f});
    ASSERT_EQ(r.exit_code, 0) << f << r.err;
    EXPECT_NE(r.out.find("2.3677%"), std::string::npos) << f << r.out;
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
