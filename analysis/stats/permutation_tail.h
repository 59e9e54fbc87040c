// Small permutation p-values from few permutations: a generalized Pareto
// tail fitted to the largest permutation statistics (Knijnenburg, Wessels,
// Reinders and Shmulevich, "Fewer permutations, more accurate P-values",
// Bioinformatics 25(12), i161-i168, 2009).
//
// An exact permutation p-value (1 + M)/(R + 1) (M permutations score at
// least the observed statistic) cannot go below 1/(R + 1), so a test judged
// at a Bonferroni or Holm level alpha/m needs R of order m/alpha, and m
// such tests m^2/alpha permutations. Where M is small, the excesses of the
// largest N_exc permutation statistics over a threshold t between the
// N_exc-th and (N_exc + 1)-th largest follow a generalized Pareto
// distribution (Pickands, Balkema and de Haan), so
//
//   p = N_exc / R * (1 - G(q - t))
//
// with G fitted to those excesses. The fit is Hosking and Wallis's
// probability-weighted moments ("Parameter and quantile estimation for the
// generalized Pareto distribution", Technometrics 29(3), 1987), closed
// form: with a0 the excesses' mean and a1 = E[y (1 - F(y))] estimated
// without bias as b0 - b1, b1 = (1/n) sum (i - 1)/(n - 1) y_(i) over the
// excesses in ascending order,
//   sigma = 2 a0 a1 / (a0 - 2 a1),   k = a0 / (a0 - 2 a1) - 2,
//   1 - G(y) = (1 - k y / sigma)^(1/k)   (exp(-y / sigma) at k = 0),
// 0 beyond the end sigma/k of a bounded tail (k > 0). Knijnenburg et al.
// take N_exc = 250 and lower it when a goodness-of-fit test rejects the
// fit; here N_exc is fixed (at most a quarter of R) and no such test runs.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace kvmbench::stats {

struct ParetoTail {
  double sigma = 0;  // scale, > 0
  double k = 0;      // shape in Hosking and Wallis's sign (k = -xi): k > 0 a bounded tail
};

// The probability-weighted-moment fit of excesses (all >= 0, at least 3
// of them, not all equal); nullopt otherwise, or where the moments give no
// positive scale.
std::optional<ParetoTail> fit_pareto_tail(std::span<const double> excesses);

// 1 - G(y) for y >= 0.
double pareto_survival(const ParetoTail& t, double y);

// The smallest p-value this estimate gives: beyond a bounded tail's end
// 1 - G is 0, and p is taken as this.
inline constexpr double kSmallestTailP = 1e-12;

// The tail estimate of P(statistic >= observed) from R = null.size()
// permutation statistics (any order), with the `exceedances` largest
// (N_exc) fitted; nullopt when R < 4 N_exc, when `observed` is not above
// the threshold or when the fit fails. Never below kSmallestTailP.
std::optional<double> tail_p_value(std::span<const double> null, double observed, std::size_t exceedances = 250);

}  // namespace kvmbench::stats
