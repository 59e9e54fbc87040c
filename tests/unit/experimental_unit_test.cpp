// The experimental unit (analysis/model/experimental_unit.h), against values
// derived by hand in the comments.
#include "analysis/model/experimental_unit.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kvmbench;

namespace {

Observation at(double v, int inv, int rep, std::string sub = "") { return {v, inv, rep, std::move(sub)}; }

}  // namespace

TEST(SubUnit, NamedByTheSamplesExtra) {
  Sample s;
  EXPECT_EQ(sub_unit_of(s), "");
  s.extra = {{"thread", 1}, {"backing", "thp"}};
  EXPECT_EQ(sub_unit_of(s), "thread=1");
  s.extra = {{"cpu", 3}, {"leader", 0}};
  EXPECT_EQ(sub_unit_of(s), "cpu=3");
  s.extra = {{"thread", "0"}};  // the guest workloads write it as text
  EXPECT_EQ(sub_unit_of(s), "thread=0");
  s.extra = {{"threads", 2}};  // a count of threads is a condition, not a sub-unit
  EXPECT_EQ(sub_unit_of(s), "");
}

// Two threads per repetition: each repetition is one unit, the mean of its
// threads. The pseudo-replication stored n = 6 for 3 x 2.
TEST(ExperimentalUnits, SubUnitsAreSummarisedWithinTheirRepetition) {
  const std::vector<Observation> obs = {at(9, 0, 0, "thread=0"),  at(11, 0, 0, "thread=1"), at(11, 0, 1, "thread=0"),
                                        at(13, 0, 1, "thread=1"), at(13, 0, 2, "thread=0"), at(15, 0, 2, "thread=1")};
  const ExperimentalUnits u = experimental_units(obs);
  EXPECT_EQ(u.level, UnitLevel::repetition);
  EXPECT_EQ(u.values, (std::vector<double>{10, 12, 14}));
  EXPECT_EQ(u.invocations, 1u);
  EXPECT_EQ(u.repetitions, 3u);
  EXPECT_EQ(u.most_per_repetition, 2u);
  EXPECT_EQ(u.sub_unit_kind, "thread");
}

TEST(ExperimentalUnits, SeveralInvocationsMakeTheInvocationTheUnit) {
  // Invocation 0: repetitions 1, 3 (mean 2); invocation 1: 5, 7 (mean 6).
  const std::vector<Observation> obs = {at(1, 0, 0), at(3, 0, 1), at(5, 1, 0), at(7, 1, 1)};
  const ExperimentalUnits u = experimental_units(obs);
  EXPECT_EQ(u.level, UnitLevel::invocation);
  EXPECT_EQ(u.values, (std::vector<double>{2, 6}));
  EXPECT_EQ(u.invocations, 2u);
  EXPECT_EQ(u.repetitions, 4u);
  EXPECT_EQ(u.most_per_repetition, 1u);
  EXPECT_EQ(u.sub_unit_kind, "");
}

TEST(ExperimentalUnits, UnnamedValuesOfOneRepetitionAreSubUnitsToo) {
  const ExperimentalUnits u = experimental_units(std::vector<Observation>{at(1, 0, 0), at(2, 0, 0), at(4, 0, 1)});
  EXPECT_EQ(u.values, (std::vector<double>{1.5, 4}));
  EXPECT_EQ(u.sub_unit_kind, "value");
}

TEST(ExperimentalUnits, NonFiniteValuesStayVisible) {
  const ExperimentalUnits u = experimental_units(std::vector<Observation>{at(NAN, 0, 0), at(1, 0, 1), at(INFINITY, 0, 2)});
  ASSERT_EQ(u.values.size(), 3u);
  EXPECT_TRUE(std::isnan(u.values[0]));
  EXPECT_EQ(u.values[1], 1);
  EXPECT_TRUE(std::isinf(u.values[2]));
}

