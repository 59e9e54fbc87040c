#include "suites/rmpopt/emulated_sweep.h"

#include <hwloc.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "hostlib/measure/bench_threads.h"
#include "hostlib/measure/monotonic_ns.h"
#include "hostlib/measure/pinning.h"

namespace kvmbench::suites::rmpopt {

// The suite-neutral pieces: Kvm, Vm, run_parallel, pinning, knobs.
using namespace kvmbench::host;

// ---- names ----------------------------------------------------------------

std::string_view to_string(SweepStrategy s) {
  switch (s) {
    case SweepStrategy::one_cpu: return "one-cpu";
    case SweepStrategy::all_cpus: return "all-cpus";
    case SweepStrategy::leader_first: return "leader-first";
    case SweepStrategy::leader_primary: return "leader-primary";
    case SweepStrategy::dirty_regions: return "dirty-regions";
  }
  return "?";
}

const std::vector<SweepStrategy>& all_sweep_strategies() {
  static const std::vector<SweepStrategy> all = {
      SweepStrategy::one_cpu, SweepStrategy::all_cpus, SweepStrategy::leader_first,
      SweepStrategy::leader_primary, SweepStrategy::dirty_regions};
  return all;
}

std::optional<SweepStrategy> parse_sweep_strategy(std::string_view s) {
  for (SweepStrategy st : all_sweep_strategies())
    if (to_string(st) == s) return st;
  return std::nullopt;
}

PageLayout parse_page_layout(std::string_view s) {
  if (s == "none") return {PageLayout::none, 0};
  if (s == "first") return {PageLayout::first, 0};
  if (s == "last") return {PageLayout::last, 0};
  if (s.substr(0, 7) == "random:") {
    std::string k(s.substr(7));
    char* end = nullptr;
    unsigned long v = std::strtoul(k.c_str(), &end, 10);
    if (!k.empty() && *end == '\0' && v >= 1 && v <= 1000000)
      return {PageLayout::random, static_cast<unsigned>(v)};
  }
  throw std::invalid_argument(fmt::format(
      "bad page layout '{}' (expected none, first, last or random:K with K >= 1)", s));
}

std::string to_string(const PageLayout& l) {
  switch (l.kind) {
    case PageLayout::none: return "none";
    case PageLayout::first: return "first";
    case PageLayout::last: return "last";
    case PageLayout::random: return fmt::format("random:{}", l.count);
  }
  return "?";
}

// ---- table ----------------------------------------------------------------

RmpLikeTable::RmpLikeTable(std::uint64_t regions, std::uint64_t entries_per_region)
    : regions_(regions), entries_per_region_(entries_per_region) {
  if (regions == 0 || entries_per_region == 0)
    throw std::invalid_argument("an RMP-like table needs at least one region and one entry");
  map_bytes_ = bytes();
  void* p = ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw std::runtime_error(fmt::format("mmap of a {} byte RMP-like table failed: {}", map_bytes_,
                                         std::strerror(errno)));
  // The kernel reaches the RMP through large directmap pages; give the
  // emulation large pages too where THP allows, so TLB misses do not dominate.
  ::madvise(p, map_bytes_, MADV_HUGEPAGE);
  words_ = static_cast<std::uint64_t*>(p);
}

RmpLikeTable::~RmpLikeTable() {
  if (words_) ::munmap(words_, map_bytes_);
}

void RmpLikeTable::apply_layout(const PageLayout& layout, std::uint64_t seed) {
  std::memset(words_, 0, map_bytes_);  // also faults the whole table in
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, entries_per_region_ - 1);
  for (std::uint64_t r = 0; r < regions_; ++r) {
    std::uint64_t base = r * entries_per_region_;
    switch (layout.kind) {
      case PageLayout::none: break;
      case PageLayout::first: words_[2 * base] |= 1; break;
      case PageLayout::last: words_[2 * (base + entries_per_region_ - 1)] |= 1; break;
      case PageLayout::random:
        for (unsigned k = 0; k < layout.count; ++k) words_[2 * (base + pick(rng))] |= 1;
        break;
    }
  }
}

std::uint64_t RmpLikeTable::scan_region(std::uint64_t r) const {
  const std::uint64_t* e = words_ + 2 * r * entries_per_region_;
  const std::uint64_t n = entries_per_region_;
  for (std::uint64_t i = 0; i < n; ++i)
    if (e[2 * i] & 1) return i + 1;
  return n;
}

// ---- topology -------------------------------------------------------------

std::vector<int> primary_threads(const std::vector<int>& allowed) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return allowed;
  std::vector<int> primaries;
  if (hwloc_topology_load(topo) == 0) {
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int i = 0; i < cores; ++i) {
      hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i);
      int first = hwloc_bitmap_first(core->cpuset);
      if (first >= 0 && std::find(allowed.begin(), allowed.end(), first) != allowed.end())
        primaries.push_back(first);
    }
  }
  hwloc_topology_destroy(topo);
  if (primaries.empty()) return allowed;
  std::sort(primaries.begin(), primaries.end());
  return primaries;
}

