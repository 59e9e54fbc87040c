// The make_shared host preset's tables (suites/make_shared/report.h,
// measured_tables): user-space figures per nr_pages, mean ±95% CI, each
// cell in the unit its own size reads in. Expected cells by hand.
#include <gtest/gtest.h>

#include "analysis/report/summary_cell.h"
#include "suites/make_shared/report.h"

using namespace kvmbench;

namespace {
Sample s(const char* c, const char* variant, const char* metric, const char* unit, double v, int it) {
  return {c, variant, metric, unit, v, it, false, {}};
}
}  // namespace

TEST(MakeSharedMeasured, GuestMemfdOpsAndConversionsPerNrPages) {
  const std::vector<Sample> samples = {
      // 3 and 5 us: mean 4.00 us, sd 1.414 us; half-width of the 95% CI
      // t(0.975, 1) * sd / sqrt(2) = 12.706 * 1 = 12.7 us: the CI would
      // reach below zero, so it shows its high end, 16.7 us -> "≤17".
      s("nr_pages=1", "guest_memfd", "gmem_create_time", "ns", 3000, 0),
      s("nr_pages=1", "guest_memfd", "gmem_create_time", "ns", 5000, 1),
      // 0.5 and 1.5 GB/s: mean 1.00 GB/s, sd 0.707, half-width 6.35: high
      // end 7.35 -> "≤7.4".
      s("nr_pages=1", "guest_memfd", "gmem_fallocate_rate", "GB/s", 0.5, 0),
      s("nr_pages=1", "guest_memfd", "gmem_fallocate_rate", "GB/s", 1.5, 1),
      // One conversion of 1.5e7 cycles: "15.0 M cycles", no CI.
      s("nr_pages=16384", "sw_protected", "to_shared_cycles", "cycles", 1.5e7, 0),
  };
  const auto tables = suites::make_shared::report_tables(samples, "hardware");
  ASSERT_EQ(tables.size(), 2u);
  const Table& g = tables[0];
  EXPECT_EQ(g.title, "guest_memfd operations per nr_pages");
  ASSERT_EQ(g.columns.size(), 5u);
  EXPECT_EQ(text_rows(g).at(0), (std::vector<std::string>{"1", "4.00 ≤17 us", "-", "-", "1.00 ≤7.4 GB/s"}));
  ASSERT_TRUE(g.rows[0][1].value);
  EXPECT_DOUBLE_EQ(*g.rows[0][1].value, 4000);  // in the samples' unit, ns
  EXPECT_EQ(g.rows[0][1].unit, "ns");
  ASSERT_TRUE(g.chart);
  EXPECT_EQ(g.columns[g.chart->value].header, "fallocate rate");
  EXPECT_NE(g.notes[0].find("n = 2, counting repetitions"), std::string::npos) << g.notes[0];
  ASSERT_GE(g.notes.size(), 2u);
  EXPECT_EQ(g.notes[1], kCiBoundNote);

  const Table& c = tables[1];
  EXPECT_EQ(c.columns[1].header, "VM type");
  EXPECT_EQ(text_rows(c).at(0), (std::vector<std::string>{"16384", "sw_protected", "15.0 M cycles", "-", "-"}));
  EXPECT_NE(c.notes[0].find("n = 1, counting conversions"), std::string::npos) << c.notes[0];

  // No user-space samples: no such tables.
  EXPECT_TRUE(suites::make_shared::measured_tables({}, "hardware").empty());
}
