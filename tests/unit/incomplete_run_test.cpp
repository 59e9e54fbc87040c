// What a run's tables lack, in their titles: a complete run's titles stay
// as they are; an interrupted, failed, partial or empty one says so.
#include "suites/engine/incomplete_run.h"

#include <gtest/gtest.h>

using StoredRun = kvmbench::Run;
using kvmbench::Table;
using kvmbench::engine::incomplete_note;
using kvmbench::engine::mark_incomplete;
using kvmbench::engine::not_offered_notes;

namespace {

StoredRun run_with(nlohmann::json meta, std::size_t samples) {
  StoredRun r;
  r.meta = std::move(meta);
  r.samples.resize(samples);
  return r;
}

}  // namespace

TEST(IncompleteRun, CompleteRunHasNoNoteAndKeepsItsTitles) {
  StoredRun r = run_with({{"status", "complete"}, {"repetitions", 3}, {"measured_repetitions", 3},
                    {"skipped_parts", nlohmann::json::array()}},
                   4);
  EXPECT_EQ(incomplete_note(r), "");
  std::vector<Table> tables(1);
  tables[0].title = "# Average fault-in rate";
  mark_incomplete(tables, incomplete_note(r));
  EXPECT_EQ(tables[0].title, "# Average fault-in rate");
}

TEST(IncompleteRun, EachKindOfIncompleteSaysWhatIsMissing) {
  EXPECT_EQ(incomplete_note(run_with({{"status", "interrupted"}, {"repetitions", 5}, {"measured_repetitions", 1}}, 2)),
            "INTERRUPTED: 1 of 5 repetitions measured");
  EXPECT_EQ(incomplete_note(run_with({{"status", "failed"}, {"repetitions", "auto"}, {"measured_repetitions", 2}}, 2)),
            "FAILED after 2 repetitions");
  const nlohmann::json skips = {{{"part", "tcp_rr"}, {"reason", "not built"}},
                                {{"part", "cpuid_rate"}, {"reason", "not built"}}};
  EXPECT_EQ(incomplete_note(run_with({{"status", "complete"}, {"skipped_parts", skips}}, 3)),
            "PARTIAL: 2 parts skipped");
  EXPECT_EQ(incomplete_note(run_with({{"status", "complete"}, {"skipped_parts", skips}}, 0)),
            "NOTHING MEASURED: 2 parts skipped");
}

TEST(IncompleteRun, TheNoteGoesAfterAHeadingMark) {
  std::vector<Table> tables(2);
  tables[0].title = "# Average fault-in rate";
  tables[1].title = "nr_pages=1 (part 1)";
  mark_incomplete(tables, "PARTIAL: 3 parts skipped");
  EXPECT_EQ(tables[0].title, "# [PARTIAL: 3 parts skipped] Average fault-in rate");
  EXPECT_EQ(tables[1].title, "[PARTIAL: 3 parts skipped] nr_pages=1 (part 1)");
}

// A part this CPU or kernel can never run (FLUSHBYASID on a CPU without it,
// guest_memfd where KVM has none) is no PARTIAL: the run did all the host
// can; it is a note under each table, with its reason.
TEST(IncompleteRun, APartTheCpuNeverOffersIsANoteNotAPartial) {
  const nlohmann::json skips = {{{"part", "flushbyasid=on"}, {"reason", "no FLUSHBYASID"}, {"not_offered", true}}};
  StoredRun r = run_with({{"status", "complete"}, {"skipped_parts", skips}}, 3);
  EXPECT_EQ(incomplete_note(r), "");
  std::vector<Table> tables(1);
  tables[0].title = "# cpuid_rate";
  kvmbench::engine::mark_run_notes(tables, r);
  EXPECT_EQ(tables[0].title, "# cpuid_rate");
  ASSERT_EQ(tables[0].notes.size(), 1u);
  EXPECT_EQ(tables[0].notes[0], "flushbyasid=on: not offered here (no FLUSHBYASID)");

  // Parts not offered for one reason: one note, the reason said once.
  const nlohmann::json two = {{{"part", "guest_memfd/threads=1"}, {"reason", "no gmem"}, {"not_offered", true}},
                              {{"part", "flushbyasid=on"}, {"reason", "no FLUSHBYASID"}, {"not_offered", true}},
                              {{"part", "guest_memfd/threads=2"}, {"reason", "no gmem"}, {"not_offered", true}}};
  EXPECT_EQ(not_offered_notes(run_with({{"status", "complete"}, {"skipped_parts", two}}, 3)),
            (std::vector<std::string>{"guest_memfd/threads=1, guest_memfd/threads=2: not offered here (no gmem)",
                                      "flushbyasid=on: not offered here (no FLUSHBYASID)"}));

  nlohmann::json both = skips;
  both.push_back({{"part", "tcp_rr"}, {"reason", "not built"}});
  EXPECT_EQ(incomplete_note(run_with({{"status", "complete"}, {"skipped_parts", both}}, 3)), "PARTIAL: 1 part skipped");
}
