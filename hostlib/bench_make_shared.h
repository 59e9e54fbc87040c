// make_shared suite, host side: guest_memfd costs and private->shared
// conversions, built straight from KVM ioctls as the KVM selftests do.
//
// 1. guest_memfd operations, case "nr_pages=<N>", variant "guest_memfd":
//      gmem_create_time       ns    KVM_CREATE_GUEST_MEMFD
//      gmem_fallocate_time    ns    fallocate(KEEP_SIZE, size): allocate every page
//      gmem_fallocate_rate    GB/s  size / that time (GB = 1e9 bytes)
//      gmem_punch_hole_time   ns    fallocate(PUNCH_HOLE|KEEP_SIZE, size): free them
// 2. conversions, case "nr_pages=<N>", variant "<vm type>" (sw_protected,
//    snp, tdx, ...): per VM build a guest_memfd slot of the size, populated
//    (fallocate) and set private, then `conversions_per_build` times:
//      to_shared_cycles / to_shared_time    cycles (TSC) / ns   KVM_SET_MEMORY_ATTRIBUTES(0)
//      to_private_cycles / to_private_time  cycles (TSC) / ns   ... (PRIVATE) back
//    iteration = build * conversions_per_build + conversion (extra.repetition
//    = VM build, extra.conversion). Skipped with the reason when no VM type
//    offers KVM_MEMORY_ATTRIBUTE_PRIVATE (see make_shared_vm_type()).
// Sizes larger than the memory limit are scaled down to the largest power
// of two that fits (extra.requested_bytes keeps what was asked).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/result_model.h"
#include "hostlib/bench_runner.h"

namespace kvmbench::host {

struct MakeSharedHostParams {
  std::vector<std::uint64_t> sizes = {4096, 1ULL << 30, 4ULL << 30};
  int vm_builds = 2;               // repetitions, a fresh VM each
  int conversions_per_build = 5;   // as in the document
  bool populate = true;            // fallocate the guest_memfd before converting
  std::uint64_t memory_limit = 0;  // bytes one case may allocate; 0: half of MemAvailable
  std::string vm_type;             // "" = best private-capable type (sw_protected, snp, tdx)
  bool gmem_ops = true;            // part 1
  bool conversions = true;         // part 2
};

// The VM type (KVM_CREATE_VM argument) used for conversions, or -1 with
// `why` set when no type offers private memory here.
int make_shared_vm_type(const std::string& wanted, std::string& why);

BenchOutcome run_make_shared_host_benchmarks(const MakeSharedHostParams& params,
                                             const SampleSink& sink);

}  // namespace kvmbench::host
