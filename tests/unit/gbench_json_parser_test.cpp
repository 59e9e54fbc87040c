#include "analysis/parse/gbench_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "analysis/store/run_store.h"

using namespace kvmbench;
using namespace kvmbench::parsers;

static const std::string kData = std::string(KVMBENCH_TEST_DATA) + "/ingest/";

TEST(GbenchJson, RepetitionsAreSamplesAggregatesAreNot) {
  auto g = parse_gbench_json(read_file(kData + "gbench_repetitions.json"));
  // 3 reps x (real, cpu, bytes_per_second) + 2 reps x (real, cpu)
  ASSERT_EQ(g.result.samples.size(), 13u);
  const Sample& s = g.result.samples[3];
  EXPECT_EQ(s.case_name, "BM_FaultIn/4096/repeats:3");
  EXPECT_EQ(s.metric, "real_time");
  EXPECT_EQ(s.unit, "ns");
  EXPECT_EQ(s.value, 130);
  EXPECT_EQ(s.iteration, 1);
  EXPECT_EQ(s.extra["iterations"], 1000);
  EXPECT_GT(s.extra["line"].get<int>(), 1);
  EXPECT_EQ(g.result.samples[2].metric, "bytes_per_second");
  EXPECT_EQ(g.result.samples[2].unit, "bytes/s");
  EXPECT_EQ(g.result.samples[9].unit, "us");
  EXPECT_EQ(g.result.samples[9].value, 2500);
  // mean, median, stddev, cv: real, cpu, bytes_per_second each
  ASSERT_EQ(g.aggregates.size(), 12u);
  EXPECT_EQ(g.aggregates[0].aggregate_name, "mean");
  EXPECT_EQ(g.aggregates[0].value, 130);
  EXPECT_EQ(g.aggregates[9].aggregate_name, "cv");
  EXPECT_EQ(g.aggregates[9].unit, "");
  EXPECT_EQ(g.context["host_name"], "lab1");
}

TEST(GbenchJson, RowLineNumbersPointAtTheRow) {
  const std::string text =
      "{\n  \"benchmarks\": [\n    {\"name\": \"a\", \"real_time\": 1, \"time_unit\": \"ms\"},\n"
      "    {\"name\": \"b\", \"real_time\": 2}\n  ]\n}\n";
  auto g = parse_gbench_json(text);
  ASSERT_EQ(g.result.samples.size(), 2u);
  EXPECT_EQ(g.result.samples[0].extra["line"], 3);
  EXPECT_EQ(g.result.samples[0].unit, "ms");
  EXPECT_EQ(g.result.samples[1].extra["line"], 4);
  EXPECT_EQ(g.result.samples[1].unit, "ns");
}

TEST(GbenchJson, TruncatedJsonIsAnErrorWithALine) {
  const std::string text = read_file(kData + "gbench_truncated.json");
  try {
    parse_gbench_json(text);
    FAIL() << "truncated JSON accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    EXPECT_GT(e.line, 30u);
  }
}

TEST(GbenchJson, MalformedAndForeignJsonAreErrors) {
  EXPECT_THROW(parse_gbench_json("{\"benchmarks\": [ {\"name\": \"a\",, } ]}"), ParseError);
  EXPECT_THROW(parse_gbench_json("{\"foo\": 1}"), ParseError);
  EXPECT_THROW(parse_gbench_json("{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1, \"time_unit\": \"fortnights\"}]}"),
               ParseError);
}

TEST(GbenchJson, ErroredRowsAreSkippedWithAWarning) {
  auto g = parse_gbench_json(
      "{\"benchmarks\": [{\"name\": \"a\", \"error_occurred\": true, \"error_message\": \"boom\"},"
      "{\"name\": \"b\", \"real_time\": 3, \"cpu_time\": 2}]}");
  EXPECT_EQ(g.result.samples.size(), 2u);
  ASSERT_EQ(g.result.warnings.size(), 1u);
  EXPECT_NE(g.result.warnings[0].find("boom"), std::string::npos);
}

// The files in tests/data/gbench are the library's own output (see the
// README there).
static const std::string kReal = std::string(KVMBENCH_TEST_DATA) + "/gbench/";

TEST(GbenchJsonReal, NonFiniteLiteralsAreReadAndKept) {
  auto g = parse_gbench_json(read_file(kReal + "one_sample_base.json"));
  std::map<std::string, double> counters;
  for (auto& s : g.result.samples)
    if (s.case_name == "BM_Counters") counters[s.metric] = s.value;
  EXPECT_TRUE(std::isnan(counters.at("ratio")));
  EXPECT_EQ(counters.at("peak"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(counters.at("floor"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(counters.at("hits"), 42);
  for (auto& s : g.result.samples)
    if (s.case_name == "BM_Counters" && s.metric == "peak") {
      EXPECT_EQ(s.extra["value_text"], "Infinity");
    }
}

TEST(GbenchJsonReal, ErroredBenchmarksAreListedWithTheirMessage) {
  auto g = parse_gbench_json(read_file(kReal + "repetitions_base.json"));
  ASSERT_EQ(g.not_measured.size(), 1u);  // once, not once per repetition
  EXPECT_EQ(g.not_measured[0].case_name, "BM_Fails");
  EXPECT_EQ(g.not_measured[0].message, "device not available");
  for (auto& s : g.result.samples) EXPECT_NE(s.case_name, "BM_Fails");
}

TEST(GbenchJsonReal, TwoBenchmarksOfOneNameAreKeptApart) {
  auto g = parse_gbench_json(read_file(kReal + "repetitions_base.json"));
  std::map<std::string, int> reps;
  for (auto& s : g.result.samples)
    if (s.metric == "real_time" && s.case_name.rfind("BM_Same", 0) == 0) ++reps[s.case_name];
  EXPECT_EQ(reps, (std::map<std::string, int>{{"BM_Same (1 of 2)", 10}, {"BM_Same (2 of 2)", 10}}));
}

TEST(GbenchJsonReal, AggregatesOnlyCarryTheirCount) {
  auto g = parse_gbench_json(read_file(kReal + "aggregates_base.json"));
  EXPECT_TRUE(g.result.samples.empty());
  ASSERT_FALSE(g.aggregates.empty());
  EXPECT_EQ(g.aggregates[0].aggregate_name, "mean");
  EXPECT_EQ(g.aggregates[0].count, 10u);
}

TEST(GbenchJsonReal, SchemaVersionsOtherThanOneAreRefusedByNumber) {
  EXPECT_NO_THROW(parse_gbench_json(read_file(kReal + "schema_v1.json")));
  try {
    parse_gbench_json(read_file(kReal + "schema_v2.json"));
    FAIL() << "version 2 accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("json_schema_version is 2"), std::string::npos) << e.what();
  }
}

TEST(GbenchJson, LiteralsInsideStringsAreLeftAlone) {
  auto g = parse_gbench_json(
      "{\"benchmarks\": [{\"name\": \"NaN Infinity\", \"real_time\": NaN, \"label\": \"-Infinity\"}]}");
  ASSERT_EQ(g.result.samples.size(), 1u);
  EXPECT_EQ(g.result.samples[0].case_name, "NaN Infinity");
  EXPECT_TRUE(std::isnan(g.result.samples[0].value));
  EXPECT_THROW(parse_gbench_json("{\"benchmarks\": [{\"name\": \"a\", \"real_time\": NaNa}]}"), ParseError);
}
