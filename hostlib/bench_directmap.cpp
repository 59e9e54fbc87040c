#include "hostlib/bench_directmap.h"

#include <linux/memfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "hostlib/bench_threads.h"
#include "hostlib/kvm_uapi.h"
#include "hostlib/knobs.h"
#include "hostlib/kvm_vm.h"
#include "hostlib/pinning.h"


#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#endif

namespace kvmbench::host {

namespace {

constexpr std::uint64_t kPage = 4096;
constexpr std::uint64_t k2M = 2ULL << 20;
constexpr std::uint64_t k1G = 1ULL << 30;

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// The bracketed word of a sysfs mode file ("always [madvise] never").
std::string bracketed_mode(const std::string& path) {
  std::string line = read_first_line(path);
  auto a = line.find('['), b = line.find(']');
  if (a == std::string::npos || b == std::string::npos || b < a) return "";
  return line.substr(a + 1, b - a - 1);
}

std::uint64_t hugetlb_page_size(const std::string& backing) {
  return backing == "hugetlb-1g" ? k1G : k2M;
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// The bytes each thread really maps for `backing` (whole pages of its size).
std::uint64_t mapped_bytes(const std::string& backing, std::uint64_t bytes) {
  if (backing.rfind("hugetlb", 0) == 0) return round_up(bytes, hugetlb_page_size(backing));
  return round_up(bytes, kPage);
}

// What a case needs from KVM for guest_memfd: a VM whose fd stays open for
// as long as its guest_memfds are in use.
struct GuestMemfdContext {
  Kvm kvm;
  Vm vm;
};

// One thread's fresh memory of one backing; unmapped and closed on destruction.
class FreshMemory {
 public:
  FreshMemory(const std::string& backing, std::uint64_t bytes, GuestMemfdContext* gmem) {
    len_ = mapped_bytes(backing, bytes);
    int prot = PROT_READ | PROT_WRITE;
    if (backing == "anon-4k" || backing == "thp") {
      // THP needs 2 MiB alignment: over-allocate and start at the boundary.
      map_len_ = len_ + (backing == "thp" ? k2M : 0);
      map_ = ::mmap(nullptr, map_len_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (map_ == MAP_FAILED) fail("mmap(anonymous)");
      auto base = reinterpret_cast<std::uintptr_t>(map_);
      addr_ = reinterpret_cast<char*>(backing == "thp" ? round_up(base, k2M) : base);
      int advice = backing == "thp" ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
      if (::madvise(addr_, len_, advice) != 0)
        fail(backing == "thp" ? "madvise(MADV_HUGEPAGE)" : "madvise(MADV_NOHUGEPAGE)");
    } else if (backing == "hugetlb-2m" || backing == "hugetlb-1g") {
      int size_flag = backing == "hugetlb-1g" ? MAP_HUGE_1GB : MAP_HUGE_2MB;
      map_len_ = len_;
      map_ = ::mmap(nullptr, map_len_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | size_flag,
                    -1, 0);
      if (map_ == MAP_FAILED) fail("mmap(MAP_HUGETLB)");
      addr_ = static_cast<char*>(map_);
    } else if (backing == "memfd") {
      int fd = ::memfd_create("kvmbench-directmap", MFD_CLOEXEC);
      if (fd < 0) fail("memfd_create");
      fd_ = UniqueFd(fd);
      if (::ftruncate(fd, static_cast<off_t>(len_)) != 0) fail("ftruncate(memfd)");
      map_shared();
    } else if (backing == "guest_memfd") {
      fd_ = gmem->vm.create_guest_memfd(len_, GUEST_MEMFD_FLAG_MMAP | GUEST_MEMFD_FLAG_INIT_SHARED);
      map_shared();
    } else {
      throw std::invalid_argument("unknown directmap backing: " + backing);
    }
  }
  ~FreshMemory() {
    if (map_ != MAP_FAILED) ::munmap(map_, map_len_);
  }
  FreshMemory(const FreshMemory&) = delete;
  FreshMemory& operator=(const FreshMemory&) = delete;

  // One write per 4 KiB page: each first write faults the page in.
  void touch() {
    for (std::uint64_t off = 0; off < len_; off += kPage) addr_[off] = 1;
  }
  void fill() { std::memset(addr_, 0x5a, len_); }
  std::uint64_t size() const { return len_; }

 private:
  void map_shared() {
    map_len_ = len_;
    map_ = ::mmap(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
    if (map_ == MAP_FAILED) fail("mmap(MAP_SHARED)");
    addr_ = static_cast<char*>(map_);
  }
  [[noreturn]] void fail(const char* what) {
    int err = errno;
    throw std::runtime_error(fmt::format("{} of {} bytes failed: {}", what, len_,
                                         errno_description(err)));
  }

  UniqueFd fd_;
  void* map_ = MAP_FAILED;
  std::uint64_t map_len_ = 0;
  char* addr_ = nullptr;
  std::uint64_t len_ = 0;
};

std::uint64_t read_u64(const std::string& path) {
  std::string t = read_first_line(path);
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
std::string grow_hugetlb_pool(Knobs& knobs, const std::string& backing, std::uint64_t bytes) {
  std::uint64_t page = hugetlb_page_size(backing);
  std::string dir = fmt::format("/sys/kernel/mm/hugepages/hugepages-{}kB", page / 1024);
  std::uint64_t need = round_up(bytes, page) / page;
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

const std::vector<std::string>& directmap_backings() {
  static const std::vector<std::string> names = {"anon-4k", "thp",   "hugetlb-2m",
                                                 "hugetlb-1g", "memfd", "guest_memfd"};
  return names;
}

std::string directmap_backing_unavailable(const std::string& backing, std::uint64_t bytes) {
  if (backing == "thp") {
    std::string mode = bracketed_mode("/sys/kernel/mm/transparent_hugepage/enabled");
    // With enabled = never, MADV_HUGEPAGE memory gets 4 KiB pages: that is
    // measured (and its samples say the mode), since a kernel or a setting
    // that loses THP is the regression this case exists to show.
    if (mode.empty()) return "THP is not available (no /sys/kernel/mm/transparent_hugepage)";
    return "";
  }
  if (backing == "hugetlb-2m" || backing == "hugetlb-1g") {
    std::uint64_t page = hugetlb_page_size(backing);
    std::string dir = fmt::format("/sys/kernel/mm/hugepages/hugepages-{}kB", page / 1024);
    std::string free_text = read_first_line(dir + "/free_hugepages");
    if (free_text.empty()) return fmt::format("this kernel has no {} KiB hugetlb pages", page / 1024);
    std::uint64_t free_pages = std::stoull(free_text);
    std::uint64_t need = round_up(bytes, page) / page;
    if (free_pages < need)
      return fmt::format(
          "no hugepage pool configured: {} free of {} KiB, {} needed (set "
          "{}/nr_hugepages, or reserve at boot for 1 GiB pages)",
          free_pages, page / 1024, need, dir);
    return "";
  }
  if (backing == "guest_memfd") {
    try {
      Kvm kvm = Kvm::open();
      if (kvm.check_extension(KVM_CAP_GUEST_MEMFD) <= 0)
        return "KVM has no guest_memfd (KVM_CAP_GUEST_MEMFD = 0)";
      auto flags = static_cast<std::uint64_t>(kvm.check_extension(KVM_CAP_GUEST_MEMFD_FLAGS));
      std::uint64_t want = GUEST_MEMFD_FLAG_MMAP | GUEST_MEMFD_FLAG_INIT_SHARED;
      if ((flags & want) != want)
        return fmt::format("guest_memfd cannot be mmap'ed here: KVM_CAP_GUEST_MEMFD_FLAGS = {:#x}, "
                           "MMAP|INIT_SHARED (0x3) needed",
                           flags);
    } catch (const KvmError& e) {
      return e.what();
    }
    return "";
  }
  if (backing == "anon-4k" || backing == "memfd") return "";
  throw std::invalid_argument(fmt::format(
      "unknown directmap backing '{}' (known: anon-4k, thp, hugetlb-2m, hugetlb-1g, memfd, "
      "guest_memfd)",
      backing));
}

BenchOutcome measure_directmap(const DirectmapHostParams& params, const SampleSink& sink) {
  if (params.bytes_per_thread == 0) throw std::invalid_argument("bytes_per_thread must be > 0");
  std::vector<int> cpus = thread_affinity();
  std::vector<int> threads = params.threads;
  if (threads.empty()) {
    threads = {1};
    if (cpus.size() > 1) threads.push_back(static_cast<int>(cpus.size()));
  }
  for (int t : threads)
    if (t < 1) throw std::invalid_argument(fmt::format("thread count must be >= 1, got {}", t));
  std::vector<std::string> backings =
      params.backings.empty() ? directmap_backings() : params.backings;

  BenchOutcome outcome;
  // Pool changes live as long as the cases run; the destructor (or the
  // signal / crash paths of knobs.h) puts the old sizes back.
  std::unique_ptr<KnobSet> pool_knobs;
  std::map<std::string, std::string> pool_problem;  // backing -> why the pool could not be set up
  if (params.setup_hugetlb_pools) {
    for (const std::string& backing : backings) {
      if (backing.rfind("hugetlb", 0) != 0) continue;
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

  for (const std::string& backing : backings) {
    for (int n : threads) {
      std::string case_name = fmt::format("{}/threads={}", backing, n);
      std::uint64_t per_thread = mapped_bytes(backing, params.bytes_per_thread);
      std::string why = directmap_backing_unavailable(backing, per_thread * n);
      if (!why.empty() && pool_problem.count(backing) && !pool_problem[backing].empty())
        why = pool_problem[backing];
      for (const auto& [variant, pinned] : variants) {
        if (!why.empty()) {
          outcome.skipped.push_back({case_name, variant, why});
          continue;
        }
        CaseSpec c;
        c.case_name = case_name;
        c.variant = variant;
        c.units = {{"faultin_rate", "GB/s"},
                   {"faultin_rate_per_thread", "GB/s"},
                   {"faultin_time", "ns"},
                   {"write_bandwidth", "GB/s"}};
        c.extra = {{"backing", backing},
                   {"threads", n},
                   {"bytes_per_thread", per_thread},
                   {"pinned", pinned},
                   {"touch", "one write per 4 KiB page"}};
        if (backing == "thp")
          c.extra["thp_enabled"] = bracketed_mode("/sys/kernel/mm/transparent_hugepage/enabled");
        const std::vector<int> pin_cpus = pinned ? cpus : std::vector<int>{};
        measure_case(c, [&](CaseValues& values) {
          std::unique_ptr<GuestMemfdContext> gmem;
          if (backing == "guest_memfd") {
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

}  // namespace kvmbench::host
