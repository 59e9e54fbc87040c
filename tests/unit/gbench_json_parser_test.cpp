#include "analysis/parsers/gbench_json.h"

#include <gtest/gtest.h>

#include "analysis/run_store.h"

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
