// kvmbench lab [LAB OPTIONS] COMMAND [ARGS...]: boot the emulated lab
// machine and run `kvmbench COMMAND ARGS...` inside it (engine/lab_run.h).
// The lab's own options all start with --lab- and come before COMMAND, so
// they never clash with the command's; they bind into an engine::LabRequest.
#include <memory>

#include "suites/engine/lab_run.h"
#include "suites/framework/errors.h"
#include "suites/kvmbench/commands.h"

namespace kvmbench::cli {

void add_lab_command(CLI::App& app) {
  auto o = std::make_shared<engine::LabRequest>();
  auto* cmd = app.add_subcommand("lab", "Boot the emulated lab machine (QEMU TCG with SVM and nested paging, a real "
                                        "kvm_amd) and run a kvmbench command inside; its results are emulated");
  cmd->add_option("--lab-vcpus", o->vcpus,
                  "vCPUs of the lab machine (default 1: with more, QEMU 7.2's SVM emulation makes KVM guests inside "
                  "fail to boot now and then)");
  cmd->add_option("--lab-memory", o->memory, "memory of the lab machine (default 4G)");
  cmd->add_option("--lab-kernel", o->kernel,
                  "the kernel it boots: a Debian kernel package (.deb) or a vmlinuz-<release> (default: the package "
                  "scripts/fetch-guest-kernel.sh fetched)");
  cmd->add_option("--lab-modules", o->modules, "with a vmlinuz: its modules directory (default /lib/modules/<release>)");
  cmd->add_option("--lab-append", o->append,
                  "added to the lab kernel's command line (e.g. clocksource=hpet, or a debugging option)");
  cmd->add_option("--lab-timeout", o->timeout_s,
                  "seconds before the lab machine is killed (default 1800; 7200 for `ab`, whose boots add up)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--lab-silence", o->silence_s,
                  "seconds without a sign of life from the lab machine (its heartbeat, the command's output) after "
                  "which it is killed as stalled (default 300)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--lab-tick", o->tick_s,
                  "seconds between the host's keepalive lines on the lab's control port, whose interrupt wakes a "
                  "lab machine that QEMU left asleep past its timer (default 1; 0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--lab-out", o->out,
                  "where run directories land, unless the command has its own --out (and the lab console, when no "
                  "run holds it)");
  cmd->add_option("--lab-console", o->console, "also keep the lab machine's console in this file");
  cmd->add_option("--lab-sh", o->shell,
                  "run this sh script in the lab instead of a kvmbench command (`kvmbench` is on its PATH, "
                  "$KVMBENCH_LAB_OUT is writable)");
  // Everything from the first word that is not a --lab- option on is the
  // command to run inside, passed on as it is.
  cmd->prefix_command();
  cmd->footer("COMMAND [ARGS...]: a kvmbench command (probe, list, run, ...) run inside the lab.\n"
              "Exit status: 0 or the command's own; 1 when the lab machine failed under it (stalled, its kernel faulted, "
              "it could not be set up), 77 when this host cannot boot the lab, 130 interrupted.");
  cmd->callback([cmd, o] {
    o->command = cmd->remaining();
    o->out_given = cmd->count("--lab-out") > 0;
    const int code = engine::run_in_lab(*o);
    if (code != kExitOk) throw ExitError(code, "");
  });
}

}  // namespace kvmbench::cli
