// Everything about this host that explains a number: what goes into every
// run's meta.json and what `kvmbench probe` prints. CPU identity and
// features, kernel release and command line, KVM (probed by trying it) and
// its module parameters, SMT and topology (hwloc), memory (MemTotal,
// DirectMap, hugepage pools, THP), TSC rate and how it was found,
// clocksource, governor and boost, hostname, QEMU.
//
// Nothing here needs root to run; what could not be read is listed under
// "unreadable" with the error and whether root would have helped.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

struct MetadataOptions {
  bool probe_kvm = true;       // run the test guest (bounded by kvm_timeout_ms)
  int kvm_timeout_ms = 500;
  bool probe_qemu = true;      // run qemu --version and -accel help
  // A bound for a broken binary, not a speed check: in the emulated lab on a
  // loaded host, `-accel help` took 8.5 s.
  double qemu_timeout_s = 60;
  int tsc_calibration_ms = 50;
};

// Top-level keys: collected_at, hostname, kernel, cpu, virtualization, kvm, kvm_modules,
// smt, topology, numa, memory, hugepages, thp, tsc_hz, tsc, clocksource,
// cpufreq, qemu, firmware, needs_root, unreadable. (kvm.present, kvm.runs_guests,
// kvm.reason, kvm.guest_memfd_flags, cpu.vendor, cpu.features,
// memory.total_bytes, memory.directmap, numa.nodes, qemu.version and
// qemu.accels are the keys other tools rely on.)
nlohmann::json collect_metadata(const MetadataOptions& options = {});

// Pure: why results measured on the host described by `metadata` (the
// object collect_metadata returns) are `emulated` rather than `hardware`:
// its CPU is QEMU's software emulator (TCG). "" when they are hardware.
std::string emulation_reason(const nlohmann::json& metadata);

// Pure: the "virtualization" object of the metadata from the CPU object
// (cpu.hypervisor, hypervisor_name, hypervisor_signature) and whether
// /dev/kvm exists: which hypervisor this host runs under, whether its CPU is
// emulated, and whether a KVM here is nested in another hypervisor.
nlohmann::json virtualization_json(const nlohmann::json& cpu, bool dev_kvm_present);

// Pure helpers (unit-tested): the hugepage pool directory name
// "hugepages-2048kB" -> 2048 (0 when it is not one); the selected entry of
// an "always [madvise] never" list.
unsigned long hugepage_dir_kb(std::string_view dirname);
std::string selected_mode(std::string_view text);

}  // namespace kvmbench::host
