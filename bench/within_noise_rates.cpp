// The error rates and power of "is it within noise?" (issue 41), measured
// on simulated A/B experiments across boots, not assumed. Run by hand, not
// by ctest (about five minutes of one core at the default; most of it is
// the decision's exact Welch power, computed for every experiment):
//
//   build/bench/kvmbench_within_noise_rates [TRIALS] [ab-auto|analyses|r-auto]
//                                   (default 5000; a section's name: it alone)
//
// The experiment is `kvmbench ab`'s: boots in ABBA order (ab_experiment.h),
// the boot the unit, N a side. Each boot's value is log-normal: 100 x
// exp(shift + e), e ~ N(0, 0.1^2), a spread between boots of about 10 %
// (docs/measurements.md: measured 9.7 to 11.6 % between invocations on this host);
// the candidate's shift is ln(1 + R) for a planted regression of R (a
// time, so higher is worse), 0 for A/A. Every rate comes with its Wilson
// 95 % interval.
//
//  1. fixed designs    N = 3, 5, 10 a side through the comparison's own
//                      pipeline (family_verdicts.h, then regression_decision.h)
//                      with M = 0 (today's gate) and M = 10 %: how often
//                      each verdict comes, A/A and planted 10, 20, 50 %.
//  2. sequential       units added until decided (group_sequential.h):
//                      looks at 3..10 a side, O'Brien-Fleming-type and
//                      Pocock-type spending, shown at one-sided 2.5 %,
//                      excluded at 5 %. Its false alarms (A/A at M = 0:
//                      REGRESSION, against 2.5 %), its false passes (a
//                      regression of exactly M = 10 %: PASS, against 5 %),
//                      power and mean units beside the fixed designs.
// 2b. ab -n auto      the rule `ab -n auto` runs (sequential_decision.h):
//                      looks after each pair of boots from 2 a side to
//                      K = 6 and 10, M = 10 and 20 %: false alarms, false
//                      PASS at the margin, power and mean boots a side
//                      beside the fixed N = 3, 5 and K.
//  3. stated MDE       a design's 95 % detectable regression (the
//                      decision's, from the spread) planted: found at
//                      least 95 % of the time? And the noncentral t's at
//                      the design's df, which Welch's test falls short of.
//  4. analyses         Welch on the logs, the pooled-variance t and the
//                      paired t of the ABBA order's pairs (AB, BA): their
//                      false alarms and power at the nominal one-sided
//                      2.5 %, and at the same false-alarm rate (each at its
//                      own A/A 2.5 % quantile), under boot noise alone, a
//                      random walk of the host between boots, a linear
//                      drift, and a candidate twice as noisy as the base.
//  5. exclusion level  two metrics that both regress by exactly M, both
//                      significantly: the family-wise rate of false
//                      "excluded" claims at 1 - alpha / k (regression_
//                      decision.h) and at Holm's levels (family_verdicts.h).
//  6. run -r auto      adaptive.h's stopping rule fed simulated runs: how
//                      often the repeated 95 % CI it stops with holds the
//                      mean, the runs spent, and the plain t CI's coverage
//                      at the same stop.
//
// Exit 0 when every bound marked [check] holds, 1 when one does not.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/stats/adaptive.h"
#include "analysis/stats/group_sequential.h"
#include "analysis/stats/statistics.h"
#include "analysis/stats/t_power.h"
#include "analysis/verdicts/ab_experiment.h"
#include "analysis/verdicts/compare.h"
#include "analysis/verdicts/family_verdicts.h"
#include "analysis/verdicts/regression_decision.h"
#include "analysis/verdicts/sequential_decision.h"
#include "tests/support/noise.h"
#include "tests/support/wilson_interval.h"

