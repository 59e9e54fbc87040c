// Metric roles (analysis/model/metric_roles.h) and what the suites declare.
#include "analysis/model/metric_roles.h"

#include <gtest/gtest.h>

#include "suites/framework/suite.h"

using namespace kvmbench;

TEST(MetricRoles, JsonRoundTripAndErrors) {
  MetricRoles r;
  r.primary = {"faultin_rate"};
  r.derived = {{"faultin_time", "faultin_rate"}};
  r.repetition = "fresh memory";
  const MetricRoles back = MetricRoles::from_json(r.to_json());
  EXPECT_EQ(back.primary, r.primary);
  EXPECT_EQ(back.derived, r.derived);
  EXPECT_TRUE(back.is_primary("faultin_rate"));
  EXPECT_FALSE(back.is_primary("write_bandwidth"));  // declared list: only those
  EXPECT_TRUE(MetricRoles{}.is_primary("anything"));  // no list: all not derived
  EXPECT_FALSE(MetricRoles({{}, {{"t", "r"}}, ""}).is_primary("t"));
  EXPECT_THROW(MetricRoles::from_json({{"primary", "r"}}), std::runtime_error);
  EXPECT_EQ(back.repetition, "fresh memory");
  EXPECT_TRUE(back.is_derived("faultin_time"));
  EXPECT_EQ(back.derived_from("faultin_rate"), "");
  EXPECT_TRUE(MetricRoles::from_json(nullptr).derived.empty());  // a run from before roles
  EXPECT_THROW(MetricRoles::from_json({{"derived", {{"t", 3}}}}), std::runtime_error);
  EXPECT_THROW(MetricRoles::from_json({{"derived", "t"}}), std::runtime_error);
  EXPECT_THROW(MetricRoles::from_json(42), std::runtime_error);
}

TEST(MetricRoles, MergeKeepsEitherSidesDerivedAndAgreeingRepetition) {
  MetricRoles a{{"r"}, {{"t", "r"}}, "fresh memory"}, b{{"r", "s"}, {{"u", "r"}}, "fresh memory"};
  MetricRoles m = merge_roles(a, b);
  EXPECT_TRUE(m.is_derived("t"));
  EXPECT_TRUE(m.is_derived("u"));
  EXPECT_EQ(m.primary, (std::vector<std::string>{"r", "s"}));
  EXPECT_EQ(m.repetition, "fresh memory");
  EXPECT_EQ(merge_roles(a, MetricRoles{{}, {}, "a guest boot"}).repetition, "");
  EXPECT_EQ(merge_roles(MetricRoles{}, b).repetition, "fresh memory");
}

// Every suite's declaration: a derived metric comes from a metric that is
// not itself derived (one step, so that its primary is gated), and a lab
// preset declares what its document preset does (it is the same pipeline).
TEST(MetricRoles, SuitesDeclareOneStepAndLabAsDocument) {
  for (const auto& s : suites::registry()) {
    for (const auto& p : s.presets)
      for (const auto& [metric, from] : p.derived_metrics) {
        EXPECT_FALSE(p.derived_metrics.count(from)) << s.name << "/" << p.name << ": " << metric << " <- " << from;
        EXPECT_NE(metric, from);
      }
    const suites::Preset* lab = s.find_preset("lab");
    const suites::Preset* doc = s.find_preset("document");
    if (lab && doc) {
      EXPECT_EQ(lab->derived_metrics, doc->derived_metrics) << s.name;
      EXPECT_EQ(lab->repetition, doc->repetition) << s.name;
    }
  }
  const suites::Preset* host = suites::find_suite("directmap")->find_preset("host");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->metric_roles().derived_from("faultin_rate_per_thread"), "faultin_rate");
  EXPECT_EQ(host->metric_roles().derived_from("faultin_time"), "faultin_rate");
  EXPECT_FALSE(host->metric_roles().is_derived("write_bandwidth"));  // its own measurement, the bound beside
  EXPECT_FALSE(host->metric_roles().is_primary("write_bandwidth"));  // but not what the gate decides on
  EXPECT_TRUE(host->metric_roles().is_primary("faultin_rate"));
}
