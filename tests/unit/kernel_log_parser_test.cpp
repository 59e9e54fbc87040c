#include "analysis/parse/kernel_log.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analysis/parse/kernel_log_prefix.h"
#include "analysis/store/run_store.h"
#include "tests/unit/test_rng.h"

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
  EXPECT_EQ(name_of(p.records[0].stat), "largest");
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

// A record is read from the first anchor of its line, past text that
// starts like one ("SEV-SNP: RMP table" shares "SEV-SNP: RMP" with the
// RMPOPT anchors), whichever of the anchors comes first.
TEST(KernelLogParser, RecordStartsAtTheFirstAnchorOfTheLine) {
  auto p = parse_kernel_log_records(
      "[ 1.0] SEV-SNP: RMP table physical range; SEV-SNP: RMPOPT largest cycles 77\n"
      "[ 2.0] SEV-SNP: RMP table guest_memfd to_shared: nr_pages=1, make_shared=2 cycles, total=3 cycles\n"
      "[ 3.0] SEV-SNP: RMP t SEV-SNP: RMP optimizations enabled; guest_memfd to_shared: nr_pages=1, make_shared=2 "
      "cycles, total=3 cycles\n");
  ASSERT_EQ(p.records.size(), 2u);
  EXPECT_EQ(p.records[0].kind, KernelRecordKind::rmpopt_cycles);
  EXPECT_EQ(p.records[0].cycles, 77);
  EXPECT_EQ(p.records[1].kind, KernelRecordKind::to_shared);
  EXPECT_EQ(p.records[1].line, 2u);
  // Line 3's first anchor is "SEV-SNP: RMP optimizations": no record, said so.
  ASSERT_EQ(p.result.warnings.size(), 1u);
  EXPECT_NE(p.result.warnings[0].find("line 3:"), std::string::npos) << p.result.warnings[0];
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

// A long log of many blocks of records, unrelated lines, blank lines,
// mail-wrapped records and unknown prints.
namespace {

std::string long_log(int blocks, const std::string& bad = "", const std::vector<int>& bad_blocks = {}) {
  std::string out;
  double t = 1.0;
  for (int b = 0; b < blocks; ++b) {
    auto line = [&](const std::string& msg) {
      out += fmt::format("[{:12.6f}] {}\n", t, msg);
      t += 0.001;
    };
    line("usb 1-1: new high-speed USB device");
    line(fmt::format("SEV-SNP: RMPOPT largest cycles {}", 100 + b));
    line("SEV-SNP: RMPOPT smallest cycles 60");
    if (b % 3 == 0) {
      // mail-wrapped, as in the make_shared document
      out += fmt::format("[{:12.6f}] guest_memfd to_shared: nr_pages=1, make_shared={}\n", t, 900 + b);
      out += "cycles, total=39278 cycles\n";
    }
    if (b % 5 == 0) line("SEV-SNP: RMPOPT execution time 391600000 ns for physical address range "
                         "0x0000000000000000 - 0x0000020000000000 on all cpus");
    if (b % 13 == 0) {  // a wrapped sweep: its texts live in the parse's joined lines
      out += fmt::format("[{:12.6f}] SEV-SNP: RMPOPT execution time {} ns for physical address range "
                         "0x0000000000000000 -\n",
                         t, 391600000 + b);
      out += "0x0000010000000000 on all cpus\n";
    }
    if (b % 7 == 0) line("SEV-SNP: RMPOPT bogus print");  // a warning
    for (int k : bad_blocks)
      if (b == k) line(bad);
    if (b % 11 == 0) out += "\n";
  }
  return out;
}

}  // namespace

// Every record of a long log is read, the wrapped ones from their joined
// text, and each sample knows its record.
TEST(KernelLogParser, LongLogKeepsEveryRecord) {
  constexpr int kBlocks = 400;
  const std::string log = long_log(kBlocks);
  const auto p = parsers::parse_kernel_log_records(log, parsers::Provenance::in_extra);
  auto blocks_with = [](int every) { return static_cast<std::size_t>((kBlocks + every - 1) / every); };
  const std::size_t conversions = blocks_with(3), sweeps = blocks_with(5), wrapped_sweeps = blocks_with(13);
  EXPECT_EQ(p.records.size(), 2u * kBlocks + conversions + sweeps + wrapped_sweeps);
  EXPECT_EQ(p.result.warnings.size(), blocks_with(7));  // the bogus prints
  EXPECT_EQ(p.joined.size(), conversions + wrapped_sweeps);           // the wrapped records' texts
  EXPECT_EQ(p.result.lines_read, static_cast<std::size_t>(std::count(log.begin(), log.end(), '\n')));
  ASSERT_EQ(p.sample_record.size(), p.result.samples.size());
  std::size_t wrapped_sweep_samples = 0;
  for (std::size_t i = 0; i < p.result.samples.size(); ++i) {
    const auto& smp = p.result.samples[i];
    EXPECT_EQ(smp.extra["line"], p.records[p.sample_record[i]].line) << i;
    wrapped_sweep_samples += smp.extra.value("range_end", "") == "0x0000010000000000";
  }
  EXPECT_EQ(wrapped_sweep_samples, wrapped_sweeps);
  EXPECT_EQ(p.result.samples.back().extra["line"], p.records.back().line);
}

// The error reported is the first bad record of the file, wherever it is.
TEST(KernelLogParser, LongLogReportsTheFirstBadRecordOfTheFile) {
  const std::string bad = "guest_memfd to_shared: nr_pages=1, make_shared=5 cycles, total=0 cycles";
  for (const std::vector<int>& blocks : {std::vector<int>{10}, {390}, {10, 390}}) {
    const std::string log = long_log(400, bad, blocks);
    const std::size_t at = log.find(bad);
    const auto want = static_cast<std::size_t>(std::count(log.begin(), log.begin() + static_cast<long>(at), '\n')) + 1;
    std::size_t line = 0;
    try {
      parsers::parse_kernel_log_records(log, parsers::Provenance::by_record);
    } catch (const parsers::ParseError& e) {
      line = e.line;
    }
    EXPECT_EQ(line, want) << "bad record in block " << blocks.front();
  }
}

TEST(KernelLogParser, BadRecordsCanBeSkippedWithAWarning) {
  const std::string log =
      "[ 1.0] guest_memfd to_shared: nr_pages=1, make_shared=9 cycles, total=100 cycles\n"
      "[ 2.0] guest_memfd to_shared: nr_pages=1, make_shared=900\n"
      "cycles, total=100 cycles\n"  // wrapped and inconsistent: lines 2-3
      "[ 3.0] guest_memfd to_shared: nr_pages=1, make_shared=8 cycles, total=100 cycles\n";
  EXPECT_THROW(parse_kernel_log(log), ParseError);
  const ParseResult r = parse_kernel_log(log, BadRecords::skip);
  EXPECT_EQ(r.records, 2u);
  EXPECT_EQ(r.lines_read, 4u);
  EXPECT_EQ(r.lines_ignored, 2u);  // both lines of the skipped record
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "line 2: inconsistent record skipped: to_shared make_shared=900 cycles is larger "
                           "than its total=100 cycles");
  ASSERT_EQ(r.samples.size(), 6u);
  EXPECT_EQ(r.samples[3].value, 8);
  EXPECT_EQ(r.samples[3].extra["line"], 4);
  EXPECT_EQ(r.samples[3].iteration, 1);  // the skipped record takes no iteration
}