namespace {

using namespace kvmbench;
using test_support::wilson;

constexpr double kBootSd = 0.1;
constexpr double kAlpha = 0.05;

// How the host moves between boots, besides each boot's own noise.
struct HostNoise {
  double walk_sd = 0;      // a random walk: each boot moves the host's level by N(0, walk^2)
  double drift = 0;        // a linear drift of the log level per boot
  double cand_spread = 1;  // the candidate's boot noise over the base's
  const char* name = "boot noise alone";
};

// One experiment's unit values in boot order, each with its side.
struct Boots {
  std::vector<double> base, cand;      // in order of their boots
  std::vector<double> pair_log_diffs;  // ln cand - ln base of each AB / BA pair
};

Boots simulate(test_support::Noise& z, int n, double regression_pct, const HostNoise& host, double sd = kBootSd) {
  static const std::vector<ab::Side> order = ab::invocation_order(40, "abba", 0);
  Boots b;
  double level = 0, pair_base = 0, pair_cand = 0;
  for (int i = 0; i < 2 * n; ++i) {
    level += host.walk_sd * z() + host.drift;
    const bool cand = order[static_cast<std::size_t>(i)] == ab::Side::cand;
    const double noise = sd * (cand ? host.cand_spread : 1) * z();
    const double log_value = level + noise + (cand ? std::log1p(regression_pct / 100) : 0);
    (cand ? b.cand : b.base).push_back(100 * std::exp(log_value));
    (cand ? pair_cand : pair_base) = log_value;
    if (i % 2 == 1) b.pair_log_diffs.push_back(pair_cand - pair_base);
  }
  return b;
}

// The first n units a side (the ABBA order's first 2n boots hold n of each).
Boots first(const Boots& b, std::size_t n) {
  Boots f;
  f.base.assign(b.base.begin(), b.base.begin() + static_cast<std::ptrdiff_t>(n));
  f.cand.assign(b.cand.begin(), b.cand.begin() + static_cast<std::ptrdiff_t>(n));
  return f;
}

MetricComparison tested(const std::string& key, const std::vector<double>& base, const std::vector<double>& cand) {
  MetricComparison m;
  m.key.metric = key;
  m.key.unit = "ms";
  m.direction = Direction::lower_is_better;
  m.status = MetricStatus::tested;
  m.tested = true;
  m.base = stats::summarize(base);
  m.cand = stats::summarize(cand);
  m.base_values = base;
  m.cand_values = cand;
  return m;
}

// The comparison's pipeline on a family of metrics: Holm and the CIs at
// Holm's levels (family_verdicts.h), then the evidence the decision takes.
std::vector<MetricEvidence> judged(const std::vector<Boots>& metrics, Comparison* out = nullptr) {
  Comparison c;
  c.alpha = kAlpha;
  for (std::size_t i = 0; i < metrics.size(); ++i)
    c.metrics.push_back(tested("m" + std::to_string(i), metrics[i].base, metrics[i].cand));
  judge_tested_metrics(c, TestScale::log_where_positive);
  std::vector<MetricEvidence> ev;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const MetricComparison& m = c.metrics[i];
    ev.push_back({m.key.name(), change_model(metrics[i].base, metrics[i].cand, m.direction), m.p_holm, m.change});
  }
  if (out) *out = std::move(c);
  return ev;
}

FamilyVerdict decide(const Boots& b, std::optional<double> margin) {
  DecisionOptions o;
  o.alpha = kAlpha;
  o.max_regression_pct = margin;
  return decide_regressions(judged({b}), o).verdict;
}

std::string rate(std::size_t k, std::size_t n) {
  return fmt::format("{:5.1f} % {}", 100.0 * k / n, wilson(k, n).text());
}

bool g_ok = true;
// A rate that must not exceed `bound`: only when its whole interval is above.
std::string at_most(std::size_t k, std::size_t n, double bound) {
  const bool ok = wilson(k, n).lo <= bound;
  g_ok &= ok;
  return fmt::format("{}  [check <= {:g} %: {}]", rate(k, n), 100 * bound, ok ? "ok" : "FAILED");
}
std::string at_least(std::size_t k, std::size_t n, double bound) {
  const bool ok = wilson(k, n).hi >= bound;
  g_ok &= ok;
  return fmt::format("{}  [check >= {:g} %: {}]", rate(k, n), 100 * bound, ok ? "ok" : "FAILED");
}

struct Counts {
  std::size_t regression = 0, pass = 0, inconclusive = 0, units = 0, trials = 0;
  void add(FamilyVerdict v, std::size_t n) {
    ++trials;
    units += n;
    (v == FamilyVerdict::regression ? regression : v == FamilyVerdict::pass ? pass : inconclusive) += 1;
  }
  double mean_units() const { return static_cast<double>(units) / static_cast<double>(trials); }
};

