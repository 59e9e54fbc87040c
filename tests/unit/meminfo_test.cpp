#include "analysis/parse/meminfo.h"

#include <gtest/gtest.h>

using namespace kvmbench;

static const char* kMeminfo =
    "MemTotal:       24684084 kB\n"
    "MemFree:         1000000 kB\n"
    "AnonHugePages:         0 kB\n"
    "FileHugePages:      6144 kB\n"
    "HugePages_Total:       4\n"
    "HugePages_Free:        3\n"
    "Hugepagesize:       2048 kB\n"
    "DirectMap4k:       32768 kB\n"
    "DirectMap2M:     2064384 kB\n"
    "DirectMap1G:    25165824 kB\n"
    "this line has no colon\n"
    "Weird:   12 MB\n";

TEST(Meminfo, ParsesKilobytesAsBytesAndCountsAsCounts) {
  auto m = parse_meminfo(kMeminfo);
  EXPECT_EQ(m.at("MemTotal"), 24684084ull * 1024);
  EXPECT_EQ(m.at("FileHugePages"), 6144ull * 1024);
  EXPECT_EQ(m.at("HugePages_Total"), 4u);
  EXPECT_EQ(m.at("HugePages_Free"), 3u);
  EXPECT_EQ(m.at("DirectMap1G"), 25165824ull * 1024);
  EXPECT_EQ(m.count("Weird"), 0u);  // unknown unit: skipped, not misread
  EXPECT_EQ(m.size(), 10u);
}

TEST(Meminfo, SingleFieldWithoutFullParse) {
  EXPECT_EQ(meminfo_field(kMeminfo, "DirectMap2M"), 2064384ull * 1024);
  EXPECT_EQ(meminfo_field(kMeminfo, "HugePages_Free"), 3u);
  EXPECT_FALSE(meminfo_field(kMeminfo, "DirectMap").has_value());  // no prefix match
  EXPECT_FALSE(meminfo_field(kMeminfo, "NoSuchField").has_value());
}

TEST(Meminfo, PerNodeFormatDropsNodePrefix) {
  auto m = parse_meminfo(
      "Node 0 MemTotal:       24684084 kB\n"
      "Node 0 MemFree:          512 kB\n"
      "Node 0 HugePages_Total:     2\n");
  EXPECT_EQ(m.at("MemTotal"), 24684084ull * 1024);
  EXPECT_EQ(m.at("MemFree"), 512ull * 1024);
  EXPECT_EQ(m.at("HugePages_Total"), 2u);
  EXPECT_EQ(meminfo_field("Node 1 MemFree:   4 kB\n", "MemFree"), 4096u);
}

TEST(Meminfo, EmptyTextGivesEmptyMap) { EXPECT_TRUE(parse_meminfo("").empty()); }
