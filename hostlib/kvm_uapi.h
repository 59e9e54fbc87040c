// The parts of the KVM user-space ABI that kvmbench uses and that older
// <linux/kvm.h> copies lack (Debian's linux-libc-dev 6.1 stops at
// KVM_CAP_DIRTY_LOG_RING_ACQ_REL). The values are the kernel's ABI, so they
// are defined here only when the system header does not already have them;
// the structs get kvmbench-local names so that they never clash with a newer
// header's definitions of the same layout.
#pragma once

#include <linux/kvm.h>

#include <cstdint>

// Capabilities (KVM_CHECK_EXTENSION).
#ifndef KVM_CAP_USER_MEMORY2
#define KVM_CAP_USER_MEMORY2 231
#endif
#ifndef KVM_CAP_MEMORY_FAULT_INFO
#define KVM_CAP_MEMORY_FAULT_INFO 232
#endif
#ifndef KVM_CAP_MEMORY_ATTRIBUTES
#define KVM_CAP_MEMORY_ATTRIBUTES 233
#endif
#ifndef KVM_CAP_GUEST_MEMFD
#define KVM_CAP_GUEST_MEMFD 234
#endif
#ifndef KVM_CAP_VM_TYPES
#define KVM_CAP_VM_TYPES 235
#endif
#ifndef KVM_CAP_PRE_FAULT_MEMORY
#define KVM_CAP_PRE_FAULT_MEMORY 236
#endif
#ifndef KVM_CAP_GUEST_MEMFD_FLAGS
#define KVM_CAP_GUEST_MEMFD_FLAGS 244
#endif

// x86 VM types (KVM_CREATE_VM argument; KVM_CAP_VM_TYPES is a bitmask of 1 << type).
#ifndef KVM_X86_DEFAULT_VM
#define KVM_X86_DEFAULT_VM 0
#endif
#ifndef KVM_X86_SW_PROTECTED_VM
#define KVM_X86_SW_PROTECTED_VM 1
#endif
#ifndef KVM_X86_SEV_VM
#define KVM_X86_SEV_VM 2
#endif
#ifndef KVM_X86_SEV_ES_VM
#define KVM_X86_SEV_ES_VM 3
#endif
#ifndef KVM_X86_SNP_VM
#define KVM_X86_SNP_VM 4
#endif
#ifndef KVM_X86_TDX_VM
#define KVM_X86_TDX_VM 5
#endif

// Memslot flag: the slot's private memory comes from a guest_memfd.
#ifndef KVM_MEM_GUEST_MEMFD
#define KVM_MEM_GUEST_MEMFD (1U << 2)
#endif

#ifndef KVM_MEMORY_ATTRIBUTE_PRIVATE
#define KVM_MEMORY_ATTRIBUTE_PRIVATE (1ULL << 3)
#endif

#ifndef GUEST_MEMFD_FLAG_MMAP
#define GUEST_MEMFD_FLAG_MMAP (1ULL << 0)
#endif
#ifndef GUEST_MEMFD_FLAG_INIT_SHARED
#define GUEST_MEMFD_FLAG_INIT_SHARED (1ULL << 1)
#endif

#ifndef KVM_EXIT_MEMORY_FAULT
#define KVM_EXIT_MEMORY_FAULT 39
#endif

namespace kvmbench::host::uapi {

struct UserspaceMemoryRegion2 {
  std::uint32_t slot;
  std::uint32_t flags;
  std::uint64_t guest_phys_addr;
  std::uint64_t memory_size;
  std::uint64_t userspace_addr;
  std::uint64_t guest_memfd_offset;
  std::uint32_t guest_memfd;
  std::uint32_t pad1;
  std::uint64_t pad2[14];
};
static_assert(sizeof(UserspaceMemoryRegion2) == 160);

struct MemoryAttributes {
  std::uint64_t address;
  std::uint64_t size;
  std::uint64_t attributes;
  std::uint64_t flags;
};
static_assert(sizeof(MemoryAttributes) == 32);

struct CreateGuestMemfd {
  std::uint64_t size;
  std::uint64_t flags;
  std::uint64_t reserved[6];
};
static_assert(sizeof(CreateGuestMemfd) == 64);

struct PreFaultMemory {
  std::uint64_t gpa;
  std::uint64_t size;
  std::uint64_t flags;
  std::uint64_t padding[5];
};
static_assert(sizeof(PreFaultMemory) == 64);

// The ioctl numbers are computed from these layouts exactly as the kernel
// header does, so they are right whichever header is installed.
inline constexpr unsigned long kSetUserMemoryRegion2 = _IOW(KVMIO, 0x49, UserspaceMemoryRegion2);
inline constexpr unsigned long kSetMemoryAttributes = _IOW(KVMIO, 0xd2, MemoryAttributes);
inline constexpr unsigned long kCreateGuestMemfd = _IOWR(KVMIO, 0xd4, CreateGuestMemfd);
inline constexpr unsigned long kPreFaultMemory = _IOWR(KVMIO, 0xd5, PreFaultMemory);

}  // namespace kvmbench::host::uapi
