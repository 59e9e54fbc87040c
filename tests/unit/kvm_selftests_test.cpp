// The KVM selftests' and kvm-unit-tests' vmexit output (tests/data/kvm,
// README there) through their parsers and the format recogniser.
#include <gtest/gtest.h>

#include <map>

#include "analysis/parse/format_recognizer.h"
#include "analysis/parse/kvm_selftests.h"
#include "analysis/parse/kvm_unit_tests.h"
#include "analysis/store/run_store.h"

using namespace kvmbench;
using namespace kvmbench::parsers;

namespace {

const std::string kData = std::string(KVMBENCH_TEST_DATA) + "/kvm/";

std::map<std::string, double> by_metric(const ParseResult& r) {
  std::map<std::string, double> m;
  for (auto& s : r.samples) m[s.metric] = s.value;
  return m;
}

}  // namespace

TEST(KvmSelftests, DemandPaging) {
  const auto p = parse_kvm_selftest(read_file(kData + "demand_paging_base1.txt"));
  EXPECT_EQ(p.test, "demand_paging_test");
  ASSERT_EQ(p.result.samples.size(), 3u);
  const Sample& t = p.result.samples[0];
  EXPECT_EQ(t.case_name, "demand_paging_test");
  EXPECT_EQ(t.variant, "PA-bits:ANY, VA-bits:48,  4K pages");
  EXPECT_EQ(t.metric, "guest_execution_time");
  EXPECT_EQ(t.unit, "s");
  EXPECT_DOUBLE_EQ(t.value, 0.787727423);
  EXPECT_EQ(t.extra["line"], 6);
  auto m = by_metric(p.result);
  EXPECT_DOUBLE_EQ(m.at("demand_paging_rate"), 83196.291111);
  EXPECT_EQ(p.result.samples[2].unit, "pages/s");
  // The rates are the same wall time seen as pages per second.
  EXPECT_EQ(p.roles.derived_from("demand_paging_rate"), "guest_execution_time");
  EXPECT_EQ(p.roles.derived_from("per_vcpu_demand_paging_rate"), "guest_execution_time");
  EXPECT_EQ(p.result.lines_ignored, 4u);  // the progress lines
}

TEST(KvmSelftests, TapFormIsTheSameAsPlain) {
  const auto tap = parse_kvm_selftest(read_file(kData + "demand_paging_kselftest.tap"));
  const auto plain = parse_kvm_selftest(read_file(kData + "demand_paging_base1.txt"));
  EXPECT_EQ(by_metric(tap.result), by_metric(plain.result));
  EXPECT_EQ(tap.result.samples[0].variant, plain.result.samples[0].variant);
}

TEST(KvmSelftests, PerVcpuTimesAreSubUnits) {
  const auto p = parse_kvm_selftest(read_file(kData + "demand_paging_per_vcpu.txt"));
  std::vector<const Sample*> vcpu;
  for (auto& s : p.result.samples)
    if (s.metric == "vcpu_execution_time") vcpu.push_back(&s);
  ASSERT_EQ(vcpu.size(), 2u);
  EXPECT_EQ(vcpu[1]->extra["vcpu"], 1);
  EXPECT_DOUBLE_EQ(vcpu[1]->value, 0.793529812);
  EXPECT_EQ(vcpu[0]->iteration, vcpu[1]->iteration);  // one repetition, two vCPUs
}

TEST(KvmSelftests, DirtyLogIterationsAreRepetitions) {
  const auto p = parse_kvm_selftest(read_file(kData + "dirty_log_perf_test.txt"));
  EXPECT_EQ(p.test, "dirty_log_perf_test");
  std::vector<std::pair<int, double>> dirty;
  for (auto& s : p.result.samples)
    if (s.metric == "dirty_memory_time") dirty.push_back({s.iteration, s.value});
  EXPECT_EQ(dirty, (std::vector<std::pair<int, double>>{{0, 0.014231567}, {1, 0.013946710}}));
  auto m = by_metric(p.result);
  EXPECT_DOUBLE_EQ(m.at("populate_memory_time"), 0.602415826);
  EXPECT_DOUBLE_EQ(m.at("enable_dirty_logging_time"), 0.001223461);
  EXPECT_DOUBLE_EQ(m.at("disable_dirty_logging_time"), 0.004157001);
  EXPECT_DOUBLE_EQ(m.at("get_dirty_log_total_time"), 0.000055456);
  EXPECT_DOUBLE_EQ(m.at("get_dirty_log_avg_time"), 0.000027728);
  EXPECT_DOUBLE_EQ(m.at("clear_dirty_log_avg_time"), 0.001808168);
  EXPECT_EQ(p.roles.derived_from("get_dirty_log_avg_time"), "get_dirty_log_time");
  EXPECT_EQ(p.result.samples.size(), 3u + 6u + 4u);
}

TEST(KvmSelftests, MemslotCasesAreItsTests) {
  const auto p = parse_kvm_selftest(read_file(kData + "memslot_perf_test.txt"));
  ASSERT_EQ(p.result.samples.size(), 6u);
  EXPECT_EQ(p.result.samples[0].case_name, "memslot_perf_test/map");
  EXPECT_EQ(p.result.samples[2].case_name, "memslot_perf_test/unmap_chunked");
  EXPECT_EQ(p.result.samples[5].case_name, "memslot_perf_test/rw");
  EXPECT_EQ(p.result.samples[0].metric, "best_runtime_per_iteration");
  EXPECT_DOUBLE_EQ(p.result.samples[0].value, 0.000473716);
  EXPECT_EQ(p.result.samples[0].extra["iterations"], 10556);
}

