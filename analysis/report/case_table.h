// The compact generic tables of a run: one table per metric, one row per
// case x variant, with the mean, sd, n and 95% CI of the mean over the
// experimental units (series_values.h), all in one unit scaled for
// reading (numbers.h) and with as many digits as the CI says the
// mean has (about 3 significant). What `run`, `report` and `ingest` print
// by default for the series a suite's own layout does not show; the
// transposed per-case dumps (series_table.h) are for --verbose, CSV and
// JSON.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/series/series_values.h"
#include "analysis/report/table.h"

namespace kvmbench {

// Tables in first-seen metric order (one per unit of a metric that has
// several), rows in first-seen case order; only
// metrics for which `include` holds (unset: all). `source` goes into every
// table. Each table's chart (Table::chart) is its means with their CIs.
// Throws std::runtime_error when one series mixes units.
std::vector<Table> case_tables(const std::vector<Sample>& samples, std::string_view source,
                               const std::function<bool(std::string_view metric)>& include = {},
                               std::size_t max_cases = kMaxCases);
// The same of samples grouped already, group_by_case(samples, max_cases): a
// report that shows these and series_summary_tables groups its samples once.
std::vector<Table> case_tables(const std::vector<CaseSeries>& cases, std::size_t max_cases, std::string_view source,
                               const std::function<bool(std::string_view metric)>& include = {});

}  // namespace kvmbench