// ---- sweeper --------------------------------------------------------------

namespace {

long futex(std::atomic<std::uint32_t>* addr, int op, std::uint32_t val) {
  return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(addr), op, val, nullptr, nullptr, 0);
}

// Spin this long before sleeping in the futex: an IPI answer takes about a
// microsecond, a futex wake tens of them.
constexpr auto kSpin = std::chrono::microseconds(50);

enum Job : int { kJobNone = 0, kJobRmpopt = 1, kJobEmpty = 2 };

// Pins the calling thread to `cpu` and puts its old affinity back on exit.
class LeaderPin {
 public:
  explicit LeaderPin(int cpu) {
    CPU_ZERO(&old_);
    pthread_getaffinity_np(pthread_self(), sizeof old_, &old_);
    pin_thread_to_cpu(cpu);
  }
  ~LeaderPin() { pthread_setaffinity_np(pthread_self(), sizeof old_, &old_); }

 private:
  cpu_set_t old_;
};

}  // namespace

struct EmulatedSweeper::Shared {
  // One mailbox per CPU, as each CPU gets its own IPI: the leader writes the
  // job, then bumps `seq` (release) and wakes that worker only.
  struct alignas(64) Mailbox {
    std::atomic<std::uint32_t> seq{0};
    int job = kJobNone;
    std::uint64_t region = 0;
  };
  std::unique_ptr<Mailbox[]> mailbox;
  std::atomic<std::uint32_t> pending{0};
  std::atomic<bool> stop{false};
  // Per-CPU state: time inside rmpopt(), entries read, own "RMPOPT table".
  std::vector<double> busy_ns;
  std::vector<std::uint64_t> scanned;
  std::vector<std::vector<char>> optimized;
  std::vector<std::atomic<char>> clean;  // region verified clean by some CPU
  explicit Shared(std::size_t ncpu, std::uint64_t regions)
      : mailbox(new Mailbox[ncpu]), busy_ns(ncpu), scanned(ncpu),
        optimized(ncpu, std::vector<char>(regions)), clean(regions) {}
};

