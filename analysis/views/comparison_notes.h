// What the experimental units of a comparison were and how they were made,
// one note each: the level the CI is for (repetitions, or invocations each
// the mean of its repetitions), sub-units summarised, aggregates used, the
// Mann-Whitney method, benchmarks that did not measure, tests that failed,
// what the input left out. Row numbers ("#3") count c.metrics from 1.
#pragma once

#include <string>
#include <vector>

#include "analysis/verdicts/compare.h"

namespace kvmbench {

std::vector<std::string> experimental_unit_notes(const Comparison& c);

// "log: the CI of the change computed on the log scale ...", where a row's
// is; "" otherwise.
std::string log_scale_note(const Comparison& c);

}  // namespace kvmbench
