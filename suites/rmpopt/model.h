// Cost model of the SEV-SNP RMPOPT sweep (document 000): how long the loop
//
//     for (pa = pa_start; pa < pa_end; pa += PUD_SIZE)
//             on_each_cpu_mask(mask, rmpopt, pa | VERIFY_AND_REPORT, true);
//
// takes, in total and per CPU, for a machine (memory, CPUs, SMT, TSC rate),
// a layout of assigned (private) pages per 1GB region and a strategy. Pure
// arithmetic: the model answers "what would it cost", never "what did it
// cost"; every table built from it says `source: model`.
//
// Quantities (all per sweep over R = ceil(memory / 1GB) regions):
//   E  = 262144   RMP entries per 1GB region (one 16-byte entry per 4K page)
//   N  = CPUs, s = SMT threads per core, P = N / s primary threads
//   f  = TSC rate [Hz]; cyc(x) = x / f  converts TSC cycles to seconds
// Cost parameters (CostParams, fitted by suites/rmpopt/model_calibration.h):
//   F  fast_path_cycles       [TSC cycles]  RMPOPT on an optimised region,
//                                           and the fixed part of every call
//   c  scan_cycles_per_entry  [TSC cycles / RMP entry] scan by one CPU alone
//   a  call_base_ns           [ns]          on_each_cpu_mask(wait=true), fixed
//   b  call_per_cpu_ns        [ns / CPU]    ... per CPU in the mask
//   B  bandwidth_bytes_per_s  [bytes/s]     memory bandwidth shared by the CPUs
//                                           that scan at the same time
// Derived costs:
//   call(k)    = a + b k                     (0 when k = 0: no call made)
//   scan(k, e) = max(cyc(e c), k e 16 / B)   k CPUs each scanning e entries
//                                            at the same time
//   one RMPOPT that scans e entries among k concurrent scanners takes
//   cyc(F) + scan(k, e); one that hits the fast path takes cyc(F).
//
// Region states at the start of a sweep (Layout):
//   occupied  holds assigned pages; RMPOPT stops at the first assigned entry,
//             after e_occ entries: first page e=1, last page e=E, K random
//             pages e=(E+1)/(K+1) (expected position of the smallest of K
//             uniform positions, plus one). Never optimised, so every CPU
//             that runs RMPOPT on it scans e_occ entries itself.
//   free-dirty no assigned page, but its RMPOPT bits were cleared since the
//             last sweep (RMPUPDATE on a page in it): needs one full scan.
//   clean     no assigned page and still optimised: fast path everywhere.
//   Dirty regions are counted among the free regions first (free-dirty =
//   min(D, R - O)), the rest of D among the occupied ones (only the bitmap
//   strategy cares which occupied regions are dirty).
//
// Hardware assumption (stated, not measured): when k CPUs run RMPOPT on a
// free-dirty region at once, ONE of them scans it and the other k-1 finish
// on the fast path ("RMPOPT can skip the bulk of its work if another CPU has
// already optimized that region"); a failed verification (occupied region)
// is not shared, so every CPU scans up to the first assigned entry. The
// published cycle statistics (smallest 60, average ~5.2K, largest ~1.1M:
// most calls are fast) support the first half; nothing published tests the
// second.
//
// Strategies, wall time W as a sum over regions:
//   all      (v2 loop) mask = all N CPUs:
//              clean: call(N)+cyc(F); free-dirty: call(N)+cyc(F)+scan(1,E);
//              occupied: call(N)+cyc(F)+scan(N,e_occ)
//   leader   the calling CPU runs RMPOPT on every region first (no call),
//            then mask = the other N-1 CPUs:
//              phase 1: clean cyc(F); free-dirty cyc(F)+scan(1,E);
//                       occupied cyc(F)+scan(1,e_occ)
//              phase 2: clean, free-dirty (now optimised): call(N-1)+cyc(F);
//                       occupied: call(N-1)+cyc(F)+scan(N-1,e_occ)
//   primary  as leader with mask = the other P-1 primary threads
//   bitmap   as primary, but only the D dirty regions are visited
// Per CPU (busy = executing RMPOPT, or spinning in on_each_cpu_mask):
//   the calling CPU is busy for all of W; a CPU in the mask is busy for the
//   RMPOPTs it runs (free-dirty scans under `all` are spread evenly over the
//   N CPUs, as nothing says which CPU wins); a CPU outside every mask is idle.
// Time split of W: scanning = the scan(.) terms on the critical path; calls =
// the call(.) terms; fast path = the cyc(F) terms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kvmbench::rmpopt {

