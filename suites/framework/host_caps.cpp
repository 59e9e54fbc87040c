// HostCaps: one probe of the host per kvmbench invocation, shared by `list`
// and `run`. The KVM probe runs once; its result also goes into meta.json.
// A dry run gets the same from what needs no ioctl, or from another host's
// `kvmbench probe --json`.
#include <unistd.h>

#include <stdexcept>

#include <fmt/format.h>

#include "analysis/model/host_meta_types.h"
#include "hostlib/facts/confidential_host.h"
#include "hostlib/facts/free_page_reporting.h"
#include "hostlib/facts/cpuid.h"
#include "hostlib/describe/host_metadata.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/kvm/kvm_probe.h"
#include "hostlib/kvm/private_vm.h"
#include "hostlib/qemu/qemu_info.h"
#include "hostlib/qemu/qemu_paths.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

namespace {

// The fields of HostCaps that are read back from the metadata (CPU
// features, QEMU, memory), so that this host and a described one are read
// the same way.
void fill_from_metadata(HostCaps& caps) {
  const auto& cpu = caps.metadata["cpu"];
  if (cpu.contains("features") && cpu["features"].is_array())
    for (const auto& f : cpu["features"])
      if (f.is_string()) caps.cpu_features.push_back(f.get<std::string>());

  const auto& q = caps.metadata["qemu"];
  if (q.is_object() && q.contains("found") && q["found"] == true && q.contains("path") && q["path"].is_string()) {
    caps.qemu_path = q["path"].get<std::string>();
    for (const auto& a : q.value("accels", nlohmann::json::array()))
      if (a.is_string()) caps.qemu_accels.push_back(a.get<std::string>());
    if (q.contains("error") && q["error"].is_string()) caps.qemu_error = q["error"].get<std::string>();
  }
  const auto& mem = caps.metadata["memory"];
  if (mem.is_object() && mem.contains("total_bytes") && mem["total_bytes"].is_number())
    caps.memory_bytes = mem["total_bytes"].get<unsigned long long>();
  caps.emulated_reason = host::emulation_reason(caps.metadata);
}

void add_guest_kernel(HostCaps& caps) {
  if (auto k = host::default_guest_kernel()) caps.guest_kernel = k.path.string();
  caps.metadata["guest_kernel"] = caps.guest_kernel.empty() ? nlohmann::json(nullptr)
                                                            : nlohmann::json(caps.guest_kernel);
}

unsigned online_cpus() {
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1;
}

}  // namespace

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
  const auto aslr = host::read_kernel_value("/proc/sys/kernel/randomize_va_space");
  caps.metadata["randomize_va_space"] = aslr && !aslr->empty() ? nlohmann::json(*aslr) : nlohmann::json(nullptr);
  // A guest handing free memory back to its hypervisor: slow repetitions.
  const auto reporting = host::free_page_reporting_order();
  caps.metadata["free_page_reporting_order"] = reporting ? nlohmann::json(*reporting) : nlohmann::json(nullptr);
  fill_from_metadata(caps);
  add_guest_kernel(caps);
  caps.online_cpus = online_cpus();
  return caps;
}

HostCaps probe_host_caps_without_ioctls() {
  HostCaps caps;
  caps.kvm.reason =
      "not probed: a dry run makes no ioctl (to plan with what KVM offers, run `kvmbench probe --json > host.json` "
      "and pass --host host.json)";
  host::MetadataOptions opts;
  opts.probe_kvm = false;
  opts.probe_qemu = false;  // no program is started
  caps.metadata = host::collect_metadata(opts);
  caps.metadata["kvm"] = host::to_json(caps.kvm);
  caps.confidential = host::probe_confidential_host();
  caps.metadata["confidential"] = host::to_json(caps.confidential);
  fill_from_metadata(caps);
  if (host::FoundPath q = host::find_qemu()) {
    caps.qemu_path = q.path.string();
    caps.metadata["qemu"]["path"] = caps.qemu_path;
  }
  add_guest_kernel(caps);
  caps.online_cpus = online_cpus();
  return caps;
}

HostCaps host_caps_from_probe_json(const nlohmann::json& probe) {
  if (!probe.is_object()) throw std::invalid_argument("not a JSON object (expected `kvmbench probe --json` output)");
  for (const char* key : {"cpu", "kvm"})
    if (!probe.contains(key) || !probe[key].is_object())
      throw std::invalid_argument(fmt::format("no \"{}\" object (expected `kvmbench probe --json` output)", key));
  if (const auto problem = host_meta_type_problem(probe)) throw std::invalid_argument(*problem);
  HostCaps caps;
  caps.metadata = probe;
  caps.kvm = host::kvm_status_from_json(probe["kvm"]);
  caps.confidential = host::confidential_host_from_json(probe.value("confidential", nlohmann::json()));
  fill_from_metadata(caps);
  if (probe.contains("guest_kernel") && probe["guest_kernel"].is_string())
    caps.guest_kernel = probe["guest_kernel"].get<std::string>();
  const auto& q = probe.value("qemu", nlohmann::json::object());
  if (q.is_object() && q.contains("confidential_objects") && q["confidential_objects"].is_array()) {
    std::vector<std::string> objects;
    for (const auto& o : q["confidential_objects"])
      if (o.is_string()) objects.push_back(o.get<std::string>());
    caps.qemu_objects = objects;
  }
  const auto& topo = probe.value("topology", nlohmann::json::object());
  caps.online_cpus = topo.is_object() && topo.contains("threads") && topo["threads"].is_number_unsigned()
                         ? topo["threads"].get<unsigned>()
                         : 1;
  return caps;
}

}  // namespace kvmbench::suites
