// gate --baseline db: which history runs make the baseline, and the
// prediction test against their between-run noise, checked against values
// derived by hand and on the synthetic lab year.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/verdicts/gate.h"
#include "analysis/verdicts/history_baseline.h"
#include "analysis/store/run_record.h"
#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"
#include "tests/support/synthetic_lab.h"

using namespace kvmbench;
namespace fs = std::filesystem;

TEST(HistoryBaseline, ReadsItsQuery) {
  auto q = parse_baseline_spec("db");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->kernel, "");
  EXPECT_EQ(q->last, 10u);
  q = parse_baseline_spec("db:kernel=6.9.0-rc2,last=5");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->kernel, "6.9.0-rc2");
  EXPECT_EQ(q->last, 5u);
  EXPECT_FALSE(parse_baseline_spec("results/runs/x"));
  EXPECT_FALSE(parse_baseline_spec("dbx"));
  EXPECT_THROW(parse_baseline_spec("db:last=1"), std::invalid_argument);  // no spread from one run
  EXPECT_THROW(parse_baseline_spec("db:last=x"), std::invalid_argument);
  EXPECT_THROW(parse_baseline_spec("db:colour=blue"), std::invalid_argument);
  EXPECT_THROW(parse_baseline_spec("db:kernel="), std::invalid_argument);
}

// A tested rate: history run means against one candidate run's repetitions.
static MetricComparison history_metric(std::vector<double> history, std::vector<double> cand) {
  MetricComparison m;
  m.status = MetricStatus::tested;
  m.tested = true;
  m.direction = Direction::higher_is_better;
  m.key.unit = "GB/s";
  m.base_values = std::move(history);
  m.cand_values = std::move(cand);
  m.base = stats::summarize(m.base_values);
  m.cand = stats::summarize(m.cand_values);
  m.base_units.level = UnitLevel::invocation;
  m.cand_units.level = UnitLevel::repetition;
  return m;
}

TEST(HistoryBaseline, PredictionTestByHand) {
  // History run means 10, 11, 12; the candidate, one run of repetitions
  // 8.9, 9.0, 9.1: y = 9.0 (M = 1), a rate. All positive: on the logs.
  //   logs 2.302585, 2.397895, 2.484907: xbar = 2.395129, s = 0.0911923
  //   (deviations -0.092544, 0.002766, 0.089778), N = 3; ln y = 2.197225
  //   d = -0.197904, se = s * sqrt(1/3 + 1) = 0.1052997
  //   t = d / se = -1.879439, df = 2
  // Student t with 2 df: F(t) = 1/2 + t / (2 sqrt(2 + t^2)), so
  //   p = 1 - |t| / sqrt(2 + t^2) = 1 - 1.879439 / 2.352078 = 0.2009468
  // Holm with the second metric (p 1): rank 0 is kept (2p >= 0.05), so both
  // CIs are at 1 - 0.05/2. The quantile in closed form, t(q, 2) = (2q - 1)
  // sqrt(2 / (4q(1 - q))): t(0.9875, 2) = 0.975 sqrt(2 / 0.049375) = 6.205347
  //   half width 6.205347 * 0.1052997 = 0.6534214
  //   change exp(d) - 1 = -17.955174 % (9 against the geometric mean 10.9696)
  //   CI exp(d -+ 0.6534214) - 1 = [-57.315138 %, +57.698846 %].
  Comparison c;
  MetricComparison m = history_metric({10, 11, 12}, {8.9, 9.0, 9.1});
  c.metrics.push_back(m);
  // A second metric, the same but nothing changed (ln y = xbar of the logs:
  // p = 1), for Holm: the first p is multiplied by 2.
  MetricComparison same = m;
  const double gm = std::exp((std::log(10.0) + std::log(11.0) + std::log(12.0)) / 3);
  same.cand_values = {gm - 0.1, gm, gm + 0.1};
  same.cand = stats::summarize(same.cand_values);
  c.metrics.push_back(same);
  retest_against_history(c);
  const auto& r = c.metrics[0];
  EXPECT_NEAR(r.p_welch, 0.2009468, 1e-6);
  EXPECT_NEAR(r.change.pct, -17.955174, 1e-5);
  EXPECT_NEAR(r.change.ci95_low, -57.315138, 1e-5);
  EXPECT_NEAR(r.change.ci95_high, 57.698846, 1e-5);
  EXPECT_NEAR(r.change.level, 0.975, 1e-12);
  EXPECT_TRUE(r.change.geometric);
  EXPECT_NEAR(r.p_holm, 2 * 0.2009468, 2e-6);
  EXPECT_NEAR(c.metrics[1].p_welch, 1, 1e-9);
  EXPECT_EQ(r.verdict, stats::Verdict::no_significant_difference);
  // Against the repetitions alone (Welch, sd 0.1 on the candidate side) the
  // same numbers would be far more significant: the between-run noise is
  // what keeps one slow boot from failing a merge.
}

