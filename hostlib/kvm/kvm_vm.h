// Thin wrappers over the KVM ioctls kvmbench needs, one function per ioctl,
// named after what it does (in the spirit of the KVM selftests' kvm_util).
// A VM is built directly through /dev/kvm, without QEMU: that is how the
// make_shared conversions are timed and how the probe tries a tiny guest.
//
// Every failing ioctl throws KvmError, whose message names the ioctl, the
// errno and the arguments, e.g.
//   "KVM_CREATE_VM(type=1 sw_protected) failed: EINVAL (Invalid argument)".
#pragma once

#include <linux/kvm.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hostlib/kvm/kvm_uapi.h"

namespace kvmbench::host {

struct KvmError : std::runtime_error {
  std::string ioctl_name;
  int error_number;  // errno of the failed call
  // `detail`, when not empty, follows the errno after "; " (for instance the
  // SEV firmware status or the TDX module status of a KVM_MEMORY_ENCRYPT_OP).
  KvmError(std::string ioctl, int err, const std::string& args, const std::string& detail = "");
};

// Owns one file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release();
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// x86 VM types, the KVM_CREATE_VM argument.
enum class VmType : std::uint32_t { default_vm = 0, sw_protected = 1, sev = 2, sev_es = 3, snp = 4, tdx = 5 };
// "default", "sw_protected", "sev", "sev_es", "snp", "tdx" (or "type<N>").
std::string vm_type_name(std::uint32_t type);

// /dev/kvm, the system fd.
class Kvm {
 public:
  // Throws KvmError("open(/dev/kvm)") when it cannot be opened.
  static Kvm open(const char* path = "/dev/kvm");
  int fd() const { return fd_.get(); }
  int api_version() const;                  // KVM_GET_API_VERSION (12)
  // KVM_CHECK_EXTENSION on the system fd: 0 when unsupported, else the
  // capability's value (a bitmask for VM_TYPES, GUEST_MEMFD_FLAGS, ...).
  long check_extension(unsigned cap) const;
  std::size_t vcpu_mmap_size() const;       // KVM_GET_VCPU_MMAP_SIZE
  // KVM_GET_SUPPORTED_CPUID: the CPUID leaves KVM can give a guest (asked
  // with a growing buffer until it fits).
  std::vector<uapi::CpuidEntry2> supported_cpuid() const;

 private:
  UniqueFd fd_;
};

class Vcpu;

// What KVM_TDX_CAPABILITIES reports: the TD attributes and XFAM bits the TDX
// module supports, and the CPUID bits a TD may configure.
struct TdxCapabilities {
  std::uint64_t supported_attrs = 0;
  std::uint64_t supported_xfam = 0;
  std::vector<uapi::CpuidEntry2> configurable_cpuid;
};

// One VM (KVM_CREATE_VM); its fd closes with it.
// Called with a VM's or a vCPU's fd just before kvmbench closes it, where
// one is set: the monitors read KVM's statistics there
// (hostlib/monitor/kvm_stats.h). nullptr: none.
using KvmFdClosingHook = void (*)(int fd, bool vcpu);
void set_kvm_fd_closing_hook(KvmFdClosingHook hook);

class Vm {
 public:
  Vm() = default;
  Vm(Vm&&) noexcept = default;
  Vm& operator=(Vm&&) noexcept = default;
  ~Vm();
  static Vm create(const Kvm& kvm, std::uint32_t type = 0);
  int fd() const { return fd_.get(); }
  std::uint32_t type() const { return type_; }
  // KVM_CHECK_EXTENSION on the VM fd: answers for this VM's type (memory
  // attributes, for instance, differ between a default and a protected VM).
  long check_extension(unsigned cap) const;

