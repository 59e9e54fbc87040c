// One run of a host measurement's case: its recorded values become Samples
// with the case's names, units and keys, delivered after the body returned;
// a throwing body is a skip with its message and leaves no sample.
#include <gtest/gtest.h>

#include <stdexcept>

#include "hostlib/measure/case_samples.h"

using namespace kvmbench;
using namespace kvmbench::host;

TEST(CaseSamples, RecordedValuesBecomeSamplesWithUnitsAndKeys) {
  CaseSpec c;
  c.case_name = "toy";
  c.variant = "v";
  c.units = {{"time", "ns"}, {"rate", "GB/s"}};
  c.extra = {{"param", 7}};
  std::vector<Sample> got;
  BenchOutcome o;
  measure_case(c, [](CaseValues& v) {
    v.record("time", 101.0);
    v.record("rate", 2.5, {{"cpu", 1}});
    v.record("rate", 3.5, {{"cpu", 2}});
  }, [&](const Sample& s) { got.push_back(s); }, o);
  EXPECT_TRUE(o.skipped.empty());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(o.samples, 3u);
  for (const Sample& s : got) {
    EXPECT_EQ(s.case_name, "toy");
    EXPECT_EQ(s.variant, "v");
    EXPECT_EQ(s.extra.at("param"), 7);
    // The run driver's loop numbers repetitions; a case run is one of them.
    EXPECT_EQ(s.iteration, 0);
    if (s.metric == "time") {
      EXPECT_EQ(s.unit, "ns");
      EXPECT_EQ(s.value, 101.0);
      EXPECT_FALSE(s.extra.contains("cpu"));
    } else {
      ASSERT_EQ(s.metric, "rate");
      EXPECT_EQ(s.unit, "GB/s");
      EXPECT_EQ(s.value, s.extra.at("cpu") == 1 ? 2.5 : 3.5);
    }
  }
}

TEST(CaseSamples, AMetricWithoutADeclaredUnitHasNone) {
  CaseSpec c;
  c.case_name = "c";
  std::vector<Sample> got;
  BenchOutcome o;
  measure_case(c, [](CaseValues& v) { v.record("count", 4); }, [&](const Sample& s) { got.push_back(s); }, o);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].unit, "");
}

TEST(CaseSamples, ThrowingBodyIsASkipWithItsMessageAndNoPartialSamples) {
  CaseSpec bad;
  bad.case_name = "broken";
  bad.variant = "w";
  std::size_t n = 0;
  BenchOutcome o;
  measure_case(bad, [](CaseValues& v) {
    v.record("x", 1);  // recorded before the failure: must not reach the sink
    throw std::runtime_error("cannot do it here");
  }, [&](const Sample&) { ++n; }, o);
  CaseSpec ok;
  ok.case_name = "fine";
  measure_case(ok, [](CaseValues& v) { v.record("x", 1); }, [&](const Sample&) { ++n; }, o);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(o.samples, 1u);
  ASSERT_EQ(o.skipped.size(), 1u);
  EXPECT_EQ(o.skipped[0].case_name, "broken");
  EXPECT_EQ(o.skipped[0].variant, "w");
  EXPECT_EQ(o.skipped[0].reason, "cannot do it here");
}

TEST(CaseSamples, SinkErrorsReachTheCaller) {
  CaseSpec c;
  c.case_name = "c";
  BenchOutcome o;
  EXPECT_THROW(measure_case(c, [](CaseValues& v) { v.record("x", 1); },
                            [](const Sample&) { throw std::runtime_error("disk full"); }, o),
               std::runtime_error);
  EXPECT_TRUE(o.skipped.empty());
}

// Samples leave in the order runs have always stored them (by the text
// "metric@key=value", so cpu=10 before cpu=2), whatever order the body
// recorded them in: the generic tables take their columns in that order.
TEST(CaseSamples, SamplesAreOrderedByMetricThenKeysAsText) {
  CaseSpec c;
  c.case_name = "c";
  std::vector<std::string> got;
  BenchOutcome o;
  measure_case(c, [](CaseValues& v) {
    v.record("time", 1);
    v.record("rate", 2, {{"cpu", 2}});
    v.record("rate", 3, {{"cpu", 10}});
    v.record("rate", 4, {{"cpu", 1}});
  }, [&](const Sample& s) {
    got.push_back(s.metric + (s.extra.contains("cpu") ? "@" + std::to_string(s.extra["cpu"].get<int>()) : ""));
  }, o);
  EXPECT_EQ(got, (std::vector<std::string>{"rate@1", "rate@10", "rate@2", "time"}));
}
