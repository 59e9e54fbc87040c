// Exported runs (run_export.h) in the formats lab engines read:
//   junit     Jenkins / GitLab / GitHub test reports (junit_xml.h): a suite
//             per run, a case per primary metric (statistics as the suite's
//             properties, "<key>.mean" ...), a case for the run's status
//             and one per skipped part;
//   lava      lava-test-case lines for a LAVA test definition to run: one
//             per primary metric with its mean as the measurement, its
//             statistics in a test set of the metric's name;
//   kcidb     KCIDB v5.0 JSON (checkouts, builds, tests with number{value,
//             unit}) to submit with kcidb-submit;
//   markdown  a job summary (GitLab, GitHub $GITHUB_STEP_SUMMARY).
#pragma once

#include <string>
#include <vector>

#include "analysis/verdicts/run_export.h"
#include "analysis/report/render/document.h"

namespace kvmbench {

std::string render_export_lava(const std::vector<ExportedRun>& runs);
// `origin`: the submitting CI system's name in every KCIDB id ([a-z0-9_]+).
std::string render_export_kcidb(const std::vector<ExportedRun>& runs, const std::string& origin);
// junit (a suite per run) and md (a table per run, for a job summary) as
// Documents (renderer.h writes them); lava and kcidb are exchange formats
// of their own, above.
Document export_document(const std::vector<ExportedRun>& runs, Format f);

}  // namespace kvmbench
