#include "analysis/verdicts/configuration_keys.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace kvmbench {

namespace {

// host_metadata.cpp, engine/lab_run.cpp and the run driver write these keys.
constexpr std::array kConfiguration = {
    // The run itself.
    ConfigurationKey{"suite"}, ConfigurationKey{"preset"}, ConfigurationKey{"source"},
    ConfigurationKey{"tool_version"}, ConfigurationKey{"parameters.*"}, ConfigurationKey{"warmup_repetitions"},
    // Kernel and CPU.
    ConfigurationKey{"host.kernel.release"}, ConfigurationKey{"host.kernel.version"},
    ConfigurationKey{"host.kernel.cmdline"}, ConfigurationKey{"host.cpu.vendor_id"},
    ConfigurationKey{"host.cpu.model_name"}, ConfigurationKey{"host.cpu.family"}, ConfigurationKey{"host.cpu.model"},
    ConfigurationKey{"host.cpu.stepping"}, ConfigurationKey{"host.cpu.microcode"}, ConfigurationKey{"host.cpu.features"},
    ConfigurationKey{"host.firmware.*"},
    // KVM and the confidential-computing setup.
    ConfigurationKey{"host.kvm.module"}, ConfigurationKey{"host.kvm.vm_types"},
    ConfigurationKey{"host.kvm.guest_memfd_flags"}, ConfigurationKey{"host.kvm_modules.*.parameters.*"},
    ConfigurationKey{"host.confidential.flushbyasid"}, ConfigurationKey{"host.confidential.clearcpuid_flushbyasid"},
    ConfigurationKey{"host.confidential.rmpopt_boot.state"},
    // Memory, scheduling and clocks.
    ConfigurationKey{"host.thp.*"}, ConfigurationKey{"host.hugepages[*].nr_hugepages"},
    ConfigurationKey{"host.memory.total_bytes", 0.01}, ConfigurationKey{"host.smt.*"},
    ConfigurationKey{"host.topology.packages"}, ConfigurationKey{"host.topology.cores"},
    ConfigurationKey{"host.topology.threads"}, ConfigurationKey{"host.topology.online_cpus"},
    ConfigurationKey{"host.numa.nodes[*].cpus"}, ConfigurationKey{"host.cpufreq.driver"},
    ConfigurationKey{"host.cpufreq.governors.*"}, ConfigurationKey{"host.cpufreq.boost.enabled"},
    ConfigurationKey{"host.clocksource.current"}, ConfigurationKey{"host.tsc_hz", 0.001},
    ConfigurationKey{"host.randomize_va_space"},
    // Where it ran: a VM, the emulated lab, QEMU.
    ConfigurationKey{"host.virtualization.in_vm"}, ConfigurationKey{"host.virtualization.hypervisor"},
    ConfigurationKey{"host.virtualization.emulated"}, ConfigurationKey{"host.qemu.version"},
    ConfigurationKey{"lab.kernel"}, ConfigurationKey{"lab.accel"}, ConfigurationKey{"lab.cpu"},
    ConfigurationKey{"lab.vcpus"}, ConfigurationKey{"lab.memory_mib"},
    // How an ab step's boot came (kexec; a run outside ab has none): a
    // kexec'd SNP host keeps its RMP from the boot before.
    ConfigurationKey{"ab.boot"},
    // A Google Benchmark file's own "context" (a file compared as it is;
    // an ingested run's gbench_context of one file, as meta_differences
    // reads it): the machine and the build it says it ran on.
    ConfigurationKey{"context.host_name"}, ConfigurationKey{"context.num_cpus"},
    ConfigurationKey{"context.mhz_per_cpu", 0.01}, ConfigurationKey{"context.cpu_scaling_enabled"},
    ConfigurationKey{"context.library_build_type"}, ConfigurationKey{"context.library_version"},
    ConfigurationKey{"context.caches[*].size"},
};

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

bool key_matches(std::string_view pattern, std::string_view key) {
  const std::size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == key;
  if (key.substr(0, star) != pattern.substr(0, star)) return false;
  const std::string_view rest = pattern.substr(star + 1);
  for (std::size_t i = star; i <= key.size(); ++i)
    if (key_matches(rest, key.substr(i))) return true;
  return false;
}

const ConfigurationKey* configuration_key(std::string_view key) {
  for (const ConfigurationKey& k : kConfiguration)
    if (key_matches(k.pattern, key)) return &k;
  return nullptr;
}

bool same_configuration(const ConfigurationKey& key, const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (key.relative_tolerance <= 0) return false;
  const auto x = number(a), y = number(b);
  if (!x || !y) return false;
  return std::fabs(*x - *y) <= key.relative_tolerance * std::max(std::fabs(*x), std::fabs(*y));
}

}  // namespace kvmbench
