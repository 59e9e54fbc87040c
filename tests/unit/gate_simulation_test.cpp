// The gate's error rates, measured by simulation with a seeded generator
// (deterministic: same numbers on every run and machine). The simulated
// data have sub-units (threads of one repetition that share its noise) and,
// where said, invocations (processes that shift all their repetitions).
//  - A/A: both sides from the same distribution. The gate must fail at
//    most alpha of the time. Bound: alpha + 3 binomial standard errors,
//    sqrt(alpha (1 - alpha) / trials), for the simulation's own error.
//  - A/B with a real 5% regression at CV 1%, 10 repetitions per side,
//    allowed regression 1%: the gate must fail at least 95% of the time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>

#include "analysis/verdicts/gate.h"

using namespace kvmbench;

namespace {

// Box-Muller on mt19937_64: unlike std::normal_distribution, the same
// sequence on every standard library.
class Normal {
 public:
  explicit Normal(std::uint64_t seed) : rng_(seed) {}
  double operator()(double mean, double sd) {
    if (have_) {
      have_ = false;
      return mean + sd * spare_;
    }
    double u1, u2;
    do u1 = uniform(); while (u1 <= 0);
    u2 = uniform();
    double r = std::sqrt(-2 * std::log(u1)), th = 2 * M_PI * u2;
    spare_ = r * std::sin(th);
    have_ = true;
    return mean + sd * r * std::cos(th);
  }

 private:
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  std::mt19937_64 rng_;
  double spare_ = 0;
  bool have_ = false;
};

// How the simulated values are made. Each repetition's value is
//   mean * (1 + cv * z_rep + invocation effect) per sub-unit, plus
//   mean * sub_cv * z_sub for each of `sub_units` threads,
// so the repetition's own noise is CV `cv` and its threads share it (they
// ran in one repetition), as real per-thread samples do. An invocation
// adds mean * invocation_cv * z_inv to all its repetitions.
struct Design {
  std::size_t metrics = 1, n = 10;  // n: repetitions per invocation
  double cv = 0.01;
  std::size_t sub_units = 1;
  double sub_cv = 0;
  std::size_t invocations = 1;
  double invocation_cv = 0;
};

ComparisonSide draw_side(Normal& gen, const Design& d, double mean, const std::string& unit,
                         bool pool_sub_units = false) {
  std::vector<Sample> samples;
  for (std::size_t m = 0; m < d.metrics; ++m)
    for (std::size_t k = 0; k < d.invocations; ++k) {
      const double inv = d.invocation_cv * gen(0, 1);
      for (std::size_t i = 0; i < d.n; ++i) {
        const double rep = d.cv * gen(0, 1);
        for (std::size_t t = 0; t < d.sub_units; ++t) {
          Sample s;
          s.case_name = "sim";
          s.metric = "m" + std::to_string(m);
          s.unit = unit;
          s.value = mean * (1 + inv + rep + d.sub_cv * gen(0, 1));
          // Pooled: every thread its own repetition, the pseudo-replication
          // the issue found (a control, never what the gate is fed).
          s.iteration = static_cast<int>(pool_sub_units ? i * d.sub_units + t : i);
          if (d.sub_units > 1 && !pool_sub_units) s.extra = {{"thread", t}};
          if (d.invocations > 1) s.extra["invocation"] = k;
          samples.push_back(s);
        }
      }
    }
  ComparisonSide side;
  side.label = "sim";
  side.source = Source::hardware;
  side.series = group_series(samples);
  side.invocations = d.invocations;
  return side;
}

struct Rates {
  double gate_fail = 0;   // gate exit 1
  double raw_p = 0;       // any metric with raw Welch p < alpha (two-sided)
};

Rates simulate(std::uint64_t seed, int trials, const Design& d, double cand_factor, const GateOptions& opt,
               const std::string& unit = "ns", bool pool_sub_units = false) {
  Normal gen(seed);
  int fails = 0, raw = 0;
  for (int t = 0; t < trials; ++t) {
    auto base = draw_side(gen, d, 1000.0, unit, pool_sub_units);
    auto cand = draw_side(gen, d, 1000.0 * cand_factor, unit, pool_sub_units);
    auto g = evaluate_gate(base, cand, opt);
    if (g.status == GateStatus::unusable) ADD_FAILURE() << "simulated input unusable";
    fails += g.status == GateStatus::fail;
    raw += g.comparison.metrics[0].p_welch < opt.alpha;
  }
  return {static_cast<double>(fails) / trials, static_cast<double>(raw) / trials};
}

// The simulations of the issue: CV 1% of a repetition, 10 per side, each
// of 4 threads with 0.5% of noise of its own (the repetition's unit value
// then has CV sqrt(1% ^ 2 + 0.5% ^ 2 / 4) = 1.03%): most of a thread's
// noise is its repetition's, as in the per-thread fault-in rates.
constexpr Design kThreads{.metrics = 1, .n = 10, .cv = 0.01, .sub_units = 4, .sub_cv = 0.005};

constexpr int kTrials = 2000;
constexpr double kAlpha = 0.05;
const double kSimErr = 3 * std::sqrt(kAlpha * (1 - kAlpha) / kTrials);  // 0.0146

// The gate at kAlpha with 3 units a side, allowing max_pct percent.
GateOptions gate_allowing(double max_pct) {
  GateOptions o;
  o.max_regression_pct = max_pct;
  o.alpha = kAlpha;
  o.min_n = 3;
  return o;
}

}  // namespace

