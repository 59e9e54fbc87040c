#include "hostlib/kvm/kvm_stat.h"

#include <atomic>
#include <cmath>

namespace kvmbench::host {

ScaledUnit kvm_stat_unit(KvmStatUnit unit, bool base2, int exponent) {
  const double factor = base2 ? std::ldexp(1.0, exponent) : std::pow(10.0, exponent);
  switch (unit) {
    case KvmStatUnit::bytes: return {"B", factor};
    case KvmStatUnit::seconds:
      // KVM keeps times in ns (halt_poll_success_ns): kept as they come.
      if (!base2 && exponent == -9) return {"ns", 1};
      if (!base2 && exponent == -6) return {"us", 1};
      return {"s", factor};
    case KvmStatUnit::cycles: return {"cycles", factor};
    case KvmStatUnit::none: break;
  }
  return {"count", factor};
}

namespace {
std::atomic<GuestKvmStatsSink> guest_sink{nullptr};
}  // namespace

void set_guest_kvm_stats_sink(GuestKvmStatsSink sink) { guest_sink.store(sink); }
GuestKvmStatsSink guest_kvm_stats_sink() { return guest_sink.load(); }

}  // namespace kvmbench::host
