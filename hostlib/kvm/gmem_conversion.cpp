#include "hostlib/kvm/gmem_conversion.h"

#include <sys/ioctl.h>

#include <cerrno>
#include <stdexcept>

#include <fmt/format.h>

#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/os/kernel_files.h"

namespace kvmbench::host {

namespace {

constexpr std::uint64_t kUndefinedAttribute = 1ULL << 63;

std::string vm_ioctl_state(const ConversionPaths& p, const std::string& type) {
  if (p.vm_attributes & KVM_MEMORY_ATTRIBUTE_PRIVATE)
    return fmt::format("the VM-wide KVM_SET_MEMORY_ATTRIBUTES accepts PRIVATE on a {} VM", type);
  return fmt::format("the VM-wide KVM_SET_MEMORY_ATTRIBUTES does not take PRIVATE on a {} VM "
                     "(KVM_CAP_MEMORY_ATTRIBUTES on its fd = {:#x}{})",
                     type, p.vm_attributes, p.vm_attributes == 0 ? ": absent or turned off" : "");
}

std::string gmem_ioctl_state(const ConversionPaths& p) {
  if (p.gmem_attributes2) return "its guest_memfd implements KVM_SET_MEMORY_ATTRIBUTES2";
  return fmt::format("its guest_memfd does not implement KVM_SET_MEMORY_ATTRIBUTES2 ({})",
                     p.gmem_attributes2_detail.empty() ? "not probed" : p.gmem_attributes2_detail);
}

}  // namespace

std::string to_string(ConversionIoctl c) {
  switch (c) {
    case ConversionIoctl::none: return "none";
    case ConversionIoctl::vm_attributes: return "KVM_SET_MEMORY_ATTRIBUTES (VM fd)";
    case ConversionIoctl::gmem_attributes2: return "KVM_SET_MEMORY_ATTRIBUTES2 (guest_memfd fd)";
  }
  return "?";
}

ConversionChoice choose_conversion_ioctl(const ConversionPaths& p, ConversionNeed need, const std::string& type) {
  ConversionChoice c;
  const bool vm_private = (p.vm_attributes & KVM_MEMORY_ATTRIBUTE_PRIVATE) != 0;
  if (need == ConversionNeed::arch_make_shared) {
    if (p.gmem_attributes2) {
      c.ioctl = ConversionIoctl::gmem_attributes2;
      return c;
    }
    c.reason = fmt::format(
        "{}, and {}: the arch make_shared callback the document times runs only from KVM_SET_MEMORY_ATTRIBUTES2 "
        "on the guest_memfd fd (the in-place conversion series, with kvm.vm_memory_attributes=0); "
        "{}",
        gmem_ioctl_state(p), vm_ioctl_state(p, type),
        vm_private ? "a conversion through the VM-wide ioctl never calls it (upstream returns SNP pages to shared "
                     "in the RMP only when guest_memfd frees them)"
                   : "and there is no other conversion either");
    return c;
  }
  if (vm_private) {
    c.ioctl = ConversionIoctl::vm_attributes;
  } else if (p.gmem_attributes2) {
    c.ioctl = ConversionIoctl::gmem_attributes2;
  } else {
    c.reason = fmt::format("no conversion ioctl: {}, and {}", vm_ioctl_state(p, type), gmem_ioctl_state(p));
  }
  return c;
}

ConversionPaths probe_conversion_paths(Vm& vm) {
  ConversionPaths p;
  p.vm_attributes = static_cast<std::uint64_t>(vm.check_extension(KVM_CAP_MEMORY_ATTRIBUTES));
  UniqueFd gmem;
  try {
    gmem = vm.create_guest_memfd(4096, 0);
  } catch (const KvmError& e) {
    p.gmem_attributes2_detail = std::string("no guest_memfd to ask: ") + e.what();
    return p;
  }
  uapi::MemoryAttributes2 a{};
  a.size = 4096;
  a.attributes = kUndefinedAttribute;
  const int r = ::ioctl(gmem.get(), uapi::kSetMemoryAttributes2, &a);
  const int err = r < 0 ? errno : 0;
  if (r < 0 && err == EINVAL) {
    p.gmem_attributes2 = true;
    p.gmem_attributes2_detail = "an undefined attribute is refused with EINVAL";
  } else if (r < 0 && err == ENOTTY) {
    p.gmem_attributes2_detail = fmt::format(
        "ENOTTY for _IOWR(KVMIO, 0xd2, 128-byte struct kvm_memory_attributes2) = {:#x}", uapi::kSetMemoryAttributes2);
  } else if (r < 0) {
    p.gmem_attributes2_detail = fmt::format("it answered an undefined attribute with {}", errno_description(err));
  } else {
    // Accepted an attribute no kernel defines: not a conversion to rely on.
    p.gmem_attributes2_detail = "it accepted the undefined attribute bit 63 instead of refusing it";
  }
  // The series answers ENOTTY while its read-only kvm.vm_memory_attributes
  // is Y, before it looks at the arguments; say why where that is the case.
  const auto v = read_kernel_value("/sys/module/kvm/parameters/vm_memory_attributes");
  if (!p.gmem_attributes2 && err == ENOTTY && v && (*v == "Y" || *v == "1"))
    p.gmem_attributes2_detail += "; kvm.vm_memory_attributes=Y: the series turns it on only with =0 at boot";
  return p;
}

void gmem_set_memory_attributes(int gmem_fd, std::uint64_t offset, std::uint64_t size, std::uint64_t attributes) {
  uapi::MemoryAttributes2 a{};
  a.offset = offset;
  a.size = size;
  a.attributes = attributes;
  // Not restarted on EINTR or EAGAIN: a caller timing conversions must see
  // it (EAGAIN: pages still referenced).
  if (::ioctl(gmem_fd, uapi::kSetMemoryAttributes2, &a) < 0)
    throw KvmError("KVM_SET_MEMORY_ATTRIBUTES2", errno,
                   fmt::format("guest_memfd fd={}, offset={:#x}, size={:#x}, attributes={:#x}", gmem_fd, offset,
                               size, attributes));
}

void convert_memory(ConversionIoctl ioctl, Vm& vm, int gmem_fd, std::uint64_t gpa, std::uint64_t size,
                    std::uint64_t attributes) {
  switch (ioctl) {
    case ConversionIoctl::vm_attributes:
      vm.set_memory_attributes(gpa, size, attributes);
      return;
    case ConversionIoctl::gmem_attributes2:
      gmem_set_memory_attributes(gmem_fd, 0, size, attributes);
      return;
    case ConversionIoctl::none:
      break;
  }
  throw std::logic_error("convert_memory without a conversion ioctl");
}

}  // namespace kvmbench::host
