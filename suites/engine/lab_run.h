// The engine behind `kvmbench lab [LAB OPTIONS] COMMAND [ARGS...]`: boots
// the emulated lab machine (hostlib/lab/lab_machine.h: QEMU TCG with SVM and
// nested paging, a real kvm_amd) and runs `kvmbench COMMAND ARGS...` (or an
// sh script) inside it, e.g.
//   kvmbench lab probe
//   kvmbench lab run asid --preset document --set npt=on,off -r 2
// Run directories land in the host's results/runs/ (or --lab-out, or the
// command's own --out) with the lab's console as raw/lab-console.log; the
// command's exit status is passed through. Everything measured in the lab
// is `emulated`. Separate from the CLI (cmd_lab.cpp parses the options) so
// tests can call it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kvmbench::engine {

inline constexpr double kDefaultLabTimeout = 1800;

struct LabRequest {
  // One vCPU: with two, a KVM guest inside failed to boot (hung early or
  // panicked) in 3 of 8 tries, with one in none of 8 (QEMU 7.2's SVM
  // emulation; the figures are in the commit that chose 1).
  int vcpus = 1;
  std::string memory = "4G";
  std::string kernel, modules, append;  // --lab-kernel, --lab-modules, --lab-append
  double timeout_s = kDefaultLabTimeout;
  double silence_s = 300;
  double tick_s = 1;
  std::string out = "results/runs";  // --lab-out
  bool out_given = false;            // whether --lab-out was given
  std::string console;               // --lab-console: also keep the console here
  std::string shell;                 // --lab-sh: a script instead of a command
  std::vector<std::string> command;  // the kvmbench command, as given
};

// What the lab runs and where on the host its runs land.
struct LabCommand {
  std::vector<std::string> argv;  // the command inside, argv[0] this kvmbench (or /bin/sh)
  std::filesystem::path out_dir;  // where its run directories land (writable in the lab); "": none
  std::filesystem::path ab_state; // `ab`'s state directory on the host; "": not `ab`
  bool boot_through_grub = false;  // `ab --boot-via reboot`: the lab boots a disk through GRUB
};

// The command inside for `req`, `self` being this kvmbench binary: a
// command that stores runs (run, ingest) gets the lab's --out unless it has
// its own, `ab` its --out before its `--` and its state beside its runs
// (the lab's /var/lib is gone with each of its boots); a script writes to
// $KVMBENCH_LAB_OUT, the lab's --out. Pure (paths made absolute).
LabCommand lab_command(const LabRequest& req, const std::filesystem::path& self);

// Boots the lab and runs the request's command in it. Returns the command's
// exit status (130: interrupted); throws ExitError: 2 for a bad request, 77
// when this host cannot boot the lab, 1 when the lab machine failed under
// the command (stalled, its kernel faulted, it could not be set up).
int run_in_lab(const LabRequest& req);

}  // namespace kvmbench::engine
