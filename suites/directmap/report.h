// How directmap results look: the document's table (001_ea3f563d108a34e5.txt
// lines 16-21): one pair of rows (mean, stddev) per directmap setup, one
// column per pinning, fault-in rate in GB/s; then Welch's t-test of
// DirectMap4K against DirectMap2M+split per column, which also works from
// published summary statistics alone (the document gives only mean, sd, n).
//
// The document's figure is the HOST allocation rate of guest memory (the
// slope of FileHugePages in /proc/meminfo while the guest faults its memory
// in): metric "host_alloc_rate" (unit GB/s, case "vcpus=N/bytes=B", variant
// "unpinned" / "pinned-node<N>", extra.directmap = the run's DirectMap
// lines). A run without it (smoke, host preset) falls back to the guest's
// own "faultin_rate", and the table says so; a run with "write_bandwidth"
// (the host preset) has it in a second table of the same layout. One run is one kernel, so one
// directmap setup: its row is named from its DirectMap lines (directmap_setup);
// `kvmbench report RUN_A RUN_B` puts two runs (a 4K-pre-split kernel and a
// 2M+split kernel) in one table, as the document does.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/stats/statistics.h"
#include "analysis/report/table.h"
#include "suites/framework/named_run.h"
#include "suites/framework/reproduce.h"

namespace kvmbench::suites::directmap {

inline constexpr std::string_view kHostMetric = "host_alloc_rate";  // the document's figure
inline constexpr std::string_view kMetric = "faultin_rate";         // the guest's own rate (fallback)
inline constexpr std::string_view kWriteMetric = "write_bandwidth"; // the faulted-in memory written again
inline constexpr std::string_view kBase = "DirectMap2M+split";  // today's kernel
inline constexpr std::string_view kCandidate = "DirectMap4K";   // pre-split

struct Cell {
  std::string case_name;  // directmap setup
  std::string variant;    // pinning
  stats::Summary summary;
  std::optional<long long> numa_node = {};  // the samples' keys.numa_node: pinned to that node
};

// From published summaries (reproduce) or from samples (a run).
std::vector<Table> tables_from_cells(const std::vector<Cell>& cells, std::string_view unit,
                                     std::string_view source, std::string_view title);
// One run: host_alloc_rate in the document's layout, else faultin_rate
// (labelled as the guest's rate). Empty when the run has neither.
std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source);
// The host preset's write bandwidth in the same layout (--verbose only).
std::vector<Table> detail_tables(const std::vector<Sample>& samples, std::string_view source);

// Several runs in one document table (`kvmbench report RUN_A RUN_B`): one
// row pair per run, named after its directmap setup (else the run's name).
// host_alloc_rate when every run has it, else faultin_rate for all (said in
// a note). Throws std::invalid_argument naming a run that has neither.
using suites::NamedRun;
std::vector<Table> document_tables(const std::vector<NamedRun>& runs);

// The document's tables from the reference data in `reference_dir`
// (suites/framework/reproduce.h; this suite's Suite::reproduce).
Reproduction reproduce_document(const std::filesystem::path& reference_dir, const ReproduceOptions& options);

// The directmap setup the DirectMap lines of /proc/meminfo show: kCandidate
// ("DirectMap4K") when the kernel maps memory with 4k pages only (DirectMap2M
// and DirectMap1G absent or 0 kB), kBase ("DirectMap2M+split") when it has 2M
// or 1G mappings, "" when there are no DirectMap4k/2M lines to judge by.
std::string directmap_setup(std::string_view meminfo_lines);

// A column's label: "pinned to NUMA node N" for a variant pinned to node N
// (`numa_node`, the samples' keys.numa_node); without it (published
// summaries, samples.jsonl written before keys) the same from the variant
// name "pinned-nodeN", the legacy path; others unchanged.
std::string variant_label(const std::string& variant, std::optional<long long> numa_node = std::nullopt);

}  // namespace kvmbench::suites::directmap
