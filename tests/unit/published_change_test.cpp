#include "analysis/verdicts/published_change.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kvmbench;

// {1, 2, 3}: mean 2, sd 1, t(0.95; 2) = 2.919986 (closed form for 2 df:
// (2p - 1) / sqrt(2 p (1 - p))): 2 + 2.919986 / sqrt(3) = 3.685854.
TEST(PublishedChange, MeanUpperBoundByHand) {
  EXPECT_NEAR(mean_upper_bound({1, 2, 3}, 0.95), 3.685854, 1e-5);
  EXPECT_TRUE(std::isnan(mean_upper_bound({1}, 0.95)));
}

// Both sides e^{-0.01, 0, 0.01}, a time: the one-sided 95 % bounds are
// +-0.017407 on the logs (gate_test.cpp derives it): a regression beyond
// (e^0.017407 - 1) = 1.756 % and an improvement beyond 1 - e^-0.017407 =
// 1.726 % are excluded, and the sentence says both and neither is shown.
TEST(PublishedChange, BothEndsOfAnAaComparison) {
  const std::vector<double> v = {std::exp(-0.01), 1.0, std::exp(0.01)};
  const PublishedChange c = published_change(change_model(v, v, Direction::lower_is_better), 0.95);
  EXPECT_NEAR(c.worse_pct, 0, 1e-9);
  EXPECT_NEAR(c.worse_bound_pct, 1.7559, 5e-4);
  EXPECT_NEAR(c.better_bound_pct, 1.7256, 5e-4);
  const std::string s = published_change_sentence(c, 0.95, "A/A");
  EXPECT_NE(s.find("the data exclude a regression beyond 1.8% (95%) and cannot exclude a smaller one"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("an improvement beyond 1.7% is excluded (95%)"), std::string::npos) << s;
}
