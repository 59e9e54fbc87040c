// directmap host benchmarks at tiny sizes: structure only (units, counts,
// finite positive values, skip reasons), never timing ratios.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "suites/directmap/measure.h"

using namespace kvmbench;
using namespace kvmbench::host;
using namespace kvmbench::suites::directmap;

TEST(HostbenchDirectmap, EveryBackingRunsOrSaysWhyNot) {
  DirectmapHostParams p;
  p.setup_hugetlb_pools = false;  // hermetic: never resize the host's pools in a unit test
  p.bytes_per_thread = 1 << 20;
  p.threads = {1, 2};
  std::vector<Sample> got;
  BenchOutcome o = measure(p, [&](const Sample& s) { got.push_back(s); });
  EXPECT_EQ(o.samples, got.size());
  const std::map<std::string, std::string> units = {{"faultin_rate", "GB/s"},
                                                    {"faultin_rate_per_thread", "GB/s"},
                                                    {"faultin_time", "ns"},
                                                    {"write_bandwidth", "GB/s"},
                                                    {"thp_share", "%"}};
  // per (case, variant): how many per-thread rates arrived.
  std::map<std::pair<std::string, std::string>, int> per_thread;
  std::set<std::pair<std::string, std::string>> measured;
  std::map<std::pair<std::string, std::string>, int> thp_shares;
  for (const Sample& s : got) {
    ASSERT_TRUE(units.count(s.metric)) << s.metric;
    EXPECT_EQ(s.unit, units.at(s.metric));
    if (s.metric == "thp_share") {
      // A share, after the fault-in, of thp memory only, a value per thread.
      EXPECT_TRUE(s.value >= 0 && s.value <= 100) << s.value;
      EXPECT_EQ(s.case_name.rfind("thp/", 0), 0u) << s.case_name;
      EXPECT_TRUE(s.extra.contains("thread")) << s.extra.dump();
      ++thp_shares[{s.case_name, s.variant}];
    } else {
      EXPECT_TRUE(std::isfinite(s.value) && s.value > 0) << s.metric << " " << s.value;
    }
    EXPECT_TRUE(s.variant == "pinned" || s.variant == "unpinned") << s.variant;
    EXPECT_EQ(s.iteration, 0);
    measured.insert({s.case_name, s.variant});
    if (s.metric == "faultin_rate_per_thread") ++per_thread[{s.case_name, s.variant}];
  }
  for (const auto& [key, n] : per_thread)
    EXPECT_EQ(n, key.first.find("threads=2") != std::string::npos ? 2 : 1) << key.first;
  for (const auto& [key, n] : thp_shares)
    EXPECT_EQ(n, key.first.find("threads=2") != std::string::npos ? 2 : 1) << key.first;
  if (measured.count({"thp/threads=1", "pinned"})) EXPECT_EQ(thp_shares.count({"thp/threads=1", "pinned"}), 1u);
  for (const SkippedCase& s : o.skipped) {
    EXPECT_FALSE(s.reason.empty()) << s.case_name;
    EXPECT_FALSE(measured.count({s.case_name, s.variant})) << s.case_name << " both ran and skipped";
  }
  // Every backing x threads x variant is accounted for: measured or skipped.
  EXPECT_EQ(measured.size() + o.skipped.size(), all_backings().size() * 2 * 2);
  // Plain anonymous memory works on every Linux host.
  EXPECT_TRUE(measured.count({"anon-4k/threads=1", "unpinned"}));
}

TEST(HostbenchDirectmap, HugetlbWithoutAPoolIsSkippedWithTheReason) {
  // 1 GiB pages are almost never free in a pool on a test machine; when they
  // are, the case runs and this test has nothing to check.
  std::string why = directmap_backing_unavailable(Backing::hugetlb_1g, 1ULL << 40);
  EXPECT_NE(why.find("1048576"), std::string::npos) << why;
}

TEST(HostbenchDirectmap, UnknownBackingIsRejected) {
  EXPECT_THROW(parse_backing("tmpfs"), std::invalid_argument);
  DirectmapHostParams p;
  p.backings = {Backing::anon_4k};
  p.threads = {0};
  EXPECT_THROW(measure(p, [](const Sample&) {}), std::invalid_argument);
}
