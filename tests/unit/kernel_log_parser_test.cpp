#include "analysis/parsers/kernel_log.h"

#include <gtest/gtest.h>

#include "analysis/parsers/kernel_log_prefix.h"
#include "analysis/run_store.h"

using namespace kvmbench;
using namespace kvmbench::parsers;

static const std::string kReference = std::string(KVMBENCH_SOURCE_DIR) + "/results/reference/";

TEST(KernelLogPrefix, StripsEveryCaptureFormat) {
  auto l = strip_capture_prefix("[   49.913402] SEV-SNP: RMPOPT largest cycles 1143020");
  EXPECT_EQ(l.message, "SEV-SNP: RMPOPT largest cycles 1143020");
  ASSERT_TRUE(l.uptime_s);
  EXPECT_DOUBLE_EQ(*l.uptime_s, 49.913402);

  l = strip_capture_prefix(">> [  276.435091] SEV-SNP: x");
  EXPECT_EQ(l.quote_depth, 2);
  EXPECT_EQ(l.message, "SEV-SNP: x");
  EXPECT_DOUBLE_EQ(*l.uptime_s, 276.435091);

  l = strip_capture_prefix("> > >[1.5] msg");
  EXPECT_EQ(l.quote_depth, 3);
  EXPECT_EQ(l.message, "msg");

  l = strip_capture_prefix("Mar 05 11:22:33 lab1 kernel: SEV-SNP: RMPOPT average cycles 5");
  EXPECT_EQ(l.wallclock, "Mar 05 11:22:33");
  EXPECT_FALSE(l.uptime_s);
  EXPECT_EQ(l.message, "SEV-SNP: RMPOPT average cycles 5");

  l = strip_capture_prefix("2026-03-05T11:22:33+0000 lab1 kernel: msg");
  EXPECT_EQ(l.wallclock, "2026-03-05T11:22:33+0000");
  EXPECT_EQ(l.message, "msg");

  l = strip_capture_prefix("[   12.000001] lab1 kernel: msg");  // journalctl -o short-monotonic
  EXPECT_DOUBLE_EQ(*l.uptime_s, 12.000001);
  EXPECT_EQ(l.message, "msg");

  l = strip_capture_prefix("[Thu Mar  5 11:22:33 2026] msg");  // dmesg -T
  EXPECT_EQ(l.wallclock, "Thu Mar  5 11:22:33 2026");
  EXPECT_EQ(l.message, "msg");

  l = strip_capture_prefix("6,1234,49913402,-;SEV-SNP: msg");  // /dev/kmsg
  EXPECT_NEAR(*l.uptime_s, 49.913402, 1e-9);
  EXPECT_EQ(l.message, "SEV-SNP: msg");

  l = strip_capture_prefix("SEV-SNP: plain");
  EXPECT_EQ(l.message, "SEV-SNP: plain");
  EXPECT_FALSE(l.uptime_s);
  EXPECT_TRUE(l.wallclock.empty());
}

TEST(KernelLogParser, MakeSharedReferenceJoinsMailWrappedLines) {
  auto p = parse_kernel_log_records(read_file(kReference + "make_shared_to_shared.log"));
  ASSERT_EQ(p.records.size(), 20u);
  EXPECT_TRUE(p.result.warnings.empty());
  EXPECT_EQ(p.result.lines_ignored, 3u);  // the '#' header
  const auto& first = p.records.front();
  EXPECT_EQ(first.line, 4u);
  EXPECT_EQ(first.line_count, 2u);
  EXPECT_EQ(first.nr_pages, 1u);
  EXPECT_EQ(first.make_shared, 930);
  EXPECT_EQ(first.total, 39278);
  EXPECT_DOUBLE_EQ(*first.uptime_s, 396.403818);
  const auto& last = p.records.back();
  EXPECT_EQ(last.nr_pages, 1048576u);
  EXPECT_EQ(last.make_shared, 61774646);
  EXPECT_EQ(last.total, 26444608360.0);
  // Blank lines separate the four VM builds.
  EXPECT_EQ(p.records[4].group, 1);
  EXPECT_EQ(p.records[5].group, 2);
  EXPECT_EQ(p.records[10].group, 3);
  EXPECT_EQ(p.records[19].group, 4);

  ASSERT_EQ(p.result.samples.size(), 60u);
  const Sample& s = p.result.samples[2];
  EXPECT_EQ(s.case_name, "nr_pages=1");
  EXPECT_EQ(s.metric, "make_shared_pct");
  EXPECT_EQ(s.unit, "%");
  EXPECT_NEAR(s.value, 2.3677, 5e-5);
  EXPECT_EQ(s.extra["line"], 4);
  EXPECT_EQ(p.result.samples[3].iteration, 1);
  EXPECT_EQ(p.result.samples[30].case_name, "nr_pages=262144");
  EXPECT_EQ(p.result.samples[30].iteration, 0);
}

