// How directmap results look: the document's table (001_ea3f563d108a34e5.txt
// lines 16-21): one pair of rows (mean, stddev) per directmap setup, one
// column per pinning, fault-in rate in GB/s; then Welch's t-test of
// DirectMap4K against DirectMap2M+split per column, which also works from
// published summary statistics alone (the document gives only mean, sd, n).
// Sample names: case "DirectMap4K" / "DirectMap2M+split", variant
// "unpinned" / "pinned-node<N>", metric "faultin_rate", unit "GB/s".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/result_model.h"
#include "analysis/statistics.h"
#include "analysis/table.h"

namespace kvmbench::suites::directmap {

inline constexpr std::string_view kMetric = "faultin_rate";
inline constexpr std::string_view kBase = "DirectMap2M+split";  // today's kernel
inline constexpr std::string_view kCandidate = "DirectMap4K";   // pre-split

struct Cell {
  std::string case_name;  // directmap setup
  std::string variant;    // pinning
  stats::Summary summary;
};

// From published summaries (reproduce) or from samples (a run).
std::vector<Table> tables_from_cells(const std::vector<Cell>& cells, std::string_view unit,
                                     std::string_view source, std::string_view title);
// Empty when there is no faultin_rate sample.
std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source);

// "pinned-node0" -> "pinned to NUMA node 0"; others unchanged.
std::string variant_label(const std::string& variant);

}  // namespace kvmbench::suites::directmap
