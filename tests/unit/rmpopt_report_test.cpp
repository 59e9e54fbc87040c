#include "suites/rmpopt/report.h"

#include <gtest/gtest.h>

#include <string>

using namespace kvmbench;

namespace {

std::vector<Sample> cycle_groups(int groups) {
  std::vector<Sample> s;
  for (int g = 1; g <= groups; ++g)
    for (const char* stat : {"largest", "smallest", "average"})
      s.push_back({"group=" + std::to_string(g), "", std::string("rmpopt_cycles_") + stat, "cycles",
                   1000.0 * g + (stat[0] == 'l' ? 1 : stat[0] == 's' ? 2 : 3), 0, false, {}});
  return s;
}

}  // namespace

// The document's two groups sit side by side (a column each); a long log's
// thousands of groups only fit as a row each.
TEST(RmpoptReport, CycleStatsAcrossForFewGroupsDownForMany) {
  auto few = suites::rmpopt::report_tables(cycle_groups(2), "replay", "all-cpus", std::nullopt);
  ASSERT_FALSE(few.empty());
  ASSERT_EQ(few[0].columns.size(), 3u);
  EXPECT_EQ(few[0].columns[1].header, "group=1");
  EXPECT_EQ(few[0].rows[0][0], "largest");
  EXPECT_EQ(few[0].rows[0][2], "2001");  // group 2, largest

  auto many = suites::rmpopt::report_tables(cycle_groups(6), "replay", "all-cpus", 2.0);
  ASSERT_GE(many.size(), 2u);
  ASSERT_EQ(many[0].columns.size(), 4u);
  EXPECT_EQ(many[0].columns[1].header, "largest");
  ASSERT_EQ(many[0].rows.size(), 6u);
  EXPECT_EQ(many[0].rows[5][0], "group=6");
  EXPECT_EQ(many[0].rows[5][2], "6002");  // smallest
  // The wall-time table follows the same layout: 6003 cycles / 2 GHz.
  EXPECT_EQ(many[1].rows[5][3], "3001.5");
}
