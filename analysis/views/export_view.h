// Exported runs (verdicts/run_export.h) as lab engines read them:
//   export_document  one Document: a table per run (its primary metrics,
//             what the run was in its notes) for a job summary (--to
//             markdown), and JUnit (--to junit) for Jenkins / GitLab /
//             GitHub test reports: a suite per run, a case per primary
//             metric (statistics as the suite's properties, "<key>.mean"
//             ...), a case for the run's status and one per skipped part;
//   lava      lava-test-case lines for a LAVA test definition to run: one
//             per primary metric with its mean as the measurement, its
//             statistics in a test set of the metric's name;
//   kcidb     KCIDB v5.0 JSON (checkouts, builds, tests with number{value,
//             unit}) to submit with kcidb-submit.
// lava and kcidb are exchange formats of their own, not Documents.
#pragma once

#include <string>
#include <vector>

#include "analysis/report/document.h"
#include "analysis/verdicts/run_export.h"

namespace kvmbench {

Document export_document(const std::vector<ExportedRun>& runs);
std::string render_export_lava(const std::vector<ExportedRun>& runs);
// `origin`: the submitting CI system's name in every KCIDB id ([a-z0-9_]+).
std::string render_export_kcidb(const std::vector<ExportedRun>& runs, const std::string& origin);

}  // namespace kvmbench