TEST(GateSimulation, AAFalsePositiveRateAtMostAlpha) {
  // The strictest gate: any significant regression fails (max 0%).
  const GateOptions strict = gate_allowing(0);
  auto one = simulate(20261130, kTrials, kThreads, 1.0, strict);
  Design five_metrics = kThreads;
  five_metrics.metrics = 5;
  auto five = simulate(20261131, kTrials, five_metrics, 1.0, strict);
  // The gate as it would be used: 1% allowed.
  const GateOptions usual = gate_allowing(1);
  auto usual1 = simulate(20261132, kTrials, kThreads, 1.0, usual);
  std::cout << "[ RATES    ] A/A, " << kTrials << " trials, n=10/side of 4 threads each, CV 1%, alpha " << kAlpha
            << ", bound alpha + 3 SE = " << kAlpha + kSimErr << "\n"
            << "[ RATES    ]   1 metric,  max-regression 0%: gate fails " << one.gate_fail
            << " (raw two-sided Welch p<alpha: " << one.raw_p << ")\n"
            << "[ RATES    ]   5 metrics, max-regression 0%: gate fails " << five.gate_fail << " (family-wise, Holm)\n"
            << "[ RATES    ]   1 metric,  max-regression 1%: gate fails " << usual1.gate_fail << "\n";
  RecordProperty("aa_fail_rate_1metric_max0", std::to_string(one.gate_fail));
  RecordProperty("aa_fail_rate_5metrics_max0", std::to_string(five.gate_fail));
  RecordProperty("aa_fail_rate_1metric_max1", std::to_string(usual1.gate_fail));
  EXPECT_LE(one.gate_fail, kAlpha + kSimErr);
  EXPECT_LE(five.gate_fail, kAlpha + kSimErr);
  EXPECT_LE(usual1.gate_fail, kAlpha + kSimErr);
  // The Welch test itself must be calibrated: its two-sided rejection rate
  // on A/A data is alpha within the simulation error (a test that rejects
  // too rarely would make the bounds above meaningless).
  EXPECT_NEAR(one.raw_p, kAlpha, kSimErr);
  // One-sided by construction: with 0% allowed, about alpha/2 of A/A trials fail.
  EXPECT_NEAR(one.gate_fail, kAlpha / 2, 3 * std::sqrt(kAlpha / 2 * (1 - kAlpha / 2) / kTrials));
}

