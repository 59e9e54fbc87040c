#include "hostlib/monitor/repetition_monitors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "hostlib/monitor/kvm_stats.h"

namespace kvmbench::host {

std::optional<MonitorLevel> parse_monitor_level(std::string_view text) {
  if (text == "off") return MonitorLevel::off;
  if (text == "basic") return MonitorLevel::basic;
  if (text == "all") return MonitorLevel::all;
  return std::nullopt;
}

std::string_view to_string(MonitorLevel level) {
  switch (level) {
    case MonitorLevel::off: return "off";
    case MonitorLevel::basic: return "basic";
    case MonitorLevel::all: return "all";
  }
  return "?";
}

const std::vector<std::string>& basic_vmstat_counters() {
  static const std::vector<std::string> names = {
      // faults and allocation
      "pgfault", "pgmajfault", "pgalloc_normal", "pgalloc_dma32", "pgalloc_movable", "pgfree",
      // transparent huge pages
      "thp_fault_alloc", "thp_fault_fallback", "thp_fault_fallback_charge", "thp_collapse_alloc",
      "thp_collapse_alloc_failed", "thp_split_page", "thp_split_page_failed", "thp_split_pmd",
      "thp_deferred_split_page", "thp_zero_page_alloc", "thp_file_alloc", "thp_file_mapped",
      // hugetlb
      "htlb_buddy_alloc_success", "htlb_buddy_alloc_fail",
      // compaction and migration
      "compact_stall", "compact_fail", "compact_success", "compact_migrate_scanned", "compact_free_scanned",
      "compact_isolated", "pgmigrate_success", "pgmigrate_fail",
      // reclaim
      "pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct", "pswpin", "pswpout",
      // TLB flushes (CONFIG_DEBUG_TLBFLUSH)
      "nr_tlb_remote_flush", "nr_tlb_remote_flush_received", "nr_tlb_local_flush_all", "nr_tlb_local_flush_one",
      // NUMA
      "numa_hit", "numa_miss", "numa_foreign", "numa_local", "numa_other", "numa_hint_faults",
      "numa_pages_migrated",
      // the directmap (x86)
      "direct_map_level2_splits", "direct_map_level3_splits",
  };
  return names;
}

RepetitionMonitors::RepetitionMonitors(MonitorLevel level, std::filesystem::path vmstat,
                                       std::vector<PerfEventSpec> perf_events)
    : level_(level), vmstat_path_(std::move(vmstat)) {
  if (level_ == MonitorLevel::off) return;
  // Which hardware counters this host gives: opened and closed once, the
  // refused ones said once, by reason.
  perf_ = std::make_unique<PerfCounters>(std::move(perf_events));
  perf_->start();
  const bool perf_counts = !perf_->stop().empty();
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& [event, reason] : perf_->refused()) by_reason[reason].push_back("perf." + event);
  for (const auto& [reason, events] : by_reason) skip(fmt::format("{}", fmt::join(events, ", ")), reason);
  perf_refused_said_ = perf_->refused().size();
  if (!perf_counts) perf_.reset();
  const std::optional<VmstatCounters> now = read_vmstat(vmstat_path_);
  if (!now || now->empty()) {
    skip("vmstat", fmt::format("{} cannot be read here", vmstat_path_.string()));
  } else {
    vmstat_usable_ = true;
    if (level_ == MonitorLevel::basic) {
      std::vector<std::string> missing;
      for (const auto& name : basic_vmstat_counters())
        if (!now->count(name)) missing.push_back("vmstat." + name);
      // One line for the lot: the kernel's configuration leaves them out.
      if (!missing.empty())
        skip(fmt::format("{}", fmt::join(missing, ", ")),
             "not offered by this kernel's /proc/vmstat (its configuration leaves them out)");
    }
  }
}

RepetitionMonitors::~RepetitionMonitors() {
  if (kvm_counting_) kvm_stats_end();
}

std::vector<std::string> RepetitionMonitors::sources() const {
  if (level_ == MonitorLevel::off) return {};
  std::vector<std::string> out;
  if (vmstat_usable_) out.push_back("vmstat");
  out.push_back("kvm");
  if (perf_) out.push_back("perf");
  return out;
}

