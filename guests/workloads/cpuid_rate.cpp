// cpuid_rate: execute CPUID in a loop for a fixed time and report how many
// per second. In a guest every CPUID is a VM exit, so this is a VM-exit
// round-trip rate (the ASID document's second benchmark).
//
//   kvmbench-cpuid_rate [--seconds 1] [--leaf 0]
//                       [--case NAME] [--variant V] [--iteration I]
// Result:
//   cpuid_rate  ops/s
#include <cpuid.h>

#include "workload_common.h"

using namespace kvmbench::guest;

int main(int argc, char** argv) {
  Options opt("cpuid_rate", argc, argv, {"seconds", "leaf"});
  const double seconds = opt.real("seconds", 1.0);
  const auto leaf = static_cast<unsigned>(opt.size("leaf", 0));
  if (seconds <= 0) fail("cpuid_rate", "--seconds must be positive");

  // The clock is read once per batch so that its cost (a vDSO call natively,
  // possibly an exit in a guest) stays out of the rate.
  constexpr std::uint64_t kBatch = 1024;
  std::uint64_t count = 0;
  const double start = now_s();
  double now = start;
  while (now - start < seconds) {
    for (std::uint64_t i = 0; i < kBatch; ++i) {
      unsigned a, b, c, d;
      __cpuid_count(leaf, 0, a, b, c, d);
      asm volatile("" : : "r"(a), "r"(b), "r"(c), "r"(d));
    }
    count += kBatch;
    now = now_s();
  }
  const double elapsed = now - start;
  const std::string case_name = opt.case_name("leaf=" + std::to_string(leaf));
  emit({case_name, opt.variant(), "cpuid_rate", "ops/s", static_cast<double>(count) / elapsed, opt.iteration(),
        {{"count", std::to_string(count)}, {"seconds", json_number(elapsed)}}});
  return 0;
}
