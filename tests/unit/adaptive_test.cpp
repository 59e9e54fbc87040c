#include "analysis/stats/adaptive.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

using namespace kvmbench::adaptive;

// One look (min_runs = max_runs) spends the whole 2.5 % a side there: the
// repeated CI is the plain t interval.
TEST(Adaptive, WarmupIsDiscardedAndConvergenceStops) {
  StoppingRule rule;
  rule.target_ci_pct = 1.0;
  rule.warmup_runs = 1;
  rule.min_runs = 3;
  rule.max_runs = 3;
  AdaptiveRepetitions rep(rule);
  EXPECT_TRUE(rep.next_is_warmup());
  rep.add_run({{"a", 500.0}}, 1.0);  // warm-up: far off, must not count
  EXPECT_FALSE(rep.next_is_warmup());
  EXPECT_TRUE(rep.values("a").empty());
  rep.add_run({{"a", 100.0}}, 1.0);
  rep.add_run({{"a", 100.2}}, 1.0);
  EXPECT_EQ(rep.status().decision, Decision::run_again);  // 2 < min_runs
  rep.add_run({{"a", 99.9}}, 1.0);
  auto st = rep.status();
  // mean 100.033, sd 0.1528, t(0.975,2)=4.3027 -> half-width 0.3795 = 0.379%
  EXPECT_EQ(st.decision, Decision::stop_converged) << st.reason;
  ASSERT_EQ(st.metrics.size(), 1u);
  EXPECT_NEAR(st.metrics[0].ci_half_width_pct, 4.302652729911275 * 0.15275252316519466 / std::sqrt(3.0) / 100.0333333333 * 100, 1e-9);
  EXPECT_EQ(st.measured_runs, 3u);
  EXPECT_EQ(st.warmup_runs, 1u);
  EXPECT_NE(st.reason.find("converged after 3 runs"), std::string::npos) << st.reason;
}

// Two looks, at 3 and 4 runs: the first spends O'Brien-Fleming-type
// alpha(3/4) of the 2.5 % a side, 2 - 2 Phi(z(1 - 0.0125) / sqrt(0.75)) =
// 2 - 2 Phi(2.2414027 / 0.8660254) = 0.0096493250; its t at 2 df from the
// closed form t = (2p - 1) / sqrt(2 p (1 - p)), p = 1 - 0.0096493250:
// 7.0937978. The same three runs as above: half-width 7.0937978 x 0.1527525
// / sqrt(3) / 100.0333 = 0.6254 % (the plain t interval's 0.3793 %), so a
// target of 0.5 % stops the plain rule at 3 runs and not this one.
TEST(Adaptive, TheFirstOfTwoLooksSpendsWhatOBrienFlemingAllows) {
  StoppingRule rule;
  rule.target_ci_pct = 0.5;
  rule.warmup_runs = 0;
  rule.min_runs = 3;
  rule.max_runs = 4;
  AdaptiveRepetitions rep(rule);
  EXPECT_NEAR(rep.repeated_ci_factor(3), 7.093797849878479, 1e-6);
  EXPECT_TRUE(std::isinf(rep.repeated_ci_factor(2))) << "before min_runs: no look";
  for (double v : {100.0, 100.2, 99.9}) rep.add_run({{"a", v}}, 1.0);
  const auto st = rep.status();
  EXPECT_EQ(st.decision, Decision::run_again) << st.reason;
  ASSERT_EQ(st.metrics.size(), 1u);
  EXPECT_NEAR(st.metrics[0].ci_half_width_pct, 0.6254056968258265, 1e-6);
  // The last look spends the rest: at least the fixed t(3) quantile 3.1824.
  EXPECT_GT(rep.repeated_ci_factor(4), 3.182446305284263);
}

