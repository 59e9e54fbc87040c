// The pure half of the launcher: kernel command line, QEMU argument vector,
// and the confidential-guest support check (declared in qemu_launcher.h).
#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/qemu/qemu_launcher.h"

namespace kvmbench::host {

std::string_view to_string(Accel a) {
  switch (a) {
    case Accel::automatic: return "auto";
    case Accel::kvm: return "kvm";
    case Accel::tcg: return "tcg";
  }
  return "?";
}

namespace {

constexpr std::pair<MemoryBackend, std::string_view> kMemoryBackends[] = {
    {MemoryBackend::memfd, "memfd"}, {MemoryBackend::anonymous, "anonymous"}, {MemoryBackend::hugetlbfs, "hugetlbfs"}};

}  // namespace

std::string_view to_string(MemoryBackend b) {
  for (const auto& [backend, name] : kMemoryBackends)
    if (backend == b) return name;
  return "?";
}

std::vector<std::string> memory_backend_names() {
  std::vector<std::string> out;
  for (const auto& [backend, name] : kMemoryBackends) out.emplace_back(name);
  return out;
}

std::optional<MemoryBackend> find_memory_backend(std::string_view name) {
  for (const auto& [backend, n] : kMemoryBackends)
    if (n == name) return backend;
  return std::nullopt;
}

std::string_view to_string(Confidential c) {
  switch (c) {
    case Confidential::none: return "none";
    case Confidential::sev_snp: return "sev-snp";
    case Confidential::tdx: return "tdx";
  }
  return "?";
}

std::string_view to_string(GuestRunStatus s) {
  switch (s) {
    case GuestRunStatus::ok: return "ok";
    case GuestRunStatus::failed: return "failed";
    case GuestRunStatus::cannot_run: return "cannot-run";
    case GuestRunStatus::interrupted: return "interrupted";
  }
  return "?";
}

static bool network_workload(const std::string& w) { return w == "tcp_rr" || w == "tcp_stream"; }

std::string guest_cmdline(const GuestSpec& spec) {
  if (spec.workload.empty() ||
      !std::all_of(spec.workload.begin(), spec.workload.end(),
                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }))
    throw std::invalid_argument("workload name '" + spec.workload + "' must be [a-z0-9_]+");
  std::string args;
  for (const auto& a : spec.args) {
    if (a.empty() || a.find_first_of(" ,\"'\t\n\\") != std::string::npos)
      throw std::invalid_argument("workload argument '" + a +
                                  "' cannot travel on the kernel command line (no spaces, commas, quotes)");
    if (!args.empty()) args += ',';
    args += a;
  }
  // panic=-1: reboot at once on a panic, which -no-reboot turns into a QEMU
  // exit. quiet: fewer kernel lines to interleave with the results. The
  // others only shorten the boot (no TSC calibration or watchdog).
  std::string cmd = "console=ttyS0 panic=-1 quiet tsc=reliable no_timer_check";
  cmd += " kvmbench.workload=" + spec.workload;
  if (!args.empty()) cmd += " kvmbench.args=" + args;
  if (spec.network || network_workload(spec.workload)) cmd += " kvmbench.net=1";
  if (!spec.extra_cmdline.empty()) cmd += " " + spec.extra_cmdline;
  return cmd;
}

static std::string memory_backend_object(const GuestSpec& spec) {
  std::string size = fmt::format("size={}M", spec.memory_mib);
  std::string obj;
  // Confidential guests need memory QEMU can hand to KVM as shared memory
  // next to the guest_memfd it creates itself: a memfd backend.
  MemoryBackend b = spec.backend;
  if (spec.confidential != Confidential::none && b == MemoryBackend::anonymous) b = MemoryBackend::memfd;
  switch (b) {
    case MemoryBackend::anonymous:
      obj = "memory-backend-ram,id=ram0," + size;
      break;
    case MemoryBackend::hugetlbfs:
      // memory-backend-file on hugetlbfs: the guest's memory is huge pages
      // of the mount's size; share=on so the pages are not copied on write.
      obj = "memory-backend-file,id=ram0," + size + ",mem-path=" + spec.hugetlbfs_mount.string() + ",share=on";
      break;
    case MemoryBackend::memfd:
      obj = "memory-backend-memfd,id=ram0," + size + ",share=on";
      break;
  }
  if (spec.prealloc) obj += ",prealloc=on";
  if (spec.host_numa_node) obj += fmt::format(",host-nodes={},policy=bind", *spec.host_numa_node);
  return obj;
}

