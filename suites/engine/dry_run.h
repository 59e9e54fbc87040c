// `kvmbench run SUITE|all --dry-run [--host FILE]`: each chosen preset's
// plan (the document preset unless --preset names another), for this host
// or for the host whose `kvmbench probe --json` FILE holds. Touches
// nothing: no ioctl, no knob (nor the knob journal's restore), no QEMU, no
// run directory, no run lock.
#pragma once

#include "suites/engine/run_request.h"

namespace kvmbench::engine {

// Prints the plans on stdout. Returns 0 when a planned preset would run on
// that host, 77 when none would; throws ExitError(2) for bad input (an
// unknown suite, preset or parameter; an unreadable, empty, truncated or
// malformed --host file).
int plan_suites(const RunRequest& req);

}  // namespace kvmbench::engine