// A budget of 1000 runs (a fixed -r 1000 builds this rule for its
// warnings): kMostLooks looks spread evenly, the last at max_runs; no look
// after a run between them. (Every run a look, the boundaries' recursive
// integration failed to bracket its root: `run -r 1000` exited 70.)
TEST(Adaptive, ALargeBudgetLooksFortyTimes) {
  StoppingRule rule;
  rule.max_runs = 1000;
  const AdaptiveRepetitions rep(rule);
  // The early looks spend too little to stop (their factor is infinite
  // in double), so the finite ones are at most the looks.
  std::size_t finite = 0;
  for (std::size_t n = 1; n <= 1000; ++n) finite += std::isfinite(rep.repeated_ci_factor(n));
  EXPECT_LE(finite, AdaptiveRepetitions::kMostLooks);
  EXPECT_GE(finite, AdaptiveRepetitions::kMostLooks / 2);
  EXPECT_TRUE(std::isinf(rep.repeated_ci_factor(4))) << "runs 3, 28, 54, ...: no look after run 4";
  const double last = rep.repeated_ci_factor(1000);
  // Above the fixed t(999) quantile 1.9623, below the early looks'.
  EXPECT_GT(last, 1.9623);
  EXPECT_LT(last, 2.3);
}

TEST(Adaptive, EveryPrimaryMetricMustConverge) {
  StoppingRule rule;
  rule.target_ci_pct = 1.0;
  rule.warmup_runs = 0;
  rule.max_runs = 5;
  AdaptiveRepetitions rep(rule);
  double noisy[] = {100, 130, 80, 120, 90};
  for (int i = 0; i < 5; ++i) {
    rep.add_run({{"steady", 100.0 + 0.01 * i}, {"noisy", noisy[i]}}, 0.1);
    if (i < 4) { EXPECT_EQ(rep.status().decision, Decision::run_again); }
  }
  auto st = rep.status();
  EXPECT_EQ(st.decision, Decision::stop_max_runs);
  EXPECT_NE(st.reason.find("noisy"), std::string::npos) << st.reason;
  auto w = rep.stability_warnings();
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w[0].find("noisy: high variation"), std::string::npos) << w[0];
}

TEST(Adaptive, MaxTimeStopsBeforeOverrunning) {
  StoppingRule rule;
  rule.target_ci_pct = 0.001;
  rule.warmup_runs = 0;
  rule.max_time_s = 10;
  AdaptiveRepetitions rep(rule);
  rep.add_run({{"a", 1.0}}, 4.0);
  EXPECT_EQ(rep.status().decision, Decision::run_again);
  rep.add_run({{"a", 2.0}}, 4.0);  // 8 s spent, another 4 s would pass 10 s
  auto st = rep.status();
  EXPECT_EQ(st.decision, Decision::stop_max_time);
  EXPECT_NE(st.reason.find("time limit of 10 s"), std::string::npos) << st.reason;
}

TEST(Adaptive, OutliersAndSlowFirstRun) {
  StoppingRule rule;
  rule.warmup_runs = 0;
  AdaptiveRepetitions rep(rule);
  double v[] = {10, 10.1, 9.9, 10.05, 9.95, 10.02, 30};
  double t[] = {5.0, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98};
  for (int i = 0; i < 7; ++i) rep.add_run({{"x", v[i]}}, t[i]);
  auto w = rep.stability_warnings();
  bool outlier = false, slow = false;
  for (auto& s : w) {
    outlier |= s.find("1 of 7 runs are outliers") != std::string::npos && s.find("run 7 (30)") != std::string::npos;
    slow |= s.find("first measured run took 5 s") != std::string::npos;
  }
  EXPECT_TRUE(outlier) << testing::PrintToString(w);
  EXPECT_TRUE(slow) << testing::PrintToString(w);
}

TEST(Adaptive, ModifiedZ) {
  // median 3, |dev| = 2,1,0,1,97 -> MAD 1 -> z = 0.6745 * dev
  auto z = modified_z_scores({1, 2, 3, 4, 100});
  EXPECT_NEAR(z[0], -2 * 0.6745, 1e-12);
  EXPECT_NEAR(z[4], 97 * 0.6745, 1e-12);
  auto flat = modified_z_scores({5, 5, 5, 5});
  for (double x : flat) EXPECT_EQ(x, 0);
}

