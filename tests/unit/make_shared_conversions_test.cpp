#include <gtest/gtest.h>

#include "suites/make_shared/report.h"

using namespace kvmbench;

namespace {
Sample conv(const std::string& c, const char* metric, double v, int it) {
  return {c, "", metric, "cycles", v, it, false, {}};
}
}  // namespace

// A conversion is the (case, iteration) pair of a make_shared and a total
// sample, wherever they are in the run: interleaved cases, iterations far
// apart or negative (found another way than the dense ones), a half pair
// left out.
TEST(MakeSharedConversions, PairsByCaseAndIterationWhereverTheyAre) {
  const std::vector<Sample> s = {
      conv("nr_pages=1", "make_shared_cycles", 10, 0),
      conv("nr_pages=2", "make_shared_cycles", 30, 0),
      conv("nr_pages=1", "make_shared_cycles", 20, 1000000),
      conv("nr_pages=2", "total_cycles", 300, 0),
      conv("nr_pages=1", "total_cycles", 200, 1000000),
      conv("nr_pages=1", "make_shared_cycles", 5, -3),
      conv("nr_pages=1", "total_cycles", 100, 0),
      conv("nr_pages=1", "total_cycles", 50, -3),
      conv("nr_pages=2", "make_shared_cycles", 7, -3),
      conv("nr_pages=2", "total_cycles", 70, -3),
      conv("nr_pages=2", "make_shared_cycles", 1, 7),  // no total: left out
  };
  const Table t = suites::make_shared::conversion_table(s, "replay");
  ASSERT_EQ(t.rows.size(), 5u);
  // In the order the conversions were first seen.
  const std::vector<std::vector<std::string>> want = {{"1", "10", "100", "10.0000%"},
                                                      {"2", "30", "300", "10.0000%"},
                                                      {"1", "20", "200", "10.0000%"},
                                                      {"1", "5", "50", "10.0000%"},
                                                      {"2", "7", "70", "10.0000%"}};
  EXPECT_EQ(text_rows(t), want);
}
