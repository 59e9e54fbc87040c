// Cases of one family (the key before '=' of "group=12": a long log's print
// groups) and when the generic tables pool them into one; and the check of
// units that follows: the values of one series, or of one pooled family's
// series, are of one unit, else no statistic of them means anything. Here,
// in the result model, so that the tables (analysis/series) and the
// results database's import (analysis/store) refuse the same runs.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"

namespace kvmbench {

// The generic tables' most cases of a run shown one by one.
inline constexpr std::size_t kMaxCases = 24;

// "group=12" -> "group"; "" for a name without '='.
std::string_view case_family(std::string_view name);

// Whether the family `family` of `family_cases` cases, of `all_cases` in
// the run, is pooled into one table: both more than `max_cases` (0: never).
// Pooling is for one family's sub-units ("group=N": the print groups of
// one kernel log's statistic); cases without a key ("" here: Google
// Benchmark's benchmarks, a selftest's tests) are different things, each
// its own table however many there are.
bool family_pooled(std::string_view family, std::size_t family_cases, std::size_t all_cases, std::size_t max_cases);

// "series CASE/VARIANT/METRIC mixes units 'ms' and 's'" for the first series
// (case, variant, metric; of a pooled family, the family's) whose non-warm-up
// samples are in two units, as group_by_case(samples, max_cases) would
// group them; nullopt when none is.
std::optional<std::string> mixed_units_problem(std::span<const Sample* const> samples,
                                               std::size_t max_cases = kMaxCases);
std::optional<std::string> mixed_units_problem(const std::vector<Sample>& samples, std::size_t max_cases = kMaxCases);

}  // namespace kvmbench
