// The parts of the KVM user-space ABI that kvmbench uses and that older
// <linux/kvm.h> copies lack (Debian's linux-libc-dev 6.1 stops at
// KVM_CAP_DIRTY_LOG_RING_ACQ_REL). The values are the kernel's ABI, so they
// are defined here only when the system header does not already have them;
// the structs get kvmbench-local names so that they never clash with a newer
// header's definitions of the same layout.
#pragma once

#include <linux/kvm.h>

#include <cstddef>
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

// ---- In-place guest_memfd conversion (the series post 002 measures) --
// The to-shared ioctl that reaches the arch make_shared callback, on the
// guest_memfd fd itself (research/kernel_context.md C, linux-cc
// include/uapi/linux/kvm.h): KVM_SET_MEMORY_ATTRIBUTES2 =
// _IOWR(KVMIO, 0xd2, struct kvm_memory_attributes2 {offset, size,
// attributes, flags, reserved[12]}); only KVM_MEMORY_ATTRIBUTE_PRIVATE is
// accepted; -EAGAIN (with an error_offset) while pages are still referenced.
// The series' Documentation/virt/kvm/api.rst (4.145, v of May 2026) gives
// the layout: {union {address; offset}; size; attributes; flags; /* out */
// error_offset; reserved[11]}, all __u64, 128 bytes (earlier revisions:
// reserved[12], the same size and so the same ioctl number). error_offset
// is the first of the reserved words here; it is not read. Newer revisions
// also advertise the ioctl as KVM_CAP_GUEST_MEMFD_MEMORY_ATTRIBUTES (249);
// the probe tries the ioctl itself, which works for every revision.
struct MemoryAttributes2 {
  std::uint64_t offset;  // in the guest_memfd file, not a GPA
  std::uint64_t size;
  std::uint64_t attributes;
  std::uint64_t flags;
  std::uint64_t reserved[12];
};
static_assert(sizeof(MemoryAttributes2) == 128);
static_assert(offsetof(MemoryAttributes2, attributes) == 16 && offsetof(MemoryAttributes2, flags) == 24);
inline constexpr unsigned long kSetMemoryAttributes2 = _IOWR(KVMIO, 0xd2, MemoryAttributes2);

}  // namespace kvmbench::host::uapi

