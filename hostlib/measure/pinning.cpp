#include "hostlib/measure/pinning.h"

#include "hostlib/os/cpu_list.h"

#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <set>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace kvmbench::host {

namespace {

bool numa_ok() {
  static const bool ok = numa_available() >= 0;
  return ok;
}

}  // namespace

std::vector<int> thread_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (int e = pthread_getaffinity_np(pthread_self(), sizeof set, &set))
    throw std::system_error(e, std::generic_category(), "pthread_getaffinity_np");
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

void pin_thread_to_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) throw std::invalid_argument("pin: empty CPU set");
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c < 0 || c >= CPU_SETSIZE) throw std::invalid_argument(fmt::format("pin: CPU {} out of range", c));
    CPU_SET(c, &set);
  }
  if (int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set))
    throw std::system_error(e, std::generic_category(), "pin to CPUs " + format_cpu_list(cpus));
}

void pin_thread_to_cpu(int cpu) { pin_thread_to_cpus({cpu}); }

int numa_node_count() { return numa_ok() ? numa_num_configured_nodes() : 1; }

std::vector<int> node_cpus(int node) {
  if (!numa_ok()) {
    if (node != 0) throw std::invalid_argument(fmt::format("NUMA node {} does not exist (no NUMA)", node));
    return thread_affinity();
  }
  if (node < 0 || node > numa_max_node())
    throw std::invalid_argument(fmt::format("NUMA node {} does not exist (max {})", node, numa_max_node()));
  bitmask* bm = numa_allocate_cpumask();
  std::vector<int> cpus;
  if (numa_node_to_cpus(node, bm) == 0)
    for (unsigned c = 0; c < bm->size; ++c)
      if (numa_bitmask_isbitset(bm, c)) cpus.push_back(static_cast<int>(c));
  numa_free_cpumask(bm);
  return cpus;
}

void pin_thread_to_node(int node) {
  auto cpus = node_cpus(node);
  if (cpus.empty()) throw std::invalid_argument(fmt::format("NUMA node {} has no CPUs", node));
  pin_thread_to_cpus(cpus);
}

int cpu_node(int cpu) { return numa_ok() ? numa_node_of_cpu(cpu) : 0; }

void bind_memory_to_node(int node) {
  if (node < 0 || node >= 64 * 16) throw std::invalid_argument(fmt::format("bad NUMA node {}", node));
  unsigned long mask[16] = {};
  mask[node / 64] = 1ul << (node % 64);
  if (set_mempolicy(MPOL_BIND, mask, 64 * 16) != 0)
    throw std::system_error(errno, std::generic_category(), fmt::format("bind memory to node {}", node));
}

void unbind_memory() {
  if (set_mempolicy(MPOL_DEFAULT, nullptr, 0) != 0)
    throw std::system_error(errno, std::generic_category(), "reset memory policy");
}

ScopedPin::ScopedPin(const std::vector<int>& cpus) : previous_(thread_affinity()) {
  pin_thread_to_cpus(cpus);
}

ScopedPin::~ScopedPin() {
  try {
    pin_thread_to_cpus(previous_);
  } catch (...) {
    // A CPU went offline meanwhile: nothing better to do than stay pinned.
  }
}

}  // namespace kvmbench::host
