// kvmbench lab [LAB OPTIONS] COMMAND [ARGS...]: boot the emulated lab
// machine (hostlib/lab/lab_machine.h: QEMU TCG with SVM and nested paging, a
// real kvm_amd) and run `kvmbench COMMAND ARGS...` inside it, e.g.
//   kvmbench lab probe
//   kvmbench lab run asid --preset document --set npt=on,off -r 2
// The lab's own options all start with --lab- and come before COMMAND, so
// they never clash with the command's. Run directories land in the host's
// results/runs/ (or --lab-out, or the command's own --out) with the lab's
// console as raw/lab-console.log; the command's exit status is passed
// through. Everything measured in the lab is `emulated`.
#include <fmt/format.h>

#include <algorithm>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <set>

#include "analysis/model/json_input.h"
#include "analysis/store/run_store.h"
#include "analysis/model/units.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/lab/lab_kernel.h"
#include "hostlib/lab/lab_machine.h"
#include "hostlib/os/lab_env.h"
#include "hostlib/qemu/qemu_paths.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

extern char** environ;

namespace kvmbench::cli {

namespace fs = std::filesystem;

namespace {

constexpr double kDefaultLabTimeout = 1800;

struct LabOptions {
  // One vCPU: with two, a KVM guest inside failed to boot (hung early or
  // panicked) in 3 of 8 tries, with one in none of 8 (QEMU 7.2's SVM
  // emulation; the figures are in the commit that chose 1).
  int vcpus = 1;
  std::string memory = "4G";
  std::string kernel, modules, append;
  double timeout_s = kDefaultLabTimeout;
  double silence_s = 300;
  double tick_s = 1;
  std::string out = "results/runs";
  std::string console;
  std::string shell;
  std::vector<std::string> command;
};

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || !*buf || std::string(buf) == "(none)") return "localhost";
  return buf;
}

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

host::LabKernel lab_kernel(const LabOptions& o) {
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

// <lab-out>/lab-<time>-<id>.console.log (and the vCPUs' registers beside
// it when the machine was killed hung).
void keep_console(const LabOptions& o, const fs::path& out_dir, const std::string& id, const host::LabResult& r) {
  const fs::path dir = out_dir.empty() ? fs::absolute(o.out) : out_dir;
  const std::string stem = fmt::format("lab-{}-{}", utc_timestamp_compact(), id);
  try {
    fs::create_directories(dir);
    write_file_atomic(dir / (stem + ".console.log"), r.console);
    if (!r.hung_state.empty()) write_file_atomic(dir / (stem + ".vcpus.txt"), r.hung_state);
    fmt::print(stderr, "kvmbench lab: lab console in {}\n", (dir / (stem + ".console.log")).string());
  } catch (const std::exception& e) {
    fmt::print(stderr, "kvmbench lab: warning: could not keep the lab's console in {}: {}\n", dir.string(), e.what());
  }
}

int run_lab_command(const LabOptions& o) {
  host::install_interrupt_handlers();
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

  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) cannot_run("cannot find this kvmbench binary (/proc/self/exe): " + ec.message());

  host::LabSpec spec;
  spec.vcpus = o.vcpus;
  spec.memory_mib = *mem >> 20;
  spec.timeout_s = o.timeout_s;
  spec.silence_s = o.silence_s;
  spec.tick_s = o.tick_s;
  spec.stall_grace_s = std::min(spec.stall_grace_s, o.silence_s);
  spec.cwd = fs::current_path();
  spec.hostname = hostname() + "-lab";
  spec.extra_cmdline = o.append;
  spec.kvmbench = self;
  fs::path out_dir, ab_state;
  if (!o.shell.empty()) {
    spec.command = {"/bin/sh", "-c", o.shell};
    out_dir = fs::absolute(o.out);
  } else {
    spec.command = {self.string()};
    spec.command.insert(spec.command.end(), o.command.begin(), o.command.end());
    if (o.command.front() == "ab") {
      // Its runs and its state on the host: the lab's /var/lib is gone with
      // each boot, and the experiment goes on across kexecs.
      const auto dashes = std::find(spec.command.begin(), spec.command.end(), "--");
      const std::vector<std::string> own(spec.command.begin(), dashes);
      out_dir = fs::absolute(out_option(own).value_or(o.out));
      if (!out_option(own)) spec.command.insert(spec.command.begin() + (dashes - spec.command.begin()), {"--out", out_dir.string()});
      ab_state = out_dir / "ab-state";
    } else if (stores_runs(o.command.front())) {
      if (auto own = out_option(o.command)) {
        out_dir = fs::absolute(*own);
      } else {
        out_dir = fs::absolute(o.out);
        spec.command.push_back("--out");
        spec.command.push_back(out_dir.string());
      }
    }
  }
  if (!out_dir.empty()) {
    fs::create_directories(out_dir, ec);
    if (ec) usage_error(fmt::format("cannot create {}: {}", out_dir.string(), ec.message()));
    spec.writable.push_back(fs::canonical(out_dir));
  }
  spec.kernel = lab_kernel(o);

  const std::string id = random_id();
  const nlohmann::json identity = {{"id", id},
                                   {"host", hostname()},
                                   {"kernel", spec.kernel.release},
                                   {"kernel_origin", spec.kernel.origin},
                                   {"accel", "tcg"},
                                   {"cpu", host::kLabCpu},
                                   {"vcpus", spec.vcpus},
                                   {"memory_mib", spec.memory_mib}};
  spec.env = lab_environment(identity);
  if (!o.shell.empty()) spec.env.emplace_back("KVMBENCH_LAB_OUT", out_dir.string());
  if (!ab_state.empty()) {
    spec.env.emplace_back("KVMBENCH_AB_STATE", ab_state.string());
    // Every boot of an experiment (2n + 2 of them) in one lab.
    if (o.timeout_s == kDefaultLabTimeout) spec.timeout_s = kDefaultLabTimeout * 4;
  }

  fmt::print(stderr, "kvmbench lab: booting the emulated lab machine (QEMU TCG, -cpu {}, {} vCPU{}, {}; kernel {})\n",
             host::kLabCpu, spec.vcpus, spec.vcpus == 1 ? "" : "s", format_bytes(*mem), spec.kernel.release);
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

  if (!o.console.empty() && r.status != host::LabStatus::cannot_run) write_file_atomic(o.console, r.console);
  std::size_t annotated = 0;
  if (!out_dir.empty())
    for (const auto& run : runs_of_lab(out_dir, id)) {
      try {
        annotate_run(run, r);
        ++annotated;
        fmt::print(stderr, "kvmbench lab: {} (lab console in raw/lab-console.log)\n", run.string());
      } catch (const std::exception& e) {
        fmt::print(stderr, "kvmbench lab: warning: could not add the lab's console to {}: {}\n", run.string(), e.what());
      }
    }
  // No run directory holds it (a probe, a machine that never got the
  // command going): the console is kept beside the runs all the same.
  if (annotated == 0 && r.status != host::LabStatus::cannot_run) keep_console(o, out_dir, id, r);
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

void add_lab_command(CLI::App& app) {
  auto o = std::make_shared<LabOptions>();
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
              "Exit status: the command's; 1 when the lab machine failed under it (stalled, its kernel faulted, "
              "it could not be set up), 77 when this host cannot boot the lab, 130 interrupted.");
  cmd->callback([cmd, o] {
    o->command = cmd->remaining();
    int code = run_lab_command(*o);
    if (code != kExitOk) throw ExitError(code, "");
  });
}

}  // namespace kvmbench::cli
