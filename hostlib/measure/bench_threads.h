// Running N workers of a host benchmark released together, so that the
// measured wall time starts when all of them are ready (like `stress --vm
// N`). Which CPUs may be used, and pinning: hostlib/measure/pinning.h.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

namespace kvmbench::host {

struct ParallelTimes {
  double wall_ns = 0;                  // release of the workers -> last one done
  std::vector<double> per_thread_ns;   // each worker's own start -> end
};

// Starts `n` threads (pinned to cpus[i % cpus.size()] when `cpus` is not
// empty), waits until all are ready, releases them together, and times
// `work(i)`. An exception in a worker is rethrown here.
ParallelTimes run_parallel(int n, const std::vector<int>& cpus,
                           const std::function<void(int)>& work);

}  // namespace kvmbench::host
