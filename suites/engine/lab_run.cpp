#include "suites/engine/lab_run.h"
#include "hostlib/os/host_name.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>

#include <nlohmann/json.hpp>

#include "analysis/model/json_input.h"
#include "analysis/model/units.h"
#include "analysis/store/run_store.h"
#include "hostlib/lab/lab_kernel.h"
#include "hostlib/lab/lab_machine.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/os/lab_env.h"
#include "hostlib/qemu/qemu_paths.h"
#include "suites/framework/errors.h"

extern char** environ;

namespace kvmbench::engine {

namespace fs = std::filesystem;

namespace {

std::string random_id() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}", rd(), rd());
}

// The commands that store run directories, and where: their own --out, else
// the lab's (given to them).
bool stores_runs(const std::string& cmd) { return cmd == "run" || cmd == "ingest"; }

std::optional<std::string> out_option(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out" && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind("--out=", 0) == 0) return args[i].substr(6);
  }
  return std::nullopt;
}

// The request's own checks, before anything is set up: its memory in bytes.
std::uint64_t checked_lab_memory(const LabRequest& o) {
  if (o.command.empty() && o.shell.empty()) usage_error("lab: give a kvmbench command to run inside (e.g. `kvmbench lab probe`)");
  if (!o.command.empty() && !o.shell.empty()) usage_error("lab: give either a command or --lab-sh, not both");
  if (!o.command.empty() && o.command.front() == "lab") usage_error("lab: the lab machine cannot boot a lab of its own");
  const auto mem = parse_bytes(o.memory);
  if (!mem || *mem < (512ull << 20)) usage_error(fmt::format("--lab-memory {}: give a size of at least 512M", o.memory));
  if (o.vcpus < 1 || o.vcpus > 64) usage_error("--lab-vcpus: 1..64");
  if (o.vcpus > 1)
    fmt::print(stderr, "kvmbench lab: warning: with {} vCPUs, KVM guests in the lab fail to boot now and then (hang "
                       "early or panic: QEMU's SVM emulation with more than one vCPU); 1 is the tested setting\n",
               o.vcpus);
  return *mem;
}

host::LabKernel lab_kernel(const LabRequest& o) {
  const fs::path cache = host::default_lab_cache_dir();
  try {
    if (o.kernel.empty()) {
      host::FoundPath deb = host::default_lab_kernel_package();
      if (!deb) cannot_run("no lab kernel: " + deb.reason);
      return host::stage_lab_kernel_package(deb.path, cache);
    }
    const fs::path k = fs::absolute(o.kernel);
    std::error_code ec;
    if (!fs::is_regular_file(k, ec)) usage_error(fmt::format("--lab-kernel {}: no such file", o.kernel));
    if (k.extension() == ".deb") return host::stage_lab_kernel_package(k, cache);
    fs::path modules = o.modules;
    if (modules.empty()) {
      const std::string rel = host::release_of_vmlinuz(k);
      if (rel.empty()) usage_error(fmt::format("--lab-kernel {}: not a .deb and not named vmlinuz-<release>; pass "
                                               "--lab-modules DIR (its /lib/modules/<release>)",
                                               o.kernel));
      modules = fs::path("/lib/modules") / rel;
    }
    if (!fs::is_directory(modules, ec))
      usage_error(fmt::format("--lab-modules {}: not a directory (the kernel's /lib/modules/<release>)",
                              modules.string()));
    return host::stage_lab_kernel_image(k, fs::absolute(modules), cache);
  } catch (const ExitError&) {
    throw;
  } catch (const std::exception& e) {
    if (!is_bad_input(std::current_exception())) throw;  // a bug, not this host
    cannot_run(std::string("lab kernel: ") + e.what());
  }
}