// The control that shows the sub-units matter: the same data with every
// thread taken for a repetition of its own (40 "samples" a side) fails far
// more often than alpha. If it did not, the simulation would not tell a
// gate that pools sub-units from one that does not.
TEST(GateSimulation, PoolingSubUnitsWouldBreakTheBound) {
  const GateOptions strict = gate_allowing(0);
  // Fewer trials: 40 a side makes the exact Mann-Whitney slow, and the
  // bound below is far from the rate.
  auto pooled = simulate(20261133, kTrials / 4, kThreads, 1.0, strict, "ns", /*pool_sub_units=*/true);
  std::cout << "[ RATES    ] A/A with the threads pooled as repetitions: raw Welch p<alpha " << pooled.raw_p
            << ", gate fails " << pooled.gate_fail << "\n";
  EXPECT_GT(pooled.raw_p, 3 * kAlpha);
}

// Invocations: each adds its own 1% to its 5 repetitions. Over the
// invocations' means (4 per side) A/A stays at alpha; the repetitions of a
// single invocation per side would miss that noise, and so would pooling
// them across invocations, which the control shows.
TEST(GateSimulation, InvocationsAreTheUnitWhenThereAreSeveral) {
  const Design d{.metrics = 1, .n = 5, .cv = 0.005, .invocations = 4, .invocation_cv = 0.01};
  const GateOptions strict = gate_allowing(0);
  auto over_invocations = simulate(20261134, kTrials, d, 1.0, strict);
  Design one_each = d;
  one_each.invocations = 1;  // what one invocation per side sees: n = 5, the invocation's effect shared by all
  auto single = simulate(20261135, kTrials, one_each, 1.0, strict);
  std::cout << "[ RATES    ] A/A, invocation noise 1%, repetition 0.5%: 4 invocations x 5 per side: raw p<alpha "
            << over_invocations.raw_p << ", gate fails " << over_invocations.gate_fail
            << "; 1 invocation x 5 per side: raw p<alpha " << single.raw_p << "\n";
  EXPECT_NEAR(over_invocations.raw_p, kAlpha, kSimErr);
  EXPECT_LE(over_invocations.gate_fail, kAlpha + kSimErr);
  // With one invocation a side, the invocation's noise is not in the CI:
  // far more than alpha of A/A pairs differ (why the notes say so).
  EXPECT_GT(single.raw_p, 3 * kAlpha);
}

TEST(GateSimulation, DetectsFivePercentRegressionAtCvOnePercent) {
  const GateOptions usual = gate_allowing(1);
  auto time = simulate(424242, kTrials, kThreads, 1.05, usual, "ns");
  // A rate losing 5% is the same regression seen from the other side.
  auto rate = simulate(434343, kTrials, kThreads, 0.95, usual, "GB/s");
  // Five metrics, all regressed: Holm must not cost the power.
  Design five_metrics = kThreads;
  five_metrics.metrics = 5;
  auto five = simulate(444444, kTrials, five_metrics, 1.05, usual, "ns");
  std::cout << "[ RATES    ] 5% regression, CV 1%, n=10/side of 4 threads, max-regression 1%, alpha " << kAlpha
            << ", " << kTrials << " trials\n"
            << "[ RATES    ]   time (ns) +5%:      gate fails " << time.gate_fail << "\n"
            << "[ RATES    ]   rate (GB/s) -5%:    gate fails " << rate.gate_fail << "\n"
            << "[ RATES    ]   5 metrics, all +5%: gate fails " << five.gate_fail << "\n";
  RecordProperty("detect_rate_time", std::to_string(time.gate_fail));
  RecordProperty("detect_rate_rate", std::to_string(rate.gate_fail));
  EXPECT_GE(time.gate_fail, 0.95);
  EXPECT_GE(rate.gate_fail, 0.95);
  EXPECT_GE(five.gate_fail, 0.95);
}

TEST(GateSimulation, SmallRegressionWithinAllowanceRarelyFails) {
  // A true +0.5% change with 1% allowed: the whole CI must lie beyond 1%,
  // which for a true 0.5% is at most as likely as a one-sided false positive.
  const GateOptions usual = gate_allowing(1);
  auto r = simulate(515151, kTrials, kThreads, 1.005, usual);
  std::cout << "[ RATES    ] true +0.5%, 1% allowed: gate fails " << r.gate_fail << "\n";
  EXPECT_LE(r.gate_fail, kAlpha / 2 + kSimErr);
}
