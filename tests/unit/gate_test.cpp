#include "analysis/verdicts/gate.h"
#include "analysis/report/render/renderer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/report/render/junit_xml.h"
#include "analysis/views/gate_view.h"

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
  EXPECT_TRUE(g.metrics[0].regressed());
  EXPECT_TRUE(worse_but_passed(g).empty()) << "failed, not passed";
}

TEST(Gate, PassesWhenCiReachesIntoAllowedRange) {
  // +5% is significant, but 10% is allowed.
  auto g = evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", scaled(kBase, 1.05)}}),
                         {.max_regression_pct = 10, .alpha = 0.05, .min_n = 3});
  EXPECT_EQ(g.status, GateStatus::pass);
  EXPECT_NE(g.metrics[0].message.find("allowed"), std::string::npos) << g.metrics[0].message;
  // Significantly worse, but a regression of 10% is excluded: the within-
  // noise pass, not the CI rule's.
  EXPECT_EQ(worse_but_passed(g), std::vector<std::size_t>{0});
  EXPECT_NE(g.metrics[0].message.find("is excluded"), std::string::npos) << g.metrics[0].message;
}

TEST(Gate, ImprovementPasses) {
  auto g = evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", scaled(kBase, 0.9)}}), {});
  EXPECT_EQ(g.status, GateStatus::pass);
  EXPECT_TRUE(worse_but_passed(g).empty()) << "significant, but better";
  // The same values both sides: not significant.
  EXPECT_TRUE(worse_but_passed(evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", kBase}}), {})).empty());
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

  // Nothing with enough samples: nothing could be judged, which is said,
  // not passed.
  auto few = evaluate_gate(make_side("a", {{"t", {1, 2}}}), make_side("b", {{"t", {1, 2}}}), {});
  EXPECT_EQ(few.exit_code(), 2);
  ASSERT_EQ(few.problems.size(), 1u);
  EXPECT_NE(few.problems[0].find("no metric could be gated"), std::string::npos) << few.problems[0];
  ASSERT_EQ(few.metrics.size(), 1u);
  EXPECT_NE(few.metrics[0].message.find("too few samples: base n=2, cand n=2"), std::string::npos);
}

// A metric with too few samples (rmpopt's calibration, measured once per
// run) is skipped with the reason; the others are gated.
TEST(Gate, TooFewSamplesSkipsTheMetricNotTheGate) {
  auto g = evaluate_gate(make_side("a", {{"t", kBase}, {"calibration", {5}}}),
                         make_side("b", {{"t", scaled(kBase, 1.05)}, {"calibration", {5}}}), {.max_regression_pct = 1});
  EXPECT_EQ(g.exit_code(), 1);
  ASSERT_EQ(g.metrics.size(), 2u);
  EXPECT_TRUE(g.metrics[0].regressed());
  EXPECT_TRUE(g.metrics[1].skipped());
  EXPECT_EQ(g.skipped(), 1u);
  EXPECT_EQ(g.judged(), 1u);
  const std::string x = render(gate_document(g), Format::junit);
  EXPECT_NE(x.find("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("<skipped message=\"skipped: too few samples: base n=1, cand n=1; the gate needs at least 3"),
            std::string::npos)
      << x;
  const std::string md = render(gate_document(g), Format::md);
  // The skipped metric's row in its metric's table, with the gate's word.
  EXPECT_NE(md.find("| case<&> | +0.0% |  |  |  | skipped |"), std::string::npos) << md;
  EXPECT_NE(md.find("too few samples"), std::string::npos) << md;
  // The headline (longer than 80 columns: text wraps it) counts it.
  EXPECT_NE(gate_document(g).data->at("headline").get<std::string>().find(", 1 skipped (exit 1)"), std::string::npos);
}

// A metric on one side only (a benchmark added in the candidate) is
// reported, and fails only with --strict.
TEST(Gate, OneSideOnlyIsReportedUnlessStrict) {
  auto base = make_side("a", {{"t", kBase}, {"u", kBase}}), cand = make_side("b", {{"t", kBase}, {"v", kBase}});
  auto g = evaluate_gate(base, cand, {});
  EXPECT_EQ(g.exit_code(), 0);
  ASSERT_EQ(g.metrics.size(), 3u);
  EXPECT_NE(g.metrics[1].message.find("only in base (reported; --strict makes it a failure)"), std::string::npos)
      << g.metrics[1].message;
  EXPECT_NE(g.metrics[2].message.find("only in cand"), std::string::npos);
  auto strict = evaluate_gate(base, cand, {.strict = true});
  EXPECT_EQ(strict.exit_code(), 1);
  EXPECT_EQ(strict.failures(), 2u);
  EXPECT_NE(strict.metrics[2].message.find("FAIL: only in cand (--strict)"), std::string::npos);
}

// --metrics / --exclude choose what is gated: a regression outside the
// selection does not fail it, and the Holm family is the selection.
TEST(Gate, MetricsAndExcludeSelect) {
  auto base = make_side("a", {{"t", kBase}, {"u", kBase}}), cand = make_side("b", {{"t", scaled(kBase, 1.05)}, {"u", kBase}});
  EXPECT_EQ(evaluate_gate(base, cand, {.max_regression_pct = 1}).exit_code(), 1);
  auto only_u = evaluate_gate(base, cand, {.max_regression_pct = 1, .include = {"u"}});
  EXPECT_EQ(only_u.exit_code(), 0);
  ASSERT_EQ(only_u.comparison.metrics.size(), 1u);
  EXPECT_EQ(only_u.comparison.left_out, 1u);
  EXPECT_EQ(evaluate_gate(base, cand, {.max_regression_pct = 1, .exclude = {"case<&>/t"}}).exit_code(), 0);
  EXPECT_EQ(evaluate_gate(base, cand, {.max_regression_pct = 1, .include = {"*/t"}}).exit_code(), 1);
  auto none = evaluate_gate(base, cand, {.include = {"nothing"}});
  EXPECT_EQ(none.exit_code(), 2);
  EXPECT_NE(none.problems[0].find("leave no metric to gate"), std::string::npos);
}

// A derived metric (a time of a rate) is shown but never gated, and its
// test does not count in the Holm family of the primary ones.
TEST(Gate, DerivedMetricsAreShownNotGated) {
  auto base = make_side("a", {{"rate", kBase}, {"time", kBase}}, "GB/s"),
       cand = make_side("b", {{"rate", kBase}, {"time", scaled(kBase, 0.5)}}, "GB/s");
  base.roles.derived = {{"time", "rate"}};
  auto g = evaluate_gate(base, cand, {.max_regression_pct = 1});
  EXPECT_EQ(g.exit_code(), 0);  // only "time" changed, and it is derived
  ASSERT_EQ(g.metrics.size(), 2u);
  EXPECT_TRUE(g.metrics[1].skipped());
  EXPECT_NE(g.metrics[1].message.find("derived from rate"), std::string::npos);
  const auto& time = g.comparison.metrics[1];
  EXPECT_EQ(time.status, MetricStatus::derived);
  EXPECT_NEAR(time.change.pct, -50, 1e-9);  // its change and CI are shown
  EXPECT_TRUE(std::isfinite(time.change.ci95_low));
  EXPECT_TRUE(std::isnan(time.p_holm));
  // One tested metric: Holm leaves its p as it is.
  EXPECT_EQ(g.comparison.tested_count(), 1u);
  EXPECT_DOUBLE_EQ(g.comparison.metrics[0].p_holm, g.comparison.metrics[0].p_welch);
}

// With the suite's primary metrics declared, the gate decides on those; a
// metric measured beside (a bound, a calibration) is compared but not
// gated, unless --metrics names it.
TEST(Gate, DecidesOnThePrimaryMetrics) {
  auto base = make_side("a", {{"rate", kBase}, {"bound", kBase}}, "GB/s"),
       cand = make_side("b", {{"rate", kBase}, {"bound", scaled(kBase, 0.8)}}, "GB/s");
  base.roles.primary = {"rate"};
  auto g = evaluate_gate(base, cand, {.max_regression_pct = 1});
  EXPECT_EQ(g.exit_code(), 0);
  EXPECT_EQ(g.comparison.metrics[1].status, MetricStatus::secondary);
  EXPECT_NEAR(g.comparison.metrics[1].change.pct, -20, 1e-9);  // shown
  EXPECT_NE(g.metrics[1].message.find("not a primary metric"), std::string::npos);
  EXPECT_NE(render(gate_document(g), Format::text).find("Not gated: 1 secondary metric"), std::string::npos) << render(gate_document(g), Format::text);
  EXPECT_EQ(render(gate_document(g), Format::text).find("bound"), std::string::npos)
      << "a secondary metric is counted, not listed: " << render(gate_document(g), Format::text);
  EXPECT_EQ(evaluate_gate(base, cand, {.max_regression_pct = 1, .include = {"bound"}}).exit_code(), 1);
  // compare tests the primary metrics too, unless asked for every one.
  EXPECT_EQ(compare(base, cand).metrics[1].status, MetricStatus::secondary);
  EXPECT_EQ(compare(base, cand, {.primary_only = false}).metrics[1].status, MetricStatus::tested);
}

// Input that cannot be loaded still gives a gate result to write out.
TEST(Gate, UnusableGateCarriesTheReason) {
  auto g = unusable_gate("a", "b", {}, "a: no such file or directory");
  EXPECT_EQ(g.exit_code(), 2);
  // Nothing was loaded: no banner naming a source it never had.
  EXPECT_EQ(render(gate_document(g), Format::text).find("REPLAY"), std::string::npos) << render(gate_document(g), Format::text);
  EXPECT_NE(render(gate_document(g), Format::junit).find("<error message=\"a: no such file or directory\" type=\"unusable input\"/>"),
            std::string::npos);
  EXPECT_NE(render(gate_document(g), Format::md).find("UNUSABLE INPUT"), std::string::npos);
  EXPECT_NE(render(gate_document(g), Format::md).find("  - a: no such file or directory"), std::string::npos);
}

TEST(Gate, BadOptionsThrow) {
  EXPECT_THROW(evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", kBase}}), {.alpha = 1.5}),
               std::invalid_argument);
  EXPECT_THROW(evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", kBase}}), {.max_regression_pct = -1}),
               std::invalid_argument);
  EXPECT_THROW(evaluate_gate(make_side("a", {{"t", kBase}}), make_side("b", {{"t", kBase}}), {.min_n = 1}),
               std::invalid_argument);
}

TEST(GateReport, JunitIsEscapedAndCountsFailures) {
  auto g = evaluate_gate(make_side("a\"<x>", {{"t", kBase}, {"u", kBase}}),
                         make_side("b&'", {{"t", scaled(kBase, 1.05)}, {"u", kBase}}), {.max_regression_pct = 1});
  std::string x = render(gate_document(g), Format::junit);
  EXPECT_NE(x.find("<testsuites name=\"kvmbench gate\" tests=\"2\" failures=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("classname=\"kvmbench.gate.case&lt;&amp;&gt;\""), std::string::npos) << x;
  EXPECT_NE(x.find("a&quot;&lt;x&gt;"), std::string::npos);
  EXPECT_NE(x.find("b&amp;&apos;"), std::string::npos);
  EXPECT_EQ(x.find("case<&>"), std::string::npos);
  EXPECT_NE(x.find("<failure message=\"case&lt;&amp;&gt;/t: change +5.00%"), std::string::npos);
  std::string md = render(gate_document(g), Format::md);
  EXPECT_NE(md.find("FAILED"), std::string::npos);
  EXPECT_NE(md.find("| FAIL |"), std::string::npos) << md;
}

TEST(GateReport, XmlEscapeControls) {
  EXPECT_EQ(xml_escape("a<b>&\"'\x01"), "a&lt;b&gt;&amp;&quot;&apos;?");
}

// The within-noise rule on values whose bound is derived by hand. Both
// sides e^{-0.01, 0, 0.01} (a time): the logs' mean difference d = 0, each
// side's sample variance 0.0001, se = sqrt(2 * 0.0001 / 3) = 0.0081650,
// Welch df = 4, t(0.95; 4) = 2.131847; the one-sided 95 % bound on the
// log ratio 2.131847 * 0.0081650 = 0.017407, as a regression
// (e^0.017407 - 1) * 100 = 1.7559 %.
TEST(Gate, WithinNoiseExcludesOnlyWhatTheBoundExcludes) {
  const std::vector<double> v = {std::exp(-0.01), 1.0, std::exp(0.01)};
  const auto base = make_side("a", {{"t", v}}), cand = make_side("b", {{"t", v}});
  // M = 2: the bound 1.7559 % is below it, a PASS that says so.
  auto pass = evaluate_gate(base, cand, {.max_regression_pct = 2});
  ASSERT_EQ(pass.metrics.size(), 1u);
  EXPECT_EQ(pass.status, GateStatus::pass);
  EXPECT_NEAR(pass.metrics[0].decision.excluded_beyond_pct, 1.7559, 0.0005);
  EXPECT_NEAR(pass.bound_level, 0.95, 1e-12);
  EXPECT_EQ(pass.metrics[0].decision.finding, MetricFinding::regression_excluded);
  const auto pass_json = nlohmann::json::parse(render(gate_document(pass), Format::json));
  EXPECT_EQ(pass_json["headline"].get<std::string>().rfind("gate: PASSED, a regression beyond +1.76% is excluded (95%)", 0),
            0u)
      << pass_json["headline"];
  // M = 1: neither shown nor excluded: INCONCLUSIVE, exit 3, with the units
  // that would decide it (the bound shrinks as 1 / sqrt(n)).
  auto undecided = evaluate_gate(base, cand, {.max_regression_pct = 1});
  EXPECT_EQ(undecided.status, GateStatus::inconclusive);
  EXPECT_EQ(undecided.exit_code(), 3);
  ASSERT_TRUE(undecided.metrics[0].decision.units_to_decide.has_value());
  EXPECT_GT(*undecided.metrics[0].decision.units_to_decide, 3u);
  EXPECT_NE(render(gate_document(undecided), Format::text).find("gate: INCONCLUSIVE"), std::string::npos);
  // The pass of old, asked for: no exit 3.
  auto old = evaluate_gate(base, cand, {.max_regression_pct = 1, .mode = DecisionMode::significance});
  EXPECT_EQ(old.status, GateStatus::pass);
  EXPECT_EQ(old.exit_code(), 0);
  // Without a margin: today's decision, the bound stated all the same.
  auto plain = evaluate_gate(base, cand, {});
  EXPECT_EQ(plain.status, GateStatus::pass);
  // (The first line wraps in text; JSON's headline is whole.)
  const auto plain_json = nlohmann::json::parse(render(gate_document(plain), Format::json));
  EXPECT_NE(plain_json["headline"].get<std::string>().find("a regression beyond +1.76% is excluded (95%)"),
            std::string::npos)
      << plain_json["headline"];
  // JSON names both figures per metric.
  const auto j = nlohmann::json::parse(render(gate_document(undecided), Format::json));
  EXPECT_EQ(j["status"], "inconclusive");
  EXPECT_NEAR(j["metrics"][0]["excluded_beyond_pct"].get<double>(), 1.7559, 0.0005);
  EXPECT_TRUE(j["metrics"][0]["mde_80_pct"].is_number());
  EXPECT_TRUE(j["metrics"][0]["mde_95_pct"].is_number());
}

// Two metrics: each bound is at 1 - alpha / 2 (Bonferroni, regression_
// decision.h), t(0.975; 4) = 2.776445: 2.776445 * 0.0081650 = 0.022670,
// (e^0.022670 - 1) * 100 = 2.2929 %.
TEST(Gate, BoundsOfAFamilyAreAtBonferronisLevel) {
  const std::vector<double> v = {std::exp(-0.01), 1.0, std::exp(0.01)};
  auto g = evaluate_gate(make_side("a", {{"t", v}, {"u", v}}), make_side("b", {{"t", v}, {"u", v}}),
                         {.max_regression_pct = 2});
  ASSERT_EQ(g.metrics.size(), 2u);
  EXPECT_NEAR(g.bound_level, 0.975, 1e-12);
  for (const auto& m : g.metrics) EXPECT_NEAR(m.decision.excluded_beyond_pct, 2.2929, 0.0005);
  EXPECT_EQ(g.status, GateStatus::inconclusive) << "2.29 % is not below 2 %";
}