// Three invocations of two repetitions: A 1, 3; B 5, 7; C 2, 4.
//   within:  each invocation's squared deviations sum to 2, over df 1 each:
//            T1^2 = (2 + 2 + 2) / 3 = 2
//   between: the means 2, 6, 3 (grand mean 11/3) have S2^2 =
//            ((5/3)^2 + (7/3)^2 + (2/3)^2) / 2 = (78/9) / 2 = 13/3, so
//            T2^2 = 13/3 - 2 * (1/2) = 10/3
//   with c2 / c1 = 15: r = sqrt(15 * 2 / (10/3)) = sqrt(9) = 3.
TEST(LevelVariance, KaliberaJonesComponentsAndRepetitions) {
  const std::vector<Observation> obs = {at(1, 0, 0), at(3, 0, 1), at(5, 1, 0), at(7, 1, 1), at(2, 2, 0), at(4, 2, 1)};
  const LevelVariance v = level_variance(obs);
  ASSERT_TRUE(v.known);
  EXPECT_DOUBLE_EQ(v.within, 2);
  EXPECT_NEAR(v.between, 10.0 / 3, 1e-15);
  EXPECT_EQ(v.invocations, 3u);
  EXPECT_DOUBLE_EQ(v.mean_repetitions, 2);
  EXPECT_EQ(optimal_repetitions(v, 15, 1), 3u);
  EXPECT_EQ(optimal_repetitions(v, 30, 2), 3u);  // only the ratio counts
  // c2 / c1 = 16: sqrt(9.6) = 3.098, rounded up to 4.
  EXPECT_EQ(optimal_repetitions(v, 16, 1), 4u);
  EXPECT_EQ(optimal_repetitions(v, 0.001, 1), 1u);  // at least one
  EXPECT_FALSE(optimal_repetitions(v, NAN, 1));
  EXPECT_FALSE(optimal_repetitions(v, 15, 0));
}

TEST(LevelVariance, NoNoiseBetweenInvocationsIsZeroNotNegative) {
  // Means 2 and 2.5 (S2^2 = 0.125) against within T1^2 = 2: 0.125 - 2/2 < 0.
  const LevelVariance v = level_variance(std::vector<Observation>{at(1, 0, 0), at(3, 0, 1), at(1.5, 1, 0), at(3.5, 1, 1)});
  ASSERT_TRUE(v.known);
  EXPECT_EQ(v.between, 0);
  EXPECT_FALSE(optimal_repetitions(v, 10, 1));  // more repetitions in fewer invocations always pay
}

TEST(LevelVariance, UnknownWithoutTwoLevelsOfTwo) {
  EXPECT_FALSE(level_variance(std::vector<Observation>{at(1, 0, 0), at(3, 0, 1)}).known);  // one invocation
  EXPECT_FALSE(level_variance(std::vector<Observation>{at(1, 0, 0), at(3, 1, 0), at(4, 1, 1)}).known);  // one rep
}

// Unequal repetitions: A 1, 3 (r 2), B 4, 6, 8 (r 3).
//   within:  (2 + 8) / (1 + 2) = 10/3
//   between: means 2, 6: S2^2 = 8; mean(1/r) = (1/2 + 1/3) / 2 = 5/12;
//            T2^2 = 8 - (10/3) (5/12) = 8 - 50/36 = 119/18.
TEST(LevelVariance, UnequalRepetitionsUseTheMeanOfOneOverR) {
  const LevelVariance v =
      level_variance(std::vector<Observation>{at(1, 0, 0), at(3, 0, 1), at(4, 1, 0), at(6, 1, 1), at(8, 1, 2)});
  ASSERT_TRUE(v.known);
  EXPECT_NEAR(v.within, 10.0 / 3, 1e-15);
  EXPECT_NEAR(v.between, 119.0 / 18, 1e-14);
  EXPECT_DOUBLE_EQ(v.mean_repetitions, 2.5);
}
