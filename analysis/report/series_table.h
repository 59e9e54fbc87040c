// The generic tables of a set of samples, for runs whose suite has no layout
// of its own (and under every suite layout): one table per case, one column
// per variant/metric series, one row per statistic (unit, n, mean, sd, CV,
// 95% CI of the mean, min, median, max). Transposed so that long series
// names and large numbers still fit 80 columns: a case with many series is
// split into several tables. Warm-up samples are left out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/series/series_values.h"
#include "analysis/report/table.h"

namespace kvmbench {

// Tables in first-seen case order; `source` goes into every table header.
// Throws std::runtime_error when one series mixes units.
// When there are more than `max_cases` cases (0: no limit), each family of
// cases (the key before '=': "group" of "group=12") larger than that is
// pooled into one case, titled "all N group=* cases pooled (from A to B)".
std::vector<Table> series_summary_tables(const std::vector<Sample>& samples, std::string_view source,
                                         std::size_t max_width = 80, std::size_t max_cases = kMaxCases);
// The same of samples grouped already, group_by_case(samples, max_cases).
std::vector<Table> series_summary_tables(const std::vector<CaseSeries>& cases, std::size_t max_cases,
                                         std::string_view source, std::size_t max_width = 80);

}  // namespace kvmbench
