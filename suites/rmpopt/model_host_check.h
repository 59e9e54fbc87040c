// Cross-check of the RMPOPT sweep cost model against the emulated sweep
// (suites/rmpopt/emulated_sweep.h), on this host: the model's
// parameters are measured here (scan cost per entry, broadcast cost per CPU
// count, the bandwidth of all CPUs scanning at once), the model predicts the
// emulated sweep's wall time, and the emulated sweep is timed for real.
// Neither side is RMPOPT: the emulation is a user-space scan with pinned
// threads standing in for on_each_cpu_mask. What this checks is the
// model's arithmetic of the loop's structure, not the hardware.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "suites/rmpopt/model.h"
#include "analysis/report/table.h"

namespace kvmbench::suites::rmpopt {

struct HostCheckOptions {
  // Emulated RAM, 4 MiB of table per GB, one region per GB: 32 GB gives a
  // 128 MiB table, larger than the last-level caches, as the real RMP is.
  std::uint64_t ram_gb = 32;
  std::vector<std::string> layouts = {"none", "first", "last"};
  double dirty_fraction = 0.25;  // regions the bitmap strategy visits
  int repetitions = 3;           // sweeps per case; the median is kept
};

struct HostCheckRow {
  std::string layout;
  kvmbench::rmpopt::Strategy strategy;
  double emulated_ns = 0;  // median wall time of the emulated sweep
  double model_ns = 0;     // the model with the parameters measured here
};

struct HostCheck {
  kvmbench::rmpopt::Machine machine;  // TSC 1 GHz: "cycles" are ns here
  kvmbench::rmpopt::CostParams params;
  std::vector<std::pair<int, double>> broadcast_median_ns;  // (CPUs, median round)
  double scan_ns_per_entry = 0;
  double concurrent_scan_gbs = 0;  // all CPUs scanning at once, GB/s
  std::uint64_t dirty_regions = 0;
  std::vector<HostCheckRow> rows;
};

// Touches the host (pins threads, maps the table, times things). Throws
// std::invalid_argument for bad options; anything the host refuses comes out
// as std::runtime_error.
HostCheck run_host_check(const HostCheckOptions& options);

Table host_check_table(const HostCheck& check);

}  // namespace kvmbench::suites::rmpopt