void fixed_designs(std::size_t trials) {
  fmt::print("1. fixed designs, {} experiments a cell (REGRESSION / PASS / INCONCLUSIVE)\n", trials);
  for (double margin : {0.0, 10.0}) {
    fmt::print(" M = {} %{}\n", margin, margin == 0 ? " (today's gate: REGRESSION or PASS)" : "");
    for (int n : {3, 5, 10})
      for (double planted : {0.0, 10.0, 20.0, 50.0}) {
        test_support::Noise z(1000 * n + static_cast<std::uint64_t>(planted) + (margin > 0 ? 7 : 0));
        Counts c;
        for (std::size_t t = 0; t < trials; ++t)
          c.add(decide(simulate(z, n, planted, {}), margin > 0 ? std::optional(margin) : std::nullopt), n);
        std::string first =
            planted == 0 && margin == 0 ? at_most(c.regression, trials, kAlpha / 2) : rate(c.regression, trials);
        fmt::print("  N = {:>2}, {:>2} % planted: {}", n, planted, first);
        if (margin > 0)
          fmt::print(" / {:5.1f} % / {:5.1f} %", 100.0 * c.pass / trials, 100.0 * c.inconclusive / trials);
        if (margin > 0 && planted == margin)
          fmt::print("\n          false PASS at the margin: {}", at_most(c.pass, trials, kAlpha));
        fmt::print("\n");
      }
  }
}

// Units added until decided: the outcome and the units a side it took.
struct SequentialOutcome {
  FamilyVerdict verdict;
  std::size_t units;
};

SequentialOutcome run_sequential(const Boots& all, const stats::SequentialBoundaries& b, double margin) {
  for (std::size_t k = 0; k < b.looks.size(); ++k) {
    const Boots now = first(all, b.looks[k]);
    const MarginTests t = margin_tests(change_model(now.base, now.cand, Direction::lower_is_better), margin);
    switch (stats::sequential_finding(b, k, t.p_shown, t.p_excluded)) {
      case stats::SequentialFinding::regression_shown: return {FamilyVerdict::regression, b.looks[k]};
      case stats::SequentialFinding::regression_excluded: return {FamilyVerdict::pass, b.looks[k]};
      case stats::SequentialFinding::undecided: break;
    }
  }
  return {FamilyVerdict::inconclusive, b.looks.back()};
}

void sequential(std::size_t trials, std::size_t first_look) {
  fmt::print("\n2. sequential: looks at {}..10 a side, {} experiments a cell\n", first_look, trials);
  for (auto spending : {stats::SpendingFunction::obrien_fleming, stats::SpendingFunction::pocock}) {
    stats::SequentialDesign d;
    for (std::size_t n = first_look; n <= 10; ++n) d.looks.push_back(n);
    d.shown_error = kAlpha / 2;
    d.excluded_error = kAlpha;
    d.shown_spending = d.excluded_spending = spending;
    const stats::SequentialBoundaries b = stats::sequential_boundaries(d);
    fmt::print(" {} spending (REGRESSION / PASS / INCONCLUSIVE, mean units a side)\n", to_string(spending));
    for (double margin : {0.0, 10.0})
      for (double planted : {0.0, 10.0, 20.0, 50.0}) {
        test_support::Noise z(77 + static_cast<std::uint64_t>(planted) + (margin > 0 ? 1000 : 0) +
                              (spending == stats::SpendingFunction::pocock ? 50000 : 0));
        Counts c;
        for (std::size_t t = 0; t < trials; ++t) {
          const SequentialOutcome o = run_sequential(simulate(z, 10, planted, {}), b, margin);
          c.add(o.verdict, o.units);
        }
        fmt::print("  M = {:>2} %, {:>2} % planted: {} / {:5.1f} % / {:5.1f} %, {:4.1f} units\n", margin, planted,
                   rate(c.regression, trials), 100.0 * c.pass / trials, 100.0 * c.inconclusive / trials,
                   c.mean_units());
        if (margin == 0 && planted == 0)
          fmt::print("          false alarms (REGRESSION, A/A): {}\n", at_most(c.regression, trials, d.shown_error));
        if (margin > 0 && planted == margin)
          fmt::print("          false PASS at the margin: {}\n", at_most(c.pass, trials, d.excluded_error));
      }
  }
}

