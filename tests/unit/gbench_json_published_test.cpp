// Google Benchmark JSON as older libraries, compare.py's own inputs and a
// user's complexity run write it (tests/data/gbench, README there).
#include <gtest/gtest.h>

#include <map>

#include "analysis/verdicts/compare_input.h"
#include "analysis/parse/format_recognizer.h"
#include "analysis/parse/gbench_json.h"
#include "analysis/store/run_store.h"

using namespace kvmbench;
using namespace kvmbench::parsers;

namespace {

const std::string kData = std::string(KVMBENCH_TEST_DATA) + "/gbench/";

}  // namespace

TEST(GbenchJsonPublished, RowsWithoutARepetitionIndexAreRepetitionsEach) {
  // BM_Two's 9 and 8 ns: two repetitions, not one of 8.5 ns.
  const auto g = parse_gbench_json(read_file(kData + "compare_py_test3_run0.json"));
  std::map<int, double> two;
  for (auto& s : g.result.samples)
    if (s.case_name == "BM_Two" && s.metric == "real_time") two[s.iteration] = s.value;
  EXPECT_EQ(two, (std::map<int, double>{{0, 9}, {1, 8}}));
  ASSERT_EQ(g.result.notes.size(), 1u);
  EXPECT_NE(g.result.notes[0].find("'BM_Two': 2 of its rows give no repetition_index"), std::string::npos)
      << g.result.notes[0];
  // A hand-merged file gives one index twice: the second is a repetition too.
  auto row = [](int ns) {
    return R"({"name": "BM_x", "run_type": "iteration", "repetition_index": 0, "real_time": )" + std::to_string(ns) +
           R"(, "cpu_time": 1, "time_unit": "ns"})";
  };
  const std::string merged = "{\"benchmarks\": [" + row(9) + "," + row(8) + "]}";
  const auto m = parse_gbench_json(merged);
  ASSERT_EQ(m.result.samples.size(), 4u);
  EXPECT_EQ(m.result.samples[0].iteration, 0);
  EXPECT_EQ(m.result.samples[2].iteration, 1);
}

TEST(GbenchJsonPublished, OlderAggregatesNamedBySuffixAreAggregates) {
  const std::string text = R"({"benchmarks": [
    {"name": "BM_x", "iterations": 10, "real_time": 9, "cpu_time": 9, "time_unit": "ns"},
    {"name": "BM_x", "iterations": 10, "real_time": 8, "cpu_time": 8, "time_unit": "ns"},
    {"name": "BM_x_mean", "iterations": 10, "real_time": 8.5, "cpu_time": 8.5, "time_unit": "ns"}]})";
  const auto g = parse_gbench_json(text);
  EXPECT_EQ(g.result.samples.size(), 4u);
  ASSERT_EQ(g.aggregates.size(), 2u);
  EXPECT_EQ(g.aggregates[0].case_name, "BM_x");
  EXPECT_EQ(g.aggregates[0].aggregate_name, "mean");
}

TEST(GbenchJsonPublished, AComplexityFitIsLeftOutWithANote) {
  const auto g = parse_gbench_json(read_file(kData + "complexity_bigo.json"));
  for (auto& a : g.aggregates) ADD_FAILURE() << "kept " << a.case_name << " " << a.aggregate_name << " " << a.metric;
  EXPECT_EQ(g.result.samples.size(), 7u * 2);  // five arguments and two benchmarks, real and cpu time
  ASSERT_EQ(g.result.notes.size(), 1u);
  EXPECT_NE(g.result.notes[0].find("'BM_BinaryGap': its complexity fit (BigO (1), RMS) is left out"), std::string::npos)
      << g.result.notes[0];
  EXPECT_EQ(g.result.notes[0].rfind("line 109:", 0), 0u) << g.result.notes[0];
}

TEST(GbenchJsonPublished, APercentageAggregateAloneIsShownNotRefused) {
  const auto side = load_comparison_side(kData + "compare_py_test4_run0.json");
  ASSERT_EQ(side.series.size(), 2u);
  EXPECT_EQ(side.series[0].key.name(), "whocares/real_time_zz");
  ASSERT_TRUE(side.series[0].given.has_value());
  EXPECT_DOUBLE_EQ(side.series[0].given->mean, 0.01);
  EXPECT_EQ(side.series[0].given->n, 1u);
  ASSERT_EQ(side.input_notes.size(), 1u);
  EXPECT_NE(side.input_notes[0].find("'whocares' has aggregates only, none of them a mean"), std::string::npos)
      << side.input_notes[0];
  // ingest keeps repetitions, and says what the file holds instead.
  try {
    parse_any(read_file(kData + "compare_py_test4_run0.json"));
    FAIL() << "ingested";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("only rows are aggregates, none a mean: whocares (zz)"), std::string::npos)
        << e.what();
  }
}
