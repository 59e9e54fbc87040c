// Reloading a kernel module with other parameters: the only way to change a
// parameter fixed at load time, such as kvm_amd's `npt`. A reload is
// `rmmod <module>` then `modprobe <module> k=v ...`; KnobSet wraps it
// as a journaled host knob (knobs.h) and the journal (knob_journal.h) puts
// the old parameters back after a crash.
//
// The module is read under a (fake) sysfs tree: <root>/sys/module/<module>
// with refcnt and parameters/*. The modprobe program is $KVMBENCH_MODPROBE
// (tests point it at a script that edits the fake tree), else `modprobe`
// from /usr/sbin, /sbin or $PATH; rmmod is the one beside it. Both run in
// their own process group, so a Ctrl-C on the terminal does not kill them
// half-way.
//
// Only the module itself is unloaded (rmmod): `modprobe -r kvm_amd` would
// also unload the dependencies nothing else uses (kvm, and ccp, the PSP
// driver, on an SEV host). Parameters given in /etc/modprobe.d apply again
// on every load.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace kvmbench::host {

using ModuleParams = std::map<std::string, std::string>;

// $KVMBENCH_MODPROBE, else "modprobe".
std::string default_modprobe_command();

struct ModuleState {
  bool present = false;  // <module_dir> exists
  bool loadable = false;  // it has a refcnt file (a module, not built in)
  long refcnt = 0;        // users: VMs, open /dev/kvm, dependent modules
  ModuleParams params;    // readable parameters/* values (trailing newline cut)
};

// Reads <module_dir> (e.g. /sys/module/kvm_amd); never throws.
ModuleState read_module_state(const std::filesystem::path& module_dir);

// True when two parameter values mean the same: Y/y/1 and N/n/0 are the
// same booleans (the kernel prints Y/N, modprobe takes either); otherwise
// the texts must be equal.
bool module_param_equal(std::string_view a, std::string_view b);

// "npt=Y nested=1" (map order).
std::string format_module_params(const ModuleParams& params);

// Why the module cannot be reloaded now, or "" when it can: not loaded,
// built into the kernel, or in use (refcnt > 0).
std::string module_reload_refusal(const std::filesystem::path& module_dir, const ModuleState& state);

// The rmmod that goes with `modprobe`: the one in the same directory when
// modprobe is a path (/usr/sbin/modprobe -> /usr/sbin/rmmod), else "rmmod".
std::string rmmod_beside(const std::string& modprobe);

// rmmod <module> (when it is loaded; its dependencies stay), then modprobe
// <module> k=v for each of `params`. <module> is module_dir's last component. Throws
// std::runtime_error with the command and its output when modprobe fails.
// Does not check refcnt (module_reload_refusal does).
void reload_module(const std::string& modprobe, const std::filesystem::path& module_dir, const ModuleParams& params);

// Puts a module back to `old` (a journaled reload): nothing to do when it is
// loaded with those values already; otherwise refuses while it is in use,
// else reloads with them and checks the values read back. Returns "" on
// success, the reason otherwise. Never throws.
std::string restore_module_params(const std::string& modprobe, const std::filesystem::path& module_dir,
                                  const ModuleParams& old);

}  // namespace kvmbench::host
