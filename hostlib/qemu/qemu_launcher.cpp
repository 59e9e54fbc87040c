// The running half of the launcher: resolve the spec against this host,
// start QEMU, pin, watch the console, enforce the timeout, parse.
#include "hostlib/qemu/qemu_launcher.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "analysis/model/last_lines.h"
#include "hostlib/facts/cpuid.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/kvm/kvm_probe.h"
#include "hostlib/qemu/qemu_net_peer.h"
#include "hostlib/qemu/qemu_paths.h"
#include "hostlib/os/child_process.h"
#include "hostlib/qemu/qemu_qmp.h"
#include "hostlib/qemu/qemu_stats.h"
#include "hostlib/kvm/kvm_stat.h"
#include "hostlib/os/scoped_temp_dir.h"

namespace fs = std::filesystem;

namespace kvmbench::host {

namespace {

using Clock = std::chrono::steady_clock;

GuestKvmStats stats_not_read(std::string why) {
  GuestKvmStats g;
  g.error = std::move(why);
  return g;
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}


// Watches the growing console file for the BEGIN and END markers.
class ConsoleWatcher {
 public:
  explicit ConsoleWatcher(fs::path p) : path_(std::move(p)) {}
  void poll() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return;
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string chunk(std::istreambuf_iterator<char>(in), {});
    offset_ += chunk.size();
    pending_ += chunk;
    std::size_t nl;
    while ((nl = pending_.find('\n')) != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      if (line.find(parsers::kGuestBeginPrefix) != std::string::npos) begin_seen = true;
      if (line.find(parsers::kGuestEndPrefix) != std::string::npos) end_seen = true;
      if (line.find("KVMBENCH-LISTENING ") != std::string::npos) listening_seen = true;
    }
  }
  bool begin_seen = false, end_seen = false, listening_seen = false;

 private:
  fs::path path_;
  std::size_t offset_ = 0;
  std::string pending_;
};

bool network_workload(const GuestSpec& spec) {
  return spec.network || spec.workload == "tcp_rr" || spec.workload == "tcp_stream";
}

}  // namespace

std::vector<std::string> qemu_object_types(const fs::path& qemu) {
  std::vector<std::string> types;
  try {
    ChildProcess p({qemu.string(), "-object", "help"});
    auto t0 = Clock::now();
    while (!p.poll_exit() && since(t0) < 10) {
      p.drain_output();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!p.exited()) p.kill_and_reap(0.2);
    std::string text = p.output();
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      std::string line = text.substr(pos, nl - pos);
      pos = nl + 1;
      auto b = line.find_first_not_of(' ');
      if (b == std::string::npos || line.find(':') != std::string::npos) continue;  // the header
      types.push_back(line.substr(b));
    }
  } catch (const std::exception&) {
    return {};
  }
  return types;
}

nlohmann::json to_json(const GuestRunResult& r) {
  return {{"status", to_string(r.status)},
          {"reason", r.reason},
          {"source", to_string(r.source)},
          {"accel", to_string(r.accel)},
          {"workload", r.output.workload},
          {"samples", r.samples.size()},
          {"boot_to_begin_s", r.boot_to_begin_s},
          {"boot_to_result_s", r.boot_to_result_s},
          {"wall_s", r.wall_s},
          {"killed_by_watchdog", r.killed_by_watchdog},
          {"qemu_exit_code", r.qemu_exit_code},
          {"qemu_signal", r.qemu_signal},
          {"guest_errors", r.output.errors},
          {"malformed", r.output.malformed},
          {"warnings", r.output.result.warnings},
          {"pinning", r.pinning},
          {"net_peer", r.net_peer},
          {"argv", r.argv}};
}

