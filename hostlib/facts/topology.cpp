#include "hostlib/facts/topology.h"

#include <hwloc.h>

#include <algorithm>

#include "hostlib/os/cpu_list.h"

namespace kvmbench::host {

namespace {

std::vector<int> bitmap_to_cpus(hwloc_const_bitmap_t bm) {
  std::vector<int> cpus;
  if (!bm) return cpus;
  int i;
  hwloc_bitmap_foreach_begin(i, bm) { cpus.push_back(i); }
  hwloc_bitmap_foreach_end();
  return cpus;
}

}  // namespace

Topology read_topology() {
  Topology t;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) {
    t.error = "hwloc_topology_init failed";
    return t;
  }
  if (hwloc_topology_load(topo) != 0) {
    t.error = "hwloc_topology_load failed";
    hwloc_topology_destroy(topo);
    return t;
  }
  t.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  t.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  t.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  for (int i = 0; i < t.cores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    auto pus = bitmap_to_cpus(core->cpuset);
    t.smt_threads_per_core = std::max(t.smt_threads_per_core, static_cast<int>(pus.size()));
    if (!pus.empty()) t.primary_threads.push_back(pus.front());
  }
  std::sort(t.primary_threads.begin(), t.primary_threads.end());
  t.online_cpus = bitmap_to_cpus(hwloc_topology_get_topology_cpuset(topo));
  int nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nodes; ++i) {
    hwloc_obj_t n = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    NumaNodeInfo info;
    info.os_index = static_cast<int>(n->os_index);
    info.cpus = bitmap_to_cpus(n->cpuset);
    if (n->attr) {
      info.memory_bytes = n->attr->numanode.local_memory;
      for (unsigned k = 0; k < n->attr->numanode.page_types_len; ++k)
        info.page_pools.emplace_back(n->attr->numanode.page_types[k].size, n->attr->numanode.page_types[k].count);
    }
    t.numa_nodes.push_back(std::move(info));
  }
  hwloc_topology_destroy(topo);
  t.ok = t.pus > 0;
  if (!t.ok) t.error = "hwloc found no processing units";
  return t;
}

nlohmann::json to_json(const Topology& t) {
  nlohmann::json nodes = nlohmann::json::array();
  for (auto& n : t.numa_nodes) {
    nlohmann::json pools = nlohmann::json::array();
    for (auto& [size, count] : n.page_pools) pools.push_back({{"page_bytes", size}, {"count", count}});
    nodes.push_back({{"node", n.os_index},
                     {"cpus", format_cpu_list(n.cpus)},
                     {"memory_bytes", n.memory_bytes},
                     {"page_pools", pools}});
  }
  nlohmann::json j = {{"source", "hwloc"},
                      {"packages", t.packages},
                      {"cores", t.cores},
                      {"threads", t.pus},
                      {"smt_threads_per_core", t.smt_threads_per_core},
                      {"primary_threads", format_cpu_list(t.primary_threads)},
                      {"online_cpus", format_cpu_list(t.online_cpus)},
                      {"numa_nodes", nodes}};
  if (!t.error.empty()) j["error"] = t.error;
  return j;
}

}  // namespace kvmbench::host