TEST(KernelLogParser, RmpoptCycleStatsInTwoGroups) {
  auto p = parse_kernel_log_records(read_file(kReference + "rmpopt_cycles.log"));
  ASSERT_EQ(p.records.size(), 6u);
  EXPECT_EQ(p.records[0].group, 1);
  EXPECT_EQ(p.records[2].group, 1);
  EXPECT_EQ(p.records[3].group, 2);
  EXPECT_EQ(p.records[0].stat, "largest");
  EXPECT_EQ(p.records[0].cycles, 1143020);
  EXPECT_EQ(p.records[5].cycles, 5658);
  EXPECT_EQ(p.result.samples[3].case_name, "group=2");
  EXPECT_EQ(p.result.samples[3].metric, "rmpopt_cycles_largest");
  EXPECT_EQ(p.result.samples[3].unit, "cycles");
  // The text lines "RMPOPT during boot:" etc. and the header are ignored.
  EXPECT_EQ(p.result.lines_ignored, 5u);
}

TEST(KernelLogParser, RepeatedStatStartsNewGroupWithoutBlankLine) {
  auto p = parse_kernel_log_records(
      "SEV-SNP: RMPOPT largest cycles 10\nSEV-SNP: RMPOPT average cycles 5\n"
      "SEV-SNP: RMPOPT largest cycles 20\n");
  ASSERT_EQ(p.records.size(), 3u);
  EXPECT_EQ(p.records[1].group, 1);
  EXPECT_EQ(p.records[2].group, 2);
}

TEST(KernelLogParser, SweepRecordKeepsRangeAndIgnoresAnnotation) {
  auto p = parse_kernel_log_records(read_file(kReference + "rmpopt_sweep_leader_primary.log"));
  ASSERT_EQ(p.result.samples.size(), 2u);
  const Sample& s = p.result.samples[1];
  EXPECT_EQ(s.case_name, "range=2T");
  EXPECT_EQ(s.metric, "sweep_time");
  EXPECT_EQ(s.unit, "ns");
  EXPECT_EQ(s.value, 369659769);
  EXPECT_EQ(s.iteration, 1);
  EXPECT_EQ(s.extra["range_start"], "0x0000000000000000");
  EXPECT_EQ(s.extra["range_end"], "0x0000020000000000");
  EXPECT_EQ(s.extra["cpus"], "all cpus");
  EXPECT_EQ(s.extra["line"], 6);
}

TEST(KernelLogParser, IncompleteRecordIsAWarningAndDoesNotSwallowTheNextLine) {
  auto p = parse_kernel_log_records(
      "[ 1.0] guest_memfd to_shared: nr_pages=1, make_shared=930\n"
      "[ 2.0] guest_memfd to_shared: nr_pages=1, make_shared=5 cycles, total=100 cycles\n"
      "> guest_memfd to_shared: nr_pages=2,\n");
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.records[0].line, 2u);
  EXPECT_EQ(p.records[0].make_shared, 5);
  ASSERT_EQ(p.result.warnings.size(), 2u);
  EXPECT_EQ(p.result.warnings[0].rfind("line 1:", 0), 0u) << p.result.warnings[0];
  EXPECT_EQ(p.result.warnings[1].rfind("line 3:", 0), 0u) << p.result.warnings[1];
}

TEST(KernelLogParser, QuotedAndWrappedAtDepth) {
  auto p = parse_kernel_log_records(
      ">> [  448.761474] guest_memfd to_shared: nr_pages=262144,\n"
      ">> make_shared=15041018 cycles, total=6616067680 cycles\n"
      "unrelated text\n");
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.records[0].make_shared, 15041018);
  EXPECT_EQ(p.records[0].total, 6616067680.0);
  EXPECT_EQ(p.result.lines_ignored, 1u);
  EXPECT_EQ(p.result.lines_read, 3u);
}

