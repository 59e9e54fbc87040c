#include "hostlib/state/hang_watchdog.h"

#include <filesystem>

#include <fmt/format.h>

#include "analysis/store/run_store.h"
#include "hostlib/os/child_process.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/state/kexec.h"

namespace fs = std::filesystem;

namespace kvmbench::host {

namespace {

constexpr const char* kMark = "# written by kvmbench ab: the hardware watchdog for the experiment's boots";

fs::path watchdog_drop_in() { return machine_root() / "etc/systemd/system.conf.d/kvmbench-ab-watchdog.conf"; }

ProgramRun run_systemctl(const std::string& args) { return run_program({"/bin/sh", "-c", "exec systemctl " + args}, 60); }

}  // namespace

std::string arm_hang_watchdog() {
  if (!systemd_runs_this_machine()) return "no watchdog armed: systemd is not PID 1 here";
  std::error_code ec;
  std::string identity;
  for (const auto& d : fs::directory_iterator(machine_root() / "sys/class/watchdog", ec)) {
    identity = read_kernel_value(d.path() / "identity").value_or(d.path().filename().string());
    break;
  }
  if (identity.empty()) return "no hardware watchdog here (/sys/class/watchdog is empty): a hard hang waits for a power cycle";
  const ProgramRun shown = run_systemctl("show --property=RuntimeWatchdogUSec");
  const std::string value = shown.output.substr(0, shown.output.find('\n'));
  if (shown.ok() && value.starts_with("RuntimeWatchdogUSec=") && value != "RuntimeWatchdogUSec=0" &&
      value != "RuntimeWatchdogUSec=infinity")
    return fmt::format("the hardware watchdog ({}) is petted by systemd already ({})", identity, value);
  try {
    fs::create_directories(watchdog_drop_in().parent_path());
    write_file_atomic(watchdog_drop_in(), fmt::format("{}\n[Manager]\nRuntimeWatchdogSec={}s\n", kMark, kWatchdogSeconds));
  } catch (const std::exception& e) {
    return fmt::format("no watchdog armed: {}", e.what());
  }
  if (const ProgramRun r = run_systemctl("daemon-reexec"); !r.ok()) {
    fs::remove(watchdog_drop_in(), ec);
    return "no watchdog armed: systemctl daemon-reexec failed: " + r.failure();
  }
  return fmt::format("the hardware watchdog ({}) is petted by systemd for the experiment (RuntimeWatchdogSec={}s): a "
                     "kernel that stops scheduling is reset",
                     identity, kWatchdogSeconds);
}

void disarm_hang_watchdog() {
  const auto text = read_kernel_file(watchdog_drop_in());
  if (!text || !text->starts_with(kMark)) return;
  std::error_code ec;
  fs::remove(watchdog_drop_in(), ec);
  (void)run_systemctl("daemon-reexec");
}

}  // namespace kvmbench::host
