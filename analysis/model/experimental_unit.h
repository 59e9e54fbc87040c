// The experimental unit: which values of a series are independent samples.
//
// A value sits at three levels:
//   invocation  one kvmbench process or one tool run: a run directory, or
//               one input file (a KVM selftest's output, a Google Benchmark
//               file);
//   repetition  a fresh measurement inside it (Sample::iteration): fresh
//               memory, a fresh guest, a Google Benchmark repetition;
//   sub-unit    a thread, CPU or vCPU of one repetition, or one of several
//               conversions of one VM build (named in the sample's extra,
//               kSubUnitKeys; several values of one repetition that name
//               none are sub-units too).
// Sub-units of one repetition share its memory, clocks and host state: they
// are summarised (their mean) within the repetition before any statistic.
// With one invocation the repetitions are the units. With several, the
// repetitions of one invocation share that process's state (memory layout,
// free huge pages, CPU frequency), so each invocation is summarised by the
// mean of its repetitions and the invocations are the units: the CI is for
// the highest level that was repeated, from that level's means (Kalibera
// and Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"

namespace kvmbench {

inline constexpr std::string_view kSubUnitKeys[] = {"thread", "cpu", "vcpu", "conversion"};

// One measured value and where it sits.
struct Observation {
  double value = 0;
  int invocation = 0;
  int repetition = 0;
  std::string sub_unit;  // "thread=1"; "" when the sample names none
};

// The sub-unit a sample names ("thread=1" for extra {"thread": 1}), "" for
// none. The first of kSubUnitKeys it has.
std::string sub_unit_of(const Sample& s);

enum class UnitLevel { repetition, invocation };
std::string_view to_string(UnitLevel l);  // "repetition", "invocation"

struct ExperimentalUnits {
  UnitLevel level = UnitLevel::repetition;
  std::vector<double> values;  // one per unit, in order of first appearance
  std::size_t invocations = 0;
  std::size_t repetitions = 0;       // over all invocations
  std::size_t most_per_repetition = 0;  // > 1: sub-units were summarised
  std::string sub_unit_kind;         // "thread", "cpu", ...; "value" when unnamed
};

// Units of one series. A non-finite value makes its repetition's (and its
// invocation's) value non-finite: it is shown, never tested.
ExperimentalUnits experimental_units(std::span<const Observation> obs);

// How the noise splits between the two levels, from a side with at least
// two invocations of at least two repetitions each (after summarising
// sub-units):
//   within   T1^2 = S1^2, the repetitions' variance within an invocation,
//            pooled over the invocations (df = sum of (r_i - 1));
//   between  T2^2 = S2^2 - S1^2 * mean(1 / r_i), where S2^2 is the variance
//            of the invocation means: E[S2^2] = sigma2^2 + sigma1^2 *
//            mean(1 / r_i) for independent means of r_i repetitions, so T2^2
//            estimates the invocation-level component sigma2^2 itself (0
//            when the estimate is negative: no noise beyond the
//            repetitions' is seen).
struct LevelVariance {
  bool known = false;
  double within = 0, between = 0;  // variances, not standard deviations
  std::size_t invocations = 0;
  double mean_repetitions = 0;
};
LevelVariance level_variance(std::span<const Observation> obs);

// Kalibera and Jones's number of repetitions per invocation: with n
// invocations of r repetitions, Var(grand mean) = (T2^2 + T1^2 / r) / n and
// the cost is n (c2 + r c1) (c2: an invocation's own cost, start-up and
// set-up; c1: one repetition). Their product, the variance per unit of cost,
// is smallest at d/dr = 0, which gives
//   r = sqrt((c2 / c1) * (T1^2 / T2^2)),
// rounded up, at least 1. nullopt when T2^2 = 0 (more repetitions in fewer
// invocations always pay) or a cost is not positive.
std::optional<std::size_t> optimal_repetitions(const LevelVariance& v, double invocation_cost_s,
                                               double repetition_cost_s);

}  // namespace kvmbench
