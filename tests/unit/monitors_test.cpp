// Monitors (issue 43): the monitor role (metric_roles.h), compare's family
// of monitors apart from the verdict's, the section below the verdict
// (analysis/views/monitors_section.h) and a run's monitors table.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/model/metric_roles.h"
#include "analysis/report/render/renderer.h"
#include "analysis/verdicts/compare.h"
#include "analysis/views/compare_view.h"
#include "analysis/views/comparison_json.h"
#include "analysis/views/monitors_section.h"
#include "analysis/views/run_monitors.h"

using namespace kvmbench;

namespace {

Sample smp(std::string c, std::string m, std::string unit, double v, int it) {
  Sample s;
  s.case_name = std::move(c);
  s.metric = std::move(m);
  s.unit = std::move(unit);
  s.value = v;
  s.iteration = it;
  return s;
}

MetricRoles roles_with_monitors() {
  MetricRoles r;
  r.primary = {"rate"};
  r.monitor = {"vmstat", "kvm"};
  return r;
}

ComparisonSide side(std::string label, const std::vector<Sample>& samples, const MetricRoles& roles) {
  ComparisonSide s;
  s.label = std::move(label);
  s.source = Source::hardware;
  s.series = group_series(samples);
  s.roles = roles;
  s.meta = {{"suite", "directmap"}, {"preset", "host"}, {"metric_roles", roles.to_json()}};
  return s;
}

// Five repetitions of a rate and of monitors; `pgfault_scale` multiplies the
// page faults, `flush_scale` the TLB flushes.
std::vector<Sample> five(double rate_scale, double pgfault_scale, double flush_scale, bool with_monitors = true) {
  const double rate[] = {10.0, 10.2, 9.9, 10.1, 10.05};
  const double pgfault[] = {1000, 1010, 995, 1003, 998};
  const double flush[] = {50, 52, 49, 51, 50};
  const double steady[] = {7, 7.1, 6.9, 7.05, 6.95};
  std::vector<Sample> out;
  for (int i = 0; i < 5; ++i) {
    out.push_back(smp("anon-4k", "rate", "GB/s", rate[i] * rate_scale, i));
    if (!with_monitors) continue;
    out.push_back(smp("repetition", "vmstat.pgfault", "count", pgfault[i] * pgfault_scale, i));
    out.push_back(smp("repetition", "vmstat.nr_tlb_remote_flush", "count", flush[i] * flush_scale, i));
    out.push_back(smp("repetition", "kvm.exits", "count", steady[i], i));
  }
  return out;
}

}  // namespace

TEST(MonitorRole, NamesOfADeclaredSourceAreMonitorsNeverPrimary) {
  MetricRoles r;
  r.monitor = {"vmstat"};
  EXPECT_TRUE(r.is_monitor("vmstat.pgfault"));
  EXPECT_FALSE(r.is_monitor("vmstat"));
  EXPECT_FALSE(r.is_monitor("vmstatx.pgfault"));
  EXPECT_FALSE(r.is_monitor("kvm.exits"));
  // No primary list: every metric not derived is primary, but a monitor never.
  EXPECT_FALSE(r.is_primary("vmstat.pgfault"));
  EXPECT_TRUE(r.is_primary("faultin_rate"));
}

TEST(MonitorRole, RoundTripsThroughMetaJsonAndMerges) {
  const MetricRoles r = roles_with_monitors();
  const MetricRoles back = MetricRoles::from_json(r.to_json());
  EXPECT_EQ(back.monitor, r.monitor);
  MetricRoles other;
  other.monitor = {"perf", "vmstat"};
  EXPECT_EQ(merge_roles(r, other).monitor, (std::vector<std::string>{"vmstat", "kvm", "perf"}));
  // A run without monitors writes no member.
  EXPECT_FALSE(MetricRoles{}.to_json().contains("monitor"));
  EXPECT_THROW(MetricRoles::from_json({{"monitor", "vmstat"}}), std::runtime_error);
  EXPECT_THROW(MetricRoles::from_json({{"monitor", {1}}}), std::runtime_error);
  EXPECT_THROW(MetricRoles::from_json({{"monitor", {""}}}), std::runtime_error);
}

TEST(CompareMonitors, AreNoPartOfTheVerdictsFamilyAndAFamilyOfTheirOwn) {
  const MetricRoles roles = roles_with_monitors();
  const Comparison c = compare(side("base", five(1, 1, 1), roles), side("cand", five(1.001, 1.5, 1.002), roles));
  // The verdict's family: the rate alone, as if there were no monitors.
  ASSERT_EQ(c.metrics.size(), 1u);
  EXPECT_EQ(c.metrics[0].key.metric, "rate");
  EXPECT_EQ(c.tested_count(), 1u);
  const Comparison plain =
      compare(side("base", five(1, 1, 1, false), roles), side("cand", five(1.001, 1.5, 1.002, false), roles));
  EXPECT_EQ(c.metrics[0].p_holm, plain.metrics[0].p_holm);
  EXPECT_EQ(c.metrics[0].verdict, plain.metrics[0].verdict);
  // The monitors: each tested, Holm over the three of them, the same
  // p-values as the existing machinery gives them as a suite's own family.
  ASSERT_EQ(c.monitors.size(), 3u);
  MetricRoles as_primary;
  as_primary.primary = {"vmstat.pgfault", "vmstat.nr_tlb_remote_flush", "kvm.exits"};
  auto only_monitors = [](std::vector<Sample> v) {
    std::erase_if(v, [](const Sample& s) { return s.metric == "rate"; });
    return v;
  };
  const Comparison family = compare(side("base", only_monitors(five(1, 1, 1)), as_primary),
                                    side("cand", only_monitors(five(1.001, 1.5, 1.002)), as_primary));
  ASSERT_EQ(family.metrics.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(c.monitors[i].tested) << c.monitors[i].key.metric;
    EXPECT_EQ(c.monitors[i].key.metric, family.metrics[i].key.metric);
    EXPECT_DOUBLE_EQ(c.monitors[i].p_holm, family.metrics[i].p_holm);
  }
  const std::vector<std::size_t> changed = changed_monitors(c);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(c.monitors[changed[0]].key.metric, "vmstat.pgfault");
  EXPECT_NEAR(c.monitors[changed[0]].change.pct, 50, 1e-9);  // the geometric means' ratio: every value x1.5
}

