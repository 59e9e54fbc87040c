// rmpopt suite, host side: the EMULATED sweep (emulated_sweep.h) timed
// for real on this host, plus the calibrations a cost model needs. None of
// this is RMPOPT; every metric name says "emulated" so that no table can
// pass it off as one.
//
// Samples (source: hardware, a real measurement of an emulation):
//   case "layout=<L>/ram=<N>G", variant "<strategy>":
//     emulated_sweep_wall        ns    the whole loop (kernel: ktime_get pair)
//     emulated_sweep_per_region  ns    wall / regions in the loop
//     emulated_sweep_cpu_busy    ns    per CPU (extra.cpu, extra.leader): time in rmpopt()
//     emulated_scan_bandwidth    GB/s  table bytes read / CPU time spent reading
//   case "calibration", variant "emulated":
//     scan_cost_per_entry        ns    one CPU, clean regions, per 16-byte entry
//     broadcast_cost             ns    empty on_each_cpu_mask(wait) round, median (extra.cpus)
//     broadcast_cost_mean / _p90 ns    the same rounds' mean and 90th percentile
//     read_bandwidth             GB/s  one CPU, sequential read: the bound for the scan
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/model/result_model.h"
#include "hostlib/measure/case_samples.h"

namespace kvmbench::suites::rmpopt {

struct RmpoptEmulationParams {
  std::uint64_t ram_gb = 16;              // table for this much RAM: 4 MiB per GB, one region per GB
  std::vector<std::string> layouts = {"none", "first", "last", "random:4"};
  std::vector<std::string> strategies;    // empty: all (one-cpu, all-cpus, leader-first, leader-primary, dirty-regions)
  std::vector<int> cpus;                  // empty: all allowed; the first is the leader
  double dirty_fraction = 0.125;          // share of regions the dirty-regions sweep visits
  std::uint64_t seed = 1;
  bool calibrate = true;                  // also the "calibration" case
  std::uint64_t entries_per_region = 262144;  // 1 GiB of 4 KiB pages; tests use fewer
};

// One repetition: every layout x strategy sweep once over a fresh table,
// then (when `calibrate`) the calibration case.
host::BenchOutcome measure(const RmpoptEmulationParams& params, const SampleSink& sink);

// For the cost model. Each returns the median of `rounds` measurements.
// ns per 16-byte entry when one CPU scans clean regions of a table of
// `table_bytes`.
double measure_scan_cost_per_entry(std::uint64_t table_bytes = 64ULL << 20, int rounds = 5);
// ns per empty on_each_cpu_mask(all of the first `ncpus` allowed CPUs, wait=true).
double measure_broadcast_cost(int ncpus, int rounds = 2000);
// The same rounds summarised: the median is the wake-up path itself, the
// mean and the 90th percentile show how often the scheduler got in the way
// (a sweep pays the mean, once per region).
struct BroadcastCost {
  double median_ns = 0, mean_ns = 0, p90_ns = 0;
};
BroadcastCost measure_broadcast_costs(int ncpus, int rounds = 2000);
// GB/s of one CPU reading `bytes` sequentially (GB = 1e9 bytes).
double measure_read_bandwidth(std::uint64_t bytes = 64ULL << 20, int rounds = 5);

}  // namespace kvmbench::suites::rmpopt
