// directmap suite, host side: how fast fresh memory can be faulted in, by
// backing type, with N threads each touching B bytes (one write per 4 KiB
// page, as `stress --vm N --vm-bytes B` does), unpinned and pinned; and the
// bound next to it, the write bandwidth over the same memory once faulted.
//
// Samples (source: hardware), case "<backing>/threads=<N>", variant
// "unpinned" or "pinned":
//   faultin_rate             GB/s  N*B / wall time (GB = 1e9 bytes)
//   faultin_rate_per_thread  GB/s  B / that thread's time, one per thread (extra.thread)
//   faultin_time             ns    wall time, release of the threads -> last done
//   write_bandwidth          GB/s  memset of the already-faulted memory, N threads
//   thp_share                %     of a thread's memory backed by transparent huge
//                                  pages after its fault-in (thp only; extra.thread)
// Backings: hostlib/measure/backing.h (hugetlb only with a big enough free pool; see
// below).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/model/result_model.h"
#include "hostlib/measure/backing.h"
#include "hostlib/measure/case_samples.h"

namespace kvmbench::suites::directmap {

struct DirectmapHostParams {
  std::uint64_t bytes_per_thread = 64ULL << 20;
  std::vector<int> threads;             // empty: {1, all allowed CPUs}
  std::vector<host::Backing> backings;  // empty: all of host::all_backings()
  bool unpinned = true;
  bool pinned = true;                   // thread i on allowed CPU i (mod count)
  bool write_bandwidth = true;          // also measure the bound
  // Grow the hugetlb pools for the run and put them back after (needs root
  // and the scoped knobs of hostlib/state/knobs.h); else use only free pages.
  bool setup_hugetlb_pools = true;
};

// Why `backing` cannot run here for `bytes` in total ("" when it can).
// hugetlb needs that many free pages in the pool (measure
// grows the pool first when allowed, and restores it afterwards); THP needs
// /sys/kernel/mm/transparent_hugepage (with enabled = never it runs, on the
// 4 KiB pages that mode gives, and its samples' extra thp_enabled says so);
// guest_memfd needs KVM with the MMAP and INIT_SHARED guest_memfd flags.
std::string directmap_backing_unavailable(host::Backing backing, std::uint64_t bytes);

// One repetition of every case, each on fresh memory.
host::BenchOutcome measure(const DirectmapHostParams& params, const SampleSink& sink);

}  // namespace kvmbench::suites::directmap
