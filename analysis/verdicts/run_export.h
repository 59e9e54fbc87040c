// A stored run as lab engines see it (`kvmbench export`): one result per
// primary metric of its suite, with the statistics of its experimental
// units, plus the parts the run skipped and the run's own status; and its
// monitors (metric_roles.h: what the kernel counted), marked as such,
// never a result. There is
// no baseline here (that is `gate`): a metric passes when it was measured
// with enough units to give a CI, and a run fails when it failed. Pure; the
// renderers for each engine's format are in analysis/views/export_view.h.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/series_key.h"
#include "analysis/store/run_store.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

enum class ExportResult { pass, fail, skip };
std::string_view to_string(ExportResult r);  // "pass", "fail", "skip"

struct ExportedMetric {
  SeriesKey key;
  ExportResult result = ExportResult::pass;
  std::string message;              // why skipped; "" for a pass
  std::size_t units = 0;            // finite experimental units
  std::string unit_level;           // "repetition" or "invocation"
  stats::Summary summary;           // of the units; meaningful when units > 0
};

struct ExportedPart {
  std::string part, reason;         // a skipped part of the run (meta skipped_parts)
};

struct ExportedRun {
  std::string name;                 // the run directory's name
  std::string suite, preset, status, source, tool_version, hostname, kernel, start_time, end_time;
  std::string error;                // meta "error" of a failed run
  std::vector<ExportedMetric> metrics;  // primary metrics only
  std::vector<ExportedMetric> monitors; // the monitors, each a pass: a figure, never a verdict
  std::vector<ExportedPart> skipped;
};

// Throws std::runtime_error for metric roles or series it cannot read.
ExportedRun export_run(const Run& run, std::string name);

// What a set of exported runs says, and the exit status that tells it:
//   ok            every run complete, every primary metric with a CI (0)
//   failed        a run failed (1)
//   inconclusive  nothing failed, but a run is incomplete (interrupted,
//                 still running), measured no primary metric, or has one
//                 with too few units for a CI (3)
enum class ExportVerdict { ok, failed, inconclusive };
ExportVerdict export_verdict(const std::vector<ExportedRun>& runs);
std::string_view to_string(ExportVerdict v);

}  // namespace kvmbench