void RepetitionMonitors::skip(const std::string& monitor, const std::string& reason) {
  for (const auto& s : skips_)
    if (s.monitor == monitor && s.reason == reason) return;
  skips_.push_back({monitor, reason});
}

void RepetitionMonitors::begin() {
  if (level_ == MonitorLevel::off) return;
  if (vmstat_usable_) {
    before_ = read_vmstat(vmstat_path_);
    if (!before_) skip("vmstat", fmt::format("{} could not be read before a repetition", vmstat_path_.string()));
  }
  kvm_stats_begin(level_ == MonitorLevel::all);
  kvm_counting_ = true;
  // Last: the counters count as little of the monitors as can be.
  if (perf_) perf_->start();
}

std::vector<MonitorReading> RepetitionMonitors::end() {
  std::vector<MonitorReading> out;
  if (level_ == MonitorLevel::off) return out;
  if (perf_) {
    for (const auto& c : perf_->stop())
      out.push_back({"perf." + c.name, c.name.starts_with("cycles") ? "cycles" : "count", c.value});
    // A counter that failed in this repetition (after the first look).
    const auto& refused = perf_->refused();
    for (; perf_refused_said_ < refused.size(); ++perf_refused_said_)
      skip("perf." + refused[perf_refused_said_].first, refused[perf_refused_said_].second);
  }
  if (before_) {
    const std::optional<VmstatCounters> after = read_vmstat(vmstat_path_);
    if (!after) skip("vmstat", fmt::format("{} could not be read after a repetition", vmstat_path_.string()));
    else {
      auto take = [&](const std::string& name) {
        const auto a = after->find(name);
        const auto b = before_->find(name);
        if (a == after->end() || b == before_->end() || a->second == b->second) return;
        // A gauge (nr_*) may fall: its delta is signed.
        out.push_back({"vmstat." + name, "count",
                       static_cast<double>(a->second) - static_cast<double>(b->second)});
      };
      if (level_ == MonitorLevel::basic)
        for (const auto& name : basic_vmstat_counters()) take(name);
      else
        for (const auto& [name, v] : *after) take(name);
    }
    before_.reset();
  }
  if (kvm_counting_) {
    kvm_counting_ = false;
    const KvmStatTotals t = kvm_stats_end();
    for (const auto& e : t.errors) skip("kvm", "KVM's statistics " + e);
    for (const auto& [name, s] : t.stats)
      if (s.value != 0) out.push_back({"kvm." + name, s.unit, s.value});
  }
  return out;
}

nlohmann::json RepetitionMonitors::describe() const {
  nlohmann::json j = {{"level", std::string(to_string(level_))}, {"sources", sources()}};
  if (level_ != MonitorLevel::off) {
    j["what"] = {
        {"vmstat", level_ == MonitorLevel::basic ? "the deltas of /proc/vmstat's counters of faults, THP, hugetlb, "
                                                   "compaction, reclaim, TLB flushes, NUMA and directmap splits "
                                                   "over each measured repetition"
                                                 : "the deltas of every /proc/vmstat field over each measured repetition"},
        {"kvm", "KVM's statistics of the VMs and vCPUs of each measured repetition, summed: those kvmbench opens "
                "itself read through KVM_GET_STATS_FD as each fd closes, and a QEMU guest's under KVM through QMP "
                "query-stats as it shuts down (QEMU held there by -no-shutdown)"},
    };
    j["what"]["perf"] = perf_ ? "hardware counters (perf_event_open: cycles, instructions, dTLB and iTLB load "
                                "misses; _user where only user space may be counted) of kvmbench and every thread "
                                "and process it starts during each measured repetition, QEMU's vCPUs included"
                              : "not counted here (see skipped)";
    j["stored"] = "counters that did not move in any measured repetition are not stored";
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : skips_) skipped.push_back({{"monitor", s.monitor}, {"reason", s.reason}});
  j["skipped"] = skipped;
  return j;
}

}  // namespace kvmbench::host
