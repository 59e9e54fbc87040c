// KVM selftests output as it was published on the kernel lists
// (tests/data/kvm/published, README there): several runs in a cover
// letter, the same quoted in a reply, a robot's TAP log with a timeout, an
// assertion after the first figures, a TAP log of many tests.
#include <gtest/gtest.h>

#include <map>

#include "analysis/parse/format_recognizer.h"
#include "analysis/parse/kvm_selftests.h"
#include "analysis/store/run_store.h"

using namespace kvmbench;
using namespace kvmbench::parsers;

namespace {

const std::string kPublished = std::string(KVMBENCH_TEST_DATA) + "/kvm/published/";

std::string published(const std::string& name) { return read_file(kPublished + name); }

// case -> value of `metric`, each case once.
std::map<std::string, double> by_case(const ParseResult& r, const std::string& metric) {
  std::map<std::string, double> m;
  for (auto& s : r.samples)
    if (s.metric == metric) EXPECT_TRUE(m.emplace(s.case_name, s.value).second) << s.case_name << " twice";
  return m;
}

const std::map<std::string, double> kDisableTimes = {
    {"dirty_log_perf_test [Without this series, TDP MMU]", 256.682188868},
    {"dirty_log_perf_test [Without this series, Legacy MMU]", 4.246216551},
    {"dirty_log_perf_test [With this series, TDP MMU]", 3.169381810}};

}  // namespace

TEST(KvmSelftestsPublished, RunsOfACoverLetterAreCasesNamedByTheTextBeforeThem) {
  const auto p = parse_kvm_selftest(published("dirty_log_perf_cover_letter.txt"));
  // Three kernels, not three values of one repetition.
  EXPECT_EQ(by_case(p.result, "disable_dirty_logging_time"), kDisableTimes);
  for (auto& s : p.result.samples) {
    EXPECT_FALSE(s.extra.contains("invocation")) << s.case_name;  // each run is named: its own case
    EXPECT_EQ(s.variant, "PA-bits:ANY, VA-bits:48,  4K pages");
  }
  // The dirty-log iterations stay repetitions within each run.
  int iterations = 0;
  for (auto& s : p.result.samples)
    iterations += s.metric == "dirty_memory_time" && s.case_name == "dirty_log_perf_test [With this series, TDP MMU]";
  EXPECT_EQ(iterations, 2);
  ASSERT_EQ(p.result.notes.size(), 1u);
  EXPECT_NE(p.result.notes[0].find("3 runs of dirty_log_perf_test"), std::string::npos) << p.result.notes[0];
  EXPECT_NE(p.result.notes[0].find("'Without this series, Legacy MMU' (line"), std::string::npos) << p.result.notes[0];
  EXPECT_TRUE(p.result.failures.empty());
}

TEST(KvmSelftestsPublished, AQuotedReplyIsReadAsTheLetterItQuotes) {
  const std::string reply = published("dirty_log_perf_quoted_reply.txt");
  EXPECT_EQ(recognise_format(reply).format, InputFormat::kvm_selftest);
  const auto quoted = parse_kvm_selftest(reply);
  const auto letter = parse_kvm_selftest(published("dirty_log_perf_cover_letter.txt"));
  EXPECT_EQ(by_case(quoted.result, "disable_dirty_logging_time"), kDisableTimes);
  ASSERT_EQ(quoted.result.samples.size(), letter.result.samples.size());
  for (std::size_t i = 0; i < letter.result.samples.size(); ++i) {
    EXPECT_EQ(quoted.result.samples[i].case_name, letter.result.samples[i].case_name);
    EXPECT_EQ(quoted.result.samples[i].metric, letter.result.samples[i].metric);
    EXPECT_EQ(quoted.result.samples[i].value, letter.result.samples[i].value);
  }
}

