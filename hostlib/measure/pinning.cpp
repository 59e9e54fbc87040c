#include "hostlib/measure/pinning.h"

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

int parse_int(std::string_view s, std::string_view whole) {
  int v = 0;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 0)
    throw std::invalid_argument(fmt::format("bad CPU list '{}': '{}' is not a CPU number", whole, s));
  return v;
}

bool numa_ok() {
  static const bool ok = numa_available() >= 0;
  return ok;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
  std::set<int> cpus;
  std::string_view rest = text;
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.remove_suffix(1);
  if (rest.empty()) return {};
  for (;;) {
    auto comma = rest.find(',');
    auto part = rest.substr(0, comma);
    int stride = 1;
    if (auto colon = part.find(':'); colon != std::string_view::npos) {
      stride = parse_int(part.substr(colon + 1), text);
      if (stride <= 0) throw std::invalid_argument(fmt::format("bad CPU list '{}': stride 0", text));
      part = part.substr(0, colon);
    }
    auto dash = part.find('-');
    int lo = parse_int(part.substr(0, dash), text);
    int hi = dash == std::string_view::npos ? lo : parse_int(part.substr(dash + 1), text);
    if (hi < lo) throw std::invalid_argument(fmt::format("bad CPU list '{}': range {}-{} is reversed", text, lo, hi));
    if (hi >= 1 << 16) throw std::invalid_argument(fmt::format("bad CPU list '{}': CPU {} is too large", text, hi));
    for (int c = lo; c <= hi; c += stride) cpus.insert(c);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return {cpus.begin(), cpus.end()};
}

std::string format_cpu_list(const std::vector<int>& in) {
  std::vector<int> cpus = in;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

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
