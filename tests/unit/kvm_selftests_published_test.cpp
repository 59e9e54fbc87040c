// KVM selftests output as it was published on the kernel lists
// (tests/data/kvm/published, README there): several runs in a cover
// letter, the same quoted in a reply, a robot's TAP log with a timeout, an
// assertion after the first figures, a TAP log of many tests.
#include <gtest/gtest.h>

#include <map>
#include <set>

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

// A dirty-log summary a mail wrapped (tests/data/kvm/wrapped, README
// there): its "(Avg ...)" on the next line, quoted or not, is joined; one
// that does not read even joined is skipped with a warning, the run kept.
namespace {

const std::string kWrapped = std::string(KVMBENCH_TEST_DATA) + "/kvm/wrapped/";

double only(const ParseResult& r, const std::string& metric) {
  std::vector<double> v;
  for (auto& s : r.samples)
    if (s.metric == metric) v.push_back(s.value);
  EXPECT_EQ(v.size(), 1u) << metric;
  return v.empty() ? 0 : v[0];
}

}  // namespace

TEST(KvmSelftestsPublished, ASummaryWrappedByAMailIsJoined) {
  const auto p = parse_kvm_selftest(read_file(kWrapped + "dirty_log_wrapped_base.txt"));
  EXPECT_TRUE(p.result.warnings.empty()) << p.result.warnings[0];
  EXPECT_EQ(only(p.result, "get_dirty_log_total_time"), 0.009162421);
  EXPECT_EQ(only(p.result, "get_dirty_log_avg_time"), 0.003054140);
  EXPECT_EQ(only(p.result, "clear_dirty_log_total_time"), 0.037045677);
  EXPECT_EQ(only(p.result, "clear_dirty_log_avg_time"), 0.012348559);
  // Each summary's samples carry the line it began on; a note says it was joined.
  for (auto& s : p.result.samples) {
    if (s.metric == "get_dirty_log_total_time") {
      EXPECT_EQ(s.extra["line"], 25);
    }
  }
  ASSERT_EQ(p.result.notes.size(), 2u);
  EXPECT_EQ(p.result.notes[0], "line 25: a dirty-log summary wrapped onto line 26 (as mails wrap lines), read joined");
  int iterations = 0;
  for (auto& s : p.result.samples) iterations += s.metric == "get_dirty_log_time";
  EXPECT_EQ(iterations, 3);
}

TEST(KvmSelftestsPublished, AQuotedWrappedSummaryIsJoinedWhereverTheWrapFell) {
  const std::string text = read_file(kWrapped + "dirty_log_wrapped_quoted.txt");
  EXPECT_EQ(recognise_format(text).format, InputFormat::kvm_selftest);
  const auto p = parse_kvm_selftest(text);
  EXPECT_TRUE(p.result.warnings.empty()) << p.result.warnings[0];
  EXPECT_TRUE(p.result.failures.empty());
  // "> (Avg ...)": the rest quoted too.
  EXPECT_EQ(only(p.result, "get_dirty_log_total_time"), 0.005680512);
  EXPECT_EQ(only(p.result, "get_dirty_log_avg_time"), 0.001893504);
  // "... (Avg" then "0.011999135s/iteration)" unquoted.
  EXPECT_EQ(only(p.result, "clear_dirty_log_total_time"), 0.035997406);
  EXPECT_EQ(only(p.result, "clear_dirty_log_avg_time"), 0.011999135);
  for (auto& s : p.result.samples) EXPECT_EQ(s.case_name, "dirty_log_perf_test");
}

TEST(KvmSelftestsPublished, ASummaryThatDoesNotReadIsSkippedWithAWarningNotTheRun) {
  const std::string run = "Iteration 1 get dirty log time: 0.001901387s\n"
                          "Disabling dirty logging time: 0.008290417s\n";
  // Cut short (the rest never came), cut into by another line, garbled.
  for (const std::string& summary : {std::string("Get dirty log over 1 iterations took 0.001901387s.\n"),
                                     std::string("Get dirty log over 1 iterations took 0.001901387s.\n"
                                                 "Clear dirty log over 1 iterations took 0.1s. (Avg 0.1s/iteration)\n"),
                                     std::string("Get dirty log over 1 iterations took 0.00x1901387s. (Avg "
                                                 "0.001901387s/iteration)\n"),
                                     std::string("Get dirty log over 1 iterations took 0.001901387s.\n"
                                                 "(Average unknown)\n")}) {
    const auto p = parse_kvm_selftest(run + summary);
    ASSERT_EQ(p.result.warnings.size(), 1u) << summary;
    EXPECT_TRUE(p.result.warnings[0].starts_with("line 3: 'Get dirty log over 1 iterations took ")) << p.result.warnings[0];
    EXPECT_NE(p.result.warnings[0].find("skipped"), std::string::npos) << p.result.warnings[0];
    EXPECT_NE(p.result.warnings[0].find("the \"Iteration N\" lines, which are kept"), std::string::npos)
        << p.result.warnings[0];
    std::set<std::string> metrics;
    for (auto& s : p.result.samples) metrics.insert(s.metric);
    EXPECT_TRUE(metrics.count("get_dirty_log_time")) << summary;
    EXPECT_TRUE(metrics.count("disable_dirty_logging_time")) << summary;
    EXPECT_FALSE(metrics.count("get_dirty_log_total_time")) << summary;
    // Another summary after it is read as usual.
    EXPECT_EQ(metrics.count("clear_dirty_log_total_time"), summary.find("Clear") != std::string::npos ? 1u : 0u);
  }
}
