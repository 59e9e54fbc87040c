// `kvmbench history` as one Document, whatever the format: per machine (and
// preset and parameters) and metric, a table of kernels in point order with
// the mean of each case's runs, the change points marked and listed under
// it with their size, CI, p-value and the runs on both sides, tables that
// fit 80 columns (a group's cases split over several); the detection's
// settings last; a chart per series along its runs (HTML); JSON every
// point (history_to_json).
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/report/document.h"
#include "analysis/verdicts/history.h"

namespace kvmbench {

Document history_document(const History& h);
nlohmann::json history_to_json(const History& h);

}  // namespace kvmbench