  // KVM_CREATE_GUEST_MEMFD; flags are GUEST_MEMFD_FLAG_*.
  UniqueFd create_guest_memfd(std::uint64_t size, std::uint64_t flags = 0);
  // KVM_SET_USER_MEMORY_REGION (no guest_memfd).
  void set_user_memory_region(std::uint32_t slot, std::uint32_t flags, std::uint64_t gpa,
                              std::uint64_t size, void* hva);
  // KVM_SET_USER_MEMORY_REGION2; pass KVM_MEM_GUEST_MEMFD in flags to back
  // the slot's private memory with `guest_memfd` at `guest_memfd_offset`.
  void set_user_memory_region2(std::uint32_t slot, std::uint32_t flags, std::uint64_t gpa,
                               std::uint64_t size, void* hva, int guest_memfd,
                               std::uint64_t guest_memfd_offset);
  // KVM_SET_MEMORY_ATTRIBUTES over [gpa, gpa+size); attributes 0 = shared,
  // KVM_MEMORY_ATTRIBUTE_PRIVATE = private.
  void set_memory_attributes(std::uint64_t gpa, std::uint64_t size, std::uint64_t attributes);

  // ---- Confidential VM initialisation, through KVM_MEMORY_ENCRYPT_OP on the
  // VM fd, in the order the KVM selftests use (lib/x86/sev.c, tdx_util.c).
  // UNTESTED ON HARDWARE: this host has neither SEV-SNP nor TDX; the unit
  // tests check the argument layouts and that a refusal is a clear KvmError.
  // A refusal names the sub-command, errno and, when the firmware or TDX
  // module answered, its status code.

  // KVM_SEV_INIT2 for an SEV, SEV-ES or SNP VM type; `sev_fd` is an open
  // /dev/sev. All-zero `init` asks for KVM's defaults.
  void sev_init2(int sev_fd, const uapi::SevInit& init = {});
  // KVM_SEV_SNP_LAUNCH_START with the guest `policy` (see snp_guest_policy()).
  void snp_launch_start(int sev_fd, std::uint64_t policy);
  // KVM_TDX_CAPABILITIES (asked with a growing CPUID buffer until it fits).
  TdxCapabilities tdx_capabilities();
  // KVM_TDX_INIT_VM with the TD `attributes` and the guest's CPUID (which
  // must be within the capabilities' configurable bits: tdx_guest_cpuid()).
  void tdx_init_vm(std::uint64_t attributes, const std::vector<uapi::CpuidEntry2>& cpuid);

  // ---- Finishing the launch: what lets KVM map private memory (KVM_PRE_FAULT_MEMORY
  // is refused before it: svm/sev.c sets pre_fault_allowed in SNP_LAUNCH_FINISH,
  // vmx/tdx.c in TDX_FINALIZE_VM; research note section 2). UNTESTED ON HARDWARE.
  // KVM_SEV_SNP_LAUNCH_FINISH with no ID block (the vCPUs' VMSAs are
  // encrypted and measured here, so every vCPU must exist before).
  void snp_launch_finish(int sev_fd);
  // KVM_TDX_FINALIZE_VM (after KVM_TDX_INIT_VCPU of every vCPU).
  void tdx_finalize_vm();
  // KVM_ENABLE_CAP(KVM_CAP_SPLIT_IRQCHIP, pins): a TD's vCPUs need KVM's local
  // APIC with the IOAPIC in user space (QEMU's kernel-irqchip=split, which
  // tdx.rst requires); before any vCPU is created.
  void enable_split_irqchip(std::uint32_t ioapic_pins = 24);

  Vcpu create_vcpu(const Kvm& kvm, unsigned id = 0);

 private:
  UniqueFd fd_;
  std::uint32_t type_ = 0;
};

// How one run_for() ended.
struct RunOutcome {
  bool timed_out = false;        // the timer fired before KVM_RUN came back by itself
  std::uint32_t exit_reason = 0; // kvm_run.exit_reason when !timed_out
};

// One vCPU (KVM_CREATE_VCPU) with its mmap'ed kvm_run.
class Vcpu {
 public:
  Vcpu(UniqueFd fd, kvm_run* run, std::size_t run_size);
  Vcpu(Vcpu&& o) noexcept;
  Vcpu& operator=(Vcpu&&) = delete;
  Vcpu(const Vcpu&) = delete;
  ~Vcpu();
  int fd() const { return fd_.get(); }
  kvm_run& run_state() { return *run_; }

  kvm_regs get_regs() const;
  void set_regs(const kvm_regs& r);
  kvm_sregs get_sregs() const;
  void set_sregs(const kvm_sregs& s);

