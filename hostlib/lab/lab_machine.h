// The emulated lab machine: QEMU under TCG with `-cpu qemu64,+svm,+npt`,
// an AMD machine with SVM and nested paging in software, in which the lab
// kernel's real kvm_amd loads and runs guests. `kvmbench lab` boots it and
// runs one command inside: the host's own kvmbench build, QEMU, firmware and
// guest image, seen through the host's filesystem shared read-only
// (virtiofs, QEMU's virtiofsd; no image to build or keep in step), with
// tmpfs where the machine keeps its own state (/run, /var/lib: its knob
// journal and run lock, /usr/lib/modules: the lab kernel's modules) and the
// host directories the command writes (run directories) bound writable, so
// that what it stores lands on the host as it is written.
//
// Everything measured in there is `emulated` (the CPU is TCG; kvmbench
// recognises it by CPUID, hostlib/facts/cpuid.h): the lab proves the live paths
// (probe, module reloads and their journal, guests under KVM, the meminfo
// sampler, the guest watchdog), never a performance figure.
//
// The machine's PID 1 is guests/image/lab-init (its markers are described
// there). Its console is kept; the command's stdout and stderr are passed
// through as they come; a Ctrl-C here is sent in as a SIGINT to the
// command's process group; a watchdog kills the machine after timeout_s;
// QEMU and virtiofsd die with us (qemu_process.h). A machine that stops
// making progress is recognised and killed before that (lab_stall_watch.h),
// and a kernel that faults is reported from its first fault line on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hostlib/lab/lab_kernel.h"

namespace kvmbench::host {

// The CPU the lab emulates: AMD64 with SVM and nested paging.
inline constexpr const char* kLabCpu = "qemu64,+svm,+npt";
// The virtiofs tag of the host's filesystem (lab-init mounts it).
inline constexpr const char* kLabHostFsTag = "kvmbench-host";
// The lab kernel's command line (lab_kernel_cmdline adds LabSpec::extra_cmdline).
// no_timer_check: under TCG on a loaded host the kernel's check that the
// IO-APIC timer ticks can miss its window and panic ("IO-APIC + timer doesn't
// work!", seen here with an ASan build beside it); the workload guests have
// had it all along (qemu_argv.cpp).
inline constexpr const char* kLabKernelCmdline = "console=ttyS0 panic=-1 quiet no_timer_check";

struct LabSpec {
  LabKernel kernel;
  int vcpus = 2;
  std::uint64_t memory_mib = 4096;
  std::vector<std::string> command;   // run inside; argv[0] a path the host has
  std::filesystem::path kvmbench;     // the binary `kvmbench` names on the command's PATH
  std::filesystem::path cwd;          // where it runs (a host path)
  std::vector<std::filesystem::path> writable;  // host directories it may write
  std::vector<std::pair<std::string, std::string>> env;  // its whole environment
  std::string hostname;               // the machine's host name
  std::string extra_cmdline;          // appended to the lab kernel's command line
  double timeout_s = 1800;            // spawn to power-off; then it is killed
  // No sign of life (heartbeat, command output) for this long, or a stall
  // the kernel reports with none for stall_grace_s after it: the machine is
  // stalled, and it is killed (hostlib/lab/lab_stall_watch.h).
  double silence_s = 300;
  double stall_grace_s = 60;
  double interrupt_grace_s = 300;     // after a Ctrl-C is sent in
  // Once the lab is up, the host writes a line ("TICK") on the control
  // serial port this often (0: never). QEMU's single TCG thread with the
  // vCPUs halted sometimes misses the lab's own timer interrupt on a busy
  // host, and the machine then sleeps until some other interrupt comes
  // (296 s once, ended by the stall watch's SYSRQ line); a serial interrupt
  // a second bounds that at a second.
  double tick_s = 1;
  // Boot from a disk through the firmware and GRUB (hostlib/lab/lab_boot_disk.h)
  // instead of QEMU's -kernel, and let a reboot reset the machine (for
  // `ab --boot-via reboot`): the partition is /boot inside, with
  // GRUB_DEFAULT=saved in /etc/default/grub.
  bool boot_through_grub = false;
};

// What build_lab_qemu_argv needs besides the spec.
struct LabPaths {
  std::filesystem::path qemu, initramfs, console_log, virtiofs_socket, control_socket, qmp_socket;
  std::filesystem::path boot_disk;  // with spec.boot_through_grub
};

// QEMU's argument vector for the lab machine. Pure. Throws
// std::invalid_argument for a spec that cannot boot (vCPUs, memory).
std::vector<std::string> build_lab_qemu_argv(const LabSpec& spec, const LabPaths& paths);

// virtiofsd's arguments for sharing the host's root: QEMU 7.2's C daemon
// takes -o options, the Rust one (the virtiofsd package) its own flags.
std::vector<std::string> build_virtiofsd_argv(const std::filesystem::path& virtiofsd, bool rust_style,
                                              const std::filesystem::path& socket);

// `text` as one shell word (single quotes). Pure.
std::string shell_quote(std::string_view text);

// /lab/config and /lab/command of the lab's initramfs (lab-init). Pure.
std::string lab_config_text(const LabSpec& spec, const std::filesystem::path& scratch);
std::string lab_command_script(const LabSpec& spec);
// The lab kernel's command line: kLabKernelCmdline and the spec's extra words.
std::string lab_kernel_cmdline(const LabSpec& spec);

// What the console says (lab-init's markers). Pure.
struct LabConsole {
  bool booted = false, ready = false, ended = false;
  int boots = 0;                       // KVMBENCH-LAB-BOOTED lines: the machine's boots
  std::vector<std::string> grub_entries;  // the entry GRUB booted, each boot through it
  int end_status = -1;
  std::string ready_line;              // after "KVMBENCH-LAB-READY "
  std::vector<std::string> errors, warnings;
};
LabConsole parse_lab_console(std::string_view console);

enum class LabStatus {
  ok,           // the command ran and ended; command_status is its exit status
  failed,       // the machine did not get the command to its end (reason)
  cannot_run,   // this host cannot boot the lab (reason); nothing started
  interrupted,  // Ctrl-C: sent in, and the machine stopped (or was killed)
};

struct LabResult {
  LabStatus status = LabStatus::failed;
  std::string reason;
  int command_status = -1;
  double boot_s = -1;            // QEMU spawn -> KVMBENCH-LAB-READY
  double wall_s = 0;             // QEMU spawn -> QEMU reaped
  bool killed_by_watchdog = false;
  LabConsole markers;
  std::string console;           // the whole console (kernel and lab-init)
  std::vector<std::string> qemu_argv;
  std::string hung_state;        // a watchdog or stall kill: the vCPUs' registers (QMP)
  bool stalled = false;          // killed as stalled (reason says why)
};

// Where the command's output goes while it runs (both may be empty), and
// what the lab itself reports (boot, the command sent Ctrl-C, ...).
struct LabStreams {
  std::function<void(std::string_view)> out, err, note;
};


// Boots the lab, runs spec.command, powers off. Never throws for host
// trouble (status cannot_run / failed with the reason); throws
// std::invalid_argument for a malformed spec.
LabResult run_lab(const LabSpec& spec, const LabStreams& streams);

}  // namespace kvmbench::host
