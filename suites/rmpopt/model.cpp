#include "suites/rmpopt/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kvmbench::rmpopt {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

bool finite_nonneg(double x) { return std::isfinite(x) && x >= 0; }

// Per-call cycle statistics over groups of identical calls.
struct CallStats {
  std::uint64_t n = 0;
  double sum = 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  void add(std::uint64_t count, double cycles) {
    if (count == 0) return;
    n += count;
    sum += static_cast<double>(count) * cycles;
    lo = std::min(lo, cycles);
    hi = std::max(hi, cycles);
  }
};

// The cost terms of one machine and one parameter set (header: call(k),
// scan(k, e), cyc(F)), in ns.
struct Costs {
  const Machine& m;
  const CostParams& p;
  double cyc_ns(double cycles) const { return cycles / m.tsc_hz * 1e9; }
  double fast_ns() const { return cyc_ns(p.fast_path_cycles); }
  double call_ns(unsigned k) const {
    return k == 0 ? 0.0 : p.call_base_ns + p.call_per_cpu_ns * static_cast<double>(k);
  }
  double scan_ns(unsigned k, double entries) const {
    double alone = cyc_ns(entries * p.scan_cycles_per_entry);
    double shared = static_cast<double>(k) * entries * static_cast<double>(kRmpEntryBytes) /
                    p.bandwidth_bytes_per_s * 1e9;
    return std::max(alone, shared);
  }
  // Cycles one RMPOPT call reports when it scans `entries` among k scanners.
  double call_cycles(unsigned k, double entries) const {
    return p.fast_path_cycles + scan_ns(k, entries) * m.tsc_hz / 1e9;
  }
};

}  // namespace

RegionMix resolve_layout(const Machine& m, const Layout& layout) {
  require(m.memory_bytes > 0, "memory size must be positive");
  require(m.cpus > 0, "the CPU count must be at least 1");
  require(m.smt > 0, "SMT must be at least 1 thread per core");
  require(m.cpus % m.smt == 0,
          fmt::format("{} CPUs is not a whole number of {}-thread cores", m.cpus, m.smt));
  require(std::isfinite(m.tsc_hz) && m.tsc_hz > 0, "the TSC rate must be positive");

  RegionMix r;
  r.regions = (m.memory_bytes + kRegionBytes - 1) / kRegionBytes;
  const double E = static_cast<double>(kEntriesPerRegion);
  switch (layout.placement) {
    case Placement::none: r.entries_to_first_assigned = 0; break;
    case Placement::first: r.entries_to_first_assigned = 1; break;
    case Placement::last: r.entries_to_first_assigned = E; break;
    case Placement::random:
      require(layout.random_pages >= 1 && layout.random_pages <= kEntriesPerRegion,
              fmt::format("random:K needs 1 <= K <= {}", kEntriesPerRegion));
      // Smallest of K distinct uniform positions in 0..E-1 has expectation
      // (E-K)/(K+1); RMPOPT reads it and everything before it.
      r.entries_to_first_assigned =
          (E - static_cast<double>(layout.random_pages)) / (static_cast<double>(layout.random_pages) + 1) + 1;
      break;
  }
  if (layout.placement == Placement::none) {
    require(!layout.occupied_regions || *layout.occupied_regions == 0,
            "occupied regions need a page placement (first, last or random:K)");
    r.occupied = 0;
  } else {
    r.occupied = layout.occupied_regions.value_or(r.regions);
  }
  require(r.occupied <= r.regions,
          fmt::format("{} occupied regions, but the memory has only {}", r.occupied, r.regions));
  std::uint64_t dirty = layout.dirty_regions.value_or(r.regions);
  require(dirty <= r.regions,
          fmt::format("{} dirty regions, but the memory has only {}", dirty, r.regions));
  r.free_dirty = std::min(dirty, r.regions - r.occupied);
  r.occupied_dirty = dirty - r.free_dirty;
  r.clean = r.regions - r.occupied - r.free_dirty;
  return r;
}

