// Pinning threads to CPUs and binding memory to NUMA nodes, so a
// measurement says where it ran ("pinned to node 0" in the directmap
// document) and a scheduler migration does not add noise.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvmbench::host {

// The CPUs the calling thread may run on.
std::vector<int> thread_affinity();

// Pin the calling thread. Throw std::system_error (e.g. a CPU that is
// offline or outside the cpuset) or std::invalid_argument (empty set).
void pin_thread_to_cpu(int cpu);
void pin_thread_to_cpus(const std::vector<int>& cpus);
void pin_thread_to_node(int node);

// CPUs of a NUMA node (libnuma); throws std::invalid_argument for a node that
// does not exist.
std::vector<int> node_cpus(int node);
// Number of configured NUMA nodes (1 without NUMA support).
int numa_node_count();
// The node of a CPU, -1 when unknown.
int cpu_node(int cpu);

// Restricts the calling thread's future allocations to `node` (MPOL_BIND).
void bind_memory_to_node(int node);
// Back to the default policy (local allocation).
void unbind_memory();

// Pins the calling thread for a scope and puts its previous affinity back.
class ScopedPin {
 public:
  explicit ScopedPin(const std::vector<int>& cpus);
  ~ScopedPin();
  ScopedPin(const ScopedPin&) = delete;
  ScopedPin& operator=(const ScopedPin&) = delete;

 private:
  std::vector<int> previous_;
};

}  // namespace kvmbench::host
