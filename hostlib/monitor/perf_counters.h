// Hardware counters through perf_event_open(2) around a repetition: cycles,
// instructions, dTLB and iTLB load misses of kvmbench and of every thread
// and process it starts meanwhile (inherit: the suites' worker threads,
// QEMU and its vCPU threads), stored as perf.<event>. Where the kernel
// lets an unprivileged user count only user space (perf_event_paranoid 2),
// the counts are of user space and named so (perf.cycles_user). An event
// the host cannot count (no PMU in a VM, paranoid 3, an event the CPU
// lacks) is left out with the reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kvmbench::host {

struct PerfEventSpec {
  std::string name;  // "cycles"; stored as perf.<name>[_user]
  std::uint32_t type = 0;
  std::uint64_t config = 0;
};

// cycles, instructions, dtlb_load_misses, itlb_load_misses.
const std::vector<PerfEventSpec>& hardware_perf_events();

struct PerfCount {
  std::string name;  // "cycles" or "cycles_user"
  double value = 0;  // scaled by enabled / running time where multiplexed
};

class PerfCounters {
 public:
  explicit PerfCounters(std::vector<PerfEventSpec> events = hardware_perf_events());
  ~PerfCounters();
  PerfCounters(const PerfCounters&) = delete;
  PerfCounters& operator=(const PerfCounters&) = delete;

  // Opens and enables the counters for this thread and what it starts
  // from now on. An event that cannot be opened goes to refused().
  void start();
  // Reads and closes them; the events that counted, in order.
  std::vector<PerfCount> stop();

  // (event, reason) of each event refused, each once.
  const std::vector<std::pair<std::string, std::string>>& refused() const { return refused_; }

 private:
  struct Open {
    std::string name;
    int fd = -1;
  };
  std::vector<PerfEventSpec> events_;
  std::vector<Open> open_;
  std::vector<std::pair<std::string, std::string>> refused_;
};

}  // namespace kvmbench::host
