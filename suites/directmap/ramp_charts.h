// The ramps directmap's host allocation rate was fitted over, as pictures
// for a run's HTML report: the meminfo field the run saved while each guest
// faulted its memory in (raw/meminfo-VARIANT.itN.csv), and the fitted line
// over the ramp (its slope the host_alloc_rate sample, its intercept in the
// sample's fit_intercept_bytes; a run from before that has the points only).
#pragma once

#include <filesystem>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/report/document.h"

namespace kvmbench::suites::directmap {

// A chart per host_alloc_rate sample whose meminfo file is in the run;
// throws nothing: a missing or unreadable file is a chart saying so.
std::vector<Chart> ramp_charts(const std::filesystem::path& run_dir, const std::vector<Sample>& samples);

}  // namespace kvmbench::suites::directmap
