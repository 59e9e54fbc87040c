// compare() on experimental units: sub-units summarised first, several
// invocations per side, summaries from aggregates, units converted,
// non-finite values shown. Reference values derived by hand in the
// comments (Student t with 4 df has the closed form
// F(t) = 1/2 + t (t^2 + 6) / (2 (t^2 + 4)^(3/2))).
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/verdicts/compare.h"
#include "analysis/report/render/renderer.h"
#include "analysis/views/comparison_json.h"
#include "analysis/views/comparison_notes.h"
#include "analysis/views/comparison_rows.h"
#include "analysis/views/compare_view.h"

using namespace kvmbench;

namespace {

Sample smp(std::string metric, std::string unit, double v, int it, nlohmann::json extra = nullptr) {
  Sample s;
  s.case_name = "c";
  s.metric = std::move(metric);
  s.unit = std::move(unit);
  s.value = v;
  s.iteration = it;
  s.extra = std::move(extra);
  return s;
}

ComparisonSide side(std::string label, const std::vector<Sample>& samples, int invocation = 0) {
  ComparisonSide s;
  s.label = std::move(label);
  s.source = Source::hardware;
  s.series = group_series(samples, invocation);
  return s;
}

// Two threads per repetition, three repetitions per side.
std::vector<Sample> threads(const std::vector<std::pair<double, double>>& reps) {
  std::vector<Sample> out;
  for (std::size_t i = 0; i < reps.size(); ++i) {
    out.push_back(smp("rate", "GB/s", reps[i].first, static_cast<int>(i), {{"thread", 0}}));
    out.push_back(smp("rate", "GB/s", reps[i].second, static_cast<int>(i), {{"thread", 1}}));
  }
  return out;
}

}  // namespace

// base repetitions (threads) 9|11, 11|13, 13|15 -> 10, 12, 14 (mean 12, sd 2);
// cand 11|13, 13|15, 15|17 -> 12, 14, 16 (mean 14, sd 2). Welch on n = 3:
// t = -2 / sqrt(4/3 + 4/3) = -1.2247449, df = 4, p = 0.28786413472669
// (the closed form above). Pooling the threads (n = 6) would have given
// another p: the test is on the repetitions (on the linear scale here, for
// the closed form; by default these positive values are tested on the logs).
TEST(CompareUnits, ThreadsAreSummarisedBeforeTheTest) {
  const Comparison c = compare(side("A", threads({{9, 11}, {11, 13}, {13, 15}})),
                               side("B", threads({{11, 13}, {13, 15}, {15, 17}})), {.linear = true});
  ASSERT_EQ(c.metrics.size(), 1u);
  const auto& m = c.metrics[0];
  EXPECT_EQ(m.base.n, 3u);
  EXPECT_DOUBLE_EQ(m.base.mean, 12);
  EXPECT_DOUBLE_EQ(m.base.stddev, 2);
  EXPECT_EQ(m.cand_values, (std::vector<double>{12, 14, 16}));
  EXPECT_NEAR(m.p_welch, 0.28786413472669, 1e-12);
  EXPECT_EQ(m.base_observations.size(), 6u);  // kept, for --per-unit
  EXPECT_NEAR(m.change.pct, 100.0 * 2 / 12, 1e-12);
  bool said = false;
  for (auto& n : experimental_unit_notes(c)) said = said || n.find("#1: up to 2 threads per repetition") == 0;
  EXPECT_TRUE(said);
  std::string per;
  for (const auto& l : per_unit_lines(c)) per += l + "\n";
  EXPECT_NE(per.find("base inv 1 rep 0: 10.00 = mean of thread=0 9.000 thread=1 11.00"), std::string::npos) << per;
}

// Each side from two invocations (two run directories), each of two
// repetitions: the units are the invocations' means.
//   base: (1, 3) and (5, 7) -> 2, 6;   cand: (2, 4) and (6, 8) -> 3, 7.
TEST(CompareUnits, SeveralInvocationsPerSide) {
  auto inv = [](double a, double b, int k) {
    return side("r" + std::to_string(k), {smp("t", "ns", a, 0), smp("t", "ns", b, 1)});
  };
  const ComparisonSide base = merge_invocations({inv(1, 3, 0), inv(5, 7, 1)});
  const ComparisonSide cand = merge_invocations({inv(2, 4, 2), inv(6, 8, 3)});
  EXPECT_EQ(base.label, "r0,r1");
  EXPECT_EQ(base.invocations, 2u);
  const Comparison c = compare(base, cand);
  const auto& m = c.metrics[0];
  EXPECT_EQ(m.base_units.level, UnitLevel::invocation);
  EXPECT_EQ(m.base_values, (std::vector<double>{2, 6}));
  EXPECT_EQ(m.cand_values, (std::vector<double>{3, 7}));
  EXPECT_TRUE(m.base_levels.known);
  EXPECT_EQ(c.base.invocations, 2u);
  EXPECT_NE(experimental_unit_notes(c)[0].find("over the invocations"), std::string::npos);
  // Different sources cannot be one side.
  ComparisonSide emulated = inv(1, 2, 4);
  emulated.source = Source::emulated;
  EXPECT_THROW(merge_invocations({inv(1, 3, 0), emulated}), std::runtime_error);
}

TEST(CompareUnits, OneInvocationSaysWhatTheCiLeavesOut) {
  const Comparison c = compare(side("A", {smp("t", "ns", 1, 0), smp("t", "ns", 2, 1)}),
                               side("B", {smp("t", "ns", 1, 0), smp("t", "ns", 2, 1)}));
  const auto notes = experimental_unit_notes(c);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes[0].find("each side: 1 invocation of 2 repetitions"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("the noise between invocations"), std::string::npos);
  EXPECT_NE(notes[0].find("BASE1,BASE2"), std::string::npos);
}