TEST(Adaptive, HostNoiseWarnings) {
  nlohmann::json meta = {{"host",
                          {{"cpufreq", {{"governor", "powersave"}, {"boost", "1"}}},
                           {"thp", {{"enabled", "always [madvise] never"}, {"defrag", "[always] defer madvise never"}}},
                           {"kernel", {{"randomize_va_space", 2}}}}}};
  auto w = host_noise_warnings(meta);
  ASSERT_EQ(w.size(), 4u) << testing::PrintToString(w);
  EXPECT_NE(w[0].find("governor is powersave"), std::string::npos);
  EXPECT_NE(w[1].find("boost/turbo is on"), std::string::npos);
  EXPECT_NE(w[2].find("THP defrag"), std::string::npos);
  EXPECT_NE(w[3].find("ASLR is on (randomize_va_space = 2)"), std::string::npos);

  nlohmann::json quiet = {{"host",
                           {{"cpufreq", {{"governor", "performance"}, {"boost", "0"}}},
                            {"thp", {{"defrag", "always defer defer+madvise [madvise] never"}}},
                            {"randomize_va_space", "0"}}}};
  EXPECT_TRUE(host_noise_warnings(quiet).empty()) << testing::PrintToString(host_noise_warnings(quiet));

  // The layout hostlib's metadata has: governors by name, boost as an
  // object, nothing at all on a VM without cpufreq.
  nlohmann::json hostlib_layout = {
      {"host", {{"cpufreq", {{"governors", {{"powersave", "0-3"}, {"performance", "4-7"}}},
                             {"boost", {{"enabled", true}, {"from", "cpufreq/boost"}}}}}}}};
  auto w2 = host_noise_warnings(hostlib_layout);
  ASSERT_EQ(w2.size(), 2u) << testing::PrintToString(w2);
  EXPECT_NE(w2[0].find("governor is powersave"), std::string::npos) << w2[0];
  nlohmann::json vm = {{"host", {{"cpufreq", {{"governors", nlohmann::json::object()}, {"boost", nullptr}}}}}};
  EXPECT_TRUE(host_noise_warnings(vm).empty()) << testing::PrintToString(host_noise_warnings(vm));

  // A guest that reports free pages to its hypervisor; null: it does not.
  auto reporting = host_noise_warnings({{"host", {{"free_page_reporting_order", 9}}}});
  ASSERT_EQ(reporting.size(), 1u) << testing::PrintToString(reporting);
  EXPECT_NE(reporting[0].find("free page reporting is on (page_reporting_order = 9)"), std::string::npos);
  EXPECT_TRUE(host_noise_warnings({{"host", {{"free_page_reporting_order", nullptr}}}}).empty());
  // Order 10 (MAX_PAGE_ORDER on x86) still reports 4 MiB blocks; 11 (what
  // `run --steady` sets) reports nothing.
  EXPECT_EQ(host_noise_warnings({{"host", {{"free_page_reporting_order", 10}}}}).size(), 1u);
  EXPECT_TRUE(host_noise_warnings({{"host", {{"free_page_reporting_order", 11}}}}).empty());
}

// The findings carry their kind and the runs they rest on, so that `run`
// can count them per kind and leave out variation from too few runs; the
// texts are the stability_warnings() ones, in the same order.
TEST(Adaptive, StabilityFindingsNameTheirKindAndRuns) {
  StoppingRule rule;
  rule.warmup_runs = 0;
  AdaptiveRepetitions rep(rule);
  double v[] = {10, 10.1, 9.9, 10.05, 9.95, 10.02, 30};
  double t[] = {5.0, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98};
  for (int i = 0; i < 7; ++i) rep.add_run({{"x", v[i]}}, t[i]);
  auto findings = rep.stability_findings();
  auto texts = rep.stability_warnings();
  ASSERT_EQ(findings.size(), texts.size());
  std::set<std::string> kinds;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    EXPECT_EQ(findings[i].text, texts[i]);
    EXPECT_EQ(findings[i].runs, 7u) << findings[i].text;
    kinds.insert(findings[i].kind);
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"high variation", "outliers", "cold first run"}));
}
