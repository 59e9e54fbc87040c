// Runs one guest workload under QEMU and returns its parsed results.
//
// The guest is the kvmbench initramfs (guests/image/) on a distro kernel;
// the kernel command line names the workload and its arguments, the guest
// prints KVMBENCH-* lines on its serial console (captured to a file in the
// run directory) and powers off. A watchdog kills QEMU (its whole process
// group) after a timeout or on Ctrl-C, and QEMU also dies with us
// (PR_SET_PDEATHSIG), so no QEMU is ever left running.
//
// Accelerator: KVM when the probe says KVM runs guests (hostlib/kvm/kvm_probe.h),
// else TCG, or forced. Results under TCG are Source::emulated: they prove
// the pipeline, they measure nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/parse/guest_output.h"
#include "analysis/model/result_model.h"

namespace kvmbench::host {

enum class Accel { automatic, kvm, tcg };
enum class MemoryBackend { anonymous, hugetlbfs, memfd };
enum class Confidential { none, sev_snp, tdx };

std::string_view to_string(Accel a);
std::string_view to_string(MemoryBackend b);
std::string_view to_string(Confidential c);
// The guest RAM backends by name ("memfd", "anonymous", "hugetlbfs"), in
// the order a parameter's help lists them; nullopt for any other text.
std::vector<std::string> memory_backend_names();
std::optional<MemoryBackend> find_memory_backend(std::string_view name);

struct SevSnpOptions {
  // C-bit position. 0: the host's (CPUID 0x8000001F EBX[5:0]), resolved by
  // resolve_snp_cbitpos() before the argv is built: QEMU compares the value
  // with the host's and exits ("cbitpos check failed") when they differ.
  int cbitpos = 0;
  int reduced_phys_bits = 1;        // QEMU requires >= 1 (CPUID 0x8000001F EBX[11:6])
  std::string policy = "0x30000";   // guest policy (SMT allowed, reserved bit 17)
  std::filesystem::path firmware;   // an SNP-capable OVMF (required)
  // Measure -kernel/-initrd/-append into the launch digest. Off by default:
  // with it on, QEMU refuses to start ("SEV: kernel specified but guest
  // firmware has no hashes table GUID") unless the firmware is the AmdSev
  // OVMF build, which carries the SEV hash table.
  bool kernel_hashes = false;
};

struct TdxOptions {
  std::filesystem::path firmware;   // a TDX-capable OVMF (TDVF, required)
};

struct GuestSpec {
  std::string workload;               // faultin, mmap_churn, cpuid_rate, tcp_rr, tcp_stream
                                      // (tests also use "hang" and "panic")
  std::vector<std::string> args;      // workload arguments, e.g. "--bytes=16M"; no
                                      // spaces, commas or quotes inside one
  std::filesystem::path kernel;       // empty: default_guest_kernel() (qemu_paths.h)
  std::filesystem::path initramfs;    // empty: default_guest_initramfs()
  std::filesystem::path qemu;         // empty: find_qemu()
  Accel accel = Accel::automatic;
  int vcpus = 1;
  std::uint64_t memory_mib = 256;
  MemoryBackend backend = MemoryBackend::anonymous;
  std::filesystem::path hugetlbfs_mount = "/dev/hugepages";
  std::optional<int> host_numa_node;  // memory bound to this host node (policy=bind)
  bool prealloc = false;              // fault in all guest memory at QEMU start
  std::vector<int> pin_host_cpus;     // vCPU i runs on pin_host_cpus[i % size]
  std::optional<int> pin_numa_node;   // or: every vCPU on that host node's CPUs
  Confidential confidential = Confidential::none;
  SevSnpOptions snp;
  TdxOptions tdx;
  bool network = false;               // user networking, one forwarded loopback port;
                                      // implied by tcp_rr and tcp_stream
  std::uint16_t guest_port = 5201;    // where the guest workload listens
  std::string extra_cmdline;          // appended to the kernel command line
  double timeout_s = 60;              // spawn to QEMU exit; then it is killed
  double workload_timeout_s = 0;      // KVMBENCH-BEGIN to END; 0: only timeout_s
};

// What build_qemu_argv needs beyond the spec: everything resolved on the host.
struct LaunchPlan {
  std::filesystem::path qemu, kernel, initramfs;
  Accel accel = Accel::tcg;           // kvm or tcg, never automatic
  std::filesystem::path console_log;  // the serial console goes here
  std::filesystem::path qmp_socket;   // empty: no QMP (no pinning)
  bool start_paused = false;          // -S: wait for QMP "cont" (pinning first)
  bool hold_at_shutdown = false;      // -no-shutdown: held for QMP (the monitors' statistics)
  std::uint16_t host_port = 0;        // forwarded to spec.guest_port when networking
};

// The kernel command line for the spec (console, panic=-1, the workload).
// Throws std::invalid_argument for a workload name or argument that cannot
// travel on it.
std::string guest_cmdline(const GuestSpec& spec);

// QEMU's argument vector (argv[0] is plan.qemu). Pure; never a shell string.
// Throws std::invalid_argument for a spec that makes no sense (0 vCPUs,
// confidential guest under TCG, missing firmware, ...).
std::vector<std::string> build_qemu_argv(const GuestSpec& spec, const LaunchPlan& plan);

// What the host offers for confidential guests.
struct ConfidentialSupport {
  bool kvm_runs_guests = false;
  std::vector<std::string> kvm_vm_types;   // KvmStatus::vm_types
  std::vector<std::string> qemu_objects;   // from `qemu -object help`
  std::optional<unsigned> host_cbitpos;    // CPUID 0x8000001F EBX[5:0]; nullopt: the CPU reports none
  // KVM_CAP_MEMORY_ATTRIBUTES on a VM of the guest's type (snp, tdx): QEMU
  // sets up private memory through the VM-wide KVM_SET_MEMORY_ATTRIBUTES,
  // so PRIVATE must be in it; nullopt: not known.
  std::optional<std::uint64_t> vm_memory_attributes;
};

// Empty when the host can run the spec's confidential guest (or none was
// asked for); otherwise the reason it cannot. Pure.
std::string confidential_refusal(const GuestSpec& spec, const ConfidentialSupport& host);

// An SEV-SNP guest's C-bit position: the host's when `snp.cbitpos` is 0 (it is
// set then). Returns "" or why the guest cannot start: the host reports no
// C-bit position, or the given one differs from the host's, which QEMU
// refuses ("cbitpos check failed"). Pure.
std::string resolve_snp_cbitpos(SevSnpOptions& snp, std::optional<unsigned> host_cbitpos);

// The object types QEMU knows (`qemu -object help`); empty on failure.
std::vector<std::string> qemu_object_types(const std::filesystem::path& qemu);

enum class GuestRunStatus {
  ok,           // the workload began, ended with status 0, results parsed
  failed,       // it ran but: timeout, panic, error, malformed output, ...
  cannot_run,   // this host cannot run it (reason says why); nothing started
  interrupted,  // Ctrl-C / SIGTERM; QEMU was killed
};
std::string_view to_string(GuestRunStatus s);

struct GuestRunResult {
  GuestRunStatus status = GuestRunStatus::failed;
  std::string reason;                   // why not ok ("" when ok)
  Source source = Source::emulated;     // hardware under KVM, emulated under TCG
  Accel accel = Accel::tcg;             // what actually ran
  std::vector<Sample> samples;          // the parsed results, extra "line" = console line
  parsers::GuestOutput output;          // the whole parse (errors, warnings, markers)
  double boot_to_begin_s = -1;          // spawn -> KVMBENCH-BEGIN seen (-1: never)
  double boot_to_result_s = -1;         // spawn -> KVMBENCH-END seen (-1: never)
  double wall_s = 0;                    // spawn -> QEMU reaped
  bool killed_by_watchdog = false;      // timeout, interrupt, or no poweroff after END
  int qemu_exit_code = -1;              // -1 when killed by a signal
  int qemu_signal = 0;
  int qemu_pid = -1;                    // the QEMU that ran (reaped by now)
  std::string console_tail;             // the last lines of the console (always)
  std::string qemu_stderr;              // QEMU's own messages (first 64 KiB)
  std::vector<std::string> argv;        // what was run
  std::string pinning;                  // how vCPUs were pinned, "" when not asked
  nlohmann::json net_peer;              // host peer stats (network workloads), else null

  bool ok() const { return status == GuestRunStatus::ok; }
};

// Boots the guest, runs spec.workload, waits for its results and QEMU's
// exit (at most spec.timeout_s), and parses the console. The console is
// written to `console_log` (its directory must exist); the QMP socket, if
// pinning is asked for, lives in a private temporary directory.
// Never throws for host trouble: that is status cannot_run / failed with the
// reason. Throws std::invalid_argument for a malformed spec.
GuestRunResult run_guest_workload(const GuestSpec& spec, const std::filesystem::path& console_log);

// For meta.json / samples: the result minus the samples and console.
nlohmann::json to_json(const GuestRunResult& r);

}  // namespace kvmbench::host
