// A table as JSON: {title, source, columns, rows, notes}, where a number is
// an object {value, unit, text} (the value in full, null when not finite:
// JSON has no NaN) and an interval {low, high, unit, text}.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/report/table.h"

namespace kvmbench {

nlohmann::json render_json(const Table& t);

}  // namespace kvmbench
