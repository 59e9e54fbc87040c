#include "suites/engine/run_support.h"

#include <fmt/format.h>

#include <chrono>

#include "analysis/report/table.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/state/run_lock.h"
#include "suites/framework/errors.h"
#include "suites/engine/render_tables.h"
#include "suites/engine/incomplete_run.h"
#include "suites/engine/run_report.h"

namespace kvmbench::engine {

void print_run_report(const Run& run, const std::string& format, bool verbose) {
  const Format f = parse_table_format(format);
  std::vector<Table> tables =
      report_tables(run, verbose ? ReportDetail::full : ReportDetail::brief);
  mark_run_notes(tables, run);
  fmt::print("{}", render_tables(tables, f));
  // A blank line before whatever `run all` prints next.
  if (f == Format::text || f == Format::md) fmt::print("\n");
}

namespace {
struct HeldRunLock : RunLockHolder {
  host::RunLock lock;
  HeldRunLock(std::chrono::milliseconds wait, const std::string& what) : lock(wait, what) {}
};
}  // namespace

std::unique_ptr<RunLockHolder> acquire_run_lock(std::optional<std::chrono::seconds> wait, const std::string& what) {
  try {
    return std::make_unique<HeldRunLock>(wait ? std::chrono::milliseconds(*wait) : host::kWaitForever, what);
  } catch (const host::RunLockBusy& e) {
    if (host::interrupted()) throw ExitError(kExitInterrupted, "interrupted while waiting for the run lock");
    // Not 77: this host can run it, only not now; a job engine that lets
    // 77 pass as "this machine cannot" would skip the run unseen.
    const bool waited = wait && wait->count() > 0;
    throw ExitError(kExitBusy,
                    fmt::format("another kvmbench run ({}) holds {}{}; two runs would measure each other. Try again "
                                "when it has finished, or {}",
                                e.holder, e.path.string(),
                                waited ? fmt::format(", still after {} s of --wait-lock", wait->count()) : "",
                                waited ? "wait longer (--wait-lock=SECONDS; bare --wait-lock: until it finishes)"
                                       : "pass --wait-lock to wait for it"));
  } catch (const host::RunLockUnusable& e) {
    throw ExitError(kExitUsage, e.what());  // bad set-up: the path and the reason
  } catch (const std::exception& e) {
    // The lock file cannot be opened or locked: this host, as set up, cannot
    // run. (A bug stays one: exit_verdict says 70.)
    if (!is_bad_input(std::current_exception())) throw;
    throw ExitError(kExitCannotRun, e.what());
  }
}

}  // namespace kvmbench::engine
