#include "suites/rmpopt/model_host_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/stats/rate_fit.h"
#include "suites/rmpopt/measure.h"
#include "hostlib/measure/bench_threads.h"
#include "suites/rmpopt/emulated_sweep.h"
#include "hostlib/measure/pinning.h"

namespace kvmbench::suites::rmpopt {

namespace {

namespace model = kvmbench::rmpopt;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

rmpopt::SweepStrategy emulated(model::Strategy s) {
  switch (s) {
    case model::Strategy::all: return rmpopt::SweepStrategy::all_cpus;
    case model::Strategy::leader: return rmpopt::SweepStrategy::leader_first;
    case model::Strategy::primary: return rmpopt::SweepStrategy::leader_primary;
    case model::Strategy::bitmap: return rmpopt::SweepStrategy::dirty_regions;
  }
  return rmpopt::SweepStrategy::all_cpus;
}

// Bandwidth of all CPUs scanning the same clean table at once, as the CPUs
// of one broadcast scan an occupied region: bytes read by all / wall time.
double concurrent_scan_bytes_per_s(const std::vector<int>& cpus) {
  rmpopt::RmpLikeTable t(32);  // 128 MiB of table, beyond the caches
  t.apply_layout({rmpopt::PageLayout::none, 0});
  std::vector<double> rates;
  for (int round = 0; round < 3; ++round) {
    host::ParallelTimes pt = host::run_parallel(static_cast<int>(cpus.size()), cpus, [&](int) {
      volatile std::uint64_t n = 0;
      for (std::uint64_t r = 0; r < t.regions(); ++r) n = n + t.scan_region(r);
    });
    rates.push_back(static_cast<double>(cpus.size()) * static_cast<double>(t.bytes()) /
                    (pt.wall_ns / 1e9));
  }
  return median_of(rates);
}

}  // namespace

HostCheck run_host_check(const HostCheckOptions& o) {
  if (o.ram_gb < 1 || o.ram_gb > 256)
    throw std::invalid_argument(fmt::format("emulated RAM {} GB is out of range (1..256)", o.ram_gb));
  if (o.repetitions < 1) throw std::invalid_argument("at least one repetition is needed");

  HostCheck out;
  std::vector<int> cpus = host::thread_affinity();
  if (cpus.empty()) throw std::runtime_error("no CPU is available to this process");
  std::vector<int> primaries = rmpopt::primary_threads(cpus);
  const unsigned n = static_cast<unsigned>(cpus.size());
  const unsigned p = static_cast<unsigned>(std::max<std::size_t>(1, primaries.size()));

  out.machine.memory_bytes = o.ram_gb * model::kRegionBytes;
  out.machine.cpus = n;
  out.machine.smt = (n % p == 0) ? n / p : 1;
  out.machine.tsc_hz = 1e9;  // 1 "cycle" = 1 ns: the parameters are measured in ns

  // Parameters, measured here.
  out.scan_ns_per_entry = rmpopt::measure_scan_cost_per_entry(128ULL << 20, 3);
  std::vector<unsigned> ks = {1, std::max(1u, n / 4), std::max(1u, n / 2), n};
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  std::vector<double> kx, ky;
  for (unsigned k : ks) {
    // The median round: between regions of a sweep the workers are still
    // spinning, so a sweep pays the hot wake-up path, not the mean that
    // includes futex wake-ups after a descheduling.
    double mean = rmpopt::measure_broadcast_costs(static_cast<int>(k), 500).median_ns;
    out.broadcast_median_ns.emplace_back(static_cast<int>(k), mean);
    kx.push_back(k);
    ky.push_back(mean);
  }
  out.params.fast_path_cycles = 0;  // a flag check in the emulation: not measured
  out.params.scan_cycles_per_entry = out.scan_ns_per_entry;
  if (kx.size() >= 2) {
    LineFit line = fit_line(kx, ky, 0, kx.size() - 1);
    out.params.call_per_cpu_ns = std::max(0.0, line.slope);
    out.params.call_base_ns = std::max(0.0, line.intercept);
  } else {
    out.params.call_base_ns = ky.front();
    out.params.call_per_cpu_ns = 0;
  }
  out.params.bandwidth_bytes_per_s = concurrent_scan_bytes_per_s(cpus);
  out.concurrent_scan_gbs = out.params.bandwidth_bytes_per_s / 1e9;

  // Every k-th region is dirty, k = 1 / fraction.
  std::vector<std::uint64_t> dirty;
  auto step = static_cast<std::uint64_t>(
      std::max(1.0, std::round(1.0 / std::clamp(o.dirty_fraction, 1e-6, 1.0))));
  for (std::uint64_t r = 0; r < o.ram_gb; r += step) dirty.push_back(r);
  out.dirty_regions = dirty.size();

  rmpopt::RmpLikeTable table(o.ram_gb);
  rmpopt::EmulatedSweeper sweeper(table, cpus, primaries);
  for (const auto& name : o.layouts) {
    auto layout = model::parse_layout(name);
    if (!layout) throw std::invalid_argument(fmt::format("layout '{}' is not none, first, last or random:K", name));
    table.apply_layout(rmpopt::parse_page_layout(name), 1);
    for (model::Strategy s : model::kAllStrategies) {
      std::vector<double> walls;
      for (int i = 0; i < o.repetitions; ++i) walls.push_back(sweeper.sweep(emulated(s), dirty).wall_ns);
      model::Layout ml = *layout;
      ml.dirty_regions = (s == model::Strategy::bitmap) ? dirty.size() : o.ram_gb;
      double predicted = model::model_sweep(out.machine, ml, s, out.params).wall_ns;
      out.rows.push_back(HostCheckRow{name, s, median_of(walls), predicted});
    }
  }
  return out;
}

Table host_check_table(const HostCheck& c) {
  Table t;
  t.title = fmt::format("# RMPOPT model vs the emulated sweep on this host: {} GB, {} CPUs",
                        c.machine.memory_bytes / model::kRegionBytes, c.machine.cpus);
  t.source = "hardware (emulated sweep, not RMPOPT) vs model";
  t.columns = {{"layout", Align::left}, {"strategy", Align::left}, {"emulated ms"},
               {"model ms"}, {"error %"}};
  for (const auto& r : c.rows)
    t.add_row({r.layout, std::string(model::strategy_name(r.strategy)),
               fmt::format("{:.3f}", r.emulated_ns / 1e6), fmt::format("{:.3f}", r.model_ns / 1e6),
               fmt::format("{:+.1f}", 100 * (r.model_ns - r.emulated_ns) / r.emulated_ns)});
  std::string bc;
  for (auto& [k, ns] : c.broadcast_median_ns) bc += fmt::format(" {}:{:.0f}", k, ns);
  t.notes.push_back(fmt::format("measured here: scan {:.3f} ns/entry (one CPU); all CPUs",
                                c.scan_ns_per_entry));
  t.notes.push_back(fmt::format("  scanning at once {:.1f} GB/s (= B); broadcast median ns by "
                                "CPUs:{}",
                                c.concurrent_scan_gbs, bc));
  t.notes.push_back(fmt::format("model parameters: c={:.3f} ns/entry, a={:.0f} ns, b={:.0f} "
                                "ns/CPU, F=0,", c.params.scan_cycles_per_entry,
                                c.params.call_base_ns, c.params.call_per_cpu_ns));
  t.notes.push_back(fmt::format("  B={:.1f} GB/s; SMT {}; bitmap visits {} dirty regions",
                                c.params.bandwidth_bytes_per_s / 1e9, c.machine.smt,
                                c.dirty_regions));
  t.notes.push_back("the emulation lets every CPU that starts before the first one finishes");
  t.notes.push_back("  scan a free region too; the model lets one scan: `all` on free regions");
  t.notes.push_back("  is where they part. This host is shared and noisy: one run, medians.");
  return t;
}

}  // namespace kvmbench::suites::rmpopt
