// What `kvmbench run` needs around the suites: the report printed after a
// run, and the host-wide lock that keeps two runs from measuring at once.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "analysis/store/run_store.h"

namespace kvmbench::engine {

// The run's tables on stdout: the suite's layout and the compact generic
// tables; `verbose` adds every metric and the per-case dumps.
void print_run_report(const Run& run, const std::string& format, bool verbose);

// Held for the whole run; a second kvmbench waits up to `wait` (none:
// without limit) for it, then exits 75 (busy: try again) naming the
// holder. `what` names this run for the message another one would print.
struct RunLockHolder {
  virtual ~RunLockHolder() = default;
};
std::unique_ptr<RunLockHolder> acquire_run_lock(std::optional<std::chrono::seconds> wait, const std::string& what);

}  // namespace kvmbench::engine
