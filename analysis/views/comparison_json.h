// A comparison for programs: every number in full (null where not finite),
// every verdict, both sides' records: what `compare --format json` writes,
// and the "comparison" of the gate's JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/verdicts/compare.h"

namespace kvmbench {

nlohmann::json comparison_to_json(const Comparison& c);

}  // namespace kvmbench
