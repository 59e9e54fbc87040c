#include "hostlib/lab/lab_machine.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "analysis/model/json_input.h"
#include "analysis/parse/kernel_console_trouble.h"
#include "analysis/model/last_lines.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/lab/lab_boot_disk.h"
#include "hostlib/lab/lab_stall_watch.h"
#include "hostlib/qemu/qemu_paths.h"
#include "hostlib/os/child_process.h"
#include "hostlib/qemu/qemu_qmp.h"
#include "hostlib/os/scoped_temp_dir.h"

namespace kvmbench::host {

namespace fs = std::filesystem;

std::vector<std::string> build_lab_qemu_argv(const LabSpec& spec, const LabPaths& p) {
  if (spec.vcpus < 1 || spec.vcpus > 64) throw std::invalid_argument("lab vCPUs must be 1..64");
  if (spec.memory_mib < 512) throw std::invalid_argument("the lab machine needs at least 512 MiB");
  const std::string mem = fmt::format("{}M", spec.memory_mib);
  const std::string cmdline = lab_kernel_cmdline(spec);
  std::vector<std::string> boot;
  if (spec.boot_through_grub) {
    // The firmware boots the disk; a reboot is a reset that boots it again.
    if (p.boot_disk.empty()) throw std::invalid_argument("booting through GRUB needs the lab's boot disk");
    boot = {"-drive", "file=" + p.boot_disk.string() + ",if=none,id=bootdisk,format=raw", "-device",
            "nvme,drive=bootdisk,serial=kvmbench-lab"};
  } else {
    // A reboot ends the machine (a kernel that panics, with panic=-1).
    boot = {"-no-reboot", "-kernel", spec.kernel.vmlinuz.string(), "-initrd", p.initramfs.string(),
            // No tsc=reliable here (the kvmbench guests have it): with it, KVM
            // guests in the lab stalled for minutes waiting for their timers
            // (soft lockups, "timer wakeup didn't happen") in network runs.
            "-append", cmdline};
  }
  std::vector<std::string> argv = {p.qemu.string(), "-nodefaults", "-no-user-config", "-display", "none",
          // virtiofs (vhost-user) needs the guest's RAM shared with virtiofsd.
          "-machine", "q35,memory-backend=labmem",
          // One TCG thread for all vCPUs: with a thread each (MTTCG), the
          // lab wedged within minutes of running KVM guests (both vCPUs
          // looping in the kernel with interrupts off), and on 2 host cores
          // it was slower, not faster.
          "-accel", "tcg,thread=single", "-cpu", kLabCpu,
          "-smp", std::to_string(spec.vcpus), "-m", mem,
          "-object", fmt::format("memory-backend-memfd,id=labmem,size={},share=on", mem),
          "-chardev", "socket,id=hostfs,path=" + p.virtiofs_socket.string(),
          "-device", fmt::format("vhost-user-fs-pci,chardev=hostfs,tag={}", kLabHostFsTag),
          "-chardev", "file,id=con0,path=" + p.console_log.string(), "-serial", "chardev:con0",
          // ttyS1: the host's control line (a Ctrl-C sent in as "INT").
          "-chardev", "socket,id=ctl0,path=" + p.control_socket.string() + ",server=on,wait=off",
          "-serial", "chardev:ctl0", "-monitor", "none",
          // QMP: where a hung lab is looked at (its vCPUs' registers).
          "-qmp", "unix:" + p.qmp_socket.string() + ",server=on,wait=off"};
  argv.insert(argv.end(), boot.begin(), boot.end());
  return argv;
}

std::vector<std::string> build_virtiofsd_argv(const fs::path& virtiofsd, bool rust_style, const fs::path& socket) {
  // sandbox=chroot: the namespace sandbox pivots into the shared directory,
  // which fails for "/" ("pivot_root: Device or resource busy"). There is no
  // read-only option in QEMU 7.2's daemon: lab-init mounts the share
  // read-only and binds only the writable directories.
  if (rust_style)
    return {virtiofsd.string(), "--socket-path=" + socket.string(), "--shared-dir=/", "--cache=auto",
            "--sandbox=chroot"};
  return {virtiofsd.string(), "--socket-path=" + socket.string(), "-o", "source=/", "-o", "cache=auto",
          "-o", "sandbox=chroot"};
}

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string lab_config_text(const LabSpec& spec, const fs::path& scratch) {
  std::string writable;
  for (const auto& d : spec.writable) writable += d.string() + "\n";
  writable += scratch.string() + "\n";
  return fmt::format("LAB_HOSTNAME={}\nLAB_SCRATCH={}\nLAB_WRITABLE={}\nLAB_BOOT_DISK={}\n",
                     shell_quote(spec.hostname), shell_quote(scratch.string()), shell_quote(writable),
                     spec.boot_through_grub ? kLabBootPartition : "");
}

std::string lab_kernel_cmdline(const LabSpec& spec) {
  std::string cmdline = kLabKernelCmdline;
  if (!spec.extra_cmdline.empty()) cmdline += " " + spec.extra_cmdline;
  return cmdline;
}

std::string lab_command_script(const LabSpec& spec) {
  if (spec.command.empty()) throw std::invalid_argument("the lab needs a command to run");
  std::string s = "# written by kvmbench lab: the command and its environment\n";
  // lab-init sends a Ctrl-C to the process group of this pid (exec keeps it).
  s += "echo $$ >/run/kvmbench-lab/pid\n";
  for (const auto& [k, v] : spec.env) s += fmt::format("export {}={}\n", k, shell_quote(v));
  // A `kvmbench` on PATH (a --lab-sh script calls it by name): the host's
  // binary that runs the lab.
  s += "mkdir -p \"$HOME\" \"$TMPDIR\" /run/kvmbench-lab/bin\n";
  const std::string kvmbench = spec.kvmbench.empty() ? spec.command.front() : spec.kvmbench.string();
  s += fmt::format("ln -sf {} /run/kvmbench-lab/bin/kvmbench\n", shell_quote(kvmbench));
  s += "export PATH=/run/kvmbench-lab/bin:$PATH\n";
  s += fmt::format("cd {} || {{ echo \"kvmbench lab: cannot enter {} inside the lab\" >&2; exit 2; }}\n",
                   shell_quote(spec.cwd.string()), spec.cwd.string());
  s += "exec";
  for (const auto& a : spec.command) s += " " + shell_quote(a);
  return s + "\n";
}

LabConsole parse_lab_console(std::string_view text) {
  LabConsole c;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();  // a last line without its newline counts too
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    auto rest = [&](std::string_view marker) -> std::optional<std::string_view> {
      const auto at = line.find(marker);
      if (at == std::string_view::npos) return std::nullopt;
      auto r = line.substr(at + marker.size());
      if (!r.empty() && r.front() == ' ') r.remove_prefix(1);
      return r;
    };
    if (rest("KVMBENCH-LAB-BOOTED")) {
      c.booted = true;
      ++c.boots;
    }
    if (auto r = rest(std::string(kLabGrubMarker) + " entry=")) c.grub_entries.emplace_back(*r);
    if (auto r = rest("KVMBENCH-LAB-READY")) {
      c.ready = true;
      c.ready_line = std::string(*r);
    }
    if (auto r = rest("KVMBENCH-LAB-ERROR")) c.errors.emplace_back(*r);
    if (auto r = rest("KVMBENCH-LAB-WARNING")) c.warnings.emplace_back(*r);
    if (auto r = rest("KVMBENCH-LAB-END")) {
      c.ended = true;
      if (r->starts_with("status=")) {
        try {
          c.end_status = std::stoi(std::string(r->substr(7)));
        } catch (const std::exception&) {
          c.end_status = -1;
        }
      }
    }
  }
  return c;
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_all(const fs::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

// The lab's files on the host, removed with everything in them. Each holds
// its owner's pid: a lab whose kvmbench was killed (SIGKILL, a second
// Ctrl-C) leaves its directory behind, and the next lab removes it.
struct Scratch {
  Scratch() : dir("kvmbench-lab"), path(dir.path()) {
    std::ofstream(path / "owner") << ::getpid() << "\n";
    remove_stale();  // not this one: its owner lives
  }
  ScopedTempDir dir;
  const fs::path& path;
  static void remove_stale() {
    std::error_code ec;
    for (auto& de : fs::directory_iterator(fs::temp_directory_path(), ec)) {
      if (de.path().filename().string().rfind("kvmbench-lab-", 0) != 0) continue;
      std::ifstream in(de.path() / "owner");
      long pid = 0;
      if (!(in >> pid) || pid <= 0) continue;  // not ours, or being made
      if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(de.path(), ec);
    }
  }
};

// Follows a file another process (here: the lab, through virtiofsd) appends
// to, handing each new piece to `sink`.
class FileFollower {
 public:
  explicit FileFollower(fs::path p) : path_(std::move(p)) {}
  // True when there was something new.
  bool poll(const std::function<void(std::string_view)>& sink) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return false;
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string chunk(std::istreambuf_iterator<char>(in), {});
    offset_ += chunk.size();
    if (!chunk.empty() && sink) sink(chunk);
    return !chunk.empty();
  }

 private:
  fs::path path_;
  std::size_t offset_ = 0;
};

// Writes one line to the lab's control port (QEMU's socket chardev).
// `wait`: whether to wait for QEMU to take the connection. The watch loop's
// tick does not: a QEMU slow to accept (its main loop starved) would
// otherwise hold the loop that kills a hung lab; that tick is skipped.
std::string send_control(const fs::path& socket, std::string_view line, bool wait = true) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (wait ? 0 : SOCK_NONBLOCK), 0);
  if (fd < 0) return std::strerror(errno);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket.string().size() >= sizeof addr.sun_path) {
    ::close(fd);
    return "control socket path too long";
  }
  std::strcpy(addr.sun_path, socket.c_str());
  std::string err;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    err = std::strerror(errno);
  } else {
    std::string msg = std::string(line) + "\n";
    if (::write(fd, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size())) err = std::strerror(errno);
  }
  // QEMU keeps reading after we close: the line is delivered.
  ::close(fd);
  return err;
}

