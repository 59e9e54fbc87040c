// The on-disk journal that makes host knob changes survive a crash or
// SIGKILL: every change is written here (path and old value, fsync'ed)
// BEFORE it is made, and marked done after it was put back. Whatever a dead
// process left undone is put back by the next live `kvmbench run` or by
// `kvmbench restore`.
//
// Format: JSON lines in <state dir>/knobs.journal (hostlib/state/state_dir.h),
//   {"op":"set","pid":P,"start":T,"boot":B,"id":N,"path":"/sys/...","old":"madvise"}
//   {"op":"done","pid":P,"start":T,"id":N}
// (pid, start time in clock ticks since boot) names a process even when its
// pid is reused; a boot id other than the current one means the machine
// rebooted since, which already reset the knobs, so those lines are dropped.
// Writers serialise on a separate lock file (knobs.journal.lock), so the
// journal itself can be rewritten by rename.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kvmbench::host {

std::filesystem::path knob_journal_path();  // <state dir>/knobs.journal

// Appends a "set" line for the calling process and returns its id. Throws
// std::runtime_error when the journal cannot be written (then the caller
// must not make the change).
std::uint64_t journal_knob_change(const std::string& path, const std::string& old_value);
// Appends a "set" line for a module reload (knobs.h KnobSet::reload_module):
// path is the module's sysfs directory, `old` the parameters to load it with
// again (the ones being changed), `all` every parameter as read before (kept
// for the record), text the old values as "npt=Y" for messages. A restore
// reloads the module with `old` (module_reload.h), with $KVMBENCH_MODPROBE
// as it is when the restore runs. Throws like journal_knob_change.
//   {"op":"set","kind":"module_reload",...,"path":"/sys/module/kvm_amd","old":"npt=Y",
//    "params":{"npt":"Y"},"all":{...}}
std::uint64_t journal_module_reload(const std::string& module_dir, const std::map<std::string, std::string>& old,
                                    const std::map<std::string, std::string>& all);
// Appends a "done" line. Errors are ignored (the worst case is a redundant
// restore later, which writes the same value again).
void journal_knob_restored(std::uint64_t id);

struct KnobRestoreResult {
  std::string path, value;
  long pid = 0;
  bool ok = false;
  std::string error;  // why the write failed
};

struct KnobRestoreReport {
  std::vector<KnobRestoreResult> restored;  // attempts, in the order made
  std::size_t dropped_stale_boot = 0;       // lines from an earlier boot
  std::size_t kept_live = 0;                // pending changes of processes still running
  bool journal_found = false;
  std::string error;                        // the journal itself could not be read/rewritten
};

// Puts back every pending change of processes that are gone (newest change
// first, so a knob changed twice ends at its first old value), then rewrites
// the journal without them. Lines of live processes are kept. Never throws.
KnobRestoreReport restore_dead_knob_changes();

// Identity of the calling process as the journal records it.
long process_start_ticks(long pid);  // field 22 of /proc/PID/stat, -1 when gone
std::string current_boot_id();

}  // namespace kvmbench::host