TEST(CompareMonitors, ASectionBelowTheVerdictInTextAndMailNeverInTheVerdictLines) {
  const MetricRoles roles = roles_with_monitors();
  const Comparison c = compare(side("base", five(1, 1, 1), roles), side("cand", five(1.001, 1.5, 1.002), roles));
  const Document d = comparison_document(c);
  for (Format f : {Format::text, Format::mail}) {
    const std::string out = render(d, f);
    const std::size_t section = out.find("Monitors that changed beyond noise");
    ASSERT_NE(section, std::string::npos) << out;
    // No monitor above the section (the verdict, the change table).
    EXPECT_EQ(out.substr(0, section).find("vmstat."), std::string::npos) << out;
    EXPECT_EQ(out.substr(0, section).find("kvm."), std::string::npos) << out;
    EXPECT_NE(out.find("+50.00%", section), std::string::npos) << out;
    EXPECT_NE(out.find("vmstat.pgfault", section), std::string::npos) << out;
    // Unchanged monitors are not listed as changed.
    EXPECT_EQ(out.find("kvm.exits", section), std::string::npos) << out;
    for (const auto& line : text_lines(out)) EXPECT_LE(line.size(), 80u + 4) << line;  // ± is two bytes
  }
}

// compare --format json carries the monitors apart from the metrics, each
// with its figures and whether it changed beyond noise.
TEST(CompareMonitors, JsonCarriesThemApartFromTheVerdictsMetrics) {
  const MetricRoles roles = roles_with_monitors();
  const Comparison c = compare(side("base", five(1, 1, 1), roles), side("cand", five(1.001, 1.5, 1.002), roles));
  const nlohmann::json j = comparison_to_json(c);
  ASSERT_EQ(j["metrics"].size(), 1u);
  EXPECT_EQ(j["metrics"][0]["metric"], "rate");
  ASSERT_EQ(j["monitors"].size(), 3u);
  int changed = 0;
  for (const auto& m : j["monitors"]) {
    EXPECT_TRUE(m["metric"].get<std::string>().starts_with("vmstat.") || m["metric"].get<std::string>().starts_with("kvm."));
    if (m["changed"].get<bool>()) {
      ++changed;
      EXPECT_EQ(m["metric"], "vmstat.pgfault");
      EXPECT_NEAR(m["change_pct"].get<double>(), 50, 1e-9);
      EXPECT_EQ(m["base"]["n"], 5);
    }
  }
  EXPECT_EQ(changed, 1);
}

TEST(CompareMonitors, OneSidedCountersAreSaidNotCompared) {
  const MetricRoles roles = roles_with_monitors();
  std::vector<Sample> cand = five(1, 1, 1);
  // Moved in cand only, largest mean first (100..104: 102; 5).
  for (int i = 0; i < 5; ++i) {
    cand.push_back(smp("repetition", "vmstat.pgalloc_dma32", "count", 5, i));
    cand.push_back(smp("repetition", "vmstat.thp_fault_alloc", "count", 100 + i, i));
  }
  const Comparison c = compare(side("base", five(1, 1, 1), roles), side("cand", cand, roles));
  const std::string out = render(comparison_document(c), Format::text);
  EXPECT_NE(out.find("Moved only in cand (its mean there; not compared): vmstat.thp_fault_alloc 102,"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("vmstat.pgalloc_dma32 5."), std::string::npos) << out;
  EXPECT_NE(out.find("Monitors: none of the 3 tested changed beyond noise"), std::string::npos) << out;
}

TEST(CompareMonitors, AtMostTwentyRowsLargestChangeFirst) {
  const MetricRoles roles = roles_with_monitors();
  std::vector<Sample> base, cand;
  for (int k = 0; k < 25; ++k)
    for (int i = 0; i < 5; ++i) {
      const double v = 1000 + 10 * i;
      base.push_back(smp("repetition", fmt::format("vmstat.c{:02}", k), "count", v, i));
      cand.push_back(smp("repetition", fmt::format("vmstat.c{:02}", k), "count", v * (2 + k), i));
    }
  const Comparison c = compare(side("base", base, roles), side("cand", cand, roles));
  Document d;
  append_monitors_section(d, c);
  ASSERT_EQ(d.tables.size(), 1u);
  EXPECT_EQ(d.tables[0].rows.size(), kMonitorRowsShown);
  EXPECT_EQ(d.tables[0].rows[0][5].text, "vmstat.c24");
  EXPECT_NE(render(d, Format::text).find("The 20 largest of 25 changed monitors shown."), std::string::npos);
}

TEST(RunMonitors, ATableOfTheRunsMonitorsAndTheSuitesSamplesWithoutThem) {
  const MetricRoles roles = roles_with_monitors();
  const std::vector<Sample> s = five(1, 1, 1);
  EXPECT_EQ(without_monitors(s, roles).size(), 5u);
  EXPECT_EQ(monitor_count(s, roles), 3u);
  const auto t = run_monitors_table(s, roles, "hardware");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->rows.size(), 3u);
  EXPECT_FALSE(run_monitors_table(five(1, 1, 1, false), roles, "hardware").has_value());
}
