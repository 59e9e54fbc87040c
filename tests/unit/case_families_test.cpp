// The check of units the tables and db import share (analysis/model/
// case_families.h): a series in two units, and a pooled family whose cases
// are in two units, as group_by_case groups them.
#include "analysis/model/case_families.h"

#include <gtest/gtest.h>

#include "analysis/series/series_values.h"

using namespace kvmbench;

namespace {

Sample sample(std::string case_name, std::string unit, bool warmup = false) {
  return Sample{std::move(case_name), "", "time", std::move(unit), 1.0, 0, warmup, {}};
}

}  // namespace

TEST(CaseFamilies, ASeriesInTwoUnitsIsNamed) {
  EXPECT_EQ(mixed_units_problem({sample("a", "ms"), sample("a", "ms")}), std::nullopt);
  EXPECT_EQ(mixed_units_problem({sample("a", "ms"), sample("b", "s")}), std::nullopt);
  EXPECT_EQ(mixed_units_problem({sample("a", "ms"), sample("a", "s")}), "series a/time mixes units 'ms' and 's'");
  // A warm-up sample is in no table.
  EXPECT_EQ(mixed_units_problem({sample("a", "ms"), sample("a", "s", true)}), std::nullopt);
  EXPECT_EQ(mixed_units_problem({sample("a", "ms"), sample("a", "s\xff")}),
            "series a/time mixes units 'ms' and 's\\xff'");
}

// 25 cases of the family "group": pooled into one table past 24, where
// group=24's seconds meet the others' milliseconds; shown one by one, not.
TEST(CaseFamilies, APooledFamilyIsOneSeries) {
  std::vector<Sample> samples;
  for (int g = 0; g < 25; ++g) samples.push_back(sample("group=" + std::to_string(g), g == 24 ? "s" : "ms"));
  EXPECT_TRUE(family_pooled("group", 25, 25, kMaxCases));
  EXPECT_FALSE(family_pooled("group", 24, 30, kMaxCases));
  EXPECT_FALSE(family_pooled("group", 25, 25, 0));
  // Cases without a key are different things (benchmarks, tests), never pooled.
  EXPECT_FALSE(family_pooled("", 148, 148, kMaxCases));
  EXPECT_EQ(mixed_units_problem(samples, 0), std::nullopt);
  EXPECT_EQ(mixed_units_problem(samples), "series group=24/time mixes units 'ms' and 's'");
  // As the tables group them.
  EXPECT_NO_THROW(group_by_case(samples, 0));
  EXPECT_THROW(group_by_case(samples, kMaxCases), std::runtime_error);
  samples.pop_back();
  EXPECT_EQ(mixed_units_problem(samples), std::nullopt);
  EXPECT_NO_THROW(group_by_case(samples, kMaxCases));
}
