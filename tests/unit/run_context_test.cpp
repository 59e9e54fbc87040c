#include <gtest/gtest.h>

#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

using namespace kvmbench;

// A part skipped for every variant or repetition (the 1G hugepage pool,
// pinned and unpinned) is recorded, and printed, once.
TEST(RunContext, TheSameSkipIsRecordedOnce) {
  suites::HostCaps caps;
  suites::RunContext ctx(caps, {}, 1, "/nonexistent", [](const Sample&) {});
  int shown = 0;
  ctx.progress = [&](const std::string&) { ++shown; };
  ctx.note_skip("hugetlb-1g/threads=1", "no 1G pages");
  ctx.note_skip("hugetlb-1g/threads=1", "no 1G pages");
  ctx.note_skip("hugetlb-1g/threads=2", "no 1G pages");
  ctx.note_skip("hugetlb-1g/threads=1", "another reason");
  ASSERT_EQ(ctx.skips().size(), 3u);
  EXPECT_EQ(ctx.skips()[0]["part"], "hugetlb-1g/threads=1");
  EXPECT_EQ(ctx.skips()[2]["reason"], "another reason");
  EXPECT_EQ(shown, 3);
}
