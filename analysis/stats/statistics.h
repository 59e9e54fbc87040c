// Descriptive and inferential statistics used by every report, compare and
// gate. Pure functions; distributions come from Boost.Math.
// Conventions: stddev is the sample standard deviation (n-1); CIs are 95%,
// two-sided; p-values are two-sided.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"

namespace kvmbench::stats {

struct Summary {
  std::size_t n = 0;
  double mean = 0, stddev = 0, min = 0, median = 0, max = 0;  // stddev NaN when n < 2
  double cv = 0;                    // stddev / |mean|; NaN when mean == 0
  double ci95_low = 0, ci95_high = 0;  // Student t CI of the mean; NaN when n < 2
};

// Throws std::invalid_argument on an empty input or a non-finite value.
// Accurate to >= 12 significant digits on the NIST StRD univariate sets
// (two-pass mean/variance with a correction term).
Summary summarize(std::span<const double> xs);

// Summary from published summary statistics (mean, sd, n) alone, as some
// documents give only those; min/median/max are NaN.
Summary summary_from_moments(double mean, double stddev, std::size_t n);

// Student t and standard normal distribution functions (Boost.Math).
double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);
double normal_cdf(double z);
double normal_quantile(double p);

struct TestResult {
  double statistic = 0;  // t = (a.mean - b.mean) / se, or U of sample a
  double df = 0;         // Welch-Satterthwaite df (t test); 0 for U
  double p = 1;          // two-sided
  bool exact = false;    // Mann-Whitney: exact distribution used
};

// Welch's unequal-variance t test. Needs n >= 2 on both sides; throws
// std::invalid_argument otherwise. Two identical constant samples give p=1;
// two constant samples with different means give t = +-inf, p = 0.
TestResult welch_t_test(const Summary& a, const Summary& b);

// Mann-Whitney U (two-sided). Exact null distribution when both n <= 50 and
// there are no ties, otherwise normal approximation with tie and continuity
// correction. U is reported for sample a.
TestResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

// Relative change of cand vs base in percent, with a 95% CI
// (Fieller's theorem for the ratio of two independent means; t quantile at
// the Welch-Satterthwaite df of var(cand) + ratio^2 var(base)). pct is NaN
// when the base mean is 0; NaN bounds when either n < 2 or the CI is
// unbounded (base mean not distinguishable from 0).
// When every value on both sides is positive (min > 0: a time, a rate) and
// Fieller's interval would reach a ratio <= 0 or be unbounded, the CI is
// the delta method's on the log scale instead, exp(ln(ratio) +- t se), with
// se^2 = var(cand)/cand^2 + var(base)/base^2 (relative variances of the
// means) and the same df: a positive quantity cannot fall by 100% or more.
// `log_scale` says so.
struct Change {
  double pct = 0, ci95_low = 0, ci95_high = 0;
  bool log_scale = false;
  // The ratio of geometric means, tested and bounded on the logs
  // (family_verdicts.h), not a fallback of Fieller's interval.
  bool geometric = false;
  // The CI's confidence: 0.95, or the level Holm used for a tested metric
  // (family_verdicts.h). The members keep their ci95 names.
  double level = 0.95;
};
Change relative_change(const Summary& base, const Summary& cand);

// `different`: a significant change of a metric whose direction is unknown
// (its unit does not say whether higher or lower is better).
enum class Verdict { faster, slower, no_significant_difference, not_enough_data, different };
std::string_view to_string(Verdict v);

// The verdict for one metric: `not enough data` when either side has n < 2
// (or n < min_n), `no significant difference` when p >= alpha, otherwise
// `faster`/`slower` by the metric's direction, `different` when the
// direction is unknown (result_model.h: no faster/slower without one).
Verdict verdict(const Summary& base, const Summary& cand, double p, Direction dir,
                double alpha = 0.05, std::size_t min_n = 2);

// Holm-Bonferroni step-down adjusted p-values, same order as the input,
// monotone and capped at 1. NaN entries stay NaN and do not count in m.
std::vector<double> holm_adjust(std::span<const double> p);

}  // namespace kvmbench::stats
