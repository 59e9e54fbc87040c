// Kernel releases in the order kernel developers read them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/parse/kernel_release_order.h"

using kvmbench::compare_kernel_releases;
using kvmbench::kernel_release_less;

TEST(KernelReleaseOrder, ReleaseCandidatesComeBeforeTheirRelease) {
  std::vector<std::string> v = {"6.10-rc1", "6.9.1", "6.9", "6.9-rc7", "6.9-rc1", "6.10", "6.8.12", "6.9-rc10"};
  std::sort(v.begin(), v.end(), kernel_release_less);
  EXPECT_EQ(v, (std::vector<std::string>{"6.8.12", "6.9-rc1", "6.9-rc7", "6.9-rc10", "6.9", "6.9.1", "6.10-rc1",
                                         "6.10"}));
}

TEST(KernelReleaseOrder, ZeroComponentsAndDistributionSuffixes) {
  EXPECT_EQ(compare_kernel_releases("6.9", "6.9.0"), 0);
  EXPECT_LT(compare_kernel_releases("6.1.0-9-amd64", "6.1.0-27-amd64"), 0);  // natural, not byte order
  EXPECT_LT(compare_kernel_releases("6.1.0-27-amd64", "6.12.9+bpo-amd64"), 0);
  EXPECT_LT(compare_kernel_releases("6.12.0-rc3-00012-gdeadbeef", "6.12.0"), 0);
  EXPECT_LT(compare_kernel_releases("6.12.0-rc3-00012-gdeadbeef", "6.12.0-rc3-00150-gfeedface"), 0);
  EXPECT_GT(compare_kernel_releases("unknown", "6.1"), 0);  // no number: after every numbered release
  EXPECT_EQ(compare_kernel_releases("6.18.0-kvm", "6.18.0-kvm"), 0);
}