// `ab -n auto` as built: sequential_decision.h's looks after each pair of
// the ABBA order from 2 boots a side to the budget `most`, on the evidence
// the gate gives ab.
SequentialOutcome run_ab_auto(const Boots& all, std::size_t most, double margin) {
  std::vector<SequentialLook> looks;
  for (std::size_t n = 2; n <= most; ++n) {
    const SequentialPlan plan{.most_units = static_cast<double>(most), .alpha = kAlpha, .margin_pct = margin};
    looks.push_back(sequential_look(plan, looks, static_cast<double>(n), n == most, judged({first(all, n)})));
    if (looks.back().ends()) return {looks.back().verdict, n};
  }
  return {FamilyVerdict::inconclusive, most};
}

void ab_auto(std::size_t trials) {
  fmt::print(
      "\n2b. `ab -n auto --max-boots K --max-regression M` as built (sequential_decision.h), {} experiments a\n"
      "    cell, beside fixed designs of N = 3, 5 and K at the same M (REGRESSION / PASS / INCONCLUSIVE, mean\n"
      "    boots a side)\n",
      trials);
  for (std::size_t most : {6u, 10u})
    for (double margin : {10.0, 20.0})
      for (double planted : {0.0, 10.0, 20.0, 30.0, 50.0}) {
        test_support::Noise z(9000 + 100 * most + static_cast<std::uint64_t>(margin) * 7 +
                              static_cast<std::uint64_t>(planted));
        Counts seq, fixed3, fixed5, fixed_k;
        for (std::size_t t = 0; t < trials; ++t) {
          const Boots all = simulate(z, static_cast<int>(most), planted, {});
          const SequentialOutcome o = run_ab_auto(all, most, margin);
          seq.add(o.verdict, o.units);
          fixed3.add(decide(first(all, 3), margin), 3);
          fixed5.add(decide(first(all, 5), margin), 5);
          fixed_k.add(decide(all, margin), most);
        }
        auto cell = [&](const Counts& c) {
          return fmt::format("{:5.1f} / {:5.1f} / {:5.1f} %, {:4.1f}", 100.0 * c.regression / trials,
                             100.0 * c.pass / trials, 100.0 * c.inconclusive / trials, c.mean_units());
        };
        fmt::print("  K = {:>2}, M = {:>2} %, {:>2} % planted: auto {} | N = 3 {} | N = 5 {} | N = {} {}\n", most,
                   margin, planted, cell(seq), cell(fixed3), cell(fixed5), most, cell(fixed_k));
        if (planted == 0)
          fmt::print("          false alarms (REGRESSION, A/A): {}\n", at_most(seq.regression, trials, kAlpha / 2));
        if (planted == margin)
          fmt::print("          false PASS at the margin: {}\n", at_most(seq.pass, trials, kAlpha));
      }
}

// How often the decision (M = 0) finds a planted regression.
std::size_t found(test_support::Noise& z, std::size_t trials, int n, double planted_pct) {
  std::size_t k = 0;
  for (std::size_t t = 0; t < trials; ++t)
    k += decide(simulate(z, n, planted_pct, {}), std::nullopt) == FamilyVerdict::regression;
  return k;
}

void stated_mde(std::size_t trials) {
  fmt::print(
      "\n3. the stated 95 % MDE planted (M = 0, one metric, the spread known);\n"
      "   beside it the noncentral t's at df 2(N - 1), which Welch's test does not reach\n");
  for (int n : {3, 5, 10}) {
    ChangeModel design;
    design.direction = Direction::lower_is_better;
    design.base = design.cand = stats::summary_from_moments(0, kBootSd, static_cast<std::size_t>(n));
    const double mde = detectable_regression(design, kAlpha / 2).power_95_pct;
    const double se = kBootSd * std::sqrt(2.0 / n);
    const double noncentral = std::expm1(stats::ncp_for_power(0.95, 2.0 * (n - 1), kAlpha / 2) * se) * 100;
    test_support::Noise z(31 + n);
    fmt::print("  N = {:>2}: MDE95 {:5.1f} %, found {}\n", n, mde, at_least(found(z, trials, n, mde), trials, 0.95));
    fmt::print("          noncentral t's {:5.1f} %, found {}\n", noncentral,
               rate(found(z, trials, n, noncentral), trials));
  }
}

