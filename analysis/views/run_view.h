// `kvmbench report DIR` as one Document, whatever the format: what the run
// is (its directory, suite, status, source and samples; what the command
// adds about it: host changes, skipped parts), what it lacks as an alert,
// the run's tables as its suite laid them out, and, for a run whose tables
// chart nothing, a chart per variant and metric of its samples with the
// cases side by side (one point per repetition: its sub-units summarised).
// JSON: the run's record with the tables in it.
#pragma once

#include <string>
#include <vector>

#include "analysis/report/document.h"
#include "analysis/report/table.h"
#include "analysis/store/run_store.h"

namespace kvmbench {

struct RunReport {
  std::string dir;                  // the run as the user named it
  std::vector<Table> tables;        // as its suite laid them out
  std::string incomplete;           // what the run lacks ("1 of 5 repetitions measured"); ""
  std::vector<std::string> about;   // more lines about the run (host changes, skipped parts)
  std::vector<Chart> charts;        // the suite's own pictures of the run (directmap's ramps), HTML
};

Document run_document(const Run& run, RunReport report);

}  // namespace kvmbench
