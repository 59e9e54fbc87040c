// Loads one side of a comparison from what the user named: a run directory
// (meta.json + samples.jsonl) or a Google Benchmark JSON file with
// repetitions (source "replay": measured elsewhere, parsed here).
#pragma once

#include <filesystem>

#include "analysis/compare.h"

namespace kvmbench {

// Throws std::runtime_error with a message naming the path when it is
// missing, not a run directory, or not Google Benchmark JSON.
ComparisonSide load_comparison_side(const std::filesystem::path& path);

}  // namespace kvmbench