EmulatedSweeper::EmulatedSweeper(const RmpLikeTable& table, std::vector<int> cpus,
                                 std::vector<int> primary_threads)
    : table_(table), cpus_(std::move(cpus)) {
  if (cpus_.empty()) throw std::invalid_argument("the emulated sweep needs at least one CPU");
  primary_.resize(cpus_.size());
  for (std::size_t i = 0; i < cpus_.size(); ++i)
    primary_[i] = std::find(primary_threads.begin(), primary_threads.end(), cpus_[i]) !=
                  primary_threads.end();
  shared_ = std::make_unique<Shared>(cpus_.size(), table_.regions());
  for (std::size_t i = 1; i < cpus_.size(); ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

EmulatedSweeper::~EmulatedSweeper() {
  shared_->stop.store(true);
  for (std::size_t i = 1; i < cpus_.size(); ++i) {
    shared_->mailbox[i].seq.fetch_add(1, std::memory_order_release);
    futex(&shared_->mailbox[i].seq, FUTEX_WAKE_PRIVATE, 1);
  }
  for (auto& t : workers_) t.join();
}

void EmulatedSweeper::rmpopt(std::size_t cpu_index, std::uint64_t region) {
  Shared& s = *shared_;
  double t0 = host::monotonic_ns();
  if (s.clean[region].load(std::memory_order_acquire)) {
    s.optimized[cpu_index][region] = 1;  // another CPU did the work
  } else {
    std::uint64_t n = table_.scan_region(region);
    s.scanned[cpu_index] += n;
    if (table_.region_clean_after_scan(region, n)) {
      s.clean[region].store(1, std::memory_order_release);
      s.optimized[cpu_index][region] = 1;
    }
  }
  s.busy_ns[cpu_index] += host::monotonic_ns() - t0;
}

void EmulatedSweeper::worker_loop(std::size_t index) {
  Shared& s = *shared_;
  Shared::Mailbox& box = s.mailbox[index];
  try {
    pin_thread_to_cpu(cpus_[index]);
  } catch (...) {
    // Unpinned, the emulation is still correct, only less faithful.
  }
  // Requests are counted from 0, so one posted before this thread got here
  // is still seen as new.
  std::uint32_t seen = 0;
  for (;;) {
    auto spin_until = std::chrono::steady_clock::now() + kSpin;
    std::uint32_t q;
    while ((q = box.seq.load(std::memory_order_acquire)) == seen) {
      if (std::chrono::steady_clock::now() < spin_until)
        _mm_pause();
      else
        futex(&box.seq, FUTEX_WAIT_PRIVATE, seen);
    }
    seen = q;
    if (s.stop.load()) return;
    if (box.job == kJobRmpopt) rmpopt(index, box.region);
    if (s.pending.fetch_sub(1, std::memory_order_acq_rel) == 1)
      futex(&s.pending, FUTEX_WAKE_PRIVATE, 1);
  }
}

void EmulatedSweeper::broadcast(const std::vector<char>& mask, int job, std::uint64_t region) {
  Shared& s = *shared_;
  std::uint32_t remote = 0;
  for (std::size_t i = 1; i < mask.size(); ++i) remote += mask[i] ? 1 : 0;
  s.pending.store(remote, std::memory_order_relaxed);
  for (std::size_t i = 1; i < mask.size(); ++i) {
    if (!mask[i]) continue;
    s.mailbox[i].job = job;
    s.mailbox[i].region = region;
    s.mailbox[i].seq.fetch_add(1, std::memory_order_release);
    futex(&s.mailbox[i].seq, FUTEX_WAKE_PRIVATE, 1);
  }
  // on_each_cpu_mask runs the function on the calling CPU too when it is in the mask.
  if (mask[0] && job == kJobRmpopt) rmpopt(0, region);
  auto spin_until = std::chrono::steady_clock::now() + kSpin;
  std::uint32_t p;
  while ((p = s.pending.load(std::memory_order_acquire)) != 0) {
    if (std::chrono::steady_clock::now() < spin_until)
      _mm_pause();
    else
      futex(&s.pending, FUTEX_WAIT_PRIVATE, p);
  }
}

SweepResult EmulatedSweeper::sweep(SweepStrategy strategy, const std::vector<std::uint64_t>& dirty) {
  Shared& s = *shared_;
  const std::size_t n = cpus_.size();
  std::fill(s.busy_ns.begin(), s.busy_ns.end(), 0.0);
  std::fill(s.scanned.begin(), s.scanned.end(), 0);
  for (auto& bits : s.optimized) std::fill(bits.begin(), bits.end(), 0);
  for (auto& c : s.clean) c.store(0, std::memory_order_relaxed);

  std::vector<std::uint64_t> regions;
  if (strategy == SweepStrategy::dirty_regions) {
    for (std::uint64_t r : dirty)
      if (r < table_.regions()) regions.push_back(r);
  } else {
    for (std::uint64_t r = 0; r < table_.regions(); ++r) regions.push_back(r);
  }
  std::vector<char> all(n, 1);
  std::vector<char> others(n, 1);
  others[0] = 0;
  std::vector<char> primaries_but_leader(n, 0);
  for (std::size_t i = 1; i < n; ++i) primaries_but_leader[i] = primary_[i];

  LeaderPin pin(cpus_[0]);
  double t0 = host::monotonic_ns();
  switch (strategy) {
    case SweepStrategy::one_cpu:
      for (std::uint64_t r : regions) rmpopt(0, r);
      break;
    case SweepStrategy::all_cpus:
      for (std::uint64_t r : regions) broadcast(all, kJobRmpopt, r);
      break;
    case SweepStrategy::leader_first:
    case SweepStrategy::leader_primary:
    case SweepStrategy::dirty_regions: {
      const std::vector<char>& rest =
          strategy == SweepStrategy::leader_first ? others : primaries_but_leader;
      for (std::uint64_t r : regions) rmpopt(0, r);
      for (std::uint64_t r : regions) broadcast(rest, kJobRmpopt, r);
      break;
    }
  }
  double t1 = host::monotonic_ns();

  SweepResult res;
  res.wall_ns = t1 - t0;
  res.regions_visited = regions.size();
  res.cpus = cpus_;
  res.busy_ns = s.busy_ns;
  for (std::size_t i = 0; i < n; ++i) {
    res.entries_scanned += s.scanned[i];
    res.regions_optimized.push_back(
        static_cast<std::uint64_t>(std::count(s.optimized[i].begin(), s.optimized[i].end(), 1)));
  }
  return res;
}

std::vector<double> EmulatedSweeper::broadcast_round_times(int rounds) {
  if (rounds < 1) rounds = 1;
  std::vector<char> all(cpus_.size(), 1);
  LeaderPin pin(cpus_[0]);
  std::vector<double> t;
  t.reserve(rounds);
  for (int i = 0; i < rounds; ++i) {
    double a = host::monotonic_ns();
    broadcast(all, kJobEmpty, 0);
    t.push_back(host::monotonic_ns() - a);
  }
  return t;
}

double EmulatedSweeper::broadcast_round_ns(int rounds) {
  std::vector<double> t = broadcast_round_times(rounds);
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

}  // namespace kvmbench::suites::rmpopt
