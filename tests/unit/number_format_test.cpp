#include "analysis/report/numbers.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

using kvmbench::format_fixed;

// The text printf writes (C's definition of %.Nf: the exact binary value,
// correctly rounded), for values of every size the tables print: counts
// past 2^53, percentages, exact binary ties (0.125 -> "0.12": the tie goes
// to even, as glibc's printf does), negatives and zero.
TEST(NumberFormat, FixedIsWhatPrintfWrites) {
  const double values[] = {0.0, -0.0, 1.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1e-7, 0.25000133411278497,
                           99.99995, 65538287.0, 26215174904.0, 9007199254740993.0, 1.2345678901234567e19,
                           1e22, -3.14159, 123.456789, 1.7976931348623157e308, 5e-324};
  for (double v : values)
    for (int d : {0, 1, 2, 4, 6}) {
      char want[400];
      std::snprintf(want, sizeof want, "%.*f", d, v);
      EXPECT_EQ(format_fixed(v, d), want) << v << " with " << d << " decimals";
    }
  EXPECT_EQ(format_fixed(26215174904.0, 0), "26215174904");
  EXPECT_EQ(format_fixed(0.25000133411278497, 4), "0.2500");
  EXPECT_EQ(format_fixed(std::numeric_limits<double>::quiet_NaN(), 2), "nan");
  EXPECT_EQ(format_fixed(-std::numeric_limits<double>::infinity(), 2), "-inf");
}

// The tables used fmt's "{:.Nf}" until now: the same text.
TEST(NumberFormat, FixedIsWhatFmtWrote) {
  for (double v = 0.00001; v < 1e12; v *= 3.7)
    for (int d : {0, 4}) EXPECT_EQ(format_fixed(v, d), fmt::format("{:.{}f}", v, d)) << v;
}
