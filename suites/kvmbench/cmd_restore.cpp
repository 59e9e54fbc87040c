// `kvmbench restore`: puts back host settings that a kvmbench process
// changed and could not restore because it died (SIGKILL, crash, power
// cut of the process only). Every kvmbench start does the same quietly
// (restore_knobs_left_by_dead_runs), so this command is for the operator
// who wants to see it happen, or to retry as root.
#include <fmt/format.h>

#include <cstring>

#include "hostlib/state/knob_journal.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

namespace {

// Returns the number of failures.
std::size_t print_restore_report(const host::KnobRestoreReport& rep, bool verbose) {
  std::size_t failed = 0;
  for (auto& r : rep.restored) {
    if (r.ok)
      fmt::print(stderr, "kvmbench: restored {} = '{}' (left by dead pid {})\n", r.path, r.value, r.pid);
    else {
      ++failed;
      fmt::print(stderr, "kvmbench: could not restore {} = '{}' (left by dead pid {}): {}\n", r.path, r.value, r.pid,
                 r.error);
    }
  }
  if (rep.dropped_stale_boot)
    fmt::print(stderr, "kvmbench: dropped {} journal entr{} from an earlier boot (the reboot reset them)\n",
               rep.dropped_stale_boot, rep.dropped_stale_boot == 1 ? "y" : "ies");
  if (verbose && rep.kept_live)
    fmt::print(stderr, "kvmbench: {} change(s) belong to kvmbench processes still running; left alone\n",
               rep.kept_live);
  if (!rep.error.empty()) fmt::print(stderr, "kvmbench: knob journal: {}\n", rep.error);
  return failed;
}

}  // namespace

void restore_knobs_left_by_dead_runs(int argc, char** argv) {
  // `restore` reports it itself; a dry run touches nothing, the journal's
  // knobs included.
  if (argc > 1 && std::strcmp(argv[1], "restore") == 0) return;
  if (argc > 1 && std::strcmp(argv[1], "run") == 0)
    for (int i = 2; i < argc; ++i)
      if (std::strcmp(argv[i], "--dry-run") == 0) return;
  try {
    print_restore_report(host::restore_dead_knob_changes(), false);
  } catch (const std::exception& e) {
    fmt::print(stderr, "kvmbench: warning: checking the knob journal: {}\n", e.what());
  }
}

void add_restore_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "restore", "Put back host settings (THP, hugepages, KVM parameters, governor) left changed by a dead run");
  cmd->callback([] {
    auto rep = host::restore_dead_knob_changes();
    auto failed = print_restore_report(rep, true);
    if (!rep.error.empty()) cannot_run("the knob journal " + host::knob_journal_path().string() + ": " + rep.error);
    if (failed) cannot_run(fmt::format("{} setting(s) could not be put back (run as root?)", failed));
    std::size_t ok = rep.restored.size() - failed;
    fmt::print("{} setting(s) restored; journal {}{}\n", ok, host::knob_journal_path().string(),
               rep.journal_found ? "" : " (none: nothing was ever changed)");
  });
}

}  // namespace kvmbench::cli
