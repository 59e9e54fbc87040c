// The engine behind `kvmbench run` (its dry run is dry_run.h's): resolves
// suites and presets, probes the host once, runs each preset's repetitions
// into a run directory, and reports. Separate from the CLI so tests can
// call it.
#pragma once

#include "suites/engine/run_request.h"

namespace kvmbench::engine {

// Returns the exit code: 0 when something ran, 77 when nothing could,
// 1 when a preset's run failed, 2 on bad parameters, 130 when interrupted; throws
// ExitError 75 when another run holds the run lock past `wait_lock`.
int run_suites(const RunRequest& req);

}  // namespace kvmbench::engine