// The one-sided p of a regression by each analysis.
struct Analyses {
  double welch, pooled, paired;
};
Analyses p_values(const Boots& b) {
  const stats::Summary lb = log_summary(b.base), lc = log_summary(b.cand);
  const double n = static_cast<double>(lb.n);
  const stats::TestResult w = stats::welch_t_test(lc, lb);
  const double sp = std::sqrt((lb.stddev * lb.stddev + lc.stddev * lc.stddev) / 2);
  const double t_pooled = (lc.mean - lb.mean) / (sp * std::sqrt(2 / n));
  const stats::Summary d = stats::summarize(b.pair_log_diffs);
  const double t_paired = d.mean / (d.stddev / std::sqrt(n));
  return {stats::student_t_cdf(-w.statistic, w.df), stats::student_t_cdf(-t_pooled, 2 * n - 2),
          stats::student_t_cdf(-t_paired, n - 1)};
}

void analyses(std::size_t trials) {
  fmt::print(
      "\n4. Welch on the logs, pooled t, paired (ABBA pairs): one-sided 2.5 %;\n"
      "   power at nominal level / at the same false-alarm rate (each test's own\n"
      "   2.5 % quantile of A/A p-values)\n");
  const HostNoise hosts[] = {{0, 0, 1, "boot noise alone (sd 10 %)"},
                             {0.05, 0, 1, "+ random walk, 5 % a boot"},
                             {0, 0.02, 1, "+ linear drift, 2 % a boot"},
                             {0, 0, 2, "the candidate twice as noisy (sd 20 %)"}};
  for (const HostNoise& host : hosts)
    for (int n : {3, 5}) {
      test_support::Noise z(500 + n);
      std::vector<Analyses> aa(trials);
      for (auto& a : aa) a = p_values(simulate(z, n, 0, host));
      auto quantile = [&](double Analyses::*which) {
        std::vector<double> p;
        for (const auto& a : aa) p.push_back(a.*which);
        std::nth_element(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(trials / 40), p.end());
        return p[trials / 40];
      };
      const double crit[3] = {quantile(&Analyses::welch), quantile(&Analyses::pooled), quantile(&Analyses::paired)};
      auto share = [&](const std::vector<Analyses>& v, double Analyses::*which, double below) {
        std::size_t k = 0;
        for (const auto& a : v) k += a.*which < below;
        return k;
      };
      fmt::print(" {}, N = {}\n", host.name, n);
      fmt::print("  A/A false alarms: Welch {:4.1f} %, pooled {:4.1f} %, paired {:4.1f} %\n",
                 100.0 * share(aa, &Analyses::welch, 0.025) / trials,
                 100.0 * share(aa, &Analyses::pooled, 0.025) / trials,
                 100.0 * share(aa, &Analyses::paired, 0.025) / trials);
      for (double planted : {10.0, 20.0}) {
        std::vector<Analyses> ab(trials);
        for (auto& a : ab) a = p_values(simulate(z, n, planted, host));
        fmt::print(
            "  {:>2} % planted: Welch {:4.1f} / {:4.1f} %, pooled {:4.1f} / {:4.1f} %, paired {:4.1f} / {:4.1f} %\n",
            planted, 100.0 * share(ab, &Analyses::welch, 0.025) / trials,
            100.0 * share(ab, &Analyses::welch, crit[0]) / trials, 100.0 * share(ab, &Analyses::pooled, 0.025) / trials,
            100.0 * share(ab, &Analyses::pooled, crit[1]) / trials,
            100.0 * share(ab, &Analyses::paired, 0.025) / trials,
            100.0 * share(ab, &Analyses::paired, crit[2]) / trials);
      }
    }
}

void exclusion_level(std::size_t trials, int n) {
  fmt::print("\n5. two metrics both 10 % worse (sd 2 %, N = {}), M = 10 %: any false 'excluded'\n", n);
  test_support::Noise z(4141 + n);
  std::size_t bonferroni = 0, holm = 0;
  DecisionOptions o;
  o.alpha = kAlpha;
  o.max_regression_pct = 10;
  for (std::size_t t = 0; t < trials; ++t) {
    const std::vector<Boots> metrics = {simulate(z, n, 10, {}, 0.02), simulate(z, n, 10, {}, 0.02)};
    Comparison c;
    const std::vector<MetricEvidence> ev = judged(metrics, &c);
    const FamilyDecision f = decide_regressions(ev, o);
    bonferroni += std::any_of(f.metrics.begin(), f.metrics.end(),
                              [](const MetricDecision& m) { return m.finding == MetricFinding::regression_excluded; });
    bool any = false;
    for (std::size_t i = 0; i < ev.size(); ++i)
      any |= regression_bound_pct(ev[i].model, c.metrics[i].change.level) < 10;
    holm += any;
  }
  fmt::print("  at 1 - alpha/k:      {}\n", at_most(bonferroni, trials, kAlpha));
  fmt::print("  at Holm's levels:    {}\n", rate(holm, trials));
}

