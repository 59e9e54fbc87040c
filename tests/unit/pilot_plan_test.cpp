// `kvmbench plan`'s computation (analysis/verdicts/pilot_plan.h): a pilot's
// variance components by hand, the plan they give, and the pilots it
// refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/verdicts/pilot_plan.h"

using namespace kvmbench;

namespace {

nlohmann::json plain_host() {
  std::ifstream in(std::string(KVMBENCH_TEST_DATA) + "/hosts/plain.json");
  return nlohmann::json::parse(in);
}

// One boot: a run of `suite` whose repetitions measured `logs` (the values
// are exp(log)), 2 s a repetition, the process 10 s in all.
Run boot(const std::string& name, const std::vector<double>& logs, const std::string& suite = "directmap") {
  Run r;
  r.dir = "/pilot/" + name;
  r.meta = {{"suite", suite},
            {"source", "hardware"},
            {"status", "complete"},
            {"host", plain_host()},
            {"metric_roles", {{"primary", {"rate"}}}},
            {"repetition_seconds", std::vector<double>(logs.size(), 2.0)},
            {"invocation_seconds", 10.0}};
  for (std::size_t i = 0; i < logs.size(); ++i) {
    Sample s;
    s.case_name = "anon-4k";
    s.metric = "rate";
    s.unit = "GB/s";
    s.value = std::exp(logs[i]);
    s.iteration = static_cast<int>(i);
    r.samples.push_back(s);
  }
  return r;
}

}  // namespace

TEST(PilotPlan, ComponentsAndPlanByHand) {
  // Logs 0, 0.02 in boot 1 and 0.04, 0.06 in boot 2, one value a
  // repetition (nothing within a repetition):
  //   between repetitions  each boot's sample variance of its two logs,
  //                        (0.01^2 + 0.01^2) / 1 = 0.0002, pooled: 0.0002;
  //   between boots        the boot means 0.01 and 0.05 have variance
  //                        0.02^2 * 2 / 1 = 0.0008, less 0.0002 / 2
  //                        repetitions: 0.0007.
  // Costs: a repetition 2 s; a boot 10 - 2 * 2 = 6 s besides, + 30 s given.
  PilotPlanOptions opt;
  opt.extra_boot_s = 30;
  const PilotPlan p = plan_from_pilot({boot("b1", {0, 0.02}), boot("b2", {0.04, 0.06})}, opt);
  EXPECT_EQ(p.suite, "directmap");
  EXPECT_EQ(p.boots, 2u);
  EXPECT_DOUBLE_EQ(p.repetition_s, 2);
  EXPECT_DOUBLE_EQ(p.boot_s, 36);
  ASSERT_EQ(p.metrics.size(), 1u);
  const MetricPlan& m = p.metrics[0];
  EXPECT_TRUE(m.log_scale);
  EXPECT_NEAR(m.components.within_repetition, 0, 1e-15);
  EXPECT_NEAR(m.components.between_repetitions, 0.0002, 1e-12);
  EXPECT_NEAR(m.components.between_boots, 0.0007, 1e-12);
  // 5 %: a shift of ln(1.05) = 0.04879 in the logs.
  EXPECT_NEAR(m.target_shift, std::log(1.05), 1e-15);
  ASSERT_TRUE(m.plan);
  // The same as the planner's own answer for these components.
  stats::PlanRequest r;
  r.components = m.components;
  r.target_shift = std::log(1.05);
  r.power = 0.95;
  r.one_sided_error = 0.025;
  r.boot_s = 36;
  r.repetition_s = 2;
  const auto direct = stats::cheapest_plan(r);
  ASSERT_TRUE(direct);
  EXPECT_EQ(m.plan->boots, direct->boots);
  EXPECT_EQ(m.plan->repetitions, direct->repetitions);
  // With a boot costing 36 s and a repetition 2 s, repetitions are cheap
  // but only cut the 0.0002 part: at r = 1 the normal approximation needs
  // 2 (1.96 + 1.645)^2 0.0009 / 0.04879^2 = 9.8 boots a side, at r
  // large 2 * 12.996 * 0.0007 / 0.002381 = 7.6; Welch's t needs a few more.
  EXPECT_GE(m.plan->boots, 8u);
  EXPECT_LE(m.plan->boots, 13u);
  EXPECT_GT(m.plan->repetitions, 1u);
  EXPECT_NEAR(m.plan->seconds, 2.0 * m.plan->boots * (36 + 2.0 * m.plan->repetitions), 1e-9);
  // One metric: the experiment's plan is its plan, its MDE at most 5 %.
  ASSERT_TRUE(p.overall);
  EXPECT_EQ(p.overall->boots, m.plan->boots);
  EXPECT_EQ(p.overall->repetitions, m.plan->repetitions);
  EXPECT_LE(p.overall->detectable_shift, 5.0 + 1e-9);
}

TEST(PilotPlan, RefusesWhatIsNoPilot) {
  const PilotPlanOptions opt;
  auto message = [&](const std::vector<kvmbench::Run>& runs, const PilotPlanOptions& o) {
    try {
      plan_from_pilot(runs, o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message({boot("b1", {0, 0.1})}, opt).find("at least 2"), std::string::npos);
  EXPECT_NE(message({boot("b1", {0, 0.1}), boot("b2", {0, 0.1}, "asid")}, opt).find("suite 'asid'"),
            std::string::npos);
  kvmbench::Run other = boot("b2", {0, 0.1});
  other.meta["host"]["cpu"]["model_name"] = "another CPU";
  EXPECT_NE(message({boot("b1", {0, 0.1}), other}, opt).find("one machine"), std::string::npos);
  kvmbench::Run emulated = boot("b2", {0, 0.1});
  emulated.meta["source"] = "emulated";
  EXPECT_NE(message({boot("b1", {0, 0.1}), emulated}, opt).find("emulated"), std::string::npos);
  kvmbench::Run no_seconds = boot("b2", {0, 0.1});
  no_seconds.meta.erase("repetition_seconds");
  EXPECT_NE(message({boot("b1", {0, 0.1}), no_seconds}, opt).find("seconds"), std::string::npos);
  for (const double mde : {0.0, -5.0, std::nan("")}) {
    PilotPlanOptions bad;
    bad.mde_pct = mde;
    EXPECT_NE(message({boot("b1", {0, 0.1}), boot("b2", {0, 0.1})}, bad).find("--mde"), std::string::npos) << mde;
  }
}
