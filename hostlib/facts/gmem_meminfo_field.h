// Which /proc/meminfo field grows with a guest's private (guest_memfd)
// memory on the running kernel, for directmap's host allocation rate of an
// SNP guest. The document (post 001, a 2024 tree) read FileHugePages;
// upstream guest_memfd allocates order-0 folios (virt/kvm/guest_memfd.c,
// kvm_gmem_get_folio: "TODO: Support huge pages", filemap_grab_folio; the
// research note's [gmem-up]), so FileHugePages never rises there and an SNP
// run would end in "no ramp". Which field an order-0 guest_memfd page is
// counted in is not in the research note, so it is not assumed: the running
// kernel is asked, by allocating guest_memfd memory (fallocate) and seeing
// which candidate rose by about that much.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/parse/meminfo.h"

namespace kvmbench::host {

// Tried in this order: FileHugePages first (kernels with huge-page
// guest_memfd, and the document's field), then the fields an order-0
// page-cache folio of an unevictable mapping could be counted in.
inline const std::vector<std::string> kGuestMemfdFieldCandidates = {"FileHugePages", "Unevictable", "Shmem",
                                                                    "Cached"};

struct GrowingField {
  std::string field;   // "" when no candidate grew by the allocation
  std::string how;     // what was seen, e.g. "fallocate of 256 MiB of guest_memfd: Unevictable +256 MiB, ..."
  std::string reason;  // why none, when field is ""
};

// Pure: the first of `candidates` whose value rose by 90% to 150% of
// `allocated` bytes between `before` and `after` (a field moved by other
// activity as much as by the allocation is not taken for it).
GrowingField choose_growing_field(const Meminfo& before, const Meminfo& after, std::uint64_t allocated,
                                  const std::vector<std::string>& candidates = kGuestMemfdFieldCandidates);

// Live: a VM of `vm_type` (KVM_CREATE_VM), a guest_memfd of `bytes`
// (KVM_CREATE_GUEST_MEMFD), /proc/meminfo before and after
// fallocate(KEEP_SIZE) of all of it; the memory is freed again. Throws
// KvmError when KVM refuses a step and std::runtime_error when fallocate
// fails.
GrowingField calibrate_guest_memfd_field(std::uint32_t vm_type, std::uint64_t bytes);

}  // namespace kvmbench::host