inline constexpr std::uint64_t kRegionBytes = 1ULL << 30;  // PUD_SIZE
inline constexpr std::uint64_t kPageBytes = 4096;
inline constexpr std::uint64_t kRmpEntryBytes = 16;
inline constexpr std::uint64_t kEntriesPerRegion = kRegionBytes / kPageBytes;  // 262144

struct Machine {
  std::uint64_t memory_bytes = 2ULL << 40;  // 2TB, the posted machine
  unsigned cpus = 512;
  unsigned smt = 2;
  double tsc_hz = 2.7e9;
};

enum class Placement { none, first, last, random };

struct Layout {
  Placement placement = Placement::none;
  std::uint64_t random_pages = 0;  // K, for Placement::random (1..E)
  // Regions holding assigned pages; default: every region unless placement
  // is none (then 0).
  std::optional<std::uint64_t> occupied_regions;
  // Regions whose RMPOPT bits were cleared since the last sweep; default:
  // every region (no earlier sweep, e.g. at boot).
  std::optional<std::uint64_t> dirty_regions;
};

enum class Strategy { all, leader, primary, bitmap };
inline constexpr Strategy kAllStrategies[] = {Strategy::all, Strategy::leader, Strategy::primary,
                                              Strategy::bitmap};

struct CostParams {
  double fast_path_cycles = 60;        // F [TSC cycles]
  double scan_cycles_per_entry = 1;    // c [TSC cycles / entry]
  double call_base_ns = 5000;          // a [ns]
  double call_per_cpu_ns = 100;        // b [ns / CPU]
  double bandwidth_bytes_per_s = 1e12; // B [bytes / s]
};

// Region counts after applying the defaults of a Layout to a Machine.
struct RegionMix {
  std::uint64_t regions = 0;     // R
  std::uint64_t occupied = 0;    // O
  std::uint64_t free_dirty = 0;  // min(D, R - O)
  std::uint64_t occupied_dirty = 0;
  std::uint64_t clean = 0;       // R - O - free_dirty
  double entries_to_first_assigned = 0;  // e_occ
};

struct SweepResult {
  double wall_ns = 0;        // W
  double scan_ns = 0;        // scanning part of W
  double call_ns = 0;        // cross-CPU call part of W
  double fast_ns = 0;        // fast-path part of W
  double caller_busy_ns = 0;      // the CPU running the loop (= W)
  double mask_cpu_busy_ns = 0;    // each CPU in the broadcast mask
  unsigned mask_cpus = 0;         // CPUs in the broadcast mask
  unsigned idle_cpus = 0;         // CPUs in no mask (secondary threads)
  double total_cpu_ns = 0;        // summed over all N CPUs
  std::uint64_t regions_visited = 0;
  std::uint64_t rmpopt_calls = 0;
  // Per-RMPOPT statistics in TSC cycles, as the poster's instrumentation
  // printed them (largest / smallest / average over every call of a sweep).
  double min_call_cycles = 0, max_call_cycles = 0, mean_call_cycles = 0;
};

// Throws std::invalid_argument for an impossible machine, layout or cost
// (0 CPUs, CPUs not a multiple of SMT, K outside 1..E, counts above R,
// non-positive rates, negative costs).
RegionMix resolve_layout(const Machine& m, const Layout& layout);
SweepResult model_sweep(const Machine& m, const Layout& layout, Strategy s, const CostParams& p);

std::string_view strategy_name(Strategy s);          // "all", "leader", ...
std::string_view strategy_description(Strategy s);   // one line, for tables
std::optional<Strategy> parse_strategy(std::string_view name);
// "none", "first", "last", "random:K"; nullopt when malformed.
std::optional<Layout> parse_layout(std::string_view text);
std::string layout_name(const Layout& layout);

}  // namespace kvmbench::rmpopt
