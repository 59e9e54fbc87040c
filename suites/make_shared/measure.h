// make_shared suite, host side: guest_memfd costs and private->shared
// conversions, built straight from KVM ioctls as the KVM selftests do.
// Every sample's extra keys.nr_pages is the N its case name shows.
//
// 1. guest_memfd operations, case "nr_pages=<N>", variant "guest_memfd":
//      gmem_create_time       ns    KVM_CREATE_GUEST_MEMFD
//      gmem_fallocate_time    ns    fallocate(KEEP_SIZE, size): allocate every page
//      gmem_fallocate_rate    GB/s  size / that time (GB = 1e9 bytes)
//      gmem_punch_hole_time   ns    fallocate(PUNCH_HOLE|KEEP_SIZE, size): free them
// 2. conversions, case "nr_pages=<N>", variant "<vm type>" (sw_protected,
//    snp, tdx, ...): per VM build a VM of that type (private_vm.h: SNP:
//    KVM_SEV_INIT2 + KVM_SEV_SNP_LAUNCH_START; TDX: split irqchip +
//    KVM_TDX_CAPABILITIES + KVM_TDX_INIT_VM; UNTESTED ON HARDWARE), a
//    guest_memfd slot of the size at GPA 4G, populated (fallocate), a vCPU
//    (TDX: KVM_SET_CPUID2 + KVM_TDX_INIT_VCPU), the launch finished (SNP:
//    KVM_SEV_SNP_LAUNCH_FINISH; TDX: KVM_TDX_FINALIZE_VM), the range set
//    private, then `conversions_per_build` times:
//      to_shared_cycles / to_shared_time    cycles (TSC) / ns   to shared (0)
//      to_private_cycles / to_private_time  cycles (TSC) / ns   ... (PRIVATE) back
//    through the conversion ioctl chosen for the type and `need`
//    (gmem_conversion.h; extra.conversion_ioctl says which): the VM-wide
//    KVM_SET_MEMORY_ATTRIBUTES or KVM_SET_MEMORY_ATTRIBUTES2 on the
//    guest_memfd fd. One repetition is one VM build, its conversions
//    the samples' extra.conversion. Skipped with the
//    reason when no VM type has a conversion serving `need`.
//    Before each conversion the vCPU pre-faults the private memory
//    (KVM_PRE_FAULT_MEMORY, untimed; extra.prefaulted = 1), which after the
//    launch's end makes SNP pages RMP-assigned and TDX pages S-EPT-mapped:
//    the document's "get the guest to fault them into Secure EPTs". No guest
//    code runs, so the pages are not PVALIDATEd (SNP) or accepted (TDX) by a
//    guest as in the document's benchmark (extra.guest_state says so). Where
//    KVM refuses the pre-fault (no KVM_CAP_PRE_FAULT_MEMORY) the conversions
//    run on fallocated memory (prefaulted = 0) and a skip entry says why.
// Sizes larger than the memory limit are scaled down to the largest power
// of two that fits (extra.requested_bytes keeps what was asked).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/model/result_model.h"
#include "hostlib/measure/case_samples.h"
#include "hostlib/kvm/private_vm.h"

namespace kvmbench::suites::make_shared {

struct MakeSharedHostParams {
  std::vector<std::uint64_t> sizes = {4096, 1ULL << 30, 4ULL << 30};
  int conversions_per_build = 5;   // as in the document
  bool populate = true;            // fallocate the guest_memfd before converting
  bool prefault = true;            // KVM_PRE_FAULT_MEMORY before each conversion, where KVM allows it
  std::uint64_t memory_limit = 0;  // bytes one case may allocate; 0: half of MemAvailable
  std::string vm_type;             // "" = the first usable type of vm_type_order; else forced
  // Tried in this order when vm_type is empty (private_vm.h says why each).
  std::vector<std::uint32_t> vm_type_order = host::kHostVmTypeOrder;
  // What the conversion must reach: the document needs the arch make_shared
  // callback (only KVM_SET_MEMORY_ATTRIBUTES2 on the guest_memfd runs it).
  host::ConversionNeed need = host::ConversionNeed::any;
  bool gmem_ops = true;            // part 1
  bool conversions = true;         // part 2
  // Seconds waited after each SNP VM's teardown, before the next build: on
  // a kernel with the RMPOPT series (v7 on), the last SNP guest's exit
  // queues a re-optimisation sweep RMPOPT_WORK_TIMEOUT (10 s) later, which
  // would otherwise run beside the next build's conversions and be timed as
  // theirs. Samples say it (extra.teardown_settle_s). 0: no wait.
  double teardown_settle_s = 0;
};

// The VM type (KVM_CREATE_VM argument) used for conversions, and how it
// converts: `wanted` when given (any type; it is still checked), else the
// first usable type of `order` for `need`. Asks KVM live (creates one VM
// per offered type). Throws std::invalid_argument for an unknown `wanted`.
host::VmTypeChoice make_shared_vm_choice(const std::string& wanted, const std::vector<std::uint32_t>& order,
                                   host::ConversionNeed need = host::ConversionNeed::any);
// "no private-memory VM type here (tried snp, tdx): <each type's reason>".
std::string no_vm_type_reason(const host::VmTypeChoice& choice, const std::string& wanted,
                              const std::vector<std::uint32_t>& order);

// Why KVM_PRE_FAULT_MEMORY cannot populate the VM's private memory, or "":
// SNP and TDX refuse it until their launch is finished (finish_launch).
std::string prefault_refusal(const host::PrivateVm& pvm);

// What pre-faulting leaves the private memory of a `type` VM as (sample
// extra guest_state): RMP-assigned (SNP) or S-EPT-mapped (TDX), never
// validated or accepted by a guest.
std::string prefaulted_state(std::uint32_t type);

// One repetition: each size's guest_memfd operations once and one VM build
// with its conversions_per_build conversions.
host::BenchOutcome measure(const MakeSharedHostParams& params, const SampleSink& sink);

// The bytes a case of `requested` bytes converts under `limit`: itself, or
// the largest power of two that fits (at least 4K). Pure.
std::uint64_t conversion_case_bytes(std::uint64_t requested, std::uint64_t limit);

// One VM build of the conversion part as words, in the order the body runs
// it (for `run --dry-run`); `size` as it is to be printed ("0x1000",
// "SIZE"). Pure.
std::vector<std::string> conversion_build_plan(std::uint32_t type, host::ConversionIoctl ioctl, const std::string& size,
                                               int conversions, bool populate, bool prefault,
                                               std::uint64_t snp_policy, unsigned guest_phys_bits = 0);

}  // namespace kvmbench::suites::make_shared
