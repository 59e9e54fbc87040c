#include "hostlib/monitor/perf_counters.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "hostlib/os/kernel_files.h"

namespace kvmbench::host {

namespace {

constexpr std::uint64_t cache_event(std::uint64_t cache, std::uint64_t op, std::uint64_t result) {
  return cache | (op << 8) | (result << 16);
}

int open_event(const PerfEventSpec& e, bool exclude_kernel) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = e.type;
  attr.config = e.config;
  attr.inherit = 1;         // the threads and processes started meanwhile
  attr.exclude_hv = 1;
  attr.exclude_kernel = exclude_kernel ? 1 : 0;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string refusal(int err) {
  if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
    return fmt::format("the host cannot count it ({}: no hardware PMU here, as in a VM without a virtual PMU, "
                       "or a CPU without the event)",
                       std::strerror(err));
  if (err == EACCES || err == EPERM) {
    const auto paranoid = read_kernel_value("/proc/sys/kernel/perf_event_paranoid");
    return fmt::format("perf_event_open refused ({}; kernel.perf_event_paranoid is {})", std::strerror(err),
                       paranoid ? *paranoid : std::string("unknown"));
  }
  return fmt::format("perf_event_open: {}", std::strerror(err));
}

}  // namespace

const std::vector<PerfEventSpec>& hardware_perf_events() {
  static const std::vector<PerfEventSpec> events = {
      {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
      {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
      {"dtlb_load_misses", PERF_TYPE_HW_CACHE,
       cache_event(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
      {"itlb_load_misses", PERF_TYPE_HW_CACHE,
       cache_event(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
  };
  return events;
}

PerfCounters::PerfCounters(std::vector<PerfEventSpec> events) : events_(std::move(events)) {}

PerfCounters::~PerfCounters() {
  for (auto& o : open_) ::close(o.fd);
}

void PerfCounters::start() {
  for (auto& o : open_) ::close(o.fd);
  open_.clear();
  for (const auto& e : events_) {
    if (std::any_of(refused_.begin(), refused_.end(), [&](const auto& r) { return r.first == e.name; })) continue;
    int fd = open_event(e, false);
    std::string name = e.name;
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
      // perf_event_paranoid 2: this user may count user space only.
      fd = open_event(e, true);
      name += "_user";
    }
    if (fd < 0) {
      refused_.emplace_back(e.name, refusal(errno));
      continue;
    }
    open_.push_back({name, fd});
  }
}

std::vector<PerfCount> PerfCounters::stop() {
  std::vector<PerfCount> out;
  for (auto& o : open_) {
    std::uint64_t v[3] = {0, 0, 0};  // value, time enabled, time running
    const ssize_t n = ::read(o.fd, v, sizeof v);
    ::close(o.fd);
    if (n != static_cast<ssize_t>(sizeof v)) {
      refused_.emplace_back(o.name, fmt::format("reading the counter: {}", n < 0 ? std::strerror(errno) : "short read"));
      continue;
    }
    if (v[2] == 0) continue;  // never scheduled on the PMU: no count to give
    // Multiplexed with other events: scaled to the time it was enabled.
    const double scale = v[2] < v[1] ? static_cast<double>(v[1]) / static_cast<double>(v[2]) : 1.0;
    out.push_back({o.name, static_cast<double>(v[0]) * scale});
  }
  open_.clear();
  return out;
}

}  // namespace kvmbench::host