  // KVM_PRE_FAULT_MEMORY over [gpa, gpa+size), repeated until done (the
  // kernel reports progress by shrinking the range and may return EINTR or
  // EAGAIN part-way).
  void pre_fault_memory(std::uint64_t gpa, std::uint64_t size);

  // KVM_SET_CPUID2: the vCPU's CPUID.
  void set_cpuid(const std::vector<uapi::CpuidEntry2>& entries);
  // KVM_TDX_INIT_VCPU; `initial_rcx` is the value the TD starts with in RCX
  // (TDVF's HOB address; 0 for none). Sent as KVM_MEMORY_ENCRYPT_OP on the
  // vCPU fd, data = that value: not in the research note, which checked the
  // VM-scope commands; upstream vmx/tdx.c tdx_vcpu_ioctl as remembered
  // (UNSURE). UNTESTED ON HARDWARE.
  void tdx_init_vcpu(std::uint64_t initial_rcx = 0);
  // KVM_TDX_GET_CPUID: the TD's CPUID as the TDX module fixes it (x2APIC
  // among its fixed-1 bits, which KVM_TDX_INIT_VCPU requires), after
  // KVM_TDX_INIT_VM and before KVM_TDX_INIT_VCPU, as QEMU and the TDX
  // selftests ask it (the buffer grown on E2BIG). UNTESTED ON HARDWARE.
  std::vector<uapi::CpuidEntry2> tdx_get_cpuid();

  // KVM_RUN under a timer: if the guest has not exited by `timeout`, a
  // signal kicks the vCPU out (KVM_RUN returns EINTR; a signal that lands
  // just before the ioctl is caught through kvm_run.immediate_exit, and the
  // kick repeats every few ms, so this never blocks for long). Other errors
  // throw KvmError.
  RunOutcome run_for(std::chrono::milliseconds timeout);

 private:
  UniqueFd fd_;
  kvm_run* run_ = nullptr;
  std::size_t run_size_ = 0;
};

// "KVM_EXIT_IO", "KVM_EXIT_HLT", ... or "exit_reason N".
std::string exit_reason_name(std::uint32_t reason);
// "EINVAL (Invalid argument)".
std::string errno_description(int err);

// The SNP guest policy the KVM selftests launch with: the reserved bit 17
// (must be one), SMT allowed when the host runs with SMT on (the firmware
// refuses a policy without it then), DEBUG only when asked. ABI version 0.0.
std::uint64_t snp_guest_policy(bool host_smt_active, bool debug = false);
// /sys/devices/system/cpu/smt/active is "1".
bool host_smt_active();

// A TD's CPUID, as the selftests build it: each leaf KVM supports that the
// TDX module lists as configurable, its registers ANDed with the
// configurable bits; leaves the module does not list are dropped.
std::vector<uapi::CpuidEntry2> tdx_guest_cpuid(const std::vector<uapi::CpuidEntry2>& supported,
                                               const std::vector<uapi::CpuidEntry2>& configurable);

// KVM_GET_SUPPORTED_CPUID's 0x80000008 EAX[23:16] (GuestPhysBits), or
// EAX[7:0] where that is 0; 0 without the leaf.
unsigned guest_phys_bits(const std::vector<uapi::CpuidEntry2>& supported);

// A TD's guest physical address width: KVM_TDX_INIT_VM takes it from the
// CPUID's 0x80000008 EAX[23:16] and refuses (EINVAL) anything but 48 or
// 52, 52 only with 5-level EPT, which KVM's GuestPhysBits of 52 shows.
unsigned tdx_gpaw(unsigned guest_phys_bits);
// Sets 0x80000008 EAX[23:16] of `cpuid` to `gpaw` (adding the leaf when
// missing: INIT_VM refuses a CPUID without it).
void set_tdx_gpaw(std::vector<uapi::CpuidEntry2>& cpuid, unsigned gpaw);
// The x2APIC bit, CPUID.1:ECX[21]: fixed 1 in a TD.
inline constexpr std::uint32_t kCpuidX2apic = 1u << 21;

// "INVALID_GUEST_STATE" for an SEV firmware status code, "status N" otherwise.
std::string sev_firmware_status_name(std::uint32_t code);

}  // namespace kvmbench::host
