// Units scaled for reading (analysis/report/numbers.h); the expected values
// are worked out by hand.
#include "analysis/report/numbers.h"

#include <gtest/gtest.h>

#include <cmath>

using kvmbench::format_reading;
using kvmbench::reading_scale;

namespace {

TEST(ReadingScale, TimesGoUpToSeconds) {
  auto ms = reading_scale(402117733, "ns");  // 0.402 s
  EXPECT_EQ(ms.unit, "ms");
  EXPECT_DOUBLE_EQ(402117733 * ms.factor, 402.117733);
  EXPECT_EQ(reading_scale(812, "ns").unit, "ns");
  EXPECT_EQ(reading_scale(0.5, "ns").unit, "ns");  // below the smallest step: kept
  EXPECT_EQ(reading_scale(1500, "us").unit, "ms");
  auto s = reading_scale(7200e9, "ns");  // two hours stay in seconds
  EXPECT_EQ(s.unit, "s");
  EXPECT_DOUBLE_EQ(7200e9 * s.factor, 7200);
}

TEST(ReadingScale, BytesBinaryRatesDecimal) {
  auto gib = reading_scale(4294967296.0, "B");
  EXPECT_EQ(gib.unit, "GiB");
  EXPECT_DOUBLE_EQ(4294967296.0 * gib.factor, 4);
  auto gbs = reading_scale(12.5e9, "B/s");
  EXPECT_EQ(gbs.unit, "GB/s");
  EXPECT_DOUBLE_EQ(12.5e9 * gbs.factor, 12.5);
  auto mbs = reading_scale(0.5, "GB/s");  // 500 MB/s
  EXPECT_EQ(mbs.unit, "MB/s");
  EXPECT_DOUBLE_EQ(0.5 * mbs.factor, 500);
}

TEST(ReadingScale, CountsGetAPrefixFromTenThousand) {
  EXPECT_EQ(reading_scale(1234, "cycles").unit, "cycles");
  auto k = reading_scale(12345, "cycles");
  EXPECT_EQ(k.unit, "k cycles");
  EXPECT_DOUBLE_EQ(12345 * k.factor, 12.345);
  EXPECT_EQ(reading_scale(2.4e6, "pages/s").unit, "M pages/s");
  EXPECT_EQ(reading_scale(3e9, "/s").unit, "G/s");
  EXPECT_EQ(reading_scale(250, "%").unit, "%");
  EXPECT_EQ(reading_scale(NAN, "ns").unit, "ns");
}

TEST(FormatReading, ThreeSignificantDigits) {
  EXPECT_EQ(format_reading(402.117733), "402");
  EXPECT_EQ(format_reading(12.5), "12.5");
  EXPECT_EQ(format_reading(1.2345), "1.23");
  EXPECT_EQ(format_reading(0.0012), "0.00120");
  EXPECT_EQ(format_reading(123456), "123456");  // no digits dropped left of the point
  EXPECT_EQ(format_reading(-5.55, 2), "-5.5");  // 5.55 is 5.5499... in binary
  EXPECT_EQ(format_reading(NAN), "n/a");
  EXPECT_EQ(format_reading(0), "0");
}

}  // namespace