// Aggregates only: mean 100 vs 106, sd 3, n 3 each. Welch from the
// summaries: t = -6 / sqrt(9/3 + 9/3) = -2.4494897, df = 4,
// p = 0.07048399691022 (closed form); no Mann-Whitney.
TEST(CompareUnits, AggregatesOnlyAreComparedFromTheirSummaries) {
  Series b;
  b.key = {"c", "", "real_time", "ns"};
  b.given = stats::summary_from_moments(100, 3, 3);
  Series c = b;
  c.key.unit = "us";  // and in another unit on the other side
  c.given = stats::summary_from_moments(0.106, 0.003, 3);
  ComparisonSide base, cand;
  base.series = {b};
  cand.series = {c};
  const Comparison r = compare(base, cand);
  const auto& m = r.metrics[0];
  EXPECT_EQ(m.status, MetricStatus::tested);
  EXPECT_TRUE(m.from_aggregates);
  EXPECT_NEAR(m.cand.mean, 106, 1e-9);
  EXPECT_NEAR(m.p_welch, 0.07048399691022, 1e-11);
  EXPECT_TRUE(std::isnan(m.p_mann_whitney));
  EXPECT_NEAR(m.change.pct, 6, 1e-9);
  bool said = false;
  for (auto& n : experimental_unit_notes(r)) said = said || n.find("from the file's aggregates") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(CompareUnits, TimeUnitsConvertOtherUnitsOnlyLoseTheirMetric) {
  std::vector<Sample> a = {smp("t", "ms", 1.0, 0), smp("t", "ms", 1.2, 1), smp("k", "cycles", 5, 0), smp("k", "cycles", 6, 1)};
  std::vector<Sample> b = {smp("t", "ns", 1.1e6, 0), smp("t", "ns", 1.3e6, 1), smp("k", "ns", 5, 0), smp("k", "ns", 6, 1)};
  const Comparison c = compare(side("A", a), side("B", b), {.linear = true});  // the ratio of the means
  ASSERT_EQ(c.metrics.size(), 2u);
  EXPECT_EQ(c.metrics[0].key.unit, "ms");
  EXPECT_NEAR(c.metrics[0].cand.mean, 1.2, 1e-12);
  EXPECT_NEAR(c.metrics[0].change.pct, 100.0 * (1.2 - 1.1) / 1.1, 1e-9);
  EXPECT_EQ(c.metrics[1].status, MetricStatus::not_comparable);
  EXPECT_NE(c.metrics[1].note.find("in 'cycles' in base but in 'ns' in cand"), std::string::npos);
}

TEST(CompareUnits, NonFiniteValuesAreShownNotTested) {
  const Comparison c =
      compare(side("A", {smp("ratio", "", NAN, 0)}), side("B", {smp("ratio", "", NAN, 0), smp("peak", "", INFINITY, 0)}));
  ASSERT_EQ(c.metrics.size(), 2u);
  EXPECT_EQ(c.metrics[0].status, MetricStatus::not_comparable);
  EXPECT_EQ(format_mean_sd(c.metrics[0].base, true, row_scale(c.metrics[0])), "NaN (1)");
  EXPECT_EQ(format_mean_sd(c.metrics[1].cand, true, row_scale(c.metrics[1])), "inf (1)");
  const auto j = comparison_to_json(c);
  EXPECT_EQ(j["metrics"][0]["base"]["mean"], "NaN");
  EXPECT_EQ(j["metrics"][1]["cand"]["values"][0], "Infinity");
}

// One sample per benchmark (Google Benchmark's default): the change, said
// to be no more than that.
TEST(CompareUnits, OneSampleGetsTheChangeOnly) {
  const Comparison c = compare(side("A", {smp("real_time", "ns", 200, 0)}), side("B", {smp("real_time", "ns", 210, 0)}));
  const auto& m = c.metrics[0];
  EXPECT_EQ(m.status, MetricStatus::change_only);
  EXPECT_NEAR(m.change.pct, 5, 1e-12);
  EXPECT_TRUE(std::isnan(m.p_welch));
  EXPECT_NE(m.note.find("n = 1 units: the change only (no CI, no p"), std::string::npos) << m.note;
  const std::string text = render(comparison_document(c), Format::text);
  EXPECT_NE(text.find("+5.00%"), std::string::npos) << text;
  EXPECT_NE(text.find("change only"), std::string::npos) << text;
}

TEST(CompareUnits, BadGlobsAreRefused) {
  CompareOptions o;
  o.include = {""};
  EXPECT_THROW(compare(side("A", {}), side("B", {}), o), std::invalid_argument);
}

// An aggregates-only summary without its stddev row (n >= 2, no spread)
// is shown, not tested (Welch would have nothing to work with).
TEST(CompareUnits, AggregatesWithoutSpreadAreNotTested) {
  Series b;
  b.key = {"c", "", "real_time", "ns"};
  b.given = stats::Summary{};
  b.given->n = 5;
  b.given->mean = 100;
  b.given->stddev = NAN;
  Series c = b;
  c.key.unit = "us";
  c.given->mean = 0.1;
  ComparisonSide base, cand;
  base.series = {b};
  cand.series = {c};
  const Comparison r = compare(base, cand);
  EXPECT_EQ(r.metrics[0].status, MetricStatus::not_comparable);
  EXPECT_NEAR(r.metrics[0].cand.mean, 100, 1e-9);  // converted all the same
}