TEST(KvmSelftests, AccessTrackingPhases) {
  const auto p = parse_kvm_selftest(read_file(kData + "access_tracking_perf_test.txt"));
  EXPECT_EQ(p.test, "access_tracking_perf_test");
  ASSERT_EQ(p.result.samples.size(), 7u);
  EXPECT_EQ(p.result.samples[0].metric, "populating_memory_time");
  EXPECT_DOUBLE_EQ(p.result.samples[0].value, 0.398163121);
  EXPECT_EQ(p.result.samples[3].metric, "mark_memory_idle_time");
  EXPECT_EQ(p.result.samples[5].metric, "mark_memory_idle_time");
}

TEST(KvmSelftests, MalformedTimeIsAnErrorWithItsLine) {
  try {
    parse_kvm_selftest(read_file(kData + "demand_paging_malformed.txt"));
    FAIL() << "accepted";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line, 1u);
    EXPECT_NE(std::string(e.what()).find("'0.78x7s' is not a time in seconds"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_kvm_selftest("Testing guest mode: PA-bits:ANY\n"), ParseError);  // no value at all
}

TEST(KvmUnitTestsVmexit, NameAndCyclesLines) {
  const std::string text = read_file(kData + "vmexit.log");
  ASSERT_TRUE(looks_like_vmexit_output(text));
  const ParseResult r = parse_vmexit_output(text);
  ASSERT_EQ(r.samples.size(), 12u);
  EXPECT_EQ(r.samples[0].case_name, "vmexit");
  EXPECT_EQ(r.samples[0].metric, "cpuid");
  EXPECT_EQ(r.samples[0].unit, "cycles");
  EXPECT_EQ(r.samples[0].value, 1543);
  EXPECT_EQ(r.samples[11].metric, "wr_kernel_gs_base");
  EXPECT_EQ(r.lines_ignored, 8u);  // the setup lines ("cr0 = 80010011" is not a result)
  EXPECT_FALSE(looks_like_vmexit_output("ipi 5811\n"));  // no cpuid / vmcall line: not vmexit
}

TEST(FormatRecognizer, KvmSelftestsAndVmexit) {
  for (const char* f : {"demand_paging_base1.txt", "demand_paging_kselftest.tap", "dirty_log_perf_test.txt",
                        "memslot_perf_test.txt", "access_tracking_perf_test.txt"})
    EXPECT_EQ(recognise_format(read_file(kData + f)).format, InputFormat::kvm_selftest) << f;
  EXPECT_EQ(recognise_format(read_file(kData + "vmexit.log")).format, InputFormat::kvm_unit_tests_vmexit);
  const auto parsed = parse_any(read_file(kData + "demand_paging_base1.txt"));
  EXPECT_EQ(parsed.roles.derived_from("demand_paging_rate"), "guest_execution_time");
  EXPECT_TRUE(is_one_invocation(InputFormat::kvm_selftest));
  EXPECT_FALSE(is_one_invocation(InputFormat::kernel_log));
}

// kvm_page_table_test: one figure per stage, its guest mode the variant.
TEST(KvmSelftests, PageTableTest) {
  const std::string text = read_file(kData + "kvm_page_table_test.txt");
  EXPECT_EQ(recognise_format(text).format, InputFormat::kvm_selftest);
  const auto p = parse_kvm_selftest(text);
  EXPECT_EQ(p.test, "kvm_page_table_test");
  EXPECT_EQ(by_metric(p.result), (std::map<std::string, double>{{"create_mappings_time", 0.284315776},
                                                                {"update_mappings_time", 0.146280319},
                                                                {"adjust_mappings_time", 0.171093512}}));
  for (auto& s : p.result.samples) {
    EXPECT_EQ(s.case_name, "kvm_page_table_test");
    EXPECT_EQ(s.variant, "PA-bits:ANY, VA-bits:48,  4K pages");
    EXPECT_EQ(s.unit, "s");
  }
  EXPECT_TRUE(p.result.warnings.empty());
  // Under kselftest's runner, and two guest modes in one run: one figure
  // per stage and mode, one run.
  const auto tap = parse_kvm_selftest(
      "# selftests: kvm: kvm_page_table_test\n"
      "# Testing guest mode: PA-bits:ANY, VA-bits:48,  4K pages\n"
      "# KVM_CREATE_MAPPINGS: total execution time: 0.284315776s\n"
      "# Testing guest mode: PA-bits:ANY, VA-bits:48, 64K pages\n"
      "# KVM_CREATE_MAPPINGS: total execution time: 0.101000000s\n"
      "ok 7 selftests: kvm: kvm_page_table_test\n");
  ASSERT_EQ(tap.result.samples.size(), 2u);
  EXPECT_EQ(tap.result.samples[1].variant, "PA-bits:ANY, VA-bits:48, 64K pages");
  EXPECT_TRUE(tap.result.notes.empty()) << tap.result.notes[0];
  // A time that is not one is refused, naming the stage.
  EXPECT_THROW(parse_kvm_selftest("KVM_CREATE_MAPPINGS: total execution time: 0.28x\n"), ParseError);
}