// The command's environment in the lab: a clean one, plus kvmbench's own
// settings of this shell (KVMBENCH_QEMU, KVMBENCH_GUEST_KERNEL, ...) but
// never the state directory (the lab keeps its own knob journal) or the
// lab's own settings.
std::vector<std::pair<std::string, std::string>> lab_environment(const nlohmann::json& identity) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
      {"HOME", "/run/kvmbench-lab/home"},
      {"TMPDIR", "/run/kvmbench-lab/tmp"},
      {"LANG", "C.UTF-8"},
      {host::kLabEnv, identity.dump()},
  };
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string k = kv.substr(0, eq);
    if (k.rfind("KVMBENCH_", 0) != 0 || k == "KVMBENCH_STATE_DIR" || k.rfind("KVMBENCH_LAB", 0) == 0) continue;
    env.emplace_back(k, kv.substr(eq + 1));
  }
  return env;
}

// The machine: its size and limits, its kernel, the command, where it may
// write, and the environment the command runs in (naming the lab, `id`).
host::LabSpec lab_spec(const LabRequest& o, std::uint64_t memory, const fs::path& self, const LabCommand& cmd,
                       const std::string& id) {
  host::LabSpec spec;
  spec.vcpus = o.vcpus;
  spec.memory_mib = memory >> 20;
  spec.timeout_s = o.timeout_s;
  spec.silence_s = o.silence_s;
  spec.tick_s = o.tick_s;
  spec.stall_grace_s = std::min(spec.stall_grace_s, o.silence_s);
  spec.cwd = fs::current_path();
  spec.hostname = host::host_name() + "-lab";
  spec.extra_cmdline = o.append;
  spec.kvmbench = self;
  spec.command = cmd.argv;
  spec.boot_through_grub = cmd.boot_through_grub;
  if (!cmd.out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(cmd.out_dir, ec);
    if (ec) usage_error(fmt::format("cannot create {}: {}", cmd.out_dir.string(), ec.message()));
    spec.writable.push_back(fs::canonical(cmd.out_dir));
  }
  spec.kernel = lab_kernel(o);
  const nlohmann::json identity = {{"id", id},
                                   {"host", host::host_name()},
                                   {"kernel", spec.kernel.release},
                                   {"kernel_origin", spec.kernel.origin},
                                   {"accel", "tcg"},
                                   {"cpu", host::kLabCpu},
                                   {"vcpus", spec.vcpus},
                                   {"memory_mib", spec.memory_mib}};
  spec.env = lab_environment(identity);
  if (!o.shell.empty()) spec.env.emplace_back("KVMBENCH_LAB_OUT", cmd.out_dir.string());
  if (!cmd.ab_state.empty()) {
    spec.env.emplace_back("KVMBENCH_AB_STATE", cmd.ab_state.string());
    // Every boot of an experiment (2n + 2 of them) in one lab.
    if (o.timeout_s == kDefaultLabTimeout) spec.timeout_s = kDefaultLabTimeout * 4;
  }
  return spec;
}

