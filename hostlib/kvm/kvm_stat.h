// One of KVM's statistics as kvmbench reads it: from a stats fd of its own
// VMs (hostlib/monitor/kvm_stats.h) or from QEMU's query-stats for a guest
// QEMU runs (hostlib/qemu/qemu_stats.h), and the sink through which the
// QEMU launcher hands a guest's statistics to whoever counts them.
#pragma once

#include <string>
#include <vector>

namespace kvmbench::host {

struct KvmStat {
  std::string name;  // "pf_taken"
  std::string unit;  // "count", "B", "ns", "us", "s", "cycles"
  enum class Kind { cumulative, instant, peak } kind = Kind::cumulative;
  double value = 0;  // in `unit`
};

// The unit of a statistic and the factor that brings its raw value to it,
// from KVM's unit (the same four in the kernel's flags and QEMU's schema),
// its base (10 or 2) and exponent: nanoseconds stay "ns", bytes "B".
enum class KvmStatUnit { none, bytes, seconds, cycles };
struct ScaledUnit {
  std::string unit;
  double factor = 1;
};
ScaledUnit kvm_stat_unit(KvmStatUnit unit, bool base2, int exponent);

// A guest's statistics as QEMU reported them before it exited: the VM's
// and each vCPU's; or why they could not be had.
struct GuestKvmStats {
  std::vector<KvmStat> vm;
  std::vector<std::vector<KvmStat>> vcpus;
  std::string error;  // "QEMU's query-stats: ..."; empty when read
};

// Where set, the QEMU launcher asks each KVM guest for its statistics as it
// shuts down and hands them here (the monitors of a repetition set it);
// nullptr: none, and QEMU is asked for nothing.
using GuestKvmStatsSink = void (*)(const GuestKvmStats& stats);
void set_guest_kvm_stats_sink(GuestKvmStatsSink sink);
GuestKvmStatsSink guest_kvm_stats_sink();

}  // namespace kvmbench::host
