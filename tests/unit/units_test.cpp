#include "analysis/model/units.h"

#include <gtest/gtest.h>

using kvmbench::format_bytes;
using kvmbench::parse_bytes;

TEST(Units, ParsesBinaryMultiples) {
  EXPECT_EQ(parse_bytes("4K"), 4096ull);
  EXPECT_EQ(parse_bytes("5G"), 5ull << 30);
  EXPECT_EQ(parse_bytes("2T"), 2ull << 40);
  EXPECT_EQ(parse_bytes("100M"), 100ull << 20);
  EXPECT_EQ(parse_bytes("1GiB"), 1ull << 30);
  EXPECT_EQ(parse_bytes("512"), 512ull);
  EXPECT_EQ(parse_bytes(" 1g "), 1ull << 30);
}

TEST(Units, RejectsMalformed) {
  EXPECT_FALSE(parse_bytes(""));
  EXPECT_FALSE(parse_bytes("G"));
  EXPECT_FALSE(parse_bytes("3Q"));
  EXPECT_FALSE(parse_bytes("-1G"));
  EXPECT_FALSE(parse_bytes("1.5G"));
  EXPECT_FALSE(parse_bytes("99999999999999999999"));
  EXPECT_FALSE(parse_bytes("20000000P"));
}

TEST(Units, FormatsExactMultiples) {
  EXPECT_EQ(format_bytes(1ull << 30), "1G");
  EXPECT_EQ(format_bytes(2ull << 40), "2T");
  EXPECT_EQ(format_bytes(1536), "1536");
  EXPECT_EQ(format_bytes(0), "0");
}