// Lines without records are blank (only capture prefixes, or nothing) or
// unrelated (counted in lines_ignored). Only lines that end in what ends a
// prefix (']', ':', ';', '>') or are blank have their prefixes stripped
// (may_be_bare_prefix): the count must be what stripping every line gives,
// on lines built from prefixes, bracketed texts and endings that look like
// prefixes.
TEST(KernelLogParser, BlankAndUnrelatedLinesAreToldApartAsStrippingDoes) {
  const std::vector<std::string> parts = {"[   49.913402]", "[Thu Mar  5 11:22:33 2026]", "[Thu 11:22:33 [x]",
                                          "[]",             "[0x00000000 - 0x2dffffff]",  "[a:b]",
                                          "[1.5] [2.5]",    "> ",                         "text",
                                          "x]",             "]",                          "[ 1.0] lab1 kernel:",
                                          "6,12,345,-;",    "Mar 05 11:22:33 lab1 kernel:", "[mem 0x1-0x2 [a:b]",
                                          "[ \t7.25\r]",    "[12345678901234567890123456789012345:]", " ",
                                          "",               "\r",                          "x\t",
                                          "<",              "a=",                         std::string(40, 'y')};
  std::string log;
  std::size_t want_ignored = 0, lines = 0;
  kvmbench::testing::TestRng rng(7);
  for (int i = 0; i < 5000; ++i) {
    std::string line;
    const auto n = 1 + rng.below(3);
    for (std::uint64_t k = 0; k < n; ++k) {
      if (k && rng.below(2)) line += ' ';
      line += parts[rng.below(parts.size())];
    }
    log += line + "\n";
    ++lines;
    if (!strip_capture_prefix(line).message.empty()) ++want_ignored;
  }
  const ParseResult r = parse_kernel_log(log);
  EXPECT_EQ(r.records, 0u);
  EXPECT_EQ(r.lines_read, lines);
  EXPECT_EQ(r.lines_ignored, want_ignored);
  EXPECT_GT(want_ignored, 100u);
  EXPECT_LT(want_ignored, lines - 100);  // both kinds are there
}

// The RMPOPT series' earlier debug prints (tests/data/ingest/
// rmpopt_earlier_forms.log, written from their pattern): recognised and
// said not to be read, each with a warning; the later lines beside them
// are read as ever.
TEST(KernelLogParser, EarlierRmpoptPrintsAreSaidNotToBeRead) {
  const ParseResult r = parse_kernel_log(read_file(std::string(KVMBENCH_TEST_DATA) + "/ingest/rmpopt_earlier_forms.log"));
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].metric, "sweep_time");
  EXPECT_EQ(r.samples[0].value, 380112044);
  EXPECT_EQ(r.lines_ignored, 3u);
  ASSERT_EQ(r.warnings.size(), 3u);
  EXPECT_EQ(r.warnings[0].rfind("line 1: not read: an earlier form of the RMPOPT series' debug print (SEV-SNP: "
                                "RMPOPT max. CPU cycles 1843022); kvmbench reads the later",
                                0),
            0u)
      << r.warnings[0];
  EXPECT_NE(r.warnings[1].find("(SEV-SNP: RMPOPT min. CPU cycles 1710384)"), std::string::npos) << r.warnings[1];
  EXPECT_NE(r.warnings[2].find("line 3: not read: an earlier form"), std::string::npos) << r.warnings[2];
  // Quoted in a mail, the same.
  const ParseResult q = parse_kernel_log("> [   12.406117] SEV-SNP: RMPOPT max. CPU cycles 1843022\n"
                                         "> [   41.0] SEV-SNP: RMPOPT largest cycles 5\n");
  ASSERT_EQ(q.warnings.size(), 1u);
  EXPECT_NE(q.warnings[0].find("not read: an earlier form"), std::string::npos);
  EXPECT_EQ(q.samples.size(), 1u);
}
