#include "suites/kvmbench/run_support.h"

#include <fmt/format.h>

#include <chrono>

#include "analysis/table.h"
#include "hostlib/knob_journal.h"
#include "hostlib/run_lock.h"
#include "suites/kvmbench/exit.h"
#include "suites/kvmbench/render_tables.h"
#include "suites/incomplete_run.h"
#include "suites/run_report.h"

namespace kvmbench::cli {

void print_run_report(const Run& run, const std::string& format, bool verbose) {
  const Format f = parse_table_format(format);
  std::vector<Table> tables =
      suites::report_tables(run, verbose ? suites::ReportDetail::full : suites::ReportDetail::brief);
  suites::mark_run_notes(tables, run);
  fmt::print("{}", render_tables(tables, f));
  // A blank line before whatever `run all` prints next.
  if (f == Format::text || f == Format::md) fmt::print("\n");
}

bool prepare_host_for_run() {
  auto report = host::restore_dead_knob_changes();
  for (const auto& r : report.restored)
    fmt::print(stderr, "kvmbench: restored {} (left changed by pid {}){}\n", r.path, r.pid,
               r.ok ? "" : ": FAILED: " + r.error);
  if (!report.error.empty()) fmt::print(stderr, "kvmbench: warning: knob journal: {}\n", report.error);
  return !report.restored.empty();
}

namespace {
struct HeldRunLock : RunLockHolder {
  host::RunLock lock;
  explicit HeldRunLock(std::chrono::milliseconds wait) : lock(wait, "kvmbench run") {}
};
}  // namespace

std::unique_ptr<RunLockHolder> acquire_run_lock() {
  try {
    return std::make_unique<HeldRunLock>(std::chrono::seconds(0));
  } catch (const std::exception& e) {
    throw ExitError(kExitCannotRun, fmt::format("{} (wait for it to finish)", e.what()));
  }
}

}  // namespace kvmbench::cli
