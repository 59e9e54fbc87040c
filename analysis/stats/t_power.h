// The power of a t test, and the shift a design finds with a given power:
// the engine behind every "smallest change this design could detect" (MDE)
// that kvmbench states.
//
// A one-sided t test at error e rejects "no shift" when its statistic T
// exceeds t(1 - e; df). Where the true shift is delta and the standard
// error of the estimate is se, T follows the noncentral t distribution with
// df degrees of freedom and noncentrality ncp = delta / se, so the test
// finds the shift with probability
//
//   power = P(T' > t(1 - e; df)),   T' ~ noncentral t(df, ncp)
//
// computed exactly (Boost.Math's non_central_t), not by the normal
// approximation Phi(ncp - z(1 - e)), which overstates the power at the few
// units a side a boot-level experiment has. A two-sided test at error a
// finds a shift in one given direction (a regression, say) when T exceeds
// t(1 - a/2; df): call these functions with e = a/2. Like R's
// power.t.test (strict = FALSE), the far tail, where the test would call a
// regression an improvement, is not counted as finding it.
//
// Welch's test, which kvmbench runs, is not a noncentral t: its df is
// estimated from the two sample variances, and at few units a side it
// falls well below 2(n - 1) (to n - 1 when one side's spread dominates),
// so the noncentral t at the design's df overstates Welch's power (3
// units a side: a "95 %" shift is found 89 % of the time,
// bench/within_noise_rates). WelchPower below computes Welch's power
// exactly instead: the estimate is normal and independent of the two
// sample variances, s_i^2 = sd_i^2 U_i with (n_i - 1) U_i ~ chi-square
// (n_i - 1), and the test rejects where the estimate exceeds
// t(1 - e; df(U_b, U_c)) se(U_b, U_c); so
//
//   power = E[ Phi((shift - t(1 - e; df) se_hat) / se) ]
//
// over U_b and U_c, integrated by Gauss-Legendre quadrature (20 nodes a
// side) on the probability scale of each chi-square, to about 1e-4 in the
// power. With equal n a side
// Welch's statistic is the pooled one and the expectation reduces to one
// over the variance ratio (a beta variable), which the tests use as an
// independent check (tests/unit/t_power_test.cpp).
//
// Checked against R's documented examples of power.t.test and against the
// normal approximation's closed form at large n.
#pragma once

#include <cstddef>
#include <vector>

namespace kvmbench::stats {

// P(T' > t(1 - one_sided_error; df)) for T' ~ noncentral t(df, ncp).
// NaN for df <= 0 or an error outside (0, 1).
double t_test_power(double ncp, double df, double one_sided_error);

// The noncentrality at which t_test_power reaches `power`. NaN unless
// one_sided_error < power < 1 and df > 0.
double ncp_for_power(double power, double df, double one_sided_error);

// Two independent samples of units: how many a side, and their spread (the
// sd of the units on the test's scale: of their logs for the geometric
// model).
struct TwoSampleDesign {
  std::size_t n_base = 0, n_cand = 0;
  double sd_base = 0, sd_cand = 0;
};

// sqrt(sd_base^2 / n_base + sd_cand^2 / n_cand).
double standard_error(const TwoSampleDesign& d);
// The Welch-Satterthwaite df of that standard error; n_base + n_cand - 2
// when both sds are 0. NaN for a side with fewer than 2 units.
double welch_df(const TwoSampleDesign& d);

// Welch's one-sided test at `one_sided_error` on a design: its power to
// find a shift, and the shift it finds with a given power. The sample
// variances' distribution is integrated once, at construction.
class WelchPower {
 public:
  // Throws std::invalid_argument for a side with fewer than 2 units, a
  // negative or non-finite sd, or an error outside (0, 1).
  WelchPower(const TwoSampleDesign& d, double one_sided_error);
  double power(double shift) const;
  // The smallest shift found with probability `power` (error < power < 1;
  // NaN otherwise). 0 when both sds are 0.
  double detectable_shift(double power) const;

 private:
  double se_ = 0, error_ = 0;
  std::vector<double> critical_, weight_;  // t(1 - e; df_hat) se_hat, and its quadrature weight
};

// WelchPower(d, one_sided_error).detectable_shift(power); NaN where the
// design has fewer than 2 units a side.
double detectable_shift(const TwoSampleDesign& d, double power, double one_sided_error);

// The units a side (not rounded) at which a two-sample pooled t test with
// df = 2(n - 1) finds a shift `delta` of units with sd `sd` with
// probability `power`, at level `sig_level`, two-sided (the upper tail
// only, as above) or one-sided: what R's power.t.test(delta =, sd =,
// power =, sig.level =, alternative =) solves for n. NaN where no n in
// [2, 1e7] reaches the power.
double two_sample_units_for_power(double delta, double sd, double power, double sig_level, bool two_sided);

}  // namespace kvmbench::stats
