#include "analysis/model/host_meta_types.h"

#include "analysis/model/json_member_types.h"

namespace kvmbench {

namespace {

// The probe writes null for what it does not know (nullable, the default);
// as host_metadata.cpp writes them. Containers are never null: a reader
// walks into them.
constexpr MemberType kMembers[] = {
    {"hostname", JsonKind::string, false},
    {"collected_at", JsonKind::string},
    {"guest_kernel", JsonKind::string},
    {"running_as_root", JsonKind::boolean},
    {"tsc_hz", JsonKind::number},
    {"needs_root", JsonKind::array, false},
    {"needs_root[]", JsonKind::string},
    {"unreadable", JsonKind::array, false},
    {"unreadable[]", JsonKind::object, false},
    {"unreadable[].path", JsonKind::string},
    {"unreadable[].error", JsonKind::string},
    {"kernel", JsonKind::object, false},
    {"kernel.release", JsonKind::string},
    {"kernel.cmdline", JsonKind::string},
    {"kernel.version", JsonKind::string},
    {"kernel.machine", JsonKind::string},
    {"cpu", JsonKind::object, false},
    {"cpu.vendor_id", JsonKind::string},
    {"cpu.vendor", JsonKind::string},
    {"cpu.model_name", JsonKind::string},
    {"cpu.microcode", JsonKind::string},
    {"cpu.family", JsonKind::number},
    {"cpu.model", JsonKind::number},
    {"cpu.stepping", JsonKind::number},
    {"cpu.hypervisor", JsonKind::boolean},
    {"cpu.emulated", JsonKind::boolean},
    {"cpu.features", JsonKind::array, false},
    {"cpu.features[]", JsonKind::string, false},
    {"kvm", JsonKind::object, false},
    {"kvm.module", JsonKind::string},
    {"kvm.reason", JsonKind::string},
    {"kvm.present", JsonKind::boolean},
    {"kvm.runs_guests", JsonKind::boolean},
    {"kvm.vm_types", JsonKind::array, false},
    {"kvm.private_vm_types", JsonKind::array, false},
    {"kvm.private_vm_types[]", JsonKind::object, false},
    {"kvm.guest_memfd_flags", JsonKind::array, false},
    {"kvm_modules", JsonKind::object, false},
    {"kvm_modules.*", JsonKind::object, false},
    {"kvm_modules.*.parameters", JsonKind::object, false},
    {"kvm_modules.*.parameters.*", JsonKind::string},
    {"confidential", JsonKind::object, false},
    {"memory", JsonKind::object, false},
    {"memory.total_bytes", JsonKind::number},
    {"memory.ram_end", JsonKind::number},
    {"memory.ram_end_from", JsonKind::string, false},
    {"memory.directmap", JsonKind::object, false},
    {"hugepages", JsonKind::array, false},
    {"hugepages[]", JsonKind::object, false},
    {"hugepages[].page_kb", JsonKind::number, false},
    {"hugepages[].nr_hugepages", JsonKind::number},
    {"hugepages[].free_hugepages", JsonKind::number},
    {"thp", JsonKind::object, false},
    {"smt", JsonKind::object, false},
    {"topology", JsonKind::object, false},
    {"topology.packages", JsonKind::number},
    {"topology.cores", JsonKind::number},
    {"topology.threads", JsonKind::number},
    {"topology.smt_threads_per_core", JsonKind::number},
    {"numa", JsonKind::object, false},
    {"numa.nodes", JsonKind::array, false},
    {"numa.nodes[]", JsonKind::object, false},
    {"tsc", JsonKind::object, false},
    {"clocksource", JsonKind::object, false},
    {"cpufreq", JsonKind::object, false},
    {"cpufreq.governors", JsonKind::object, false},
    {"cpufreq.boost", JsonKind::object},
    {"qemu", JsonKind::object, false},
    {"qemu.path", JsonKind::string},
    {"qemu.accels", JsonKind::array, false},
    {"qemu.confidential_objects", JsonKind::array, false},
    {"virtualization", JsonKind::object, false},
    {"virtualization.in_vm", JsonKind::boolean, false},
    {"firmware", JsonKind::object, false},
};

}  // namespace

std::optional<std::string> host_meta_type_problem(const nlohmann::json& host) {
  if (!host.is_object()) return std::nullopt;
  return member_type_problem(host, kMembers);
}

}  // namespace kvmbench
