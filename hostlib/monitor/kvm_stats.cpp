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

// The unit of a statistic's value, from the descriptor's flags.
ScaledUnit unit_of(std::uint32_t flags, std::int16_t exponent) {
  const bool base2 = (flags & KVM_STATS_BASE_MASK) == KVM_STATS_BASE_POW2;
  switch (flags & KVM_STATS_UNIT_MASK) {
    case KVM_STATS_UNIT_BYTES: return kvm_stat_unit(KvmStatUnit::bytes, base2, exponent);
    case KVM_STATS_UNIT_SECONDS: return kvm_stat_unit(KvmStatUnit::seconds, base2, exponent);
    case KVM_STATS_UNIT_CYCLES: return kvm_stat_unit(KvmStatUnit::cycles, base2, exponent);
    default: return kvm_stat_unit(KvmStatUnit::none, base2, exponent);
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

// Under c.mu.
void note_error(Collecting& c, const std::string& error) {
  if (std::find(c.totals.errors.begin(), c.totals.errors.end(), error) == c.totals.errors.end())
    c.totals.errors.push_back(error);
}

// Under c.mu: one VM's or vCPU's statistics into the totals.
void add_all(Collecting& c, const std::vector<KvmStat>& stats, bool vcpu) {
  ++(vcpu ? c.totals.vcpus : c.totals.vms);
  for (const auto& s : stats) {
    const bool basic = s.kind == KvmStat::Kind::cumulative || s.name.starts_with("pages_");
    if (c.all || basic) add(c.totals, s);
  }
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
  if (!error.empty()) return note_error(c, error);
  add_all(c, stats, vcpu);
}

void on_guest(const GuestKvmStats& g) {
  Collecting& c = collecting();
  std::lock_guard lock(c.mu);
  if (!g.error.empty()) return note_error(c, "of a QEMU guest: " + g.error);
  add_all(c, g.vm, false);
  for (const auto& v : g.vcpus) add_all(c, v, true);
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
    const ScaledUnit unit = unit_of(d.flags, d.exponent);
    s.unit = unit.unit;
    s.value = static_cast<double>(read_at<std::uint64_t>(bytes, header.data_offset + std::size_t{d.offset}, "value")) *
              unit.factor;
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
  set_guest_kvm_stats_sink(&on_guest);
}

KvmStatTotals kvm_stats_end() {
  set_kvm_fd_closing_hook(nullptr);
  set_guest_kvm_stats_sink(nullptr);
  Collecting& c = collecting();
  std::lock_guard lock(c.mu);
  return std::exchange(c.totals, {});
}

}  // namespace kvmbench::host
