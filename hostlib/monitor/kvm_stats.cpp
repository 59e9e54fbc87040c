#include "hostlib/monitor/kvm_stats.h"

#include <fmt/format.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::host {

namespace {

template <class T>
T read_at(std::string_view bytes, std::size_t off, const char* what) {
  if (off > bytes.size() || bytes.size() - off < sizeof(T))
    throw std::runtime_error(fmt::format("KVM statistics: the {} at offset {} lies past the end ({} bytes)", what,
                                         off, bytes.size()));
  T v;
  std::memcpy(&v, bytes.data() + off, sizeof(T));
  return v;
}

// The unit a statistic's value is in, and the factor that brings the raw
// value to it (10^exp or 2^exp).
std::pair<std::string, double> unit_of(std::uint32_t flags, std::int16_t exponent) {
  const std::uint32_t unit = flags & KVM_STATS_UNIT_MASK;
  const bool pow2 = (flags & KVM_STATS_BASE_MASK) == KVM_STATS_BASE_POW2;
  const double factor = pow2 ? std::ldexp(1.0, exponent) : std::pow(10.0, exponent);
  switch (unit) {
    case KVM_STATS_UNIT_BYTES: return {"B", factor};
    case KVM_STATS_UNIT_SECONDS:
      if (!pow2 && exponent == -9) return {"ns", 1};
      if (!pow2 && exponent == -6) return {"us", 1};
      return {"s", factor};
    case KVM_STATS_UNIT_CYCLES: return {"cycles", factor};
    default: return {"count", factor};
  }
}

struct Collecting {
  std::mutex mu;
  bool all = false;
  KvmStatTotals totals;
};
Collecting& collecting() {
  static Collecting c;
  return c;
}

void add(KvmStatTotals& t, const KvmStat& s) {
  auto [it, fresh] = t.stats.try_emplace(s.name, s);
  if (fresh) return;
  if (s.kind == KvmStat::Kind::peak) it->second.value = std::max(it->second.value, s.value);
  else it->second.value += s.value;
}

void on_closing(int fd, bool vcpu) {
  Collecting& c = collecting();
  std::vector<KvmStat> stats;
  std::string error;
  try {
    stats = read_kvm_stats(fd);
  } catch (const std::exception& e) {
    error = fmt::format("on a {}: {}", vcpu ? "vCPU" : "VM", e.what());
  }
  std::lock_guard lock(c.mu);
  if (!error.empty()) {
    if (std::find(c.totals.errors.begin(), c.totals.errors.end(), error) == c.totals.errors.end())
      c.totals.errors.push_back(error);
    return;
  }
  ++(vcpu ? c.totals.vcpus : c.totals.vms);
  for (const auto& s : stats) {
    const bool basic = s.kind == KvmStat::Kind::cumulative || s.name.starts_with("pages_");
    if (c.all || basic) add(c.totals, s);
  }
}

}  // namespace

std::vector<KvmStat> parse_kvm_stats(std::string_view bytes) {
  const auto header = read_at<kvm_stats_header>(bytes, 0, "header");
  if (header.name_size == 0 || header.name_size > 4096)
    throw std::runtime_error(fmt::format("KVM statistics: a name size of {}", header.name_size));
  const std::size_t desc_size = sizeof(kvm_stats_desc) + header.name_size;
  std::vector<KvmStat> out;
  for (std::uint32_t i = 0; i < header.num_desc; ++i) {
    const std::size_t at = header.desc_offset + static_cast<std::size_t>(i) * desc_size;
    const auto d = read_at<kvm_stats_desc>(bytes, at, "descriptor");
    if (bytes.size() - at < desc_size)
      throw std::runtime_error(fmt::format("KVM statistics: descriptor {} is cut short", i));
    std::string name(bytes.data() + at + sizeof(kvm_stats_desc), header.name_size);
    name.resize(std::strlen(name.c_str()));
    const std::uint32_t type = d.flags & KVM_STATS_TYPE_MASK;
    if (d.size != 1 || name.empty()) continue;  // a histogram
    if ((d.flags & KVM_STATS_UNIT_MASK) == KVM_STATS_UNIT_BOOLEAN) continue;
    KvmStat s;
    s.name = name;
    if (type == KVM_STATS_TYPE_CUMULATIVE) s.kind = KvmStat::Kind::cumulative;
    else if (type == KVM_STATS_TYPE_INSTANT) s.kind = KvmStat::Kind::instant;
    else if (type == KVM_STATS_TYPE_PEAK) s.kind = KvmStat::Kind::peak;
    else continue;
    const auto [unit, factor] = unit_of(d.flags, d.exponent);
    s.unit = unit;
    s.value = static_cast<double>(read_at<std::uint64_t>(bytes, header.data_offset + std::size_t{d.offset}, "value")) *
              factor;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<KvmStat> read_kvm_stats(int fd) {
  const int stats_fd = ::ioctl(fd, KVM_GET_STATS_FD, nullptr);
  if (stats_fd < 0) throw std::runtime_error(fmt::format("KVM_GET_STATS_FD: {}", std::strerror(errno)));
  std::string bytes;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::pread(stats_fd, buf, sizeof buf, static_cast<off_t>(bytes.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(stats_fd);
      throw std::runtime_error(fmt::format("reading the statistics fd: {}", std::strerror(err)));
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  ::close(stats_fd);
  return parse_kvm_stats(bytes);
}

void kvm_stats_begin(bool all) {
  Collecting& c = collecting();
  {
    std::lock_guard lock(c.mu);
    c.all = all;
    c.totals = {};
  }
  set_kvm_fd_closing_hook(&on_closing);
}

KvmStatTotals kvm_stats_end() {
  set_kvm_fd_closing_hook(nullptr);
  Collecting& c = collecting();
  std::lock_guard lock(c.mu);
  return std::exchange(c.totals, {});
}

}  // namespace kvmbench::host
