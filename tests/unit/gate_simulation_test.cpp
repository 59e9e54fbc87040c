// The gate's error rates, measured by simulation with a seeded generator
// (deterministic: same numbers on every run and machine).
//  - A/A: both sides from the same normal distribution. The gate must fail
//    at most alpha of the time. Bound: alpha + 3 binomial standard errors,
//    sqrt(alpha (1 - alpha) / trials), for the simulation's own error.
//  - A/B with a real 5% regression at CV 1%, 10 samples per side, allowed
//    regression 1%: the gate must fail at least 95% of the time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>

#include "analysis/gate.h"

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

ComparisonSide draw_side(Normal& gen, std::size_t metrics, std::size_t n, double mean, double cv,
                         const std::string& unit = "ns") {
  std::vector<Sample> samples;
  for (std::size_t m = 0; m < metrics; ++m)
    for (std::size_t i = 0; i < n; ++i) {
      Sample s;
      s.case_name = "sim";
      s.metric = "m" + std::to_string(m);
      s.unit = unit;
      s.value = gen(mean, mean * cv);
      s.iteration = static_cast<int>(i);
      samples.push_back(s);
    }
  ComparisonSide side;
  side.label = "sim";
  side.source = Source::hardware;
  side.series = group_series(samples);
  return side;
}

struct Rates {
  double gate_fail = 0;   // gate exit 1
  double raw_p = 0;       // any metric with raw Welch p < alpha (two-sided)
};

Rates simulate(std::uint64_t seed, int trials, std::size_t metrics, std::size_t n, double cv, double cand_factor,
               const GateOptions& opt, const std::string& unit = "ns") {
  Normal gen(seed);
  int fails = 0, raw = 0;
  for (int t = 0; t < trials; ++t) {
    auto base = draw_side(gen, metrics, n, 1000.0, cv, unit);
    auto cand = draw_side(gen, metrics, n, 1000.0 * cand_factor, cv, unit);
    auto g = evaluate_gate(base, cand, opt);
    if (g.status == GateStatus::unusable) ADD_FAILURE() << "simulated input unusable";
    fails += g.status == GateStatus::fail;
    raw += g.comparison.metrics[0].p_welch < opt.alpha;
  }
  return {static_cast<double>(fails) / trials, static_cast<double>(raw) / trials};
}

constexpr int kTrials = 2000;
constexpr double kAlpha = 0.05;
const double kSimErr = 3 * std::sqrt(kAlpha * (1 - kAlpha) / kTrials);  // 0.0146

}  // namespace

TEST(GateSimulation, AAFalsePositiveRateAtMostAlpha) {
  // The strictest gate: any significant regression fails (max 0%).
  GateOptions strict{.max_regression_pct = 0, .alpha = kAlpha, .min_n = 3};
  auto one = simulate(20261130, kTrials, 1, 10, 0.01, 1.0, strict);
  auto five = simulate(20261131, kTrials, 5, 10, 0.01, 1.0, strict);
  // The gate as it would be used: 1% allowed.
  GateOptions usual{.max_regression_pct = 1, .alpha = kAlpha, .min_n = 3};
  auto usual1 = simulate(20261132, kTrials, 1, 10, 0.01, 1.0, usual);
  std::cout << "[ RATES    ] A/A, " << kTrials << " trials, n=10/side, CV 1%, alpha " << kAlpha
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

TEST(GateSimulation, DetectsFivePercentRegressionAtCvOnePercent) {
  GateOptions usual{.max_regression_pct = 1, .alpha = kAlpha, .min_n = 3};
  auto time = simulate(424242, kTrials, 1, 10, 0.01, 1.05, usual, "ns");
  // A rate losing 5% is the same regression seen from the other side.
  auto rate = simulate(434343, kTrials, 1, 10, 0.01, 0.95, usual, "GB/s");
  // Five metrics, all regressed: Holm must not cost the power.
  auto five = simulate(444444, kTrials, 5, 10, 0.01, 1.05, usual, "ns");
  std::cout << "[ RATES    ] 5% regression, CV 1%, n=10/side, max-regression 1%, alpha " << kAlpha << ", "
            << kTrials << " trials\n"
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
  GateOptions usual{.max_regression_pct = 1, .alpha = kAlpha, .min_n = 3};
  auto r = simulate(515151, kTrials, 1, 10, 0.01, 1.005, usual);
  std::cout << "[ RATES    ] true +0.5%, 1% allowed: gate fails " << r.gate_fail << "\n";
  EXPECT_LE(r.gate_fail, kAlpha / 2 + kSimErr);
}
