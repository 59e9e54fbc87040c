// HostCaps: one probe of the host per kvmbench invocation, shared by `list`
// and `run`. The KVM probe runs once; its result also goes into meta.json.
#include <unistd.h>

#include <fstream>

#include "hostlib/confidential_host.h"
#include "hostlib/cpuid.h"
#include "hostlib/host_metadata.h"
#include "hostlib/kvm_probe.h"
#include "hostlib/private_vm.h"
#include "hostlib/qemu_info.h"
#include "hostlib/qemu_paths.h"
#include "suites/suite.h"

namespace kvmbench::suites {

HostCaps probe_host_caps() {
  HostCaps caps;
  caps.kvm = host::probe_kvm();
  host::MetadataOptions opts;
  opts.probe_kvm = false;  // done above; not twice
  caps.metadata = host::collect_metadata(opts);
  caps.metadata["kvm"] = host::to_json(caps.kvm);
  caps.metadata["kvm"]["private_vm_types"] = host::private_vm_types_json(caps.kvm);
  caps.confidential = host::probe_confidential_host();
  caps.metadata["confidential"] = host::to_json(caps.confidential);
  // ASLR changes addresses run to run (noise in cache-sensitive numbers).
  {
    std::ifstream aslr("/proc/sys/kernel/randomize_va_space");
    std::string v;
    caps.metadata["randomize_va_space"] = (aslr >> v) ? nlohmann::json(v) : nlohmann::json(nullptr);
  }

  const auto& cpu = caps.metadata["cpu"];
  if (cpu.contains("features") && cpu["features"].is_array())
    for (const auto& f : cpu["features"])
      if (f.is_string()) caps.cpu_features.push_back(f.get<std::string>());

  const auto& q = caps.metadata["qemu"];
  if (q.value("found", false) && q.contains("path") && q["path"].is_string()) {
    caps.qemu_path = q["path"].get<std::string>();
    for (const auto& a : q.value("accels", nlohmann::json::array()))
      if (a.is_string()) caps.qemu_accels.push_back(a.get<std::string>());
  }
  if (auto k = host::default_guest_kernel()) caps.guest_kernel = k.path.string();
  caps.metadata["guest_kernel"] = caps.guest_kernel.empty() ? nlohmann::json(nullptr)
                                                            : nlohmann::json(caps.guest_kernel);
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  caps.online_cpus = n > 0 ? static_cast<unsigned>(n) : 1;
  const auto& mem = caps.metadata["memory"];
  if (mem.contains("total_bytes") && mem["total_bytes"].is_number())
    caps.memory_bytes = mem["total_bytes"].get<unsigned long long>();
  return caps;
}

}  // namespace kvmbench::suites