// ---- Confidential VM initialisation (KVM_MEMORY_ENCRYPT_OP) ---------------
// SEV-SNP (arch/x86/include/uapi/asm/kvm.h, enum sev_cmd_id) and TDX (enum
// kvm_tdx_cmd_id) sub-commands. Debian's 6.1 header has the SEV enum up to
// KVM_SEV_SEND_CANCEL only, so the newer ids are spelled out here under
// kvmbench names (the enum constants of a newer header would clash).
namespace kvmbench::host::uapi {

inline constexpr std::uint32_t kSevInit2 = 22;             // KVM_SEV_INIT2
inline constexpr std::uint32_t kSevSnpLaunchStart = 100;   // KVM_SEV_SNP_LAUNCH_START
inline constexpr std::uint32_t kSevSnpLaunchUpdate = 101;  // KVM_SEV_SNP_LAUNCH_UPDATE
inline constexpr std::uint32_t kSevSnpLaunchFinish = 102;  // KVM_SEV_SNP_LAUNCH_FINISH

inline constexpr std::uint32_t kTdxCapabilities = 0;  // KVM_TDX_CAPABILITIES
inline constexpr std::uint32_t kTdxInitVm = 1;        // KVM_TDX_INIT_VM
inline constexpr std::uint32_t kTdxInitVcpu = 2;      // KVM_TDX_INIT_VCPU
inline constexpr std::uint32_t kTdxInitMemRegion = 3; // KVM_TDX_INIT_MEM_REGION
inline constexpr std::uint32_t kTdxFinalizeVm = 4;    // KVM_TDX_FINALIZE_VM
inline constexpr std::uint32_t kTdxGetCpuid = 5;      // KVM_TDX_GET_CPUID (vCPU fd)

// struct kvm_sev_cmd: the KVM_MEMORY_ENCRYPT_OP argument for SEV. `error`
// comes back with the SEV firmware's status code; `sev_fd` is an open
// /dev/sev, which the kernel uses to authorise firmware commands.
struct SevCmd {
  std::uint32_t id;
  std::uint32_t pad0;
  std::uint64_t data;  // user pointer to the sub-command's struct
  std::uint32_t error;
  std::uint32_t sev_fd;
};
static_assert(sizeof(SevCmd) == 24);
static_assert(offsetof(SevCmd, data) == 8 && offsetof(SevCmd, error) == 16 && offsetof(SevCmd, sev_fd) == 20);

// struct kvm_sev_init (KVM_SEV_INIT2): all zero asks for KVM's defaults
// (no extra VMSA features; GHCB protocol version 2 for SNP).
struct SevInit {
  std::uint64_t vmsa_features;
  std::uint32_t flags;
  std::uint16_t ghcb_version;
  std::uint16_t pad1;
  std::uint32_t pad2[8];
};
static_assert(sizeof(SevInit) == 48);
static_assert(offsetof(SevInit, flags) == 8 && offsetof(SevInit, ghcb_version) == 12);

// struct kvm_sev_snp_launch_start.
struct SevSnpLaunchStart {
  std::uint64_t policy;
  std::uint8_t gosvw[16];  // guest OS-visible workarounds, for the firmware
  std::uint16_t flags;     // must be 0
  std::uint8_t pad0[6];
  std::uint64_t pad1[4];
};
static_assert(sizeof(SevSnpLaunchStart) == 64);
static_assert(offsetof(SevSnpLaunchStart, gosvw) == 8 && offsetof(SevSnpLaunchStart, flags) == 24);

// struct kvm_sev_snp_launch_finish (KVM_SEV_SNP_LAUNCH_FINISH), as in
// upstream's arch/x86/include/uapi/asm/kvm.h and
// Documentation/virt/kvm/x86/amd-memory-encryption.rst ("20.
// KVM_SEV_SNP_LAUNCH_FINISH": id_block_uaddr, id_auth_uaddr, id_block_en,
// auth_key_en, vcek_disabled, host_data[32], pad0[3], flags (must be zero),
// pad1[4]; 88 bytes). kvmbench sends it all zero (no ID block, no
// host data, as the selftests' snp_vm_launch_finish does); the kernel copies
// sizeof(its struct) from the pointer, so a buffer at least as large is what
// matters.
struct SevSnpLaunchFinish {
  std::uint64_t id_block_uaddr;
  std::uint64_t id_auth_uaddr;
  std::uint8_t id_block_en;
  std::uint8_t auth_key_en;
  std::uint8_t vcek_disabled;
  std::uint8_t host_data[32];
  std::uint8_t pad0[3];
  std::uint16_t flags;  // must be 0
  std::uint64_t pad1[4];
};
static_assert(sizeof(SevSnpLaunchFinish) == 88);
static_assert(offsetof(SevSnpLaunchFinish, host_data) == 19 && offsetof(SevSnpLaunchFinish, flags) == 54);

// SNP guest policy bits (SEV-SNP firmware ABI, "GUEST_POLICY"; the KVM
// selftests use the same: SMT, the reserved-must-be-one bit 17, DEBUG).
inline constexpr std::uint64_t kSnpPolicyAbiMinorMask = 0xffULL;    // bits 7:0
inline constexpr std::uint64_t kSnpPolicyAbiMajorMask = 0xff00ULL;  // bits 15:8
inline constexpr std::uint64_t kSnpPolicySmt = 1ULL << 16;          // SMT allowed
inline constexpr std::uint64_t kSnpPolicyRsvdMbo = 1ULL << 17;      // must be one
inline constexpr std::uint64_t kSnpPolicyMigrateMa = 1ULL << 18;
inline constexpr std::uint64_t kSnpPolicyDebug = 1ULL << 19;
inline constexpr std::uint64_t kSnpPolicySingleSocket = 1ULL << 20;

// struct kvm_tdx_cmd: the KVM_MEMORY_ENCRYPT_OP argument for TDX.
// `hw_error` comes back with the TDX module's SEAMCALL status.
struct TdxCmd {
  std::uint32_t id;
  std::uint32_t flags;  // per sub-command; 0 for CAPABILITIES and INIT_VM
  std::uint64_t data;   // user pointer to the sub-command's struct
  std::uint64_t hw_error;
};
static_assert(sizeof(TdxCmd) == 24);

// struct kvm_cpuid_entry2 / the header of struct kvm_cpuid2 (nent, padding,
// then nent entries), as they appear inside the TDX structs below.
struct CpuidEntry2 {
  std::uint32_t function;
  std::uint32_t index;
  std::uint32_t flags;
  std::uint32_t eax, ebx, ecx, edx;
  std::uint32_t padding[3];
};
static_assert(sizeof(CpuidEntry2) == 40);
static_assert(sizeof(CpuidEntry2) == sizeof(kvm_cpuid_entry2));
struct Cpuid2Header {
  std::uint32_t nent;
  std::uint32_t padding;
};
static_assert(sizeof(Cpuid2Header) == 8);

// struct kvm_tdx_capabilities, without its trailing CPUID entries (the
// "configurable" CPUID bits: a guest's CPUID may set only these).
struct TdxCapabilities {
  std::uint64_t supported_attrs;
  std::uint64_t supported_xfam;
  std::uint64_t kernel_tdvmcallinfo_1_r11;
  std::uint64_t user_tdvmcallinfo_1_r11;
  std::uint64_t kernel_tdvmcallinfo_1_r12;
  std::uint64_t user_tdvmcallinfo_1_r12;
  std::uint64_t reserved[250];
  Cpuid2Header cpuid;  // followed by cpuid.nent CpuidEntry2
};
static_assert(sizeof(TdxCapabilities) == 2056);
static_assert(offsetof(TdxCapabilities, cpuid) == 2048);

// struct kvm_tdx_init_vm, without its trailing CPUID entries (TD_PARAMS is
// 256 bytes before them).
struct TdxInitVm {
  std::uint64_t attributes;
  std::uint64_t xfam;
  std::uint64_t mrconfigid[6];     // SHA-384 digests; zero: none
  std::uint64_t mrowner[6];
  std::uint64_t mrownerconfig[6];
  std::uint64_t reserved[12];
  Cpuid2Header cpuid;  // followed by cpuid.nent CpuidEntry2
};
static_assert(sizeof(TdxInitVm) == 264);
static_assert(offsetof(TdxInitVm, cpuid) == 256);

// KVM_MEMORY_ENCRYPT_OP takes a pointer although the header declares
// `unsigned long`; the number is the kernel's (_IOWR(KVMIO, 0xba, unsigned long)).
inline constexpr unsigned long kMemoryEncryptOp = _IOWR(KVMIO, 0xba, unsigned long);
static_assert(kMemoryEncryptOp == KVM_MEMORY_ENCRYPT_OP);

}  // namespace kvmbench::host::uapi

// The SEV ids that follow KVM_SEV_SEND_CANCEL in the kernel's enum: checked
// against whatever header is installed, so a renumbering cannot slip by.
static_assert(kvmbench::host::uapi::kSevInit2 == KVM_SEV_SEND_CANCEL + 1);