TEST(KvmSelftestsPublished, RunsNothingNamesAreInvocations) {
  // The same output pasted twice, no text between: the test run twice.
  const std::string run = "Testing guest mode: PA-bits:ANY, VA-bits:48,  4K pages\n"
                          "Total guest execution time:\t0.787727423s\n";
  const auto p = parse_kvm_selftest(run + run);
  ASSERT_EQ(p.result.samples.size(), 2u);
  EXPECT_EQ(p.result.samples[0].case_name, "demand_paging_test");
  EXPECT_EQ(p.result.samples[1].case_name, "demand_paging_test");
  EXPECT_EQ(p.result.samples[0].extra["invocation"], 0);
  EXPECT_EQ(p.result.samples[1].extra["invocation"], 1);
  ASSERT_EQ(p.result.notes.size(), 1u);
  EXPECT_NE(p.result.notes[0].find("each its own invocation"), std::string::npos) << p.result.notes[0];
  // Without a guest mode either, the figure seen again begins the run again.
  const std::string bare = "Disabling dirty logging time: 256.682188868s\n";
  const auto q = parse_kvm_selftest("Before:\n" + bare + "After:\n" + bare);
  EXPECT_EQ(by_case(q.result, "disable_dirty_logging_time").size(), 2u);
}

TEST(KvmSelftestsPublished, ATimeoutInTapFailsTheTestAndMarksItsFigures) {
  const auto p = parse_kvm_selftest(published("memslot_perf_timeout.tap"));
  ASSERT_EQ(p.result.failures.size(), 1u);
  const ProgramFailure& f = p.result.failures[0];
  EXPECT_EQ(f.program, "memslot_perf_test");
  EXPECT_EQ(f.reason, "TIMEOUT 120 seconds");
  EXPECT_EQ(f.line, 28u);
  EXPECT_EQ(f.samples, 4u);
  ASSERT_EQ(p.result.samples.size(), 4u);
  for (auto& s : p.result.samples) EXPECT_EQ(s.extra["failed"], "TIMEOUT 120 seconds") << s.case_name;
}

TEST(KvmSelftestsPublished, AnAssertionAfterTheFirstFiguresFailsTheTest) {
  const auto p = parse_kvm_selftest(published("access_tracking_assertion.txt"));
  ASSERT_EQ(p.result.samples.size(), 3u);
  ASSERT_EQ(p.result.failures.size(), 1u);
  const ProgramFailure& f = p.result.failures[0];
  EXPECT_EQ(f.program, "access_tracking_perf_test");
  EXPECT_EQ(f.reason, "Test Assertion Failure at lib/kvm_util.c:1411: false (No vm physical memory at 0xffbffff000)");
  EXPECT_EQ(f.line, 9u);
  EXPECT_EQ(f.samples, 3u);
  for (auto& s : p.result.samples) EXPECT_EQ(s.extra["failed"], f.reason);
  // The stack is not a figure, nor a line ignored as the test's.
  EXPECT_EQ(p.result.lines_ignored, 4u);
}

TEST(KvmSelftestsPublished, OneTestsDetailsDoNotLeakIntoTheNext) {
  const auto p = parse_kvm_selftest(published("kvm_kselftest_loongarch.tap"));
  EXPECT_TRUE(p.result.failures.empty());  // kvm_binary_stats_test's own "ok 1 vm0" lines are no failure
  EXPECT_TRUE(p.result.notes.empty());      // one run of each test
  std::map<std::string, std::string> variant_of;
  for (auto& s : p.result.samples) variant_of[s.case_name] = s.variant;
  EXPECT_EQ(variant_of.at("demand_paging_test"), "PA-bits:36,  VA-bits:47, 16K pages");
  EXPECT_EQ(variant_of.at("dirty_log_perf_test"), "PA-bits:36,  VA-bits:47, 16K pages");
  // memslot_perf_test prints no guest mode; the one before it was
  // memslot_modification_stress_test's.
  EXPECT_EQ(variant_of.at("memslot_perf_test/rw"), "");
  // The best slot setup time is the whole test's, printed after RW's line.
  EXPECT_EQ(by_case(p.result, "best_slot_setup_time"),
            (std::map<std::string, double>{{"memslot_perf_test", 0.761678900}}));
  EXPECT_EQ(by_case(p.result, "best_runtime_per_iteration").size(), 3u);
}
