#include "hostlib/measure/bench_threads.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "hostlib/measure/pinning.h"

namespace kvmbench::host {

ParallelTimes run_parallel(int n, const std::vector<int>& cpus,
                           const std::function<void(int)>& work) {
  using clock = std::chrono::steady_clock;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<clock::time_point> ends(n);
  std::vector<clock::time_point> starts(n);
  std::exception_ptr error;
  std::mutex error_lock;
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      try {
        if (!cpus.empty()) pin_thread_to_cpu(cpus[i % cpus.size()]);
      } catch (...) {
        std::lock_guard<std::mutex> l(error_lock);
        if (!error) error = std::current_exception();
      }
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      starts[i] = clock::now();
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> l(error_lock);
        if (!error) error = std::current_exception();
      }
      ends[i] = clock::now();
    });
  }
  while (ready.load() < n) std::this_thread::yield();
  clock::time_point t0 = clock::now();
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  ParallelTimes out;
  clock::time_point last = t0;
  for (int i = 0; i < n; ++i) {
    if (ends[i] > last) last = ends[i];
    out.per_thread_ns.push_back(std::chrono::duration<double, std::nano>(ends[i] - starts[i]).count());
  }
  out.wall_ns = std::chrono::duration<double, std::nano>(last - t0).count();
  return out;
}

}  // namespace kvmbench::host
