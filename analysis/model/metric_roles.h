// Which metrics of a run a verdict is about. A suite's preset declares its
// primary metrics (what a gate decides on) and, per metric name, the metric
// it is derived from (a time and its rate, a per-thread view of a rate, a
// statistic of the same rounds). A derived metric is shown next to the one
// it comes from but is never tested again, so that one measurement is one
// test in the Holm family; a metric that is neither (a bound measured
// beside, a calibration) is compared, but a gate does not decide on it
// unless asked (--metrics). Without a primary list every metric not derived
// is primary (Google Benchmark files, selftest output). Written into a
// run's meta.json ("metric_roles") so that a run says this itself, whatever
// the suite's code is later.
//
// Monitors (what the kernel counted while kvmbench measured: /proc/vmstat,
// KVM's statistics, perf counters) are metrics named <source>.<counter>
// whose source the run declares in "monitor": never primary, never derived,
// never in a verdict's family (compare tests them as a family of their own).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench {

struct MetricRoles {
  // What a gate decides on (metric names); empty: every metric not derived.
  std::vector<std::string> primary;
  // metric name -> the metric it is computed from
  std::map<std::string, std::string> derived;
  // What one repetition of the run is, for the reader of a comparison
  // ("fresh memory in one kvmbench process", "a fresh guest boot").
  std::string repetition;
  // The monitor sources ("vmstat", "kvm"): a metric "<source>.<counter>" of
  // one of them has the monitor role.
  std::vector<std::string> monitor;

  // A monitor's counter: "vmstat.pgfault" with "vmstat" declared.
  bool is_monitor(std::string_view metric) const;
  bool is_derived(std::string_view metric) const { return derived.count(std::string(metric)) > 0; }
  // Primary: named in `primary`, or not derived (nor a monitor) when
  // `primary` is empty; a monitor never is.
  bool is_primary(std::string_view metric) const;
  // The primary metric `metric` is derived from, "" when it is primary.
  std::string derived_from(std::string_view metric) const;

  nlohmann::json to_json() const;
  // From meta.json's "metric_roles"; an absent or null member gives no
  // derived metrics. Throws std::runtime_error naming the member for a
  // value of the wrong type.
  static MetricRoles from_json(const nlohmann::json& j);
};

// Two sides' declarations as one: primary where either side says so, derived
// where either side says so (a metric derived in one run is a transform
// there, whatever the other says), a monitor source where either says so; the repetition text of each, "" when
// they differ.
MetricRoles merge_roles(const MetricRoles& a, const MetricRoles& b);

}  // namespace kvmbench
