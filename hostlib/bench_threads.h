// Thread helpers shared by the host benchmarks: which CPUs we may use,
// pinning, and running N workers released together so that the measured
// wall time starts when all of them are ready (like `stress --vm N`).
#pragma once

#include <chrono>
#include <functional>
#include <vector>

namespace kvmbench::host {

// CPUs in this process's affinity mask, ascending.
std::vector<int> allowed_cpus();

// Pins the calling thread to `cpu`; throws std::runtime_error on failure.
void pin_current_thread(int cpu);

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