// What a lab that overran its time was doing, for the report: the kernel's
// task and CPU dumps on the console (asked for over the control line; only
// a lab whose kernel still takes interrupts answers) and every vCPU's
// registers as QEMU sees them (answered even by a wedged kernel).
std::string hung_lab_state(const LabPaths& p, ChildProcess& vm) {
  send_control(p.control_socket, "SYSRQ w");
  send_control(p.control_socket, "SYSRQ l");
  for (auto t0 = Clock::now(); since(t0) < 3 && !vm.poll_exit();) {
    vm.drain_output();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  try {
    QmpClient qmp(p.qmp_socket, 2);
    auto regs = qmp.execute("human-monitor-command", {{"command-line", "info registers -a"}}, 5);
    return regs.is_string() ? regs.get<std::string>() : regs.dump();
  } catch (const std::exception& e) {
    return std::string("(QMP: ") + e.what() + ")";
  }
}

bool rust_virtiofsd(const fs::path& virtiofsd) {
  ProgramRun r = run_program({virtiofsd.string(), "--help"}, 10);
  return r.output.find("--shared-dir") != std::string::npos;
}

}  // namespace

LabResult run_lab(const LabSpec& spec, const LabStreams& streams) {
  LabResult r;
  auto cannot = [&](std::string why) {
    r.status = LabStatus::cannot_run;
    r.reason = std::move(why);
    return r;
  };
  auto note = [&](const std::string& s) {
    if (streams.note) streams.note(s);
  };
  const std::string script = lab_command_script(spec);  // validates the command

  // --- what the lab needs from this host --------------------------------
  FoundPath qemu = find_qemu();
  if (!qemu) return cannot(qemu.reason);
  FoundPath virtiofsd = find_virtiofsd();
  if (!virtiofsd) return cannot(virtiofsd.reason);
  FoundPath base = lab_base_initramfs();
  if (!base) return cannot(base.reason);
  const fs::path mkinitramfs = guest_bin_dir() / "kvmbench-mkinitramfs";
  if (::access(mkinitramfs.c_str(), X_OK) != 0) return cannot(mkinitramfs.string() + " not built");
  if (::geteuid() != 0)
    return cannot("the lab shares this host's filesystem through virtiofsd, which needs root (sandbox=chroot)");

  std::unique_ptr<Scratch> scratch;
  try {
    scratch = std::make_unique<Scratch>();
  } catch (const std::exception& e) {
    return cannot(std::string("no temporary directory for the lab: ") + e.what());
  }
  const fs::path dir = scratch->path;
  LabPaths paths{qemu.path,           dir / "lab.cpio", dir / "console.log", dir / "hostfs.sock",
                 dir / "control.sock", dir / "qmp.sock", spec.boot_through_grub ? dir / "boot-disk.img" : ""};

  // --- the initramfs: lab-init and busybox, then modules and the command -
  try {
    write_all(dir / "config", lab_config_text(spec, dir));
    // What the running kernel is, for a command that boots it again with
    // kexec (`kvmbench ab`): the files this machine booted from, on the
    // host's filesystem it sees.
    // Through GRUB, the files on the boot disk, at /boot inside, where
    // `ab` finds a running kernel's image and initrd by their Debian names.
    LabSpec booted = spec;
    booted.env.emplace_back("KVMBENCH_AB_RUNNING_IMAGE", spec.boot_through_grub
                                                             ? "/boot/vmlinuz-" + spec.kernel.release
                                                             : spec.kernel.vmlinuz.string());
    if (!spec.boot_through_grub) booted.env.emplace_back("KVMBENCH_AB_RUNNING_INITRD", paths.initramfs.string());
    booted.env.emplace_back("KVMBENCH_AB_RUNNING_CMDLINE", lab_kernel_cmdline(spec));
    write_all(dir / "command", lab_command_script(booted));
    write_all(dir / "entries", fmt::format("file:lab/config:{}\nfile:lab/command:{}\ntree:lib/modules:{}\n",
                                           (dir / "config").string(), (dir / "command").string(),
                                           (spec.kernel.modules_root / "lib/modules").string()));
    ProgramRun mk = run_program({mkinitramfs.string(), "-o", (dir / "extra.cpio").string(), "@" + (dir / "entries").string()}, 60);
    if (!mk.ok()) return cannot("building the lab's initramfs failed: " + mk.failure());
    write_all(paths.initramfs, read_all(base.path) + read_all(dir / "extra.cpio"));
  } catch (const std::exception& e) {
    return cannot(std::string("cannot prepare the lab's initramfs: ") + e.what());
  }
  if (spec.boot_through_grub) {
    try {
      build_lab_boot_disk(spec.kernel.vmlinuz, spec.kernel.release, paths.initramfs, lab_kernel_cmdline(spec), dir,
                          paths.boot_disk);
    } catch (const std::exception& e) {
      return cannot(std::string("cannot build the lab's boot disk (GRUB): ") + e.what());
    }
  }

  // --- virtiofsd, then QEMU ------------------------------------------------
  const auto vfs_argv = build_virtiofsd_argv(virtiofsd.path, rust_virtiofsd(virtiofsd.path), paths.virtiofs_socket);
  std::unique_ptr<ChildProcess> vfsd;
  try {
    vfsd = std::make_unique<ChildProcess>(vfs_argv);
  } catch (const std::exception& e) {
    return cannot(std::string("cannot start virtiofsd: ") + e.what());
  }
  for (auto t0 = Clock::now(); !fs::exists(paths.virtiofs_socket); std::this_thread::sleep_for(std::chrono::milliseconds(10))) {
    vfsd->drain_output();
    if (vfsd->poll_exit() || since(t0) > 10)
      return cannot(fmt::format("virtiofsd did not start: {}", last_lines(vfsd->output(), 3)));
  }

  r.qemu_argv = build_lab_qemu_argv(spec, paths);
  const auto t0 = Clock::now();
  std::unique_ptr<ChildProcess> vm;
  try {
    vm = std::make_unique<ChildProcess>(r.qemu_argv);
  } catch (const std::exception& e) {
    return cannot(std::string("cannot start QEMU: ") + e.what());
  }

  // --- watch ---------------------------------------------------------------
  FileFollower out(dir / "stdout"), err(dir / "stderr");
  std::optional<Clock::time_point> interrupt_sent;
  std::size_t console_seen = 0;
  std::string failure;
  LabStallWatch watch({spec.silence_s, spec.stall_grace_s});
  auto watched = Clock::now() - std::chrono::hours(1);
  auto ticked = watched;
  bool command_wrote = false;
  for (;;) {
    vm->drain_output();
    vfsd->drain_output();
    command_wrote |= out.poll(streams.out);
    command_wrote |= err.poll(streams.err);
    const std::string console = read_all(paths.console_log);
    if (since(watched) >= 1) {
      watched = Clock::now();
      LabWatchVerdict v = watch.observe(since(t0), console, command_wrote);
      command_wrote = false;
      for (const auto& n : v.notes) note(n);
      if (!v.stalled.empty() && !interrupt_sent) {
        failure = v.stalled;
        r.stalled = true;
        r.hung_state = hung_lab_state(paths, *vm);
        break;
      }
    }
    if (console.size() != console_seen) {
      console_seen = console.size();
      LabConsole now = parse_lab_console(console);
      if (now.ready && !r.markers.ready) {
        r.boot_s = since(t0);
        note(fmt::format("lab machine up in {:.1f} s ({})", r.boot_s, now.ready_line));
        for (const auto& w : now.warnings) note("lab: " + w);
      }
      r.markers = std::move(now);
    }
    if (vm->poll_exit()) break;
    if (spec.tick_s > 0 && r.markers.ready && since(ticked) >= spec.tick_s) {
      ticked = Clock::now();
      send_control(paths.control_socket, "TICK", false);  // best effort: a lab that went away is seen above
    }
    if (interrupted() && !interrupt_sent) {
      interrupt_sent = Clock::now();
      const std::string e = r.markers.ready ? send_control(paths.control_socket, "INT") : "not started yet";
      if (e.empty())
        note(fmt::format("interrupt sent into the lab; waiting up to {:.0f} s for the command to stop", spec.interrupt_grace_s));
      else
        interrupt_sent = Clock::now() - std::chrono::hours(1);  // nothing to wait for: stop the machine
    }
    if (interrupt_sent && since(*interrupt_sent) > spec.interrupt_grace_s) {
      failure = "interrupted, and the lab did not stop in time";
      break;
    }
    if (since(t0) > spec.timeout_s) {
      failure = fmt::format("the lab machine did not finish within {:.0f} s (--lab-timeout)", spec.timeout_s);
      r.hung_state = hung_lab_state(paths, *vm);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!vm->exited()) {
    r.killed_by_watchdog = true;
    vm->kill_and_reap(2.0);
  }
  r.wall_s = since(t0);
  vfsd->kill_and_reap(1.0);
  out.poll(streams.out);
  err.poll(streams.err);
  r.console = read_all(paths.console_log);
  r.markers = parse_lab_console(r.console);

  // --- what happened ----------------------------------------------------------
  const std::string status_text = read_all(dir / "status");
  if (failure.empty() && !status_text.empty()) {
    try {
      r.command_status = std::stoi(status_text);
    } catch (const std::exception&) {
      failure = "the lab wrote an unreadable exit status '" + status_text + "'";
    }
  } else if (failure.empty()) {
    if (!r.markers.errors.empty()) {
      failure = "the lab could not be set up: " + r.markers.errors.front();
    } else {
      failure = r.markers.booted ? "the lab machine stopped before the command finished"
                                 : fmt::format("the lab machine did not boot (QEMU exit {})", vm->exit_code());
      // What QEMU said (the console comes below).
      if (const std::string qemu_said = last_lines(vm->output(), 5); !qemu_said.empty()) failure += ": " + qemu_said;
    }
  }
  if (interrupt_sent) {
    r.status = LabStatus::interrupted;
    r.reason = failure.empty() ? "interrupted" : failure;
  } else if (!failure.empty()) {
    r.status = LabStatus::failed;
    // Where the kernel's trouble starts, not the registers it printed last;
    // its first line in the headline (meta.json's error).
    if (auto fault = first_kernel_fault(r.console))
      r.reason = fmt::format("{}; the lab kernel reported \"{}\"", failure, fault->line) +
                 "\n--- lab console, from the kernel's first fault on ---\n" +
                 console_excerpt(r.console, fault->offset, 40);
    else if (auto stall = first_kernel_stall(r.console))
      r.reason = failure + "\n--- lab console, from the kernel's first stall report on ---\n" +
                 console_excerpt(r.console, stall->offset, 40);
    else
      r.reason = failure + "\n--- lab console (last lines) ---\n" + last_lines(r.console, 20);
  } else {
    r.status = LabStatus::ok;
  }
  return r;
}

}  // namespace kvmbench::host
