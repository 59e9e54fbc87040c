// mmap_churn: mmap, touch every page, munmap, repeated (the ASID document's
// third benchmark: 100M for 100 iterations). Each round trips page faults,
// page-table teardown and TLB flushes, which is what the ASID rework changes.
//
//   kvmbench-mmap_churn [--bytes 100M] [--rounds 100]
//                       [--case NAME] [--variant V] [--iteration I]
// Results:
//   time_per_round  ms  mean over the rounds (extra: min, max)
//   total_time      ms  all rounds
#include <sys/mman.h>

#include <algorithm>

#include "workload_common.h"

using namespace kvmbench::guest;

int main(int argc, char** argv) {
  Options opt("mmap_churn", argc, argv, {"bytes", "rounds"});
  const std::uint64_t bytes = opt.size("bytes", 100ull << 20);
  const std::uint64_t rounds = opt.size("rounds", 100);
  if (bytes < 4096) fail("mmap_churn", "--bytes must be at least one page");
  if (rounds < 1) fail("mmap_churn", "--rounds must be at least 1");
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));

  double min_s = 1e300, max_s = 0;
  const double t0 = now_s();
  for (std::uint64_t r = 0; r < rounds; ++r) {
    const double start = now_s();
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fail("mmap_churn", std::string("mmap failed: ") + std::strerror(errno));
    volatile char* m = static_cast<char*>(p);
    for (std::uint64_t off = 0; off < bytes; off += page) m[off] = 1;
    if (munmap(p, bytes)) fail("mmap_churn", std::string("munmap failed: ") + std::strerror(errno));
    const double d = now_s() - start;
    min_s = std::min(min_s, d);
    max_s = std::max(max_s, d);
  }
  const double total = now_s() - t0;

  const std::string case_name = opt.case_name("bytes=" + std::to_string(bytes) + ",rounds=" + std::to_string(rounds));
  emit({case_name, opt.variant(), "time_per_round", "ms", total / static_cast<double>(rounds) * 1e3, opt.iteration(),
        {{"min_ms", json_number(min_s * 1e3)}, {"max_ms", json_number(max_s * 1e3)},
         {"rounds", std::to_string(rounds)}, {"bytes", std::to_string(bytes)}}});
  emit({case_name, opt.variant(), "total_time", "ms", total * 1e3, opt.iteration(), {}});
  return 0;
}