// A history with a value <= 0 stays on the linear scale, by hand: history
// means -1, 0, 1 (xbar 0 is no base for a percentage: NaN), the candidate 3.
// xbar = 0, s = 1, se = sqrt(4/3) = 1.1547005, t = 3 / 1.1547005 =
// 2.5980762, df 2: p = 1 - 2.5980762 / sqrt(2 + 6.75) = 1 - 0.8783101 =
// 0.1216899 (one metric: no Holm).
TEST(HistoryBaseline, AHistoryWithANonPositiveValueStaysLinear) {
  Comparison c;
  c.metrics.push_back(history_metric({-1, 0, 1}, {2.9, 3.0, 3.1}));
  retest_against_history(c);
  EXPECT_NEAR(c.metrics[0].p_welch, 0.1216899, 1e-6);
  EXPECT_FALSE(c.metrics[0].change.log_scale);
  EXPECT_NE(c.metrics[0].note.find("(sd 1"), std::string::npos) << c.metrics[0].note;
  EXPECT_NE(c.metrics[0].note.find(" GB/s)"), std::string::npos) << c.metrics[0].note;
}

TEST(HistoryBaseline, GatesACandidateAgainstItsMachinesHistory) {
  test_support::TempDir t;
  // 140 days: lab-snp-1's thp rate drops 6 % from day 126 (6.11.0).
  const auto year = test_support::write_synthetic_year(t.path / "runs", fs::path(KVMBENCH_TEST_DATA) / "hosts", 140);
  db::ResultsDb rdb(db::open_sqlite((t.path / "lab.db").string(), db::Access::create));
  for (const auto& d : year.runs) rdb.import_run(db::read_run_record(d));
  const fs::path cand_dir = year.runs.at(139);  // lab-snp-1, day 139 (6.11.0): after the step
  ASSERT_NE(cand_dir.string().find("lab-snp-1"), std::string::npos);
  const ComparisonSide cand = side_from_run(load_run(cand_dir, SampleProvenance::drop), cand_dir.string());
  const std::vector<std::string> names = {cand_dir.filename().string()};

  // The newest 10 before it (days 129..138): the same level.
  HistoryBaseline newest = baseline_from_history(rdb, cand, names, *parse_baseline_spec("db"), 3);
  ASSERT_EQ(newest.runs.size(), 10u);
  for (const auto& r : newest.runs) EXPECT_NE(r.dir_name, cand_dir.filename().string()) << "the candidate itself";
  EXPECT_EQ(newest.runs.front().start_time.substr(0, 10), "2026-05-19");  // day 138
  GateOptions go;
  go.max_regression_pct = 1;
  GateResult g = evaluate_gate(newest.side, cand, go, retest_against_history);
  EXPECT_EQ(g.status, GateStatus::pass) << g.problems.size();
  // Three backings' faultin_rate gated; fault_ns is derived.
  EXPECT_EQ(g.judged(), 3u);

  // Against 6.10.0's runs (days 84..97), before the step: thp fails.
  HistoryBaseline before = baseline_from_history(rdb, cand, names, *parse_baseline_spec("db:kernel=6.10.0"), 3);
  ASSERT_EQ(before.runs.size(), 10u);
  for (const auto& r : before.runs) EXPECT_EQ(r.kernel_release, "6.10.0");
  g = evaluate_gate(before.side, cand, go, retest_against_history);
  ASSERT_EQ(g.status, GateStatus::fail);
  ASSERT_EQ(g.failures(), 1u);
  for (const auto& gm : g.metrics) {
    const auto& m = g.comparison.metrics[gm.index];
    if (gm.regressed()) {
      EXPECT_EQ(m.key.case_name, "thp");
      EXPECT_NEAR(m.change.pct, -6, 1.5);
      EXPECT_NE(m.note.find("between-run noise of 10 history runs"), std::string::npos);
    }
  }

  // Nothing to take.
  try {
    baseline_from_history(rdb, cand, names, *parse_baseline_spec("db:kernel=5.4.0"), 3);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("0 complete hardware run(s) of directmap preset 'host'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("under kernel 5.4.0"), std::string::npos);
  }
}
