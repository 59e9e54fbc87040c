// A run's monitors (metric_roles.h: vmstat.*, kvm.*, counted in each
// measured repetition) as one table for `report --verbose`: a row per
// monitor with its mean over the repetitions, %stddev, min, max and n; and
// the split of a run's samples into the suite's and the monitors'.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/model/metric_roles.h"
#include "analysis/model/result_model.h"
#include "analysis/report/table.h"

namespace kvmbench {

// The samples that are not monitors (what the suite's tables read).
std::vector<Sample> without_monitors(const std::vector<Sample>& samples, const MetricRoles& roles);
// How many monitor series the samples hold (warm-ups left out).
std::size_t monitor_count(const std::vector<Sample>& samples, const MetricRoles& roles);

// The monitors' table; nullopt when the run has none.
std::optional<Table> run_monitors_table(const std::vector<Sample>& samples, const MetricRoles& roles,
                                        const std::string& source);

}  // namespace kvmbench
