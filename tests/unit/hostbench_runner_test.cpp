// The Google Benchmark runner: each repetition's recorded values become
// Samples with the case's names and units; a throwing body becomes a skip.
#include <gtest/gtest.h>

#include <stdexcept>

#include "hostlib/bench_runner.h"

using namespace kvmbench;
using namespace kvmbench::host;

TEST(HostbenchRunner, RepetitionsBecomeSamplesWithUnitsAndKeys) {
  BenchCase c;
  c.case_name = "toy";
  c.variant = "v";
  c.repetitions = 3;
  c.units = {{"time", "ns"}, {"rate", "GB/s"}};
  c.extra = {{"param", 7}};
  int calls = 0;
  c.body = [&](benchmark::State& st) {
    ++calls;
    st.SetIterationTime(1e-6);
    record(st, "time", 100.0 + calls);
    record(st, "rate", 2.5, {{"cpu", 1}});
    record(st, "rate", 3.5, {{"cpu", 2}});
  };
  std::vector<Sample> got;
  BenchOutcome o = run_bench_cases("test", {c}, [&](const Sample& s) { got.push_back(s); });
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(o.skipped.empty());
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(o.samples, 9u);
  std::set<int> iterations;
  for (const Sample& s : got) {
    EXPECT_EQ(s.case_name, "toy");
    EXPECT_EQ(s.variant, "v");
    EXPECT_EQ(s.extra.at("param"), 7);
    iterations.insert(s.iteration);
    if (s.metric == "time") {
      EXPECT_EQ(s.unit, "ns");
      EXPECT_EQ(s.value, 101.0 + s.iteration);
    } else {
      ASSERT_EQ(s.metric, "rate");
      EXPECT_EQ(s.unit, "GB/s");
      EXPECT_EQ(s.value, s.extra.at("cpu") == 1 ? 2.5 : 3.5);
    }
  }
  EXPECT_EQ(iterations, (std::set<int>{0, 1, 2}));
}

TEST(HostbenchRunner, SubsamplesNumberIterationsAcrossRepetitions) {
  BenchCase c;
  c.case_name = "conv";
  c.repetitions = 2;
  c.subsamples = 3;
  c.subsample_key = "conversion";
  c.units = {{"t", "ns"}};
  c.body = [](benchmark::State& st) {
    for (int k = 0; k < 3; ++k) record(st, "t", 1.0 + k, {{"conversion", k}});
  };
  std::set<int> iterations;
  run_bench_cases("test", {c}, [&](const Sample& s) { iterations.insert(s.iteration); });
  EXPECT_EQ(iterations, (std::set<int>{0, 1, 2, 3, 4, 5}));
}

TEST(HostbenchRunner, ThrowingBodyIsASkipWithItsMessage) {
  BenchCase ok;
  ok.case_name = "fine";
  ok.repetitions = 1;
  ok.units = {{"x", "ns"}};
  ok.body = [](benchmark::State& st) { record(st, "x", 1); };
  BenchCase bad;
  bad.case_name = "broken";
  bad.variant = "w";
  bad.repetitions = 2;
  bad.body = [](benchmark::State&) { throw std::runtime_error("cannot do it here"); };
  std::size_t n = 0;
  BenchOutcome o = run_bench_cases("test", {bad, ok}, [&](const Sample&) { ++n; });
  EXPECT_EQ(n, 1u);
  ASSERT_EQ(o.skipped.size(), 1u);
  EXPECT_EQ(o.skipped[0].case_name, "broken");
  EXPECT_EQ(o.skipped[0].variant, "w");
  EXPECT_EQ(o.skipped[0].reason, "cannot do it here");
}

TEST(HostbenchRunner, SinkErrorsReachTheCaller) {
  BenchCase c;
  c.case_name = "c";
  c.repetitions = 1;
  c.body = [](benchmark::State& st) { record(st, "x", 1); };
  EXPECT_THROW(run_bench_cases("test", {c}, [](const Sample&) { throw std::runtime_error("disk full"); }),
               std::runtime_error);
}
