#include "suites/engine/dead_run_knobs.h"

#include <fmt/format.h>

#include <algorithm>

namespace kvmbench::engine {

namespace {

void say(const host::KnobRestoreReport& rep, bool verbose) {
  for (const auto& r : rep.restored) {
    if (r.ok)
      fmt::print(stderr, "kvmbench: restored {} = '{}' (left by dead pid {})\n", r.path, r.value, r.pid);
    else
      fmt::print(stderr, "kvmbench: could not restore {} = '{}' (left by dead pid {}): {}\n", r.path, r.value, r.pid,
                 r.error);
  }
  if (rep.dropped_stale_boot)
    fmt::print(stderr, "kvmbench: dropped {} journal entr{} from an earlier boot (the reboot reset them)\n",
               rep.dropped_stale_boot, rep.dropped_stale_boot == 1 ? "y" : "ies");
  if (verbose && rep.kept_live)
    fmt::print(stderr, "kvmbench: {} change(s) belong to kvmbench processes still running; left alone\n",
               rep.kept_live);
  if (!rep.error.empty())
    fmt::print(stderr, "kvmbench: warning: knob journal: {}\n", rep.error);
}

}  // namespace

host::KnobRestoreReport restore_knobs_left_by_dead_runs(bool verbose) {
  host::KnobRestoreReport rep = host::restore_dead_knob_changes();
  say(rep, verbose);
  return rep;
}

std::size_t failed_restores(const host::KnobRestoreReport& report) {
  return static_cast<std::size_t>(
      std::count_if(report.restored.begin(), report.restored.end(), [](const auto& r) { return !r.ok; }));
}

}  // namespace kvmbench::engine