GuestRunResult run_guest_workload(const GuestSpec& spec_in, const fs::path& console_log) {
  GuestRunResult r;
  GuestSpec spec = spec_in;
  guest_cmdline(spec);  // validates the workload and its arguments (throws)

  auto cannot = [&](std::string why) {
    r.status = GuestRunStatus::cannot_run;
    r.reason = std::move(why);
    return r;
  };

  // --- resolve the host side -------------------------------------------
  LaunchPlan plan;
  if (spec.qemu.empty()) {
    FoundPath q = find_qemu();
    if (!q) return cannot(q.reason);
    plan.qemu = q.path;
  } else {
    plan.qemu = spec.qemu;
  }
  if (spec.kernel.empty()) {
    FoundPath k = default_guest_kernel();
    if (!k) return cannot(k.reason);
    plan.kernel = k.path;
  } else {
    plan.kernel = spec.kernel;
  }
  if (spec.initramfs.empty()) {
    FoundPath i = default_guest_initramfs();
    if (!i) return cannot(i.reason);
    plan.initramfs = i.path;
  } else {
    plan.initramfs = spec.initramfs;
  }
  for (const auto& [what, p] : {std::pair{"QEMU", plan.qemu}, {"guest kernel", plan.kernel},
                                {"guest initramfs", plan.initramfs}})
    if (!fs::exists(p)) return cannot(fmt::format("{} {} does not exist", what, p.string()));

  // KVM only when it really runs guests; the probe runs a tiny guest under a
  // timer, so this cannot hang.
  bool kvm_ok = false;
  std::vector<std::string> vm_types;
  std::optional<std::uint64_t> vm_memory_attributes;
  if (spec.accel != Accel::tcg) {
    KvmStatus k = probe_kvm();
    kvm_ok = k.runs_guests;
    vm_types = k.vm_types;
    const char* type = spec.confidential == Confidential::tdx ? "tdx" : "snp";
    if (const auto it = k.memory_attributes_by_vm_type.find(type); it != k.memory_attributes_by_vm_type.end())
      vm_memory_attributes = it->second;
    if (spec.accel == Accel::kvm && !kvm_ok) return cannot("KVM cannot run guests on this host: " + k.reason);
  }
  plan.accel = spec.accel == Accel::automatic ? (kvm_ok ? Accel::kvm : Accel::tcg) : spec.accel;
  if (spec.confidential != Confidential::none) {
    ConfidentialSupport sup{kvm_ok, vm_types, qemu_object_types(plan.qemu), std::nullopt, vm_memory_attributes};
    if (auto bits = sev_encryption_bits(read_cpuid_table())) sup.host_cbitpos = bits->cbitpos;
    GuestSpec checked = spec;
    checked.accel = plan.accel;
    if (auto why = confidential_refusal(checked, sup); !why.empty()) return cannot(why);
    if (spec.confidential == Confidential::sev_snp) resolve_snp_cbitpos(spec.snp, sup.host_cbitpos);
    const auto& fw = spec.confidential == Confidential::sev_snp ? spec.snp.firmware : spec.tdx.firmware;
    if (!fs::exists(fw)) return cannot("firmware " + fw.string() + " does not exist");
  }
  if (spec.backend == MemoryBackend::hugetlbfs && !fs::is_directory(spec.hugetlbfs_mount))
    return cannot("no hugetlbfs mount at " + spec.hugetlbfs_mount.string());
  std::vector<int> pin_cpus = spec.pin_host_cpus;
  if (spec.pin_numa_node) {
    pin_cpus = numa_node_cpus(*spec.pin_numa_node);
    if (pin_cpus.empty()) return cannot(fmt::format("host NUMA node {} has no CPUs", *spec.pin_numa_node));
  }
  r.accel = plan.accel;
  // KVM on an emulated CPU (the emulated lab) is as emulated as TCG itself.
  r.source = plan.accel == Accel::kvm && !cpu_is_emulated(read_cpu()) ? Source::hardware : Source::emulated;

  // --- start ---------------------------------------------------------------
  plan.console_log = console_log;
  {
    std::ofstream truncate(console_log, std::ios::trunc);
    if (!truncate) return cannot("cannot write the console log " + console_log.string());
  }
  // The monitors of a repetition count a KVM guest's statistics: QEMU is
  // held at the guest's shutdown (-no-shutdown) and asked through QMP
  // before it is let go.
  const GuestKvmStatsSink stats_sink = plan.accel == Accel::kvm ? guest_kvm_stats_sink() : nullptr;
  const bool pinning = !pin_cpus.empty();
  // A private directory: run directories can be longer than a unix
  // socket path may be.
  std::unique_ptr<ScopedTempDir> qmp_dir;
  if (pinning || stats_sink) {
    try {
      qmp_dir = std::make_unique<ScopedTempDir>("kvmbench-qemu");
    } catch (const std::exception& e) {
      return cannot(std::string("no temporary directory for the QMP socket: ") + e.what());
    }
    plan.qmp_socket = qmp_dir->path() / "qmp.sock";
    plan.start_paused = pinning;  // pin before the first guest instruction
    plan.hold_at_shutdown = stats_sink != nullptr;
  }
  std::unique_ptr<GuestNetPeer> peer;
  if (network_workload(spec)) {
    try {
      plan.host_port = pick_free_loopback_port();
    } catch (const std::exception& e) {
      return cannot(e.what());
    }
    peer = std::make_unique<GuestNetPeer>(plan.host_port);
  }
  r.argv = build_qemu_argv(spec, plan);

  const auto t0 = Clock::now();
  std::unique_ptr<ChildProcess> qemu;
  try {
    qemu = std::make_unique<ChildProcess>(r.argv);
  } catch (const std::exception& e) {
    return cannot(std::string("cannot start QEMU: ") + e.what());
  }
  r.qemu_pid = qemu->pid();

  std::string failure;
  std::unique_ptr<QmpClient> qmp;
  if (pinning) {
    try {
      // QEMU's start, not the guest's: a bound for a QEMU that never gets
      // there (in the emulated lab on a loaded host, `qemu -accel help`
      // alone took 8.5 s).
      qmp = std::make_unique<QmpClient>(plan.qmp_socket, std::min(spec.timeout_s, 60.0));
    } catch (const std::exception& e) {
      failure = std::string("vCPU pinning failed: ") + e.what();
    }
  }
  if (pinning && qmp) {
    try {
      std::vector<pid_t> threads = qmp->vcpu_threads();
      std::vector<std::string> placed;
      for (std::size_t i = 0; i < threads.size() && failure.empty(); ++i) {
        std::vector<int> cpus;
        if (spec.pin_numa_node) cpus = pin_cpus;  // the node's CPUs, shared
        else cpus = {pin_cpus[i % pin_cpus.size()]};
        failure = pin_thread(threads[i], cpus);
        std::string set;
        for (int c : cpus) set += (set.empty() ? "" : ",") + std::to_string(c);
        placed.push_back(fmt::format("vcpu{}(tid {})->cpu {}", i, threads[i], set));
      }
      r.pinning = "QMP query-cpus-fast + sched_setaffinity: ";
      for (auto& p : placed) r.pinning += p + " ";
      if (failure.empty()) qmp->execute("cont");
    } catch (const std::exception& e) {
      failure = std::string("vCPU pinning failed: ") + e.what();
    }
  }
  if (!stats_sink) qmp.reset();
  // A guest held at its shutdown: its statistics to the monitors, then QEMU
  // told to quit. Looked for twice a second while the workload runs (QMP
  // is served by QEMU's main loop, not a vCPU), at once after its END.
  // Without pinning, QMP is connected at the first look that finds its
  // socket (a QEMU that dies at its start is seen by the loop's exit check,
  // not waited for); one never connected lets the guest go by the wait
  // after its END below, and the monitors say what they missed.
  bool stats_pending = stats_sink != nullptr;
  auto next_status_look = Clock::now();
  auto let_go_if_held = [&](bool end_seen) {
    if (!stats_pending || Clock::now() < next_status_look) return;
    next_status_look = Clock::now() + std::chrono::milliseconds(end_seen ? 50 : 500);
    if (!qmp) {
      try {
        qmp = std::make_unique<QmpClient>(plan.qmp_socket, 1.0);
      } catch (const std::exception& e) {
        if (end_seen) {
          stats_pending = false;
          stats_sink(stats_not_read(std::string("QMP: ") + e.what()));
        }
        return;
      }
    }
    try {
      const std::string status = qmp->execute("query-status", 5).value("status", "");
      if (status != "shutdown" && status != "guest-panicked" && status != "internal-error") return;
      stats_sink(query_guest_kvm_stats(*qmp));
    } catch (const std::exception& e) {
      stats_sink(stats_not_read(std::string("QMP: ") + e.what()));
    }
    try {
      qmp->execute("quit", 5);
    } catch (const std::exception&) {
      // QEMU may close the socket before it answers; its exit is what counts.
    }
    qmp.reset();
    stats_pending = false;
  };

  // --- watch -------------------------------------------------------------
  ConsoleWatcher watch(console_log);
  std::optional<Clock::time_point> end_seen_at;
  while (failure.empty()) {
    qemu->drain_output();
    watch.poll();
    if (watch.begin_seen && r.boot_to_begin_s < 0) r.boot_to_begin_s = since(t0);
    if (watch.end_seen && r.boot_to_result_s < 0) {
      r.boot_to_result_s = since(t0);
      end_seen_at = Clock::now();
    }
    if (peer && watch.listening_seen) peer->go();
    if (qemu->poll_exit()) break;
    let_go_if_held(watch.end_seen);
    if (interrupted()) {
      r.status = GuestRunStatus::interrupted;
      failure = "interrupted";
      break;
    }
    if (since(t0) > spec.timeout_s) {
      failure = fmt::format("guest timed out after {:.1f} s", spec.timeout_s);
      break;
    }
    if (spec.workload_timeout_s > 0 && r.boot_to_begin_s >= 0 && !watch.end_seen &&
        since(t0) - r.boot_to_begin_s > spec.workload_timeout_s) {
      failure = fmt::format("workload timed out after {:.1f} s", spec.workload_timeout_s);
      break;
    }
    // The workload is done but the guest does not power off: the results
    // stand, the guest is not waited for.
    if (end_seen_at && std::chrono::duration<double>(Clock::now() - *end_seen_at).count() > 10) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!qemu->exited()) {
    r.killed_by_watchdog = true;
    qemu->kill_and_reap(1.0);
  }
  r.wall_s = since(t0);
  r.qemu_exit_code = qemu->exit_code();
  r.qemu_signal = qemu->signal();
  r.qemu_stderr = qemu->output();
  if (peer) r.net_peer = peer->stop_and_join();

  // --- parse ---------------------------------------------------------------
  const std::string console = read_all(console_log);
  r.console_tail = last_lines(console, 40);
  r.output = parsers::parse_guest_output(console);
  r.samples = r.output.result.samples;
  if (failure.empty() && !r.output.ok()) failure = r.output.failure();
  if (failure.empty() && r.qemu_exit_code != 0 && !r.killed_by_watchdog)
    failure = fmt::format("QEMU exited with {}: {}", r.qemu_exit_code, last_lines(r.qemu_stderr, 3));
  if (!failure.empty() && r.output.began && !r.output.ended && r.status != GuestRunStatus::interrupted)
    failure += fmt::format(" (workload '{}' started but never finished)", r.output.workload);
  if (!failure.empty() && !r.output.began && r.qemu_exit_code > 0 && !r.qemu_stderr.empty())
    failure += ": " + last_lines(r.qemu_stderr, 3);
  if (failure.empty()) {
    r.status = GuestRunStatus::ok;
  } else {
    if (r.status != GuestRunStatus::interrupted) r.status = GuestRunStatus::failed;
    r.reason = failure;
  }
  return r;
}

}  // namespace kvmbench::host
