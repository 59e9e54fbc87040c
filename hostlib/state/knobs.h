// Scoped changes of host knobs that are always put back: THP mode, hugepage
// pools (per size, per node), writable KVM module parameters, the CPU
// frequency governor, any other sysfs/procfs file, and parameters fixed at
// module load (kvm_amd's npt) by reloading the module (module_reload.h);
// drop_caches is a write-only action with nothing to restore.
//
// Put back:
//  - at scope exit (the KnobSet destructor, newest change first);
//  - on SIGINT/SIGTERM: the first signal makes loops stop (interrupt.h) and
//    the stack unwinds to the destructor; a second signal, or exit() with a
//    KnobSet still alive, writes the old values from a pre-formatted table
//    with async-signal-safe calls only. A module reload cannot be undone
//    there (fork+exec of modprobe is not safe in a signal handler): after a
//    second signal or an exit() it stays until the journal restore of the
//    next live `kvmbench run` or `kvmbench restore`;
//  - after a crash or SIGKILL: each change is journaled on disk before it is
//    made (knob_journal.h); the next live `kvmbench run` and `kvmbench restore`
//    put back what the dead process left.
//
// All paths are relative to a root, "/" normally; $KVMBENCH_SYSFS_ROOT (or
// the constructor argument) points it at a fake tree for tests. The journal
// records the full path, so a restore does not need to know the root. The
// modprobe program is $KVMBENCH_MODPROBE, else modprobe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench::host {

// $KVMBENCH_SYSFS_ROOT, else "/".
std::filesystem::path default_knob_root();

// The current value as it is written back: the selected word of a
// "always [madvise] never" list, else the text without the trailing newline.
std::string knob_value_from_text(std::string_view text);

struct KnobChange {
  std::string path;       // full path (root included)
  std::string old_value;
  std::string new_value;  // as requested
  std::uint64_t journal_id = 0;
  // A module reload: path is /sys/module/<m>, old_value/new_value read
  // "npt=Y"; the old values of the parameters changed, to load it with again.
  bool module_reload = false;
  std::map<std::string, std::string> module_old_params;
  std::size_t record = 0;  // its entry in host_change_record.h
};

class KnobSet {
 public:
  explicit KnobSet(std::filesystem::path root = default_knob_root());
  ~KnobSet();  // restore(), errors reported on stderr
  KnobSet(const KnobSet&) = delete;
  KnobSet& operator=(const KnobSet&) = delete;

  // Any knob: reads the old value, journals it, writes the new one, and
  // returns the value read back (the kernel may clamp, e.g. a hugepage pool
  // it could not fill). Throws std::runtime_error (nothing changed) when the
  // file cannot be read or written or the journal cannot be written.
  std::string set(std::string_view path, std::string_view value);

  // /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise", "never").
  std::string set_thp_enabled(std::string_view mode);
  // nr_hugepages of the pool of `page_kb` pages (2048, 1048576), on one node
  // or system-wide. Returns the pool size the kernel reached.
  std::uint64_t set_hugepages(std::uint64_t page_kb, std::uint64_t count, std::optional<int> node = {});
  // /sys/module/<module>/parameters/<name>; refuses read-only parameters
  // (those fixed at module load, like kvm_amd's npt) with a clear message.
  std::string set_kvm_param(std::string_view module, std::string_view name, std::string_view value);
  // Reloads <module> (modprobe -r, then modprobe <module> k=v ...) so that
  // its parameters have the given values, for parameters fixed at load time
  // such as kvm_amd's npt. The old values of every readable parameter are
  // journaled first; restore() reloads it with the old values of those
  // changed. Nothing happens (no reload, no change recorded) when the values
  // are already these. Returns the parameters read back after the reload.
  // Throws std::runtime_error with the reason when the module is not loaded,
  // built in, in use (refcnt > 0 for a second: VMs running), has no such
  // parameter, when modprobe fails (then it tries to load the module back
  // with its old values, and says whether that worked), or when the values
  // read back are not the ones asked for (the change is then recorded and
  // undone later).
  std::map<std::string, std::string> reload_module(std::string_view module,
                                                   const std::map<std::string, std::string>& params);

  // scaling_governor of the given CPUs (all CPUs with cpufreq when empty).
  // Throws when no CPU has cpufreq.
  void set_governor(std::string_view governor, const std::vector<int>& cpus = {});
  // sync, then /proc/sys/vm/drop_caches = what (1 page cache, 2 slab, 3 both).
  void drop_caches(int what = 3);

  // Puts everything back, newest first; returns the failures as messages.
  std::vector<std::string> restore();
  const std::vector<KnobChange>& changes() const { return changes_; }
  const std::filesystem::path& root() const { return root_; }

 private:
  std::string full(std::string_view path) const;
  std::filesystem::path root_;
  std::string modprobe_;
  std::vector<KnobChange> changes_;
  std::vector<int> slots_;  // emergency-table slots, parallel to changes_
};

// Writes back every change of live KnobSets in this process with
// async-signal-safe calls only (open/write/close); used by the second
// SIGINT/SIGTERM and at exit(). Safe to call more than once.
void emergency_restore_knobs() noexcept;

}  // namespace kvmbench::host
