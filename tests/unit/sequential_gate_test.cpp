// apply_sequential_look (analysis/verdicts/sequential_gate.h): a gate's
// outcomes, messages and status made the look's, whatever one fixed look
// at the same boots decided; metrics the look does not hold and skipped
// ones left as they were.
#include "analysis/verdicts/sequential_gate.h"

#include <gtest/gtest.h>

using namespace kvmbench;

namespace {

GateMetric decided(std::size_t index, const std::string& key, GateOutcome fixed) {
  GateMetric m;
  m.index = index;
  m.outcome = fixed;
  m.message = "the fixed look's message";
  m.decision.key = key;
  m.decision.units_to_decide = 12;
  return m;
}

SequentialMetric look_metric(const std::string& key, MetricFinding f, double decided_at) {
  SequentialMetric s;
  s.key = key;
  s.finding = f;
  s.decided_at = decided_at;
  s.p_shown = 0.0004;
  s.p_excluded = 0.3;
  s.shown_boundary = 0.0015;
  s.excluded_boundary = 0.003;
  return s;
}

}  // namespace

TEST(SequentialGate, TheLookDecidesTheGateAndItsMessages) {
  GateResult g;
  g.status = GateStatus::pass;  // one fixed look at these boots passed
  g.metrics = {decided(0, "a", GateOutcome::pass), decided(1, "b", GateOutcome::pass),
               decided(2, "c", GateOutcome::pass)};
  GateMetric skipped;
  skipped.index = 3;
  skipped.message = "derived: not tested";
  g.metrics.push_back(skipped);
  SequentialLook look;
  look.information = 4;
  look.metrics = {look_metric("a", MetricFinding::regression_shown, 3),
                  look_metric("b", MetricFinding::regression_excluded, 4),
                  look_metric("c", MetricFinding::inconclusive, 0)};
  look.verdict = FamilyVerdict::regression;
  apply_sequential_look(g, look, 20);
  EXPECT_EQ(g.status, GateStatus::fail);
  EXPECT_EQ(g.metrics[0].outcome, GateOutcome::fail);
  EXPECT_EQ(g.metrics[0].message,
            "a regression beyond 20 % shown at 3 units a side (p 0.0004 below the look's boundary 0.0015)");
  EXPECT_EQ(g.metrics[1].outcome, GateOutcome::pass);
  EXPECT_EQ(g.metrics[1].message,
            "a regression of 20 % or more excluded at 4 units a side (p 0.3 below the look's boundary 0.003)");
  EXPECT_EQ(g.metrics[2].outcome, GateOutcome::inconclusive);
  EXPECT_EQ(g.metrics[2].message,
            "neither shown nor excluded at 4 units a side (p 0.0004 and 0.3, boundaries 0.0015 and 0.003)");
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(g.metrics[i].decision.units_to_decide) << "a fixed design's, not after looks";
  EXPECT_EQ(g.metrics[3].outcome, GateOutcome::skipped);
  EXPECT_EQ(g.metrics[3].message, "derived: not tested");
}

TEST(SequentialGate, AnOpenLookIsInconclusiveAndAPassPasses) {
  GateResult g;
  g.status = GateStatus::fail;
  g.metrics = {decided(0, "a", GateOutcome::fail), decided(1, "not in the look", GateOutcome::fail)};
  SequentialLook open;
  open.information = 2;
  open.metrics = {look_metric("a", MetricFinding::inconclusive, 0)};
  apply_sequential_look(g, open, 10);
  EXPECT_EQ(g.status, GateStatus::inconclusive);
  EXPECT_EQ(g.metrics[0].outcome, GateOutcome::inconclusive);
  EXPECT_EQ(g.metrics[1].outcome, GateOutcome::fail) << "a metric the look does not hold is left";
  EXPECT_EQ(g.metrics[1].message, "the fixed look's message");
  SequentialLook passed = open;
  passed.metrics = {look_metric("a", MetricFinding::regression_excluded, 2)};
  passed.verdict = FamilyVerdict::pass;
  apply_sequential_look(g, passed, 10);
  EXPECT_EQ(g.status, GateStatus::pass);
  EXPECT_EQ(g.metrics[0].outcome, GateOutcome::pass);
}