// `run -r auto`'s stopping rule (adaptive.h), the real class: repetitions
// of N(100, cv^2) (and skewed: the log-normal shape) fed one at a time
// until the repeated 95 % CI's half-width is within the target; how often
// the repeated CI it stops with holds the true mean (checked >= 95 % for
// normal data), the mean runs, and how often the plain t CI of the same
// runs would have (the rule before: stopping when that one is narrow
// picks runs whose spread came out small).
void r_auto_coverage(std::size_t trials) {
  fmt::print("\n6. run -r auto (3..30 runs, no warm-up): coverage of the 95 % CI it stops with\n");
  for (auto spending : {stats::SpendingFunction::obrien_fleming, stats::SpendingFunction::pocock})
  for (auto shape : {test_support::NoiseShape::normal, test_support::NoiseShape::lognormal})
    for (double cv : {0.01, 0.02, 0.05, 0.10})
      for (double target : {1.0, 2.0, 5.0}) {
        test_support::Noise z(6000 + static_cast<std::uint64_t>(cv * 1000 + target));
        std::size_t covered = 0, covered_fixed = 0, runs = 0, stopped_short = 0;
        adaptive::StoppingRule rule;
        rule.target_ci_pct = target;
        rule.warmup_runs = 0;
        rule.max_time_s = 1e9;
        rule.spending = spending;
        const adaptive::AdaptiveRepetitions fresh(rule);
        fresh.repeated_ci_factor(rule.max_runs);  // its boundaries computed once, copied with it
        for (std::size_t t = 0; t < trials; ++t) {
          adaptive::AdaptiveRepetitions rep = fresh;
          std::vector<double> v;
          while (true) {
            const double x = 100 * (1 + cv * z.draw(shape));
            v.push_back(x);
            rep.add_run({{"m", x}}, 1);
            if (rep.status().decision != adaptive::Decision::run_again) break;
          }
          const stats::Summary s = stats::summarize(v);
          covered_fixed += s.ci95_low <= 100 && 100 <= s.ci95_high;
          const double half = rep.repeated_ci_factor(v.size()) * s.stddev / std::sqrt(static_cast<double>(v.size()));
          covered += std::fabs(s.mean - 100) <= half;
          runs += v.size();
          stopped_short += rep.status().decision == adaptive::Decision::stop_converged;
        }
        if (shape == test_support::NoiseShape::normal && cv == 0.01 && target == 1.0)
          fmt::print(" {} spending\n", stats::to_string(spending));
        fmt::print("  {:<7} CV {:>2g} %, target {:g} %: repeated CI {}, {:4.1f} runs, converged {:3.0f} %; "
                   "the t CI at the stop {:4.1f} %\n",
                   shape == test_support::NoiseShape::normal ? "normal" : "lognorm", cv * 100, target,
                   shape == test_support::NoiseShape::normal ? at_least(covered, trials, 0.95) : rate(covered, trials),
                   static_cast<double>(runs) / static_cast<double>(trials), 100.0 * stopped_short / trials,
                   100.0 * covered_fixed / trials);
      }
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t trials = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 5000;
  if (trials < 100) {
    fmt::print(stderr, "usage: kvmbench_within_noise_rates [TRIALS >= 100] [ab-auto]\n");
    return 2;
  }
  const std::string only = argc > 2 ? argv[2] : "";
  if (!only.empty()) {  // one section alone
    if (only == "ab-auto") ab_auto(trials);
    else if (only == "analyses") analyses(trials);
    else if (only == "r-auto") r_auto_coverage(trials);
    else {
      fmt::print(stderr, "unknown section '{}': ab-auto, analyses or r-auto\n", only);
      return 2;
    }
    fmt::print("\n{}\n", g_ok ? "every check holds" : "A CHECK FAILED");
    return g_ok ? 0 : 1;
  }
  fixed_designs(trials);
  sequential(trials, 3);
  sequential(trials, 2);
  ab_auto(trials);
  stated_mde(trials);
  analyses(trials);
  exclusion_level(trials, 5);
  exclusion_level(trials, 20);
  r_auto_coverage(trials);
  fmt::print("\n{}\n", g_ok ? "every check holds" : "A CHECK FAILED");
  return g_ok ? 0 : 1;
}