TEST(KernelLogParser, NothingInUnrelatedText) {
  auto p = parse_kernel_log_records("hello\nworld\n");
  EXPECT_TRUE(p.records.empty());
  EXPECT_EQ(p.result.lines_ignored, 2u);
  EXPECT_FALSE(mentions_kernel_record("hello\n"));
  EXPECT_TRUE(mentions_kernel_record("x\n> guest_memfd to_shared: nr_pages=1,\n"));
}

// Inconsistent records are errors naming the record's first line; the
// message says what is wrong. Each case has the bad record on line 2.
namespace {
struct BadRecord {
  std::string line;
  std::string reason;
};
}  // namespace

TEST(KernelLogParser, InconsistentRecordsThrowWithTheLine) {
  const std::vector<BadRecord> cases = {
      {"guest_memfd to_shared: nr_pages=1, make_shared=-5 cycles, total=100 cycles", "make_shared is negative"},
      {"guest_memfd to_shared: nr_pages=-1, make_shared=5 cycles, total=100 cycles", "nr_pages is negative"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=5 cycles, total=-100 cycles", "total is negative"},
      {"guest_memfd to_shared: nr_pages=x1, make_shared=5 cycles, total=100 cycles", "nr_pages is not a count: 'x1'"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=abc cycles, total=100 cycles", "make_shared is not a count"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=1.5 cycles, total=100 cycles", "make_shared is not a count"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=200 cycles, total=100 cycles",
       "make_shared=200 cycles is larger than its total=100 cycles"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=0 cycles, total=0 cycles", "total is 0 cycles"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=nan cycles, total=100 cycles", "make_shared is nan, not a count"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=5 cycles, total=inf cycles", "total is inf, not a count"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=5 cycles, total=99999999999999999999999 cycles",
       "too large for a 64-bit count"},
      {"SEV-SNP: RMPOPT largest cycles -1143020", "RMPOPT largest cycles is negative"},
      {"SEV-SNP: RMPOPT average cycles NaN", "RMPOPT average cycles is NaN, not a count"},
      {"SEV-SNP: RMPOPT smallest cycles 12abc", "RMPOPT smallest cycles is not a count: '12abc'"},
      {"SEV-SNP: RMPOPT execution time -5 ns for physical address range 0x0 - 0x10 on all cpus",
       "RMPOPT execution time is negative"},
      {"SEV-SNP: RMPOPT execution time Inf ns for physical address range 0x0 - 0x10 on all cpus",
       "RMPOPT execution time is Inf, not a count"},
      {"SEV-SNP: RMPOPT execution time 5 ns for physical address range 0x20 - 0x10 on all cpus",
       "range end 0x10 is below its start 0x20"},
  };
  for (const auto& c : cases) {
    const std::string text = "[ 1.0] unrelated\n[ 2.0] " + c.line + "\n";
    try {
      parse_kernel_log_records(text);
      ADD_FAILURE() << "accepted: " << c.line;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line, 2u) << c.line;
      EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what() << " for " << c.line;
    }
  }
}

TEST(KernelLogParser, InconsistentWrappedRecordNamesItsFirstLine) {
  try {
    parse_kernel_log_records("x\n> guest_memfd to_shared: nr_pages=4, make_shared=930\n> cycles, total=0 cycles\n");
    ADD_FAILURE() << "accepted total=0";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line, 2u);
  }
}

TEST(KernelLogParser, EdgeValuesThatAreConsistentAreAccepted) {
  // make_shared == total and make_shared == 0 are odd but possible.
  auto p = parse_kernel_log_records(
      "guest_memfd to_shared: nr_pages=1, make_shared=100 cycles, total=100 cycles\n"
      "guest_memfd to_shared: nr_pages=1, make_shared=0 cycles, total=1 cycles\n"
      "SEV-SNP: RMPOPT not supported on this cpu\n");
  ASSERT_EQ(p.records.size(), 2u);
  EXPECT_EQ(p.records[0].make_shared, 100);
  EXPECT_EQ(p.records[1].total, 1);
  ASSERT_EQ(p.result.warnings.size(), 1u);  // an unknown RMPOPT print is not an error
  EXPECT_EQ(p.result.warnings[0].rfind("line 3:", 0), 0u);
}
