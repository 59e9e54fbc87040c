// Loads one side of a comparison from what the user named: a run directory
// (meta.json + samples.jsonl), a Google Benchmark JSON file (repetitions,
// one sample per benchmark, or aggregates only), the output of a KVM
// selftest or of kvm-unit-tests' vmexit (files: source "replay", measured
// elsewhere, parsed here). Several of them, joined by ',', are several
// invocations of one side.
#pragma once

#include <filesystem>
#include <string>

#include "analysis/verdicts/compare.h"

namespace kvmbench {

// Throws std::runtime_error with a message naming the path when it is
// missing, not a run directory, or of no format above, or malformed.
ComparisonSide load_comparison_side(const std::filesystem::path& path);

// `arg` as one path when something of that name exists, else split at ','
// into several (each one invocation; merge_invocations). Throws
// std::runtime_error as above, or for an empty item.
ComparisonSide load_comparison_sides(const std::string& arg);

// A warning when BASE and CAND name the same input (the same files, in any
// spelling): a comparison of a run with itself passes whatever it holds.
// "" otherwise.
std::string same_input_warning(const std::string& base_arg, const std::string& cand_arg);

}  // namespace kvmbench
