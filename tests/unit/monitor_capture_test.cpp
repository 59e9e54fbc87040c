// The monitors' capture (issue 43, hostlib/monitor/): /proc/vmstat read
// and its deltas around a stretch of work, KVM's binary statistics read
// from the layout the kernel writes and from QEMU's query-stats, the levels
// of --monitors.
#include <gtest/gtest.h>
#include <linux/kvm.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "hostlib/kvm/kvm_stat.h"
#include "hostlib/monitor/kvm_stats.h"
#include "hostlib/monitor/repetition_monitors.h"
#include "hostlib/monitor/vmstat.h"
#include "hostlib/qemu/qemu_stats.h"

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
  host::RepetitionMonitors m(host::MonitorLevel::basic, "/proc/vmstat", {});  // no perf events
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
  host::RepetitionMonitors none(host::MonitorLevel::basic, "/nonexistent/vmstat", {});
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


// QEMU's answers as qapi/stats.json defines them (QEMU 7.1+): the schema
// carries each statistic's type, unit, base and exponent; query-stats one
// result per object, histograms as lists.
TEST(QemuStats, TypesAndScalesEachObjectsStatisticsByTheSchema) {
  const auto schemas = nlohmann::json::parse(R"([
    {"provider": "kvm", "target": "vm", "stats": [
      {"name": "remote_tlb_flush", "type": "cumulative", "exponent": 0},
      {"name": "pages_4k", "type": "instant", "exponent": 0},
      {"name": "max_mmu_rmap_size", "type": "peak", "exponent": 0}]},
    {"provider": "kvm", "target": "vcpu", "stats": [
      {"name": "exits", "type": "cumulative", "exponent": 0},
      {"name": "halt_wait_ns", "type": "cumulative", "unit": "seconds", "base": 10, "exponent": -9},
      {"name": "halt_wait_hist", "type": "log2-histogram", "unit": "seconds", "base": 10, "exponent": -9},
      {"name": "kib_moved", "type": "cumulative", "unit": "bytes", "base": 2, "exponent": 10}]}])");
  const auto vm = host::kvm_stats_from_qmp(schemas, nlohmann::json::parse(R"([
    {"provider": "kvm", "stats": [{"name": "remote_tlb_flush", "value": 41}, {"name": "pages_4k", "value": 5000},
                                  {"name": "max_mmu_rmap_size", "value": 3}, {"name": "unknown_one", "value": 1}]}])"),
                                           "vm");
  ASSERT_EQ(vm.size(), 1u);
  ASSERT_EQ(vm[0].size(), 3u);  // the statistic the schema does not name is left out
  EXPECT_EQ(vm[0][0].name, "remote_tlb_flush");
  EXPECT_EQ(vm[0][0].kind, host::KvmStat::Kind::cumulative);
  EXPECT_EQ(vm[0][0].value, 41);
  EXPECT_EQ(vm[0][1].kind, host::KvmStat::Kind::instant);
  EXPECT_EQ(vm[0][2].kind, host::KvmStat::Kind::peak);

  const auto vcpus = host::kvm_stats_from_qmp(schemas, nlohmann::json::parse(R"([
    {"provider": "kvm", "qom-path": "/machine/unattached/device[0]", "stats": [
      {"name": "exits", "value": 1000}, {"name": "halt_wait_ns", "value": 2500},
      {"name": "halt_wait_hist", "value": [0, 4, 1]}, {"name": "kib_moved", "value": 2}]},
    {"provider": "kvm", "qom-path": "/machine/unattached/device[1]", "stats": [
      {"name": "exits", "value": 7}]}])"),
                                              "vcpu");
  ASSERT_EQ(vcpus.size(), 2u);
  ASSERT_EQ(vcpus[0].size(), 3u);  // the histogram left out
  EXPECT_EQ(vcpus[0][1].unit, "ns");
  EXPECT_EQ(vcpus[0][1].value, 2500);
  EXPECT_EQ(vcpus[0][2].unit, "B");
  EXPECT_EQ(vcpus[0][2].value, 2 * 1024);
  EXPECT_EQ(vcpus[1][0].value, 7);

  // Answers of another shape: a clear error.
  EXPECT_THROW(host::kvm_stats_from_qmp(schemas, nlohmann::json::object(), "vm"), std::runtime_error);
  EXPECT_THROW(host::kvm_stats_from_qmp(nlohmann::json::object(), nlohmann::json::array(), "vm"), std::runtime_error);
  EXPECT_THROW(host::kvm_stats_from_qmp(schemas, nlohmann::json::parse(R"([{"provider": "kvm"}])"), "vm"),
               std::runtime_error);
}

