// The STRUCTURE of the kernel's RMPOPT sweep, emulated in user space on any
// host, so that its wall time, per-CPU time and broadcast overhead can be
// measured for real where there is no RMPOPT. This is not RMPOPT: the
// "instruction" is a scan of an RMP-like table (16 bytes per 4 KiB page, an
// entry is assigned when bit 0 of its first quadword is set) that stops at
// the first assigned entry of a 1 GiB region, as RMPOPT does. Everything it
// reports is labelled "emulated sweep".
//
// The kernel loop being emulated (post 000):
//   for (pa = start; pa < end; pa += PUD_SIZE)
//       on_each_cpu_mask(mask, rmpopt, pa, true);
// Each CPU's rmpopt(region) here: if another CPU already found the region
// clean, only mark it in this CPU's bitmap (the hardware "skips the bulk of
// its work"); else scan; if no assigned entry, mark it clean for everyone.
// on_each_cpu_mask(wait=true) is emulated by worker threads pinned one per
// CPU, woken through a generation counter (spin, then futex) and waited for
// through a pending counter.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace kvmbench::suites::rmpopt {

enum class SweepStrategy {
  one_cpu,         // the leader scans every region itself, no broadcast
  all_cpus,        // per region: on_each_cpu_mask(all CPUs, wait)
  leader_first,    // leader scans all regions, then per region: all other CPUs
  leader_primary,  // leader first, then only primary threads (one per core)
  dirty_regions,   // leader_primary, but only over the regions marked dirty
};
std::string_view to_string(SweepStrategy s);
// "one-cpu", "all-cpus", "leader-first", "leader-primary", "dirty-regions".
std::optional<SweepStrategy> parse_sweep_strategy(std::string_view s);
const std::vector<SweepStrategy>& all_sweep_strategies();

// Where the assigned (private) 4 KiB pages sit in each 1 GiB region.
struct PageLayout {
  enum Kind { none, first, last, random } kind = none;
  unsigned count = 0;  // pages per region for `random`
};
// "none", "first", "last", "random:K" (K >= 1); throws std::invalid_argument.
PageLayout parse_page_layout(std::string_view s);
std::string to_string(const PageLayout& l);

// 16 bytes per 4 KiB page. Regions are 1 GiB (262144 entries) unless a test
// asks for smaller ones.
class RmpLikeTable {
 public:
  static constexpr std::uint64_t kEntryBytes = 16;
  static constexpr std::uint64_t kEntriesPerGiB = 262144;

  explicit RmpLikeTable(std::uint64_t regions, std::uint64_t entries_per_region = kEntriesPerGiB);
  ~RmpLikeTable();
  RmpLikeTable(const RmpLikeTable&) = delete;
  RmpLikeTable& operator=(const RmpLikeTable&) = delete;

  // Clears every entry, then marks the layout's pages assigned (random
  // positions from `seed`, reproducible).
  void apply_layout(const PageLayout& layout, std::uint64_t seed = 1);
  // Entries read in region r before the first assigned one (inclusive), or
  // the whole region when none is assigned.
  std::uint64_t scan_region(std::uint64_t r) const;
  bool region_clean_after_scan(std::uint64_t r, std::uint64_t scanned) const {
    return scanned == entries_per_region_ && !(entry_lo(r * entries_per_region_ + scanned - 1) & 1);
  }
  std::uint64_t regions() const { return regions_; }
  std::uint64_t entries_per_region() const { return entries_per_region_; }
  std::uint64_t bytes() const { return regions_ * entries_per_region_ * kEntryBytes; }

 private:
  std::uint64_t entry_lo(std::uint64_t i) const { return words_[2 * i]; }
  std::uint64_t regions_, entries_per_region_;
  std::uint64_t* words_ = nullptr;  // two quadwords per entry
  std::uint64_t map_bytes_ = 0;
};

struct SweepResult {
  double wall_ns = 0;                 // the whole loop, as the kernel's ktime_get() pair
  std::uint64_t regions_visited = 0;  // loop iterations (regions in the sweep)
  std::uint64_t entries_scanned = 0;  // over all CPUs
  std::vector<int> cpus;              // CPU of each busy_ns entry; cpus[0] is the leader
  std::vector<double> busy_ns;        // time each CPU spent inside rmpopt()
  std::vector<std::uint64_t> regions_optimized;  // per CPU: bits set in its own bitmap
};

// Worker threads pinned one per CPU (cpus[0] is the leader, the thread that
// calls sweep(); it is pinned there for the call and its affinity restored).
class EmulatedSweeper {
 public:
  EmulatedSweeper(const RmpLikeTable& table, std::vector<int> cpus,
                  std::vector<int> primary_threads);
  ~EmulatedSweeper();
  EmulatedSweeper(const EmulatedSweeper&) = delete;
  EmulatedSweeper& operator=(const EmulatedSweeper&) = delete;

  // One sweep from a clean state (no region optimized on any CPU).
  // `dirty` lists the regions for dirty_regions (ignored otherwise).
  SweepResult sweep(SweepStrategy strategy, const std::vector<std::uint64_t>& dirty = {});

  // Median cost of one empty on_each_cpu_mask(all CPUs, wait=true) round.
  double broadcast_round_ns(int rounds);
  // Every round's time, in order (for means and tails: on a loaded host a
  // pinned worker can wait a whole scheduler slice to be woken, which an IPI
  // never does).
  std::vector<double> broadcast_round_times(int rounds);

  const std::vector<int>& cpus() const { return cpus_; }

 private:
  struct Shared;
  void worker_loop(std::size_t index);
  void rmpopt(std::size_t cpu_index, std::uint64_t region);
  // on_each_cpu_mask(mask, job, region, wait=true) from the leader.
  void broadcast(const std::vector<char>& mask, int job, std::uint64_t region);

  const RmpLikeTable& table_;
  std::vector<int> cpus_;
  std::vector<char> primary_;
  std::unique_ptr<Shared> shared_;
  std::vector<std::thread> workers_;
};

// CPUs that are the first thread of their core (from hwloc), restricted to
// `allowed`; all of `allowed` when the topology cannot be read.
std::vector<int> primary_threads(const std::vector<int>& allowed);

}  // namespace kvmbench::suites::rmpopt
