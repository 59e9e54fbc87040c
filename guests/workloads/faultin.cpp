// faultin: the `stress --vm N --vm-bytes B --vm-keep` pattern. N threads
// each map B bytes of anonymous memory and write one byte per page (so every
// page is faulted in exactly once), then keep the memory for --hold seconds.
// In a guest with lazily accepted / lazily backed memory, this measures how
// fast the guest can fault in its working set.
//
//   kvmbench-faultin [--threads N] [--bytes B] [--hold SECONDS]
//                    [--case NAME] [--variant V] [--iteration I]
// Results (GB = 1e9 bytes):
//   thread_faultin_rate  GB/s  one per thread (extra "thread")
//   faultin_rate         GB/s  N*B / time from the common start to the last
//                              thread's last page
//   faultin_time         ms    that time
#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <thread>

#include "workload_common.h"

using namespace kvmbench::guest;

namespace {

struct Worker {
  std::uint64_t bytes = 0;
  std::size_t page = 4096;
  char* mem = nullptr;
  double start = 0, end = 0;
};

pthread_barrier_t g_barrier;

void run(Worker* w) {
  void* p = mmap(nullptr, w->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) fail("faultin", "mmap of " + std::to_string(w->bytes) + " bytes failed: " + std::strerror(errno));
  w->mem = static_cast<char*>(p);
  pthread_barrier_wait(&g_barrier);
  w->start = now_s();
  volatile char* m = w->mem;
  for (std::uint64_t off = 0; off < w->bytes; off += w->page) m[off] = 1;
  w->end = now_s();
}

}  // namespace

int main(int argc, char** argv) {
  Options opt("faultin", argc, argv, {"threads", "bytes", "hold"});
  const auto threads = static_cast<unsigned>(opt.size("threads", 1));
  const std::uint64_t bytes = opt.size("bytes", 64ull << 20);
  const double hold = opt.real("hold", 0);
  if (threads < 1 || threads > 4096) fail("faultin", "--threads must be 1..4096");
  if (bytes < 4096) fail("faultin", "--bytes must be at least one page");

  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<Worker> workers(threads);
  pthread_barrier_init(&g_barrier, nullptr, threads);
  std::vector<std::thread> pool;
  for (auto& w : workers) {
    w.bytes = bytes;
    w.page = page;
    pool.emplace_back(run, &w);
  }
  for (auto& t : pool) t.join();

  const std::string case_name = opt.case_name("threads=" + std::to_string(threads) + ",bytes=" + std::to_string(bytes));
  double first = workers[0].start, last = workers[0].end;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    const Worker& w = workers[i];
    first = std::min(first, w.start);
    last = std::max(last, w.end);
    double secs = std::max(w.end - w.start, 1e-9);
    emit({case_name, opt.variant(), "thread_faultin_rate", "GB/s", static_cast<double>(bytes) / secs / 1e9,
          opt.iteration(), {{"thread", std::to_string(i)}}});
  }
  const double total = std::max(last - first, 1e-9);
  emit({case_name, opt.variant(), "faultin_rate", "GB/s",
        static_cast<double>(bytes) * threads / total / 1e9, opt.iteration(),
        {{"threads", std::to_string(threads)}, {"bytes_per_thread", std::to_string(bytes)}}});
  emit({case_name, opt.variant(), "faultin_time", "ms", total * 1e3, opt.iteration(), {}});

  // --vm-keep: the working set stays mapped (and resident) while holding.
  if (hold > 0) {
    double until = now_s() + hold;
    while (now_s() < until) usleep(100000);
  }
  for (auto& w : workers) munmap(w.mem, w.bytes);
  return 0;
}
