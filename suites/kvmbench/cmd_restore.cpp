// `kvmbench restore`: puts back host settings that a kvmbench process
// changed and could not restore because it died (SIGKILL, crash, power
// cut of the process only). A live `kvmbench run` does the same before it
// measures (engine/dead_run_knobs.h says why only there), so this command
// is for the operator who wants to see it happen, or to retry as root.
#include <fmt/format.h>

#include "hostlib/state/knob_journal.h"
#include "suites/engine/dead_run_knobs.h"
#include "suites/framework/errors.h"
#include "suites/kvmbench/commands.h"

namespace kvmbench::cli {

void add_restore_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "restore", "Put back host settings (THP, hugepages, KVM parameters, governor) left changed by a dead run");
  cmd->footer("Exit status: 0 every journaled setting put back (or none to put back); 77 the journal "
              "cannot be read or a setting could not be put back (run as root?).");
  cmd->callback([] {
    const host::KnobRestoreReport rep = engine::restore_knobs_left_by_dead_runs(/*verbose=*/true);
    const std::size_t failed = engine::failed_restores(rep);
    if (!rep.error.empty()) cannot_run("the knob journal " + host::knob_journal_path().string() + ": " + rep.error);
    if (failed) cannot_run(fmt::format("{} setting(s) could not be put back (run as root?)", failed));
    fmt::print("{} setting(s) restored; journal {}{}\n", rep.restored.size(), host::knob_journal_path().string(),
               rep.journal_found ? "" : " (none: nothing was ever changed)");
  });
}

}  // namespace kvmbench::cli
