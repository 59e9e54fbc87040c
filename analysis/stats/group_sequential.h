// Group-sequential boundaries: looking at the data after every few units
// and stopping once it decides, without the repeated looks inflating the
// error rates that a single look at the end would have.
//
// The design is Lan and DeMets's alpha spending (Lan and DeMets,
// "Discrete sequential boundaries for clinical trials", Biometrika 70, 1983):
// a one-sided test of error alpha spends alpha(t) of it by information
// fraction t (here: the units a side so far over the most there will be),
// alpha(0) = 0 and alpha(1) = alpha, so that looks need not be planned
// one by one, only the most units. Two spending functions of theirs:
//   O'Brien-Fleming type  alpha(t) = 2 - 2 Phi(z(1 - alpha/2) / sqrt(t)):
//                         spends almost nothing early, so the last look's
//                         boundary is close to a fixed design's;
//   Pocock type           alpha(t) = alpha ln(1 + (e - 1) t): spends
//                         evenly, stops earlier on large effects, pays at
//                         the last look.
// The boundaries are found by the recursive numerical integration of
// Armitage, McPherson and Rowe ("Repeated significance tests on
// accumulating data", JRSS A 132, 1969) in the form of Jennison and
// Turnbull, "Group Sequential Methods with Applications to Clinical
// Trials" (2000), chapter 19: the density of the standardized statistic
// Z_k on the continuation region, carried from look to look on a grid of
// 6r - 1 points (r = 32) with Simpson's rule, using that the score
// Z_k sqrt(I_k) has independent normal increments. Checked against
// Jennison and Turnbull's tables of the Pocock and O'Brien-Fleming
// constants and rpact's spending-function boundaries
// (tests/unit/group_sequential_test.cpp).
//
// Deciding "regression beyond M shown" or "regression of M or more
// excluded" by adding units until one holds (`ab -n auto`, `run -r auto`)
// is two one-sided tests of the same change against M, each with its own
// error and spending: `sequential_boundaries` below. Each boundary is
// computed as if the other did not exist (non-binding): stopping at the
// other one only takes chances to cross away, so each test's error stays
// at most its alpha whichever way the experiment ends. A metric that
// reaches neither boundary by the last look is inconclusive.
//
// Small samples: the boundaries are for normal statistics, the units' sd
// is estimated. Each look's t statistic is compared through its nominal
// p-value (Jennison and Turnbull, section 11.4): the test stops when the
// t statistic's one-sided p is below the boundary's normal p, 1 - Phi(z_k).
// bench/within_noise_rates measures the error rates this gives on A/A and
// planted experiments down to 2 units a side.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace kvmbench::stats {

enum class SpendingFunction { obrien_fleming, pocock };
std::string_view to_string(SpendingFunction f);  // "O'Brien-Fleming type", "Pocock type"

// The one-sided error spent by information fraction t in [0, 1] of a test
// of error alpha: Lan and DeMets's functions above.
double alpha_spent(SpendingFunction f, double alpha, double t);

// Where Z_1, ..., Z_K (Z_k = S_k / sqrt(I_k), the score S_k with
// independent increments, E[S_k] = drift * I_k, Var[S_k] = I_k) first
// leave (lower_k, upper_k): upper[k] the probability of leaving above at
// look k, having stayed inside before, lower[k] below. Bounds may be
// infinite. Throws std::invalid_argument unless the information levels
// are positive and increasing and the three spans have one length.
struct ExitProbabilities {
  std::vector<double> upper, lower;
};
ExitProbabilities exit_probabilities(std::span<const double> information, std::span<const double> lower,
                                     std::span<const double> upper, double drift = 0);

// The one-sided upper boundaries z_1..z_K at the information levels given
// whose crossing probabilities under no drift are spent(t_k) -
// spent(t_{k-1}), t_k = I_k / I_K; +inf where nothing is spent. Throws
// std::invalid_argument as above, or when `spent` is not increasing.
std::vector<double> spending_boundaries(std::span<const double> information,
                                        const std::function<double(double t)>& spent);

// The classical constant boundaries for K equally spaced looks, two-sided
// at `alpha` (symmetric, both sides binding): Pocock's (|Z_k| >= C_P at
// every look) and O'Brien and Fleming's (|Z_k| >= C_B sqrt(K / k)).
double pocock_constant(std::size_t looks, double alpha);
double obrien_fleming_constant(std::size_t looks, double alpha);

// Adding units until a regression beyond M is shown or one of M or more is
// excluded: the looks (units a side at each, increasing, the first at
// least 2), each test's one-sided error and its spending function. For a
// family of k metrics each metric's tests take alpha / k of the family's
// (Bonferroni: valid whichever look each metric decides at).
struct SequentialDesign {
  std::vector<std::size_t> looks;
  double shown_error = 0.025;
  SpendingFunction shown_spending = SpendingFunction::obrien_fleming;
  double excluded_error = 0.05;
  SpendingFunction excluded_spending = SpendingFunction::obrien_fleming;
};

// Per look: the normal boundary of each test and its nominal one-sided p,
// 1 - Phi(z) (0 where nothing is spent: that look cannot stop that test).
struct SequentialBoundaries {
  std::vector<std::size_t> looks;
  std::vector<double> shown_z, excluded_z;
  std::vector<double> shown_p, excluded_p;
};
// Throws std::invalid_argument for looks that are not increasing from 2 or
// an error outside (0, 0.5).
SequentialBoundaries sequential_boundaries(const SequentialDesign& d);

enum class SequentialFinding { regression_shown, regression_excluded, undecided };

// The finding at look `look` (an index into d.looks) from the two tests'
// one-sided p-values at that look: p_shown of "the regression is M or
// less", p_excluded of "it is M or more" (from t statistics at their df).
// Throws std::out_of_range for a look past the last.
SequentialFinding sequential_finding(const SequentialBoundaries& b, std::size_t look, double p_shown,
                                     double p_excluded);

}  // namespace kvmbench::stats
