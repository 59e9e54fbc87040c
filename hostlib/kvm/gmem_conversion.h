// How a VM's guest_memfd memory is converted between private and shared,
// and which way reaches the arch make_shared callback that post 002
// measures. Two ioctls exist, and a kernel may offer either or both:
//   - KVM_SET_MEMORY_ATTRIBUTES on the VM fd (upstream; cap 233 on the VM
//     fd says whether PRIVATE is accepted). Upstream guest_memfd has no
//     make_shared callback: SNP pages go back to shared in the RMP only when
//     guest_memfd frees the folio (kvm_gmem_free_folio -> sev_gmem_invalidate,
//     research note section 2), so a conversion through it never runs the
//     code the document times. The in-place series may turn it off
//     (vm_memory_attributes=0: ENOTTY and cap 0; RFC v1 04/37).
//   - KVM_SET_MEMORY_ATTRIBUTES2 on the guest_memfd fd (the in-place
//     conversion series, where kvm.vm_memory_attributes=0 at boot; with
//     the default Y it is ENOTTY): to-shared runs
//     kvm_gmem_make_shared -> kvm_arch_gmem_make_shared per folio, the
//     document's callback, and its rdtsc instrumentation prints the
//     "guest_memfd to_shared:" lines.
// Its capability number is not settled (251, 245 or 249 across revisions:
// research note), so the guest_memfd ioctl is probed by calling it with an
// attribute no kernel accepts: EINVAL means it is there, ENOTTY that it is
// not.
#pragma once

#include <cstdint>
#include <string>

#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::host {

enum class ConversionIoctl { none, vm_attributes, gmem_attributes2 };
// "KVM_SET_MEMORY_ATTRIBUTES (VM fd)", "KVM_SET_MEMORY_ATTRIBUTES2 (guest_memfd fd)", "none".
std::string to_string(ConversionIoctl c);

// What one VM type offers, from the probe (or a host description).
struct ConversionPaths {
  std::uint64_t vm_attributes = 0;  // KVM_CAP_MEMORY_ATTRIBUTES on the VM fd
  bool gmem_attributes2 = false;    // its guest_memfd implements KVM_SET_MEMORY_ATTRIBUTES2
  std::string gmem_attributes2_detail;  // why not ("ENOTTY ...", "not probed", ...), or how it answered
};

// Whether the measurement needs the arch make_shared callback (the make_shared
// document preset) or any conversion (the host preset).
enum class ConversionNeed { any, arch_make_shared };

struct ConversionChoice {
  ConversionIoctl ioctl = ConversionIoctl::none;
  std::string reason;  // none: why no ioctl serves `need`
};

// Pure. arch_make_shared: only the guest_memfd ioctl will do. any: the VM
// ioctl where it accepts PRIVATE (what kvmbench always timed, so runs stay
// comparable), else the guest_memfd one. `type` names the VM type in the
// reason.
ConversionChoice choose_conversion_ioctl(const ConversionPaths& paths, ConversionNeed need,
                                         const std::string& type);

// Live, on a VM just created: its KVM_CAP_MEMORY_ATTRIBUTES and a 4 KiB
// guest_memfd asked KVM_SET_MEMORY_ATTRIBUTES2 with an undefined attribute
// (bit 63): EINVAL -> offered; ENOTTY -> not; a guest_memfd KVM refuses to
// create, or another errno, is said in the detail. Changes nothing.
ConversionPaths probe_conversion_paths(Vm& vm);

// KVM_SET_MEMORY_ATTRIBUTES2 on a guest_memfd over [offset, offset+size).
// Throws KvmError naming the ioctl and its arguments.
void gmem_set_memory_attributes(int gmem_fd, std::uint64_t offset, std::uint64_t size, std::uint64_t attributes);

// One conversion through `ioctl`: the VM ioctl takes the GPA range, the
// guest_memfd one the file range (the slot maps file offset 0 at `gpa`).
void convert_memory(ConversionIoctl ioctl, Vm& vm, int gmem_fd, std::uint64_t gpa, std::uint64_t size,
                    std::uint64_t attributes);

}  // namespace kvmbench::host
