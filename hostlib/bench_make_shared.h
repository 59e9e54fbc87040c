// make_shared suite, host side: guest_memfd costs and private->shared
// conversions, built straight from KVM ioctls as the KVM selftests do.
//
// 1. guest_memfd operations, case "nr_pages=<N>", variant "guest_memfd":
//      gmem_create_time       ns    KVM_CREATE_GUEST_MEMFD
//      gmem_fallocate_time    ns    fallocate(KEEP_SIZE, size): allocate every page
//      gmem_fallocate_rate    GB/s  size / that time (GB = 1e9 bytes)
//      gmem_punch_hole_time   ns    fallocate(PUNCH_HOLE|KEEP_SIZE, size): free them
// 2. conversions, case "nr_pages=<N>", variant "<vm type>" (sw_protected,
//    snp, tdx, ...): per VM build a VM of that type (SNP: KVM_SEV_INIT2 +
//    KVM_SEV_SNP_LAUNCH_START; TDX: KVM_TDX_CAPABILITIES + KVM_TDX_INIT_VM;
//    see private_vm.h, UNTESTED ON HARDWARE), a guest_memfd slot of the
//    size, populated (fallocate) and set private, then `conversions_per_build` times:
//      to_shared_cycles / to_shared_time    cycles (TSC) / ns   KVM_SET_MEMORY_ATTRIBUTES(0)
//      to_private_cycles / to_private_time  cycles (TSC) / ns   ... (PRIVATE) back
//    iteration = build * conversions_per_build + conversion (extra.repetition
//    = VM build, extra.conversion). Skipped with the reason when no VM type
//    offers KVM_MEMORY_ATTRIBUTE_PRIVATE (see make_shared_vm_type()).
//    Before each conversion a vCPU pre-faults the private memory into the
//    guest's page tables (KVM_PRE_FAULT_MEMORY, untimed; extra.prefaulted =
//    1), as the document's guest faulted it in. Where KVM refuses that (no
//    KVM_CAP_PRE_FAULT_MEMORY; SNP and TDX before launch finish / finalize,
//    which need vCPU state not built here) the conversions run on fallocated
//    memory (prefaulted = 0) and a skip entry says why: on SNP the pages were
//    then never assigned in the RMP, so the arch make_shared callback has
//    less to undo than in the document's runs. UNTESTED here (this host
//    offers no VM type with private memory).
// Sizes larger than the memory limit are scaled down to the largest power
// of two that fits (extra.requested_bytes keeps what was asked).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/result_model.h"
#include "hostlib/bench_runner.h"
#include "hostlib/private_vm.h"

namespace kvmbench::host {

struct MakeSharedHostParams {
  std::vector<std::uint64_t> sizes = {4096, 1ULL << 30, 4ULL << 30};
  int vm_builds = 2;               // repetitions, a fresh VM each
  int conversions_per_build = 5;   // as in the document
  bool populate = true;            // fallocate the guest_memfd before converting
  bool prefault = true;            // KVM_PRE_FAULT_MEMORY before each conversion, where KVM allows it
  std::uint64_t memory_limit = 0;  // bytes one case may allocate; 0: half of MemAvailable
  std::string vm_type;             // "" = the first usable type of vm_type_order; else forced
  // Tried in this order when vm_type is empty (private_vm.h says why each).
  std::vector<std::uint32_t> vm_type_order = kHostVmTypeOrder;
  bool gmem_ops = true;            // part 1
  bool conversions = true;         // part 2
};

// The VM type (KVM_CREATE_VM argument) used for conversions: `wanted` when
// given (any type; it is still checked), else the first usable type of
// `order`; or -1 with `why` saying, for each type tried, why not. Asks KVM
// live (creates one VM per offered type). Throws std::invalid_argument for
// an unknown `wanted`.
int make_shared_vm_type(const std::string& wanted, std::string& why,
                        const std::vector<std::uint32_t>& order = kHostVmTypeOrder);

// Why KVM_PRE_FAULT_MEMORY cannot populate `vm`'s private memory, or "".
// SNP and TDX VMs refuse it before launch finish / finalize (which need
// vCPU state kvmbench does not build).
std::string prefault_refusal(const Vm& vm);

BenchOutcome run_make_shared_host_benchmarks(const MakeSharedHostParams& params,
                                             const SampleSink& sink);

}  // namespace kvmbench::host