std::vector<std::string> build_qemu_argv(const GuestSpec& spec, const LaunchPlan& plan) {
  if (plan.accel == Accel::automatic) throw std::invalid_argument("accelerator must be resolved before building argv");
  if (spec.vcpus < 1 || spec.vcpus > 1024) throw std::invalid_argument("vCPUs must be 1..1024");
  if (spec.memory_mib < 64) throw std::invalid_argument("guest memory must be at least 64 MiB");
  if (spec.host_numa_node && *spec.host_numa_node < 0) throw std::invalid_argument("NUMA node must be >= 0");
  if (spec.confidential != Confidential::none && plan.accel != Accel::kvm)
    throw std::invalid_argument(std::string(to_string(spec.confidential)) + " guests need KVM, not TCG");
  if (spec.confidential == Confidential::sev_snp && spec.snp.firmware.empty())
    throw std::invalid_argument("an SEV-SNP guest needs its firmware (an SNP-capable OVMF)");
  if (spec.confidential == Confidential::sev_snp && spec.snp.cbitpos <= 0)
    throw std::invalid_argument("the SEV-SNP C-bit position must be resolved (resolve_snp_cbitpos) before building argv");
  if (spec.confidential == Confidential::tdx && spec.tdx.firmware.empty())
    throw std::invalid_argument("a TDX guest needs its firmware (TDVF)");

  std::vector<std::string> a = {plan.qemu.string()};
  auto add = [&](std::initializer_list<std::string> xs) { a.insert(a.end(), xs); };

  // No user config, no default devices (NIC, VGA, serial, monitor): every
  // device is named below, nothing is grabbed from stdio.
  add({"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot"});

  std::string machine = "q35";
  if (spec.confidential == Confidential::sev_snp) machine += ",confidential-guest-support=sev0";
  if (spec.confidential == Confidential::tdx) machine += ",kernel-irqchip=split,confidential-guest-support=tdx0";
  machine += ",memory-backend=ram0";
  add({"-machine", machine});
  add({"-accel", plan.accel == Accel::kvm ? "kvm" : "tcg"});
  // KVM: the host CPU as is. TCG: everything QEMU can emulate (CPUID leaves
  // the workloads might look at).
  add({"-cpu", plan.accel == Accel::kvm ? "host" : "max"});
  add({"-smp", std::to_string(spec.vcpus)});
  add({"-m", fmt::format("{}M", spec.memory_mib)});
  add({"-object", memory_backend_object(spec)});

  if (spec.confidential == Confidential::sev_snp) {
    std::string obj = fmt::format("sev-snp-guest,id=sev0,cbitpos={},reduced-phys-bits={},policy={}",
                                  spec.snp.cbitpos, spec.snp.reduced_phys_bits, spec.snp.policy);
    if (spec.snp.kernel_hashes) obj += ",kernel-hashes=on";
    add({"-object", obj, "-bios", spec.snp.firmware.string()});
  } else if (spec.confidential == Confidential::tdx) {
    add({"-object", "tdx-guest,id=tdx0", "-bios", spec.tdx.firmware.string()});
  }

  add({"-kernel", plan.kernel.string(), "-initrd", plan.initramfs.string(), "-append", guest_cmdline(spec)});

  // The serial console into the run directory; a file chardev appends
  // nothing of its own and needs no reader to make progress.
  add({"-chardev", "file,id=con0,path=" + plan.console_log.string(), "-serial", "chardev:con0"});
  add({"-monitor", "none"});
  if (!plan.qmp_socket.empty()) add({"-qmp", "unix:" + plan.qmp_socket.string() + ",server=on,wait=off"});
  if (plan.start_paused) add({"-S"});
  // With -no-reboot a reboot is a shutdown too: the launcher lets it go.
  if (plan.hold_at_shutdown) add({"-no-shutdown"});

  if (spec.network || network_workload(spec.workload)) {
    if (plan.host_port == 0) throw std::invalid_argument("network guest without a host port");
    // restrict=on: the guest reaches nothing but the one forwarded port,
    // and that port listens on the host's loopback only.
    add({"-netdev", fmt::format("user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:{}-:{}", plan.host_port,
                                spec.guest_port),
         "-device", "virtio-net-pci,netdev=net0"});
  }
  return a;
}

static bool contains(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string confidential_refusal(const GuestSpec& spec, const ConfidentialSupport& host) {
  if (spec.confidential == Confidential::none) return "";
  const bool snp = spec.confidential == Confidential::sev_snp;
  const char* what = snp ? "SEV-SNP" : "TDX";
  if (spec.accel == Accel::tcg) return std::string(what) + " guests cannot run under TCG";
  if (!host.kvm_runs_guests) return std::string(what) + " guests need KVM, and KVM on this host cannot run guests";
  if (!contains(host.kvm_vm_types, snp ? "snp" : "tdx"))
    return std::string("KVM on this host does not offer the ") + (snp ? "snp" : "tdx") +
           " VM type (KVM_CAP_VM_TYPES)";
  if (host.vm_memory_attributes && !(*host.vm_memory_attributes & KVM_MEMORY_ATTRIBUTE_PRIVATE))
    return fmt::format("KVM does not take the PRIVATE memory attribute through the VM-wide KVM_SET_MEMORY_ATTRIBUTES "
                       "on a {} VM (KVM_CAP_MEMORY_ATTRIBUTES on its fd = {:#x}), which QEMU needs for {} guests' "
                       "private memory (it would exit: \"cannot set up private guest memory\"); with the in-place "
                       "conversion series, a boot with kvm.vm_memory_attributes=0 turns it off",
                       snp ? "snp" : "tdx", *host.vm_memory_attributes, what);
  const char* object = snp ? "sev-snp-guest" : "tdx-guest";
  if (!contains(host.qemu_objects, object))
    return std::string("this QEMU has no '") + object + "' object (too old or built without it)";
  const auto& fw = snp ? spec.snp.firmware : spec.tdx.firmware;
  if (fw.empty()) return std::string(what) + " guests need a firmware path (OVMF)";
  if (snp) {
    SevSnpOptions copy = spec.snp;
    if (auto why = resolve_snp_cbitpos(copy, host.host_cbitpos); !why.empty()) return why;
  }
  return "";
}

std::string resolve_snp_cbitpos(SevSnpOptions& snp, std::optional<unsigned> host_cbitpos) {
  if (!host_cbitpos)
    return "the CPU reports no SEV C-bit position (CPUID 0x8000001F: not AMD, or no SEV), which an SEV-SNP guest "
           "needs";
  if (snp.cbitpos == 0) {
    snp.cbitpos = static_cast<int>(*host_cbitpos);
    return "";
  }
  if (snp.cbitpos != static_cast<int>(*host_cbitpos))
    return fmt::format(
        "cbitpos={} differs from the host's C-bit position {} (CPUID 0x8000001F EBX[5:0]): QEMU would exit with "
        "\"cbitpos check failed\"",
        snp.cbitpos, *host_cbitpos);
  return "";
}

}  // namespace kvmbench::host