// Run directories this lab's command stored: meta.json's lab.id is ours.
std::vector<fs::path> runs_of_lab(const fs::path& out_dir, const std::string& id) {
  std::vector<fs::path> runs;
  std::error_code ec;
  for (auto& de : fs::directory_iterator(out_dir, ec)) {
    if (!de.is_directory()) continue;
    try {
      auto meta = parse_json_input(read_file(de.path() / "meta.json"));
      if (meta.contains("lab") && meta["lab"].is_object() && meta["lab"].value("id", "") == id)
        runs.push_back(de.path());
    } catch (const std::exception&) {
      // Not a run (of this lab or any): passed over. A bug is not.
      if (!is_bad_input(std::current_exception())) throw;
    }
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

// Adds what only the host knows to a run the lab stored: the console, boot
// time and QEMU command line of the machine it ran on; and, when the machine
// died under the run (killed by the watchdog or a second Ctrl-C), the end
// the run itself could not write.
void annotate_run(const fs::path& run, const host::LabResult& r) {
  write_file_atomic(run / "raw" / "lab-console.log", r.console);
  if (!r.hung_state.empty()) write_file_atomic(run / "raw" / "lab-vcpus.txt", r.hung_state);
  auto meta = parse_json_input(read_file(run / "meta.json"));
  auto& lab = meta["lab"];
  lab["boot_s"] = r.boot_s;
  lab["wall_s"] = r.wall_s;
  lab["qemu_argv"] = r.qemu_argv;
  lab["console"] = "raw/lab-console.log";
  if (!r.hung_state.empty()) lab["vcpus_at_watchdog"] = "raw/lab-vcpus.txt";
  if (r.stalled) lab["stalled"] = r.reason.substr(0, r.reason.find('\n'));
  if (meta.value("status", "") == "running") {
    meta["status"] = r.status == host::LabStatus::interrupted ? "interrupted" : "failed";
    meta["error"] = "the lab machine stopped before the run ended: " + r.reason.substr(0, r.reason.find('\n'));
    meta["end_time"] = utc_timestamp_iso();
  }
  write_file_atomic(run / "meta.json", meta.dump(2) + "\n");
}

// The newest consoles kept in the lab's cache; older ones go.
constexpr std::size_t kCachedConsoles = 20;

// Removes all but the newest `keep` lab-*.console.log (and their
// .vcpus.txt) of `dir`: their names begin with the time.
void prune_consoles(const fs::path& dir, std::size_t keep) {
  std::vector<fs::path> logs;
  std::error_code ec;
  for (const auto& de : fs::directory_iterator(dir, ec)) {
    const std::string name = de.path().filename().string();
    if (name.starts_with("lab-") && name.ends_with(".console.log")) logs.push_back(de.path());
  }
  if (logs.size() <= keep) return;
  std::sort(logs.begin(), logs.end());
  for (std::size_t i = 0; i + keep < logs.size(); ++i) {
    fs::remove(logs[i], ec);
    std::string vcpus = logs[i].string();
    vcpus.replace(vcpus.size() - std::string(".console.log").size(), std::string::npos, ".vcpus.txt");
    fs::remove(vcpus, ec);
  }
}

// <dir>/lab-<time>-<id>.console.log (and the vCPUs' registers beside it
// when the machine was killed hung), where <dir> is the command's runs'
// directory, else --lab-out, else the lab's cache (consoles/, the newest
// 20): a `lab probe` leaves nothing among the runs it was not asked to.
void keep_console(const LabRequest& o, const fs::path& out_dir, const std::string& id, const host::LabResult& r) {
  const bool cached = out_dir.empty() && !o.out_given;
  const fs::path dir = !out_dir.empty() ? out_dir
                       : cached        ? host::default_lab_cache_dir() / "consoles"
                                       : fs::absolute(o.out);
  const std::string stem = fmt::format("lab-{}-{}", utc_timestamp_compact(), id);
  try {
    fs::create_directories(dir);
    if (cached) prune_consoles(dir, kCachedConsoles - 1);
    write_file_atomic(dir / (stem + ".console.log"), r.console);
    if (!r.hung_state.empty()) write_file_atomic(dir / (stem + ".vcpus.txt"), r.hung_state);
    fmt::print(stderr, "kvmbench lab: lab console in {}\n", (dir / (stem + ".console.log")).string());
  } catch (const std::exception& e) {
    if (!is_bad_input(std::current_exception())) throw;
    fmt::print(stderr, "kvmbench lab: warning: could not keep the lab's console in {}: {}\n", dir.string(), e.what());
  }
}

// What the host keeps of the machine: its console in --lab-console, in
// each run its command stored (with what only the host knows), else beside
// the runs.
void keep_what_the_lab_showed(const LabRequest& o, const LabCommand& cmd, const std::string& id,
                              const host::LabResult& r) {
  if (!o.console.empty() && r.status != host::LabStatus::cannot_run) write_file_atomic(o.console, r.console);
  std::size_t annotated = 0;
  if (!cmd.out_dir.empty())
    for (const auto& run : runs_of_lab(cmd.out_dir, id)) {
      try {
        annotate_run(run, r);
        ++annotated;
        fmt::print(stderr, "kvmbench lab: {} (lab console in raw/lab-console.log)\n", run.string());
      } catch (const std::exception& e) {
        if (!is_bad_input(std::current_exception())) throw;
        fmt::print(stderr, "kvmbench lab: warning: could not add the lab's console to {}: {}\n", run.string(), e.what());
      }
    }
  // No run directory holds it (a probe, a machine that never got the
  // command going): the console is kept beside the runs all the same.
  if (annotated == 0 && r.status != host::LabStatus::cannot_run) keep_console(o, cmd.out_dir, id, r);
}

// The command's exit status, or what the way the machine ended means.
int exit_status_of(const host::LabResult& r) {
  switch (r.status) {
    case host::LabStatus::cannot_run:
      cannot_run("lab: " + r.reason);
    case host::LabStatus::failed:
      // The machine stalled, its kernel faulted, it could not be set up:
      // the run failed (the command line was fine).
      throw ExitError(kExitFailed, "lab: " + r.reason);
    case host::LabStatus::interrupted:
      fmt::print(stderr, "kvmbench lab: {} after {:.1f} s\n", r.reason, r.wall_s);
      return kExitInterrupted;
    case host::LabStatus::ok:
      break;
  }
  fmt::print(stderr, "kvmbench lab: the command exited with {} after {:.1f} s in the lab (boot {:.1f} s)\n",
             r.command_status, r.wall_s, r.boot_s);
  return r.command_status;
}

}  // namespace

LabCommand lab_command(const LabRequest& o, const fs::path& self) {
  LabCommand cmd;
  if (!o.shell.empty()) {
    cmd.argv = {"/bin/sh", "-c", o.shell};
    cmd.out_dir = fs::absolute(o.out);
    return cmd;
  }
  cmd.argv = {self.string()};
  cmd.argv.insert(cmd.argv.end(), o.command.begin(), o.command.end());
  if (o.command.front() == "ab") {
    // Its runs and its state on the host: the lab's /var/lib is gone with
    // each boot, and the experiment goes on across kexecs.
    const auto dashes = std::find(cmd.argv.begin(), cmd.argv.end(), "--");
    const std::vector<std::string> own(cmd.argv.begin(), dashes);
    cmd.out_dir = fs::absolute(out_option(own).value_or(o.out));
    if (!out_option(own)) cmd.argv.insert(dashes, {"--out", cmd.out_dir.string()});
    cmd.ab_state = cmd.out_dir / "ab-state";
    // Each boot through the boot loader: the lab boots as a lab machine
    // does, from a disk with GRUB, and a reboot resets it.
    for (std::size_t i = 0; i < own.size(); ++i)
      if (own[i] == "--boot-via=reboot" || (own[i] == "--boot-via" && i + 1 < own.size() && own[i + 1] == "reboot"))
        cmd.boot_through_grub = true;
  } else if (stores_runs(o.command.front())) {
    if (auto own = out_option(o.command)) {
      cmd.out_dir = fs::absolute(*own);
    } else {
      cmd.out_dir = fs::absolute(o.out);
      cmd.argv.push_back("--out");
      cmd.argv.push_back(cmd.out_dir.string());
    }
  }
  return cmd;
}

int run_in_lab(const LabRequest& o) {
  host::install_interrupt_handlers();
  const std::uint64_t memory = checked_lab_memory(o);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) cannot_run("cannot find this kvmbench binary (/proc/self/exe): " + ec.message());
  const LabCommand cmd = lab_command(o, self);
  const std::string id = random_id();
  const host::LabSpec spec = lab_spec(o, memory, self, cmd, id);

  fmt::print(stderr, "kvmbench lab: booting the emulated lab machine (QEMU TCG, -cpu {}, {} vCPU{}, {}; kernel {}{})\n",
             host::kLabCpu, spec.vcpus, spec.vcpus == 1 ? "" : "s", format_bytes(memory), spec.kernel.release,
             spec.boot_through_grub ? "; from a disk through SeaBIOS and GRUB, a reboot a reset" : "");
  host::LabStreams streams;
  streams.out = [](std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  };
  streams.err = [](std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), stderr);
    std::fflush(stderr);
  };
  streams.note = [](std::string_view s) { fmt::print(stderr, "kvmbench lab: {}\n", s); };
  const host::LabResult r = host::run_lab(spec, streams);
  keep_what_the_lab_showed(o, cmd, id, r);
  return exit_status_of(r);
}

}  // namespace kvmbench::engine