SweepResult model_sweep(const Machine& m, const Layout& layout, Strategy s, const CostParams& p) {
  const RegionMix mix = resolve_layout(m, layout);
  require(finite_nonneg(p.fast_path_cycles) && finite_nonneg(p.scan_cycles_per_entry) &&
              finite_nonneg(p.call_base_ns) && finite_nonneg(p.call_per_cpu_ns),
          "cost parameters must be finite and non-negative");
  require(std::isfinite(p.bandwidth_bytes_per_s) && p.bandwidth_bytes_per_s > 0,
          "the memory bandwidth must be positive");

  const Costs c{m, p};
  const double E = static_cast<double>(kEntriesPerRegion);
  const double e = mix.entries_to_first_assigned;
  const double F = p.fast_path_cycles;
  const unsigned N = m.cpus;
  const unsigned P = m.cpus / m.smt;
  const auto d = [](std::uint64_t x) { return static_cast<double>(x); };

  SweepResult r;
  CallStats calls;
  // Accumulates `count` identical regions: their wall-time split and the
  // busy time of one CPU in the mask.
  auto regions = [&](std::uint64_t count, double scan, double call, double fast, double mask_busy) {
    r.scan_ns += d(count) * scan;
    r.call_ns += d(count) * call;
    r.fast_ns += d(count) * fast;
    r.mask_cpu_busy_ns += d(count) * mask_busy;
  };

  if (s == Strategy::all) {
    const unsigned k = N;
    r.mask_cpus = N;  // the caller is in cpu_online_mask and runs it locally
    r.idle_cpus = 0;
    r.regions_visited = mix.regions;
    const double one = c.scan_ns(1, E);
    const double occ = c.scan_ns(k, e);
    regions(mix.clean, 0, c.call_ns(k), c.fast_ns(), c.fast_ns());
    regions(mix.free_dirty, one, c.call_ns(k), c.fast_ns(), c.fast_ns() + one / d(k));
    regions(mix.occupied, occ, c.call_ns(k), c.fast_ns(), c.fast_ns() + occ);
    calls.add(mix.clean * k, F);
    calls.add(mix.free_dirty, c.call_cycles(1, E));
    calls.add(mix.free_dirty * (k - 1), F);
    calls.add(mix.occupied * k, c.call_cycles(k, e));
    // Every CPU is in the mask, the caller included: total = N x mask busy,
    // except that the caller spins for all of W instead.
  } else {
    const unsigned k = (s == Strategy::leader) ? N - 1 : P - 1;
    r.mask_cpus = k;
    r.idle_cpus = N - 1 - k;
    const bool bitmap = s == Strategy::bitmap;
    const std::uint64_t clean = bitmap ? 0 : mix.clean;
    const std::uint64_t occupied = bitmap ? mix.occupied_dirty : mix.occupied;
    const std::uint64_t free_dirty = mix.free_dirty;
    r.regions_visited = clean + occupied + free_dirty;
    const double call = c.call_ns(k);
    const double mask_fast = k ? c.fast_ns() : 0;
    // Phase 1: the leader alone; phase 2: the broadcast (nothing if k = 0).
    const double lead_full = c.scan_ns(1, E);
    const double lead_occ = c.scan_ns(1, e);
    const double bc_occ = k ? c.scan_ns(k, e) : 0;
    regions(clean, 0, call, c.fast_ns() + mask_fast, mask_fast);
    regions(free_dirty, lead_full, call, c.fast_ns() + mask_fast, mask_fast);
    regions(occupied, lead_occ + bc_occ, call, c.fast_ns() + mask_fast, mask_fast + bc_occ);
    calls.add(clean, F);
    calls.add(free_dirty, c.call_cycles(1, E));
    calls.add(occupied, c.call_cycles(1, e));
    calls.add((clean + free_dirty) * k, F);
    calls.add(occupied * k, c.call_cycles(k, e));
  }
  r.wall_ns = r.scan_ns + r.call_ns + r.fast_ns;
  r.caller_busy_ns = r.wall_ns;
  if (s == Strategy::all)
    r.total_cpu_ns = r.wall_ns + d(N - 1) * r.mask_cpu_busy_ns;
  else
    r.total_cpu_ns = r.wall_ns + d(r.mask_cpus) * r.mask_cpu_busy_ns;
  r.rmpopt_calls = calls.n;
  if (calls.n) {
    r.min_call_cycles = calls.lo;
    r.max_call_cycles = calls.hi;
    r.mean_call_cycles = calls.sum / d(calls.n);
  }
  return r;
}

std::string_view strategy_name(Strategy s) {
  switch (s) {
    case Strategy::all: return "all";
    case Strategy::leader: return "leader";
    case Strategy::primary: return "primary";
    case Strategy::bitmap: return "bitmap";
  }
  return "?";
}

std::string_view strategy_description(Strategy s) {
  switch (s) {
    case Strategy::all: return "v2 loop: every region on all CPUs";
    case Strategy::leader: return "leader CPU first, then all other CPUs";
    case Strategy::primary: return "leader CPU first, then the other primary threads";
    case Strategy::bitmap: return "as primary, dirty regions only";
  }
  return "?";
}

std::optional<Strategy> parse_strategy(std::string_view name) {
  for (Strategy s : kAllStrategies)
    if (strategy_name(s) == name) return s;
  return std::nullopt;
}

std::optional<Layout> parse_layout(std::string_view text) {
  Layout l;
  if (text == "none") return l;
  if (text == "first") {
    l.placement = Placement::first;
    return l;
  }
  if (text == "last") {
    l.placement = Placement::last;
    return l;
  }
  constexpr std::string_view prefix = "random:";
  if (text.substr(0, prefix.size()) == prefix) {
    std::string_view num = text.substr(prefix.size());
    std::uint64_t k = 0;
    auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), k);
    if (ec != std::errc{} || ptr != num.data() + num.size() || num.empty()) return std::nullopt;
    if (k < 1 || k > kEntriesPerRegion) return std::nullopt;
    l.placement = Placement::random;
    l.random_pages = k;
    return l;
  }
  return std::nullopt;
}

std::string layout_name(const Layout& layout) {
  switch (layout.placement) {
    case Placement::none: return "none";
    case Placement::first: return "first";
    case Placement::last: return "last";
    case Placement::random: return fmt::format("random:{}", layout.random_pages);
  }
  return "?";
}

}  // namespace kvmbench::rmpopt
