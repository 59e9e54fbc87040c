// Hidden, test-only: `kvmbench test-guest WORKLOAD [--accel A] [--timeout S]
// [--console FILE]` boots one guest of the kvmbench image with WORKLOAD
// (the image's test hooks included: "hang" never finishes, "panic" kills
// its PID 1) through the launcher every suite uses, and prints the outcome
// as JSON (hostlib/qemu/qemu_launcher.h to_json, plus the console tail). Exit 0
// when the guest finished, 2 when it failed (timeout, panic, ...), 77 when
// it could not start. The lab tests use it to see the guest watchdog kill a
// hung guest under a real KVM.
#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>

#include "hostlib/os/interrupt.h"
#include "hostlib/qemu/qemu_launcher.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

void add_test_guest_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("test-guest", "test only: boot one guest workload and print its outcome");
  cmd->group("");  // hidden from --help
  auto workload = std::make_shared<std::string>();
  auto accel = std::make_shared<std::string>("auto");
  auto timeout = std::make_shared<double>(60);
  auto console = std::make_shared<std::string>();
  cmd->add_option("workload", *workload)->required();
  cmd->add_option("--accel", *accel)->check(CLI::IsMember({"auto", "kvm", "tcg"}));
  cmd->add_option("--timeout", *timeout)->check(CLI::PositiveNumber);
  cmd->add_option("--console", *console, "where the console goes (default: a file in the temporary directory)");
  cmd->callback([workload, accel, timeout, console] {
    host::install_interrupt_handlers();
    host::GuestSpec spec;
    spec.workload = *workload;
    spec.accel = *accel == "kvm" ? host::Accel::kvm : *accel == "tcg" ? host::Accel::tcg : host::Accel::automatic;
    spec.timeout_s = *timeout;
    const std::filesystem::path log =
        console->empty() ? std::filesystem::temp_directory_path() / fmt::format("kvmbench-test-guest-{}.log", ::getpid())
                         : std::filesystem::path(*console);
    host::GuestRunResult r;
    try {
      r = host::run_guest_workload(spec, log);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    }
    auto j = host::to_json(r);
    j["console_tail"] = r.console_tail;
    fmt::print("{}\n", j.dump(2));
    if (console->empty()) {
      std::error_code ec;
      std::filesystem::remove(log, ec);
    }
    if (r.status == host::GuestRunStatus::cannot_run) cannot_run(r.reason);
    if (!r.ok()) throw ExitError(kExitUsage, "guest failed: " + r.reason);
  });
}

}  // namespace kvmbench::cli
