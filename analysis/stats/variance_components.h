// Where the noise comes from, and what it takes to see through it: the
// variance of a pilot's values split between boots, repetitions of a boot
// and sub-units of a repetition, and the boots x repetitions that reach a
// target detectable regression in the least time (`kvmbench plan`).
//
// The method is Kalibera and Jones's ("Rigorous Benchmarking in Reasonable
// Time", ISMM 2013): method-of-moments estimates from the nested design,
// each level's sample variance less what the levels below it contribute.
// With y_bjs the value of sub-unit s of repetition j of boot b, n_bj
// sub-units in repetition bj, r_b repetitions in boot b and B boots, and
// means taken unweighted level by level (a repetition's value is the mean
// of its sub-units, a boot's the mean of its repetitions: the experimental
// units of experimental_unit.h):
//   within a repetition  S1^2 = sum (y_bjs - ybar_bj)^2 / sum (n_bj - 1),
//                        pooled over repetitions of two or more values;
//                        T1^2 = S1^2.
//   between repetitions  S2^2 = sum (ybar_bj - ybar_b)^2 / sum (r_b - 1),
//                        pooled over boots. A repetition's mean has
//                        variance s2 + s1 / n_bj, and E sum_j (X_j -
//                        Xbar)^2 = (1 - 1/r) sum_j Var X_j for independent
//                        X_j, so E S2^2 = s2 + c2 s1 with
//                        c2 = sum_b (1 - 1/r_b) sum_j (1/n_bj) / sum_b (r_b - 1)
//                        (1/n in a balanced design): T2^2 = S2^2 - c2 T1^2.
//   between boots        S3^2 = the sample variance of the boot means,
//                        E S3^2 = mean_b Var(ybar_b) = s3 + s2 mean(1/r_b)
//                        + s1 mean_b(sum_j (1/n_bj) / r_b^2):
//                        T3^2 = S3^2 - T2^2 mean(1/r_b) - T1^2 mean_b(...).
// In a balanced design these are Kalibera and Jones's T_i^2 = S_i^2 -
// T_(i-1)^2 / n_(i-1); with one value per repetition, the between-boot and
// between-repetition components are experimental_unit.h's level_variance.
// A negative estimate (the level's spread is smaller than the levels
// below it predict, which happens by chance when a component is small) is
// clamped to 0, said in `notes`, and the clamped value is used above it.
//
// For relative planning give the logs of positive values (a time, a rate):
// the components are then of the logs and a target shift of ln(1 + M/100)
// is a regression of M % (regression_bound.h's geometric model).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/model/experimental_unit.h"

namespace kvmbench::stats {

struct VarianceComponents {
  bool known = false;  // at least two boots (invocations)
  // Variances, not standard deviations.
  double between_boots = 0, between_repetitions = 0, within_repetition = 0;
  std::size_t boots = 0, repetitions = 0, values = 0;
  double mean_repetitions = 0;     // per boot
  double mean_sub_units = 0;       // per repetition
  std::vector<std::string> notes;  // clamped estimates, levels the pilot cannot separate
};

// The components of a pilot's values (Observation::invocation is the boot).
// Non-finite values make the components unknown, with a note.
VarianceComponents variance_components(std::span<const Observation> pilot);

// The variance of one boot's value (the mean of r repetitions of m
// sub-units each): between_boots + between_repetitions / r +
// within_repetition / (r m).
double unit_variance(const VarianceComponents& c, double repetitions, double sub_units);

struct PlanRequest {
  VarianceComponents components;
  double sub_units = 1;     // values per repetition, as the suite measures them
  double target_shift = 0;  // the regression to find, on the components' scale
  double power = 0.95;
  double one_sided_error = 0.025;                        // the test's (0.025: a two-sided 95 % CI)
  double boot_s = 0, repetition_s = 0;                   // a boot's own cost (boot, start-up), one repetition's
  std::size_t most_boots = 100, most_repetitions = 100;  // a side; per boot
};

struct Plan {
  std::size_t boots = 0;        // a side
  std::size_t repetitions = 0;  // per boot
  double unit_sd = 0;           // sqrt(unit_variance)
  double detectable_shift = 0;  // at that many (t_power.h, equal sds a side)
  double seconds = 0;           // both sides: 2 boots (boot_s + repetitions repetition_s)
};

// The boots x repetitions a side whose detectable shift at `power` is at
// most `target_shift`, at the least cost (ties: fewer repetitions): Welch's
// test's power (t_power.h), equal spreads a side. nullopt when none within the
// limits reaches it. Throws std::invalid_argument for unknown components,
// a target or cost that is not positive, or a power not above the error.
std::optional<Plan> cheapest_plan(const PlanRequest& r);

// The fewest boots a side (at most r.most_boots) whose detectable shift at
// `repetitions` per boot is at most the target; nullopt when none is.
// Throws as cheapest_plan.
std::optional<std::size_t> fewest_boots(const PlanRequest& r, std::size_t repetitions);

}  // namespace kvmbench::stats
