// Booting another kernel without firmware or boot loader (kexec-tools), as
// LKP boots its test kernels, for `kvmbench ab`: which kernel a name means,
// the command line it gets, whether kexec can be used here, and the jump.
// A kernel that hangs or faults ends with the machine's next power cycle in
// its default boot entry, which kexec never changes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "analysis/model/kernel_choice.h"
#include "analysis/model/kexec_facts.h"

namespace kvmbench::host {

// Pure: the command line of a kexec'd kernel: `running` without the boot
// loader's words (BOOT_IMAGE=, initrd=) and without an earlier kvmbench.ab=
// marker, then `append`, then `marker`; the words after a "--" (init's,
// not the kernel's) stay after it.
std::string kexec_cmdline(std::string_view running, std::string_view append, std::string_view marker);

// What `spec` names, on this machine:
//   running    the kernel booted now: /boot/vmlinuz-<uname -r> and its
//              initrd.img, with /proc/cmdline; KVMBENCH_AB_RUNNING_IMAGE,
//              _INITRD and _CMDLINE stand in for them where the kernel came
//              from elsewhere (the emulated lab sets them)
//   RELEASE    an installed kernel: /boot/vmlinuz-RELEASE and its initrd
//   FILE.deb   a Debian kernel package: its boot/vmlinuz-R, unpacked into
//              `work_dir`; its modules must be installed (/lib/modules/R,
//              with /boot/initrd.img-R) since kexec boots this root
//   FILE       a bzImage (its setup header says so), booted without initrd
// The command line is the running one with `append` (kexec_cmdline).
// Throws std::invalid_argument saying what is wrong (an unknown kernel, a
// .deb without a kernel image, a file that is not a kernel).
ab::KernelChoice resolve_kernel(const std::string& spec, const std::string& append,
                                const std::filesystem::path& work_dir);

// The root under which the preflight reads /sys, /proc and /etc and looks
// for systemd: $KVMBENCH_SYSFS_ROOT (a stub machine in the tests), else "/".
std::filesystem::path machine_root();
// A path of this machine ("/boot/grub/custom.cfg"), under machine_root().
std::filesystem::path on_machine(const std::filesystem::path& p);

// What the preflight reads of this machine (analysis/model/kexec_facts.h):
// kexec on PATH, root, /sys/kernel/kexec_loaded, kexec_load_disabled,
// /sys/kernel/security/lockdown, the tdx_pw_mce bug flag in /proc/cpuinfo,
// kvm_intel's tdx parameter. Nothing is changed.
ab::KexecHost probe_kexec_host();

// Whether `image` is a PE image (an EFI-stub bzImage) with an Authenticode
// signature: its certificate table is not empty.
bool image_is_signed(const std::filesystem::path& image);

// The preflight's view of `k`, the trial load not yet tried.
ab::KexecKernel kexec_kernel(const ab::KernelChoice& k, std::string_view side);

// Loads `k` as kexec_into would (`kexec -s` where `file_load`) and unloads
// it again: "" when it loaded, else kexec's own words.
std::string trial_load(const ab::KernelChoice& k, const std::string& cmdline, bool file_load);

// Loads `k` with `cmdline` and starts the jump: `systemctl kexec` where
// systemd is PID 1 (services stop and file systems are unmounted first; it
// returns, and the process is ended by the shutdown), else `kexec -e` (a
// child that never returns when it boots). Throws std::runtime_error with
// kexec's words when the load or the jump is refused, the image unloaded.
void kexec_into(const ab::KernelChoice& k, const std::string& cmdline);

// Pure: the unit files that run `SELF ab --resume --state STATE_DIR` at
// boot. The drop-in goes over the package's kvmbench-ab.service: it points
// ExecStart at this binary and the unit's condition at STATE_DIR's
// state.json (the package's names /var/lib/kvmbench/ab, so an experiment
// with its state elsewhere would never resume). The unit stands in for the
// package's where it did not install one. Paths are quoted and escaped as
// systemd.service's command lines and specifiers want.
std::string resume_drop_in(const std::filesystem::path& self, const std::filesystem::path& state_dir);
std::string resume_unit(const std::filesystem::path& self, const std::filesystem::path& state_dir);

// Arranges for `SELF ab --resume --state STATE_DIR` to run after each boot:
// systemd's kvmbench-ab.service (the package installs it; a drop-in in
// /etc/systemd/system points it at this binary and state directory, and
// the unit is written there where the package did not install it),
// enabled. "" when done, else why not.
std::string arrange_resume_at_boot(const std::filesystem::path& self, const std::filesystem::path& state_dir);
// Undoes it: the unit disabled, what was written removed.
void cancel_resume_at_boot();

// This boot: /proc/sys/kernel/random/boot_id, uname -r, /proc/cmdline.
std::string boot_id();
std::string running_release();
std::string proc_cmdline();
// Whether systemd is PID 1 (it resumes an experiment after a boot).
bool systemd_runs_this_machine();
// Whether this machine's init runs `ab` again at each boot itself, where
// systemd does not: the emulated lab's does, and says so by the running
// kernel it passes (KVMBENCH_AB_RUNNING_IMAGE, suites/engine/lab_run.h).
bool init_runs_ab_at_boot();

}  // namespace kvmbench::host
