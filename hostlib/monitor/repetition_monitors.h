// The monitors around a measured repetition: /proc/vmstat's deltas
// (vmstat.<counter>), KVM's statistics of the VMs kvmbench and its QEMU
// guests open (kvm.<name>, hostlib/monitor/kvm_stats.h) and the hardware
// counters of kvmbench and what it starts (perf.<event>,
// hostlib/monitor/perf_counters.h), each a reading of one repetition. `--monitors off|basic|all`: basic, the counters that explain
// the suites' figures (faults, THP and hugetlb, compaction, TLB flushes,
// NUMA, directmap splits; KVM's cumulative statistics); all, every counter.
// What the kernel does not offer is skipped with the reason; the run goes on.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hostlib/monitor/perf_counters.h"
#include "hostlib/monitor/vmstat.h"

namespace kvmbench::host {

enum class MonitorLevel { off, basic, all };
std::optional<MonitorLevel> parse_monitor_level(std::string_view text);
std::string_view to_string(MonitorLevel level);

// The /proc/vmstat counters of `basic`.
const std::vector<std::string>& basic_vmstat_counters();

struct MonitorReading {
  std::string metric;  // "vmstat.pgfault"
  std::string unit;    // "count", ...
  double value = 0;
};

struct MonitorSkip {
  std::string monitor;  // "vmstat.nr_tlb_remote_flush", "kvm"
  std::string reason;
};

class RepetitionMonitors {
 public:
  // `perf_events`: the hardware counters to take (tests give software ones).
  explicit RepetitionMonitors(MonitorLevel level, std::filesystem::path vmstat = "/proc/vmstat",
                              std::vector<PerfEventSpec> perf_events = hardware_perf_events());
  ~RepetitionMonitors();
  RepetitionMonitors(const RepetitionMonitors&) = delete;
  RepetitionMonitors& operator=(const RepetitionMonitors&) = delete;

  MonitorLevel level() const { return level_; }
  // The sources whose readings this makes ("vmstat", "kvm", "perf"): metric_roles' monitor.
  std::vector<std::string> sources() const;

  void begin();
  // The counters that moved since begin() (non-zero deltas), by name.
  std::vector<MonitorReading> end();

  // What was skipped and why, each once (meta.json's monitors.skipped).
  const std::vector<MonitorSkip>& skips() const { return skips_; }
  // meta.json's "monitors": the level, the sources, what each counts, the skips.
  nlohmann::json describe() const;

 private:
  void skip(const std::string& monitor, const std::string& reason);

  MonitorLevel level_;
  std::filesystem::path vmstat_path_;
  std::optional<VmstatCounters> before_;
  bool vmstat_usable_ = false;
  bool kvm_counting_ = false;
  std::unique_ptr<PerfCounters> perf_;  // null: no event can be counted here
  std::size_t perf_refused_said_ = 0;   // perf_->refused() already in skips_
  std::vector<MonitorSkip> skips_;
};

}  // namespace kvmbench::host