// What the launcher hands over for a guest is summed with the VMs'
// kvmbench opens itself: the VM and each vCPU once; an error said once.
TEST(QemuStats, AGuestsStatisticsAreCountedBetweenBeginAndEnd) {
  EXPECT_EQ(host::guest_kvm_stats_sink(), nullptr);
  host::kvm_stats_begin(false);
  const host::GuestKvmStatsSink sink = host::guest_kvm_stats_sink();
  ASSERT_NE(sink, nullptr);
  host::GuestKvmStats g;
  g.vm = {{"remote_tlb_flush", "count", host::KvmStat::Kind::cumulative, 5},
          {"max_mmu_rmap_size", "count", host::KvmStat::Kind::peak, 3}};
  g.vcpus = {{{"exits", "count", host::KvmStat::Kind::cumulative, 100}},
             {{"exits", "count", host::KvmStat::Kind::cumulative, 20}}};
  sink(g);
  sink(g);
  host::GuestKvmStats failed;
  failed.error = "QEMU's query-stats: QMP query-stats: The command query-stats has not been found";
  sink(failed);
  sink(failed);
  const host::KvmStatTotals t = host::kvm_stats_end();
  EXPECT_EQ(host::guest_kvm_stats_sink(), nullptr);
  EXPECT_EQ(t.vms, 2u);
  EXPECT_EQ(t.vcpus, 4u);
  EXPECT_EQ(t.stats.at("exits").value, 240);
  EXPECT_EQ(t.stats.at("remote_tlb_flush").value, 10);
  EXPECT_EQ(t.stats.count("max_mmu_rmap_size"), 0u);  // a peak: `all` only
  ASSERT_EQ(t.errors.size(), 1u);
  EXPECT_NE(t.errors[0].find("of a QEMU guest: QEMU's query-stats"), std::string::npos);
}

// perf_event_open's path with a software event every kernel with perf
// events offers (page faults): counted for a thread started after the
// repetition began (inherit), beside an event no CPU has, which is left out
// with the reason while the run goes on.
TEST(PerfCounters, CountWhatThreadsStartedMeanwhileDoAndLeaveOutWhatTheHostRefuses) {
  const std::vector<host::PerfEventSpec> events = {
      {"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
      {"no_such_event", PERF_TYPE_HARDWARE, 0xfff0},
  };
  host::PerfCounters probe(events);
  probe.start();
  if (probe.stop().empty()) GTEST_SKIP() << "perf_event_open counts nothing here: " << probe.refused()[0].second;

  host::RepetitionMonitors m(host::MonitorLevel::basic, "/nonexistent/vmstat", events);
  EXPECT_EQ(m.sources(), (std::vector<std::string>{"kvm", "perf"}));
  const auto refused = std::find_if(m.skips().begin(), m.skips().end(),
                                    [](const host::MonitorSkip& k) { return k.monitor == "perf.no_such_event"; });
  ASSERT_NE(refused, m.skips().end());
  // No PMU here (ENOENT), or one without the event (EINVAL).
  EXPECT_TRUE(refused->reason.find("the host cannot count it") != std::string::npos ||
              refused->reason.find("perf_event_open: ") != std::string::npos)
      << refused->reason;
  m.begin();
  // 16 MiB touched a page at a time in a thread of its own: at least one
  // fault per 2 MiB (huge pages), 4096 with 4 KiB ones.
  std::thread worker([] {
    std::vector<char> touched(16 << 20);
    for (std::size_t i = 0; i < touched.size(); i += 4096) touched[i] = 1;
  });
  worker.join();
  const auto readings = m.end();
  const auto faults = std::find_if(readings.begin(), readings.end(), [](const host::MonitorReading& r) {
    return r.metric == "perf.page_faults" || r.metric == "perf.page_faults_user";
  });
  ASSERT_NE(faults, readings.end());
  EXPECT_GE(faults->value, 8);
  EXPECT_EQ(faults->unit, "count");
  EXPECT_TRUE(m.describe()["what"].contains("perf"));
}
