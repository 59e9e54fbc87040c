#include "analysis/gate.h"

#include <gtest/gtest.h>

#include "analysis/gate_report.h"

using namespace kvmbench;

namespace {

ComparisonSide make_side(const std::string& label, const std::vector<std::pair<std::string, std::vector<double>>>& m,
                         const std::string& unit = "ns", Source src = Source::hardware) {
  std::vector<Sample> samples;
  for (auto& [metric, values] : m)
    for (std::size_t i = 0; i < values.size(); ++i) {
      Sample s;
      s.case_name = "case<&>";
      s.metric = metric;
      s.unit = unit;
      s.value = values[i];
      s.iteration = static_cast<int>(i);
      samples.push_back(s);
    }
  ComparisonSide side;
  side.label = label;
  side.source = src;
  side.series = group_series(samples);
  return side;
}

std::vector<double> scaled(std::vector<double> v, double f) {
  for (auto& x : v) x *= f;
  return v;
}

const std::vector<double> kBase = {100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.9, 99.1, 100.3};

}  // namespace

TEST(Gate, FailsOnClearRegressionBeyondThreshold) {
  auto g = evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", scaled(kBase, 1.05)}}),
                         {.max_regression_pct = 1, .alpha = 0.05, .min_n = 3});
  EXPECT_EQ(g.status, GateStatus::fail);
  EXPECT_EQ(g.exit_code(), 1);
  ASSERT_EQ(g.metrics.size(), 1u);
  EXPECT_TRUE(g.metrics[0].regressed);
}

TEST(Gate, PassesWhenCiReachesIntoAllowedRange) {
  // +5% is significant, but 10% is allowed.
  auto g = evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", scaled(kBase, 1.05)}}),
                         {.max_regression_pct = 10, .alpha = 0.05, .min_n = 3});
  EXPECT_EQ(g.status, GateStatus::pass);
  EXPECT_NE(g.metrics[0].message.find("allowed"), std::string::npos) << g.metrics[0].message;
}

TEST(Gate, ImprovementPasses) {
  auto g = evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", scaled(kBase, 0.9)}}), {});
  EXPECT_EQ(g.status, GateStatus::pass);
}

TEST(Gate, RateDropIsRegression) {
  auto g = evaluate_gate(make_side("a", {{"r", kBase}}, "GB/s"), make_side("b", {{"r", scaled(kBase, 0.9)}}, "GB/s"),
                         {.max_regression_pct = 1});
  EXPECT_EQ(g.status, GateStatus::fail);
}

TEST(Gate, UnusableInputsSaidPlainly) {
  auto emu = evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", kBase}}, "ns", Source::emulated), {});
  EXPECT_EQ(emu.exit_code(), 2);
  ASSERT_FALSE(emu.problems.empty());
  EXPECT_NE(emu.problems[0].find("emulated"), std::string::npos);

  auto model = evaluate_gate(make_side("a", {{"t", kBase}}, "ns", Source::model), make_side("b", {{"t", kBase}}), {});
  EXPECT_EQ(model.exit_code(), 2);

  auto few = evaluate_gate(make_side("a", {{"t", {1, 2}}}), make_side("b", {{"t", {1, 2}}}), {});
  EXPECT_EQ(few.exit_code(), 2);
  EXPECT_NE(few.problems[0].find("too few samples"), std::string::npos);

  auto mism = evaluate_gate(make_side("a", {{"t", kBase}, {"u", kBase}}), make_side("b", {{"t", kBase}, {"v", kBase}}), {});
  EXPECT_EQ(mism.exit_code(), 2);
  EXPECT_NE(mism.problems[0].find("mismatched metrics"), std::string::npos);
  EXPECT_NE(mism.problems[0].find("only in base: case<&>/u"), std::string::npos) << mism.problems[0];
  EXPECT_NE(mism.problems[0].find("only in cand: case<&>/v"), std::string::npos);
}

TEST(Gate, BadOptionsThrow) {
  EXPECT_THROW(evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", kBase}}), {.alpha = 1.5}),
               std::invalid_argument);
  EXPECT_THROW(evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", kBase}}), {.max_regression_pct = -1}),
               std::invalid_argument);
}

TEST(GateReport, JunitIsEscapedAndCountsFailures) {
  auto g = evaluate_gate(make_side("a\"<x>", {{"t", kBase}, {"u", kBase}}),
                         make_side("b&'", {{"t", scaled(kBase, 1.05)}, {"u", kBase}}), {.max_regression_pct = 1});
  std::string x = render_gate_junit(g);
  EXPECT_NE(x.find("<testsuites name=\"kvmbench gate\" tests=\"2\" failures=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("classname=\"kvmbench.gate.case&lt;&amp;&gt;\""), std::string::npos) << x;
  EXPECT_NE(x.find("a&quot;&lt;x&gt;"), std::string::npos);
  EXPECT_NE(x.find("b&amp;&apos;"), std::string::npos);
  EXPECT_EQ(x.find("case<&>"), std::string::npos);
  EXPECT_NE(x.find("<failure message=\"case&lt;&amp;&gt;/t: change +5.00%"), std::string::npos);
  std::string md = render_gate_markdown(g);
  EXPECT_NE(md.find("FAILED"), std::string::npos);
  EXPECT_NE(md.find("| ❌ |"), std::string::npos) << md;
}

TEST(GateReport, XmlEscapeControls) {
  EXPECT_EQ(xml_escape("a<b>&\"'\x01"), "a&lt;b&gt;&amp;&quot;&apos;?");
}
