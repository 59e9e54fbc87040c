// CPU and memory topology from hwloc (not hand-parsed sysfs): packages,
// cores, SMT siblings, primary threads (the first thread of each core, the
// "one thread per core" of the RMPOPT sweep), NUMA nodes with their CPUs and
// memory, and the hugepage pools per node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

struct NumaNodeInfo {
  int os_index = 0;
  std::vector<int> cpus;
  std::uint64_t memory_bytes = 0;  // local memory of the node
  // (page size in bytes, pages in the pool) as hwloc reports them; 4K first.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> page_pools;
};

struct Topology {
  bool ok = false;
  std::string error;
  int packages = 0;
  int cores = 0;
  int pus = 0;                      // hardware threads
  int smt_threads_per_core = 0;     // max over cores
  std::vector<int> primary_threads; // the first PU of each core (OS index)
  std::vector<int> online_cpus;
  std::vector<NumaNodeInfo> numa_nodes;
};

Topology read_topology();

nlohmann::json to_json(const Topology& t);

}  // namespace kvmbench::host
