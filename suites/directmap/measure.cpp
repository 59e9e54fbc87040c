#include "suites/directmap/measure.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "hostlib/measure/bench_threads.h"
#include "hostlib/measure/fresh_memory.h"
#include "hostlib/measure/huge_page_share.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/state/knobs.h"
#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/kvm_vm.h"
#include "hostlib/measure/pinning.h"

namespace kvmbench::suites::directmap {

// The suite-neutral pieces: Kvm, Vm, run_parallel, pinning, knobs.
using namespace kvmbench::host;

namespace {

// The bracketed word of a sysfs mode file ("always [madvise] never").
std::string bracketed_mode(const std::string& path) {
  const std::string line = read_kernel_value(path).value_or("");
  auto a = line.find('['), b = line.find(']');
  if (a == std::string::npos || b == std::string::npos || b < a) return "";
  return line.substr(a + 1, b - a - 1);
}

std::uint64_t read_u64(const std::string& path) {
  const std::string t = read_kernel_value(path).value_or("");
  try {
    return t.empty() ? 0 : std::stoull(t);
  } catch (...) {
    return 0;
  }
}

// Grows the pool of `backing`'s pages so that `bytes` fit, through a scoped
// knob that puts the old size back when `knobs` goes away. Returns "" when
// the pool is now big enough, else why not.
template <typename Knobs>
std::string grow_hugetlb_pool(Knobs& knobs, Backing backing, std::uint64_t bytes) {
  std::uint64_t page = backing_info(backing).page_size;
  std::string dir = fmt::format("/sys/kernel/mm/hugepages/hugepages-{}kB", page / 1024);
  std::uint64_t need = mapped_bytes(backing, bytes) / page;
  std::uint64_t free_pages = read_u64(dir + "/free_hugepages");
  if (free_pages >= need) return "";
  std::uint64_t total = read_u64(dir + "/nr_hugepages");
  std::uint64_t want = total + (need - free_pages);
  try {
    std::uint64_t reached = knobs.set_hugepages(page / 1024, want);
    std::uint64_t now_free = read_u64(dir + "/free_hugepages");
    if (now_free < need)
      return fmt::format(
          "could not set up a hugepage pool: asked for {} pages of {} KiB, the kernel reached "
          "{} ({} free, {} needed; memory too fragmented or too small)",
          want, page / 1024, reached, now_free, need);
  } catch (const std::exception& e) {
    return fmt::format("could not set up a hugepage pool: {}", e.what());
  }
  return "";
}

}  // namespace

namespace {
// What this kernel's KVM lacks: no run on it can ever have the backing.
constexpr std::string_view kNoGuestMemfd = "KVM has no guest_memfd";
constexpr std::string_view kNoGuestMemfdMmap = "guest_memfd cannot be mmap'ed here";
bool kernel_never_offers(const std::string& why) {
  return why.starts_with(kNoGuestMemfd) || why.starts_with(kNoGuestMemfdMmap);
}
}  // namespace

std::string directmap_backing_unavailable(Backing backing, std::uint64_t bytes) {
  const BackingInfo& info = backing_info(backing);
  switch (info.needs) {
    case BackingNeeds::nothing:
      return "";
    case BackingNeeds::thp:
      // With enabled = never, MADV_HUGEPAGE memory gets 4 KiB pages: that is
      // measured (and its samples say the mode), since a kernel or a setting
      // that loses THP is the regression this case exists to show.
      if (bracketed_mode("/sys/kernel/mm/transparent_hugepage/enabled").empty())
        return "THP is not available (no /sys/kernel/mm/transparent_hugepage)";
      return "";
    case BackingNeeds::hugetlb_pool: {
      std::uint64_t page = info.page_size;
      std::string dir = fmt::format("/sys/kernel/mm/hugepages/hugepages-{}kB", page / 1024);
      const std::string free_text = read_kernel_value(dir + "/free_hugepages").value_or("");
      if (free_text.empty()) return fmt::format("this kernel has no {} KiB hugetlb pages", page / 1024);
      std::uint64_t free_pages = std::stoull(free_text);
      std::uint64_t need = mapped_bytes(backing, bytes) / page;
      if (free_pages < need)
        return fmt::format(
            "no hugepage pool configured: {} free of {} KiB, {} needed (set "
            "{}/nr_hugepages, or reserve at boot for 1 GiB pages)",
            free_pages, page / 1024, need, dir);
      return "";
    }
    case BackingNeeds::guest_memfd:
      try {
        Kvm kvm = Kvm::open();
        if (kvm.check_extension(KVM_CAP_GUEST_MEMFD) <= 0)
          return std::string(kNoGuestMemfd) + " (KVM_CAP_GUEST_MEMFD = 0)";
        auto flags = static_cast<std::uint64_t>(kvm.check_extension(KVM_CAP_GUEST_MEMFD_FLAGS));
        std::uint64_t want = GUEST_MEMFD_FLAG_MMAP | GUEST_MEMFD_FLAG_INIT_SHARED;
        if ((flags & want) != want)
          return fmt::format("{}: KVM_CAP_GUEST_MEMFD_FLAGS = {:#x}, MMAP|INIT_SHARED (0x3) needed", kNoGuestMemfdMmap,
                             flags);
      } catch (const KvmError& e) {
        return e.what();
      }
      return "";
  }
  return "";
}

BenchOutcome measure(const DirectmapHostParams& params, const SampleSink& sink) {
  if (params.bytes_per_thread == 0) throw std::invalid_argument("bytes_per_thread must be > 0");
  std::vector<int> cpus = thread_affinity();
  std::vector<int> threads = params.threads;
  if (threads.empty()) {
    threads = {1};
    if (cpus.size() > 1) threads.push_back(static_cast<int>(cpus.size()));
  }
  for (int t : threads)
    if (t < 1) throw std::invalid_argument(fmt::format("thread count must be >= 1, got {}", t));
  const std::vector<Backing> backings = params.backings.empty() ? all_backings() : params.backings;

  BenchOutcome outcome;
  // Pool changes live as long as the cases run; the destructor (or the
  // signal / crash paths of knobs.h) puts the old sizes back.
  std::unique_ptr<KnobSet> pool_knobs;
  std::map<Backing, std::string> pool_problem;  // why the pool could not be set up
  if (params.setup_hugetlb_pools) {
    for (Backing backing : backings) {
      if (backing_info(backing).needs != BackingNeeds::hugetlb_pool) continue;
      int most = *std::max_element(threads.begin(), threads.end());
      std::uint64_t bytes = mapped_bytes(backing, params.bytes_per_thread) * most;
      if (directmap_backing_unavailable(backing, bytes).empty()) continue;
      if (!pool_knobs) pool_knobs = std::make_unique<KnobSet>();
      pool_problem[backing] = grow_hugetlb_pool(*pool_knobs, backing, bytes);
    }
  }
  std::vector<std::pair<std::string, bool>> variants;
  if (params.unpinned) variants.push_back({"unpinned", false});
  if (params.pinned) variants.push_back({"pinned", true});

  for (Backing backing : backings) {
    const std::string_view name = backing_name(backing);
    for (int n : threads) {
      std::string case_name = fmt::format("{}/threads={}", name, n);
      std::uint64_t per_thread = mapped_bytes(backing, params.bytes_per_thread);
      std::string why = directmap_backing_unavailable(backing, per_thread * n);
      if (!why.empty() && pool_problem.count(backing) && !pool_problem[backing].empty())
        why = pool_problem[backing];
      for (const auto& [variant, pinned] : variants) {
        if (!why.empty()) {
          outcome.skipped.push_back({case_name, variant, why, kernel_never_offers(why)});
          continue;
        }
        CaseSpec c;
        c.case_name = case_name;
        c.variant = variant;
        c.units = {{"faultin_rate", "GB/s"},
                   {"faultin_rate_per_thread", "GB/s"},
                   {"faultin_time", "ns"},
                   {"write_bandwidth", "GB/s"},
                   {"thp_share", "%"}};
        c.extra = {{"backing", name},
                   {"threads", n},
                   {"bytes_per_thread", per_thread},
                   {"pinned", pinned},
                   {"touch", "one write per 4 KiB page"}};
        if (backing_info(backing).needs == BackingNeeds::thp)
          c.extra["thp_enabled"] = bracketed_mode("/sys/kernel/mm/transparent_hugepage/enabled");
        const std::vector<int> pin_cpus = pinned ? cpus : std::vector<int>{};
        measure_case(c, [&](CaseValues& values) {
          std::unique_ptr<GuestMemfdContext> gmem;
          if (backing_info(backing).needs == BackingNeeds::guest_memfd) {
            Kvm kvm = Kvm::open();
            Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
            gmem.reset(new GuestMemfdContext{std::move(kvm), std::move(vm)});
          }
          std::vector<std::unique_ptr<FreshMemory>> mem;
          for (int i = 0; i < n; ++i)
            mem.push_back(std::make_unique<FreshMemory>(backing, per_thread, gmem.get()));
          ParallelTimes t = run_parallel(n, pin_cpus, [&](int i) { mem[i]->touch(); });
          values.record("faultin_time", t.wall_ns);
          values.record("faultin_rate", static_cast<double>(per_thread) * n / t.wall_ns);
          for (int i = 0; i < n; ++i)
            values.record("faultin_rate_per_thread", static_cast<double>(per_thread) / t.per_thread_ns[i],
                      {{"thread", i}});
          if (backing_info(backing).needs == BackingNeeds::thp) {
            // What the kernel gave: a thp case faulted in as 4 KiB pages
            // (fragmented memory, THP off) shows here, not only as a slow rate.
            for (int i = 0; i < n; ++i)
              if (auto share = anon_huge_share(mem[i]->data(), mem[i]->size()))
                values.record("thp_share", 100 * *share, {{"thread", i}});
          }
          if (params.write_bandwidth) {
            ParallelTimes w = run_parallel(n, pin_cpus, [&](int i) { mem[i]->fill(); });
            values.record("write_bandwidth", static_cast<double>(per_thread) * n / w.wall_ns);
          }
        }, sink, outcome);
      }
    }
  }
  return outcome;
}

}  // namespace kvmbench::suites::directmap
