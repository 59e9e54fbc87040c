#include "suites/rmpopt/measure.h"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "hostlib/measure/bench_threads.h"
#include "suites/rmpopt/emulated_sweep.h"
#include "hostlib/measure/monotonic_ns.h"
#include "hostlib/measure/pinning.h"

namespace kvmbench::suites::rmpopt {

// The suite-neutral pieces: Kvm, Vm, run_parallel, pinning, knobs.
using namespace kvmbench::host;

namespace {

constexpr const char* kWhat =
    "emulated sweep: user-space scan of an RMP-like table (16 B per 4 KiB page), one "
    "region per GiB, cross-CPU calls emulated with pinned threads; not RMPOPT";

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<int> choose_cpus(const std::vector<int>& wanted) {
  std::vector<int> allowed = thread_affinity();
  if (wanted.empty()) return allowed;
  for (int c : wanted)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
      throw std::invalid_argument(fmt::format("CPU {} is not available to this process", c));
  return wanted;
}

// Every k-th region, k = 1 / fraction: the regions a guest's memory
// occupied, for the dirty-region bitmap strategy.
std::vector<std::uint64_t> dirty_regions(std::uint64_t regions, double fraction) {
  std::vector<std::uint64_t> out;
  if (fraction <= 0) return out;
  auto step = static_cast<std::uint64_t>(std::max(1.0, std::round(1.0 / std::min(1.0, fraction))));
  for (std::uint64_t r = 0; r < regions; r += step) out.push_back(r);
  return out;
}

// The table and the pinned workers, shared by all cases of one repetition; the
// layout is (re)applied outside the timed part when a case needs another.
struct SweepBench {
  RmpLikeTable table;
  std::string layout_applied;
  std::unique_ptr<EmulatedSweeper> sweeper;
  SweepBench(std::uint64_t regions, std::uint64_t entries, const std::vector<int>& cpus)
      : table(regions, entries) {
    sweeper = std::make_unique<EmulatedSweeper>(table, cpus, primary_threads(cpus));
  }
  void use_layout(const std::string& name, std::uint64_t seed) {
    if (layout_applied == name) return;
    table.apply_layout(parse_page_layout(name), seed);
    layout_applied = name;
  }
};

}  // namespace

double measure_scan_cost_per_entry(std::uint64_t table_bytes, int rounds) {
  std::uint64_t region_bytes = RmpLikeTable::kEntriesPerGiB * RmpLikeTable::kEntryBytes;
  std::uint64_t regions = std::max<std::uint64_t>(1, table_bytes / region_bytes);
  std::uint64_t entries = table_bytes < region_bytes
                              ? std::max<std::uint64_t>(1, table_bytes / RmpLikeTable::kEntryBytes)
                              : RmpLikeTable::kEntriesPerGiB;
  RmpLikeTable t(regions, entries);
  t.apply_layout({PageLayout::none, 0});
  std::vector<double> per_entry;
  volatile std::uint64_t sink = 0;
  for (int i = 0; i < std::max(1, rounds); ++i) {
    double a = host::monotonic_ns();
    std::uint64_t n = 0;
    for (std::uint64_t r = 0; r < regions; ++r) n += t.scan_region(r);
    double b = host::monotonic_ns();
    sink = sink + n;
    per_entry.push_back((b - a) / static_cast<double>(n));
  }
  return median(per_entry);
}

BroadcastCost measure_broadcast_costs(int ncpus, int rounds) {
  std::vector<int> cpus = thread_affinity();
  if (ncpus < 1 || static_cast<std::size_t>(ncpus) > cpus.size())
    throw std::invalid_argument(fmt::format("measure_broadcast_cost: {} CPUs asked, {} available",
                                            ncpus, cpus.size()));
  cpus.resize(ncpus);
  RmpLikeTable t(1, 1);
  EmulatedSweeper s(t, cpus, cpus);
  std::vector<double> v = s.broadcast_round_times(rounds);
  std::sort(v.begin(), v.end());
  BroadcastCost c;
  c.median_ns = v[v.size() / 2];
  c.p90_ns = v[std::min(v.size() - 1, v.size() * 9 / 10)];
  double sum = 0;
  for (double x : v) sum += x;
  c.mean_ns = sum / static_cast<double>(v.size());
  return c;
}

double measure_broadcast_cost(int ncpus, int rounds) {
  return measure_broadcast_costs(ncpus, rounds).median_ns;
}

double measure_read_bandwidth(std::uint64_t bytes, int rounds) {
  std::uint64_t n = std::max<std::uint64_t>(bytes / 8, 1024);
  std::vector<std::uint64_t> buf(n, 1);
  std::vector<double> rates;
  volatile std::uint64_t sink = 0;
  for (int i = 0; i < std::max(1, rounds); ++i) {
    double a = host::monotonic_ns();
    std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::uint64_t k = 0;
    for (; k + 4 <= n; k += 4) {
      s0 += buf[k];
      s1 += buf[k + 1];
      s2 += buf[k + 2];
      s3 += buf[k + 3];
    }
    for (; k < n; ++k) s0 += buf[k];
    double b = host::monotonic_ns();
    sink = sink + s0 + s1 + s2 + s3;
    rates.push_back(static_cast<double>(n * 8) / (b - a));
  }
  return median(rates);
}

BenchOutcome measure(const RmpoptEmulationParams& params, const SampleSink& sink) {
  if (params.ram_gb == 0) throw std::invalid_argument("ram_gb must be >= 1");
  if (params.entries_per_region == 0) throw std::invalid_argument("entries_per_region must be >= 1");
  for (const std::string& l : params.layouts) parse_page_layout(l);  // validate early
  std::vector<SweepStrategy> strategies;
  if (params.strategies.empty()) strategies = all_sweep_strategies();
  for (const std::string& s : params.strategies) {
    auto st = parse_sweep_strategy(s);
    if (!st)
      throw std::invalid_argument(fmt::format(
          "unknown sweep strategy '{}' (one-cpu, all-cpus, leader-first, leader-primary, "
          "dirty-regions)",
          s));
    strategies.push_back(*st);
  }
  std::vector<int> cpus = choose_cpus(params.cpus);
  SweepBench bench(params.ram_gb, params.entries_per_region, cpus);
  std::vector<std::uint64_t> dirty = dirty_regions(params.ram_gb, params.dirty_fraction);
  std::vector<int> primaries = primary_threads(cpus);

  BenchOutcome outcome;
  nlohmann::json common = {{"emulation", kWhat},
                           {"regions", params.ram_gb},
                           {"entries_per_region", params.entries_per_region},
                           {"table_bytes", bench.table.bytes()},
                           {"cpus", cpus},
                           {"leader_cpu", cpus[0]},
                           {"primary_threads", primaries}};

  for (const std::string& layout : params.layouts) {
    for (SweepStrategy st : strategies) {
      CaseSpec c;
      c.case_name = fmt::format("layout={}/ram={}G", layout, params.ram_gb);
      c.variant = std::string(to_string(st));
      c.units = {{"emulated_sweep_wall", "ns"},
                 {"emulated_sweep_per_region", "ns"},
                 {"emulated_sweep_cpu_busy", "ns"},
                 {"emulated_scan_bandwidth", "GB/s"}};
      c.extra = common;
      c.extra["layout"] = layout;
      c.extra["strategy"] = c.variant;
      if (st == SweepStrategy::dirty_regions) {
        c.extra["dirty_fraction"] = params.dirty_fraction;
        c.extra["dirty_regions"] = dirty.size();
        if (dirty.empty()) {
          outcome.skipped.push_back({c.case_name, c.variant, "dirty_fraction leaves no region"});
          continue;
        }
      }
      if ((st == SweepStrategy::all_cpus || st == SweepStrategy::leader_first ||
           st == SweepStrategy::leader_primary) &&
          cpus.size() < 2) {
        outcome.skipped.push_back({c.case_name, c.variant,
                                   "needs at least two CPUs (only one is available)"});
        continue;
      }
      measure_case(c, [&](CaseValues& values) {
        bench.use_layout(layout, params.seed);
        SweepResult r = bench.sweeper->sweep(st, dirty);
        values.record("emulated_sweep_wall", r.wall_ns);
        values.record("emulated_sweep_per_region",
                      r.wall_ns / static_cast<double>(std::max<std::uint64_t>(1, r.regions_visited)));
        double busy = 0;
        for (std::size_t i = 0; i < r.cpus.size(); ++i) {
          busy += r.busy_ns[i];
          values.record("emulated_sweep_cpu_busy", r.busy_ns[i], {{"cpu", r.cpus[i]}, {"leader", i == 0 ? 1 : 0}});
        }
        if (busy > 0)
          values.record("emulated_scan_bandwidth",
                        static_cast<double>(r.entries_scanned * RmpLikeTable::kEntryBytes) / busy);
      }, sink, outcome);
    }
  }

  if (params.calibrate) {
    CaseSpec c;
    c.case_name = "calibration";
    c.variant = "emulated";
    c.units = {{"scan_cost_per_entry", "ns"},
               {"broadcast_cost", "ns"},
               {"broadcast_cost_mean", "ns"},
               {"broadcast_cost_p90", "ns"},
               {"read_bandwidth", "GB/s"}};
    c.extra = common;
    const std::uint64_t table_bytes = bench.table.bytes();
    const int ncpus = static_cast<int>(cpus.size());
    measure_case(c, [&](CaseValues& values) {
      values.record("scan_cost_per_entry", measure_scan_cost_per_entry(table_bytes, 3));
      std::vector<int> counts = {2};
      if (ncpus > 2) counts.push_back(ncpus);
      for (int n : counts) {
        if (n > ncpus) continue;
        BroadcastCost bc = measure_broadcast_costs(n, 500);
        values.record("broadcast_cost", bc.median_ns, {{"cpus", n}});
        values.record("broadcast_cost_mean", bc.mean_ns, {{"cpus", n}});
        values.record("broadcast_cost_p90", bc.p90_ns, {{"cpus", n}});
      }
      values.record("read_bandwidth", measure_read_bandwidth(table_bytes, 3));
    }, sink, outcome);
  }
  return outcome;
}

}  // namespace kvmbench::suites::rmpopt
