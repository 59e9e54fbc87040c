// Kernel log captures as they come in mail and labs: a patch's print in
// source form is no record, the RMPOPT series' status lines are named as
// such, and one capture's different experiments can be told apart.
//   tests/data/ingest/mail_with_patch.txt: post 002's first two
//     to_shared prints, after a patch hunk with the pr_err() that prints
//     them (the hunk written for this test), and a status line;
//   tests/data/ingest/rmpopt_two_loops.log: post 000's four sweeps
//     (232, 234 s: the all-CPU loop; 363, 365 s: the leader-only one), one
//     more of each loop written for this test, then a reboot: the series'
//     boot status line and one sweep at 41 s.
#include <gtest/gtest.h>

#include "analysis/parse/kernel_log.h"
#include "analysis/parse/kernel_log_split.h"
#include "analysis/store/run_store.h"

using namespace kvmbench;
using namespace kvmbench::parsers;

namespace {
const std::string kData = std::string(KVMBENCH_TEST_DATA) + "/ingest/";
}

TEST(KernelLogMail, APrintsSourceIsNotARecord) {
  const ParseResult r = parse_kernel_log(read_file(kData + "mail_with_patch.txt"));
  ASSERT_EQ(r.samples.size(), 6u);  // two records, three metrics each
  EXPECT_EQ(r.samples[0].case_name, "nr_pages=1");
  EXPECT_EQ(r.samples[0].value, 930);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_NE(r.notes[0].find("line 9: not a record, the source of its print: +\tpr_err(\"guest_memfd to_shared: nr_pages=%lu,"), std::string::npos) << r.notes[0];
  EXPECT_EQ(r.notes[1], "line 21: RMPOPT status: SEV-SNP: RMPOPT optimizations not enabled");
}

TEST(KernelLogMail, SourceFormsOfEachRecord) {
  const ParseResult r = parse_kernel_log(
      "pr_info(\"SEV-SNP: RMPOPT execution time %llu ns for physical address range 0x%016llx - 0x%016llx on "
      "all cpus\\n\");\n"
      "SEV-SNP: RMPOPT largest cycles %llu\n"
      "SEV-SNP: RMPOPT execution time 5 ns for physical address range 0x%llx - 0x0 on all cpus\n"
      "guest_memfd to_shared: nr_pages=1, make_shared=5 cycles, total=9 cycles\n");
  EXPECT_EQ(r.samples.size(), 3u);
  EXPECT_EQ(r.notes.size(), 3u);
  EXPECT_TRUE(r.warnings.empty());
  // A value that is there but wrong is still an error, not a source line.
  EXPECT_THROW(parse_kernel_log("guest_memfd to_shared: nr_pages=-1, make_shared=5 cycles, total=9 cycles\n"),
               ParseError);
}

TEST(KernelLogExperiments, StatusLinesOfTheSeries) {
  const ParseResult r = parse_kernel_log(read_file(kData + "rmpopt_two_loops.log"));
  EXPECT_EQ(r.records, 7u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("line 7: RMPOPT status: SEV-SNP: RMP optimizations enabled on physical address range"),
            std::string::npos)
      << r.notes[0];
  EXPECT_TRUE(r.warnings.empty());
}

TEST(KernelLogExperiments, SplitByBootAndByGap) {
  const KernelLogParse p = parse_kernel_log_records(read_file(kData + "rmpopt_two_loops.log"));
  ASSERT_EQ(p.records.size(), 7u);
  auto boot = parse_split_rule("boot");
  ASSERT_TRUE(boot);
  EXPECT_EQ(split_parts(p.records, *boot), (std::vector<int>{1, 1, 1, 1, 1, 1, 2}));
  EXPECT_EQ(boot->label(2), "boot=2");
  auto gap = parse_split_rule("gap=60s");
  ASSERT_TRUE(gap);
  EXPECT_DOUBLE_EQ(gap->gap_s, 60);
  // 236 -> 363 is a gap; 367 -> 41 goes back, which is no gap.
  EXPECT_EQ(split_parts(p.records, *gap), (std::vector<int>{1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(gap->label(2), "part=2");
  for (const char* bad : {"gap=", "gap=-1", "gap=0", "gap=x", "boots", "gap=1e999"})
    EXPECT_FALSE(parse_split_rule(bad)) << bad;
}

TEST(KernelLogExperiments, PoolingHintsSayWhatWouldBeHidden) {
  const KernelLogParse p = parse_kernel_log_records(read_file(kData + "rmpopt_two_loops.log"));
  const std::vector<std::string> cases(p.records.size(), "range=2T");
  const auto hints = pooling_hints(p.records, cases);
  ASSERT_EQ(hints.size(), 2u);
  EXPECT_NE(hints[0].find("2 boots (the uptime goes back 1 time)"), std::string::npos) << hints[0];
  EXPECT_NE(hints[1].find("range=2T: its records fall in 2 bunches, 127 s apart"), std::string::npos) << hints[1];
  EXPECT_NE(hints[1].find("--split-by gap=64"), std::string::npos) << hints[1];
  // One loop's records of one boot: nothing to say. (journalctl's wall
  // clock is no uptime: neither boots nor gaps can be seen there.)
  const std::vector<KernelRecord> one_loop(p.records.begin(), p.records.begin() + 3);
  EXPECT_TRUE(pooling_hints(one_loop, cases).empty());
  const KernelLogParse wall = parse_kernel_log_records(read_file(kData + "journalctl_rmpopt.log"));
  EXPECT_TRUE(pooling_hints(wall.records, {"range=2T", "range=2T"}).empty());
}
