// `kvmbench merge`: runs from many machines in one report, for labs without
// a results database. One table per suite, preset and source; one row per
// machine (named by its fingerprint, analysis/store/machine_fingerprint.h); a
// column per primary metric of the suite. Pure: the runs come in already
// exported (analysis/verdicts/run_export.h), the tables go out to analysis/report/table.h.
#pragma once

#include <string>
#include <vector>

#include "analysis/verdicts/run_export.h"
#include "analysis/report/table.h"

namespace kvmbench {

struct FleetRun {
  ExportedRun run;
  std::string machine;  // fingerprint, or "unknown:<hostname>" when the metadata has no CPU
};

// A machine's value of one metric. With several complete runs of the
// machine, the units are the runs (each the mean of its own units), so the
// CI carries the noise between runs; with one run, its own units
// (repetitions or invocations), which it does not.
struct FleetCell {
  std::size_t runs = 0;
  std::string level;  // "runs", or the one run's unit level ("repetition", ...)
  stats::Summary summary;
};

struct FleetRow {
  std::string machine, hostname, kernels;  // kernels: the runs' releases, distinct, in order
  std::size_t complete_runs = 0, other_runs = 0;
  std::vector<FleetCell> cells;  // one per FleetGroup::metric_keys; runs == 0 where not measured
};

struct FleetGroup {
  std::string suite, preset, source;
  std::vector<std::string> metric_keys, units;
  std::vector<FleetRow> rows;  // by machine
};

// Groups in order of suite, preset and source; metric columns in order of
// first appearance. Runs that did not complete are counted in their row
// (other_runs) and give it no value.
std::vector<FleetGroup> merge_fleet(const std::vector<FleetRun>& runs);

// One table per group: machine, host, runs, kernel, then "mean ±half-CI (n)"
// per metric; notes say what n counts and where a row has one run only.
std::vector<Table> fleet_tables(const std::vector<FleetGroup>& groups);

// The same for people (text): per group, the machines (host, runs,
// kernel), then the metrics as rows and the machines as columns, as many
// to a table as fit 80 columns: a suite's 24 metrics in a row of machines
// made lines of 559 columns.
std::vector<Table> fleet_text_tables(const std::vector<FleetGroup>& groups);

}  // namespace kvmbench
