// The monitors section below a comparison's verdict: the monitors
// (metric_roles.h: vmstat.*, kvm.*, perf.* counted while the runs measured)
// that changed beyond noise, tested as their own family (Holm within the
// monitors, compare.h's Comparison::monitors), in the LKP robot's layout
// (base mean ± %stddev, %change, new mean ± %stddev, name), the largest
// changes first, at most a screenful. An explanation: it never changes the
// verdict or the exit code.
#pragma once

#include <cstddef>

#include "analysis/report/document.h"
#include "analysis/verdicts/compare.h"

namespace kvmbench {

// The rows at most (a screenful with the notes).
inline constexpr std::size_t kMonitorRowsShown = 20;

// The monitors that changed beyond noise, largest |%change| first: indices
// into c.monitors (tested, Holm-adjusted p below alpha).
std::vector<std::size_t> changed_monitors(const Comparison& c);

// Appends the section's table to `d` (nothing when neither side has
// monitors).
void append_monitors_section(Document& d, const Comparison& c);

}  // namespace kvmbench
