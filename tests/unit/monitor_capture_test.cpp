// The monitors' capture (issue 43, hostlib/monitor/): /proc/vmstat read
// and its deltas around a stretch of work, KVM's binary statistics read
// from the layout the kernel writes, the levels of --monitors.
#include <gtest/gtest.h>
#include <linux/kvm.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "hostlib/monitor/kvm_stats.h"
#include "hostlib/monitor/repetition_monitors.h"
#include "hostlib/monitor/vmstat.h"

using namespace kvmbench;

TEST(Vmstat, ParsesNameValueLinesAndLeavesOutTheRest) {
  const host::VmstatCounters c =
      host::parse_vmstat("nr_free_pages 12345\npgfault 99\nbroken\nnr_neg -3\n thp_fault_alloc 1\npgmajfault 0");
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c.at("nr_free_pages"), 12345u);
  EXPECT_EQ(c.at("pgfault"), 99u);
  EXPECT_EQ(c.at("pgmajfault"), 0u);
}

TEST(Vmstat, ThisHostsFileHoldsCounters) {
  const auto c = host::read_vmstat();
  if (!c) GTEST_SKIP() << "/proc/vmstat cannot be read here";
  EXPECT_TRUE(c->count("pgfault"));
  EXPECT_FALSE(host::read_vmstat("/nonexistent/vmstat").has_value());
}

TEST(RepetitionMonitors, CountTheFaultsOfTouchedMemoryAndSkipWhatTheKernelLacks) {
  if (!host::read_vmstat()) GTEST_SKIP() << "/proc/vmstat cannot be read here";
  host::RepetitionMonitors m(host::MonitorLevel::basic);
  EXPECT_EQ(m.sources(), (std::vector<std::string>{"vmstat", "kvm"}));
  m.begin();
  std::vector<char> touched(64 << 20);
  for (std::size_t i = 0; i < touched.size(); i += 4096) touched[i] = 1;
  const auto readings = m.end();
  const auto pgfault = std::find_if(readings.begin(), readings.end(),
                                    [](const host::MonitorReading& r) { return r.metric == "vmstat.pgfault"; });
  ASSERT_NE(pgfault, readings.end());
  EXPECT_GT(pgfault->value, 0);  // 64 MiB touched page by page faulted (in 4 KiB or huge pages)
  for (const auto& r : readings) EXPECT_NE(r.value, 0) << r.metric;  // only what moved
  // An unreadable vmstat: skipped with the reason, no source.
  host::RepetitionMonitors none(host::MonitorLevel::basic, "/nonexistent/vmstat");
  EXPECT_EQ(none.sources(), (std::vector<std::string>{"kvm"}));
  ASSERT_FALSE(none.skips().empty());
  EXPECT_NE(none.skips()[0].reason.find("cannot be read"), std::string::npos);
  none.begin();
  EXPECT_TRUE(none.end().empty());
  EXPECT_TRUE(host::RepetitionMonitors(host::MonitorLevel::off).sources().empty());
}

TEST(MonitorLevel, ParsesItsThreeWords) {
  EXPECT_EQ(host::parse_monitor_level("off"), host::MonitorLevel::off);
  EXPECT_EQ(host::parse_monitor_level("basic"), host::MonitorLevel::basic);
  EXPECT_EQ(host::parse_monitor_level("all"), host::MonitorLevel::all);
  EXPECT_FALSE(host::parse_monitor_level("some").has_value());
}

namespace {

// A stats fd's contents as the kernel lays them out: header, id, the
// descriptors (each with its name), the data.
std::string stats_file(const std::vector<std::tuple<std::string, std::uint32_t, std::int16_t, std::uint16_t,
                                                    std::vector<std::uint64_t>>>& stats) {
  constexpr std::uint32_t name_size = 48;
  kvm_stats_header h{};
  h.name_size = name_size;
  h.num_desc = static_cast<std::uint32_t>(stats.size());
  h.id_offset = sizeof h;
  h.desc_offset = h.id_offset + name_size;
  const std::size_t desc_size = sizeof(kvm_stats_desc) + name_size;
  h.data_offset = static_cast<std::uint32_t>(h.desc_offset + desc_size * stats.size());
  std::string out(h.data_offset, '\0');
  std::memcpy(out.data(), &h, sizeof h);
  std::uint32_t data_at = 0;
  std::string data;
  for (std::size_t i = 0; i < stats.size(); ++i) {
    const auto& [name, flags, exponent, size, values] = stats[i];
    kvm_stats_desc d{};
    d.flags = flags;
    d.exponent = exponent;
    d.size = size;
    d.offset = data_at;
    std::memcpy(out.data() + h.desc_offset + i * desc_size, &d, sizeof d);
    std::memcpy(out.data() + h.desc_offset + i * desc_size + sizeof d, name.c_str(), name.size());
    for (auto v : values) data.append(reinterpret_cast<const char*>(&v), sizeof v);
    data_at += static_cast<std::uint32_t>(values.size() * sizeof(std::uint64_t));
  }
  return out + data;
}

}  // namespace

TEST(KvmStats, ReadsTheBinaryLayoutWithUnitsAndLeavesOutHistogramsAndBooleans) {
  const std::string bytes = stats_file({
      {"exits", KVM_STATS_TYPE_CUMULATIVE | KVM_STATS_UNIT_NONE, 0, 1, {1234}},
      {"halt_poll_success_ns", KVM_STATS_TYPE_CUMULATIVE | KVM_STATS_UNIT_SECONDS, -9, 1, {500}},
      {"pages_4k", KVM_STATS_TYPE_INSTANT | KVM_STATS_UNIT_NONE, 0, 1, {77}},
      {"max_mmu_rmap_size", KVM_STATS_TYPE_PEAK | KVM_STATS_UNIT_NONE, 0, 1, {9}},
      {"halt_wait_hist", KVM_STATS_TYPE_LOG_HIST | KVM_STATS_UNIT_SECONDS, -9, 3, {1, 2, 3}},
      {"guest_mode", KVM_STATS_TYPE_INSTANT | KVM_STATS_UNIT_BOOLEAN, 0, 1, {1}},
      {"bytes_in_k", KVM_STATS_TYPE_CUMULATIVE | KVM_STATS_UNIT_BYTES | KVM_STATS_BASE_POW2, 10, 1, {3}},
  });
  const auto stats = host::parse_kvm_stats(bytes);
  ASSERT_EQ(stats.size(), 5u);
  EXPECT_EQ(stats[0].name, "exits");
  EXPECT_EQ(stats[0].unit, "count");
  EXPECT_EQ(stats[0].value, 1234);
  EXPECT_EQ(stats[1].unit, "ns");
  EXPECT_EQ(stats[1].value, 500);
  EXPECT_EQ(stats[2].kind, host::KvmStat::Kind::instant);
  EXPECT_EQ(stats[3].kind, host::KvmStat::Kind::peak);
  EXPECT_EQ(stats[4].unit, "B");
  EXPECT_EQ(stats[4].value, 3 * 1024);
  // Cut short: a clear error, no read past the end.
  EXPECT_THROW(host::parse_kvm_stats(bytes.substr(0, bytes.size() - 4)), std::runtime_error);
  EXPECT_THROW(host::parse_kvm_stats(bytes.substr(0, 10)), std::runtime_error);
}

