// kvmbench ingest and compare on Google Benchmark JSON as others publish it
// (tests/data/gbench, README there): compare.py's own inputs of an older
// library, a percentage aggregate alone, a complexity fit, a run from
// nanoseconds to a second.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::unwrapped;
namespace fs = std::filesystem;

namespace {

const fs::path kGbench = fs::path(KVMBENCH_TEST_DATA) / "gbench";

// Whether `what` is in `text`, wherever an 80-column wrap fell.
bool has(const std::string& text, const std::string& what) {
  return unwrapped(text).find(unwrapped(what)) != std::string::npos;
}

}  // namespace

// BM_Two's rows without repetition_index: 9 and 8 ns are two repetitions.
TEST(GbenchPublished, RowsOfAnOlderLibraryAreRepetitions) {
  auto c = run_kvmbench({"compare", kGbench / "compare_py_test3_run0.json", kGbench / "compare_py_test3_run1.json",
                         "--format", "json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  bool seen = false;
  for (auto& m : j["metrics"])
    if (m["key"] == "BM_Two/real_time") {
      seen = true;
      EXPECT_EQ(m["base"]["n"], 2) << m.dump();
      EXPECT_EQ(m["base"]["mean"], 8.5);
    }
  EXPECT_TRUE(seen) << c.out;
  EXPECT_TRUE(has(j["base"]["input_notes"].dump(), "'BM_Two': 2 of its rows give no repetition_index")) << c.out;
  TempDir t;
  auto i = run_kvmbench({"ingest", kGbench / "compare_py_test3_run0.json", "--out", t.path});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_TRUE(has(i.err, "compare_py_test3_run0.json: 17: 'BM_Two': 2 of its rows give no repetition_index")) << i.err;
}

// A file whose only row is a percentage aggregate: compared as compare.py
// shows it (the change of its value), not "without any benchmark".
TEST(GbenchPublished, APercentageAggregateAloneIsShownWithANote) {
  auto c = run_kvmbench({"compare", kGbench / "compare_py_test4_run0.json", kGbench / "compare_py_test4_run1.json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(has(c.out, "whocares/real_time_zz")) << c.out;
  EXPECT_TRUE(has(c.out, "-50.00%")) << c.out;   // 0.01 -> 0.005
  EXPECT_TRUE(has(c.out, "+50.00%")) << c.out;   // cpu: 0.10 -> 0.15
  EXPECT_TRUE(has(c.out, "'whocares' has aggregates only, none of them a mean")) << c.out;
  auto g = run_kvmbench({"gate", kGbench / "compare_py_test4_run0.json", kGbench / "compare_py_test4_run1.json"});
  EXPECT_EQ(g.exit_code, 2) << g.out << g.err;  // a value without its spread gates nothing
  TempDir t;
  auto i = run_kvmbench({"ingest", kGbench / "compare_py_test4_run0.json", "--out", t.path});
  EXPECT_EQ(i.exit_code, 2);
  EXPECT_TRUE(has(i.err, "only rows are aggregates, none a mean: whocares (zz)")) << i.err;
}

TEST(GbenchPublished, AComplexityFitIsLeftOutWithANote) {
  TempDir t;
  auto i = run_kvmbench({"ingest", kGbench / "complexity_bigo.json", "--out", t.path, "--format", "json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_TRUE(has(i.err, "complexity_bigo.json: 109: 'BM_BinaryGap': its complexity fit (BigO (1), RMS) is left out"))
      << i.err;
  const auto run = kvmbench::load_run(nlohmann::json::parse(i.out)["run"].get<std::string>());
  EXPECT_FALSE(run.meta.contains("gbench_aggregates")) << run.meta.dump();
  auto c = run_kvmbench({"compare", kGbench / "complexity_bigo.json", kGbench / "complexity_bigo.json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(has(c.out, "its complexity fit (BigO (1), RMS) is left out")) << c.out;
}

// From 3.6 ns to 1 s in one file, two repetitions each.
TEST(GbenchPublished, AWideRangeOfTimesKeepsItsFigures) {
  TempDir t;
  auto text = run_kvmbench({"ingest", kGbench / "wide_range_two.json", "--out", t.path / "text"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "3.57 ns")) << text.out;
  EXPECT_FALSE(has(text.out, "0.00000000")) << text.out;
  EXPECT_TRUE(has(text.out, "n/a at n = 2")) << text.out;
  EXPECT_FALSE(has(text.out, "e-1")) << text.out;
  auto csv = run_kvmbench({"ingest", kGbench / "wide_range_two.json", "--out", t.path / "csv", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  // The title names no unit; the columns name theirs, in which the values are.
  EXPECT_TRUE(has(csv.out, "# real_time\n# source: replay\n,mean (ns),sd (ns),n,")) << csv.out;
  EXPECT_TRUE(has(csv.out, "BM_Increment,3.5717301997170434,")) << csv.out;
  auto c = run_kvmbench({"compare", kGbench / "wide_range_two.json", kGbench / "wide_range_two.json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_FALSE(has(c.out, "e+0")) << c.out;
  // Geometric means and sd (their test is on the logs).
  EXPECT_TRUE(has(c.out, "\n5   1.01    ±0.2%   +0.00%   1.01    ±0.2%  2 ")) << c.out;  // BM_Sleep, in s
  EXPECT_TRUE(has(c.out, "\n1   3.55     ±16%   +0.00%   3.55     ±16%  2 ")) << c.out;   // BM_Increment, in ns
}
