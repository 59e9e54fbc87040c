// Statistics against independent reference values: NIST StRD certified
// values, closed forms of the t and normal distributions, and small cases
// worked out by hand in the comments.
#include "analysis/stats/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/parse/plain_numbers.h"

namespace kvmbench::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double rel_err(double got, double want) { return std::fabs(got - want) / std::fabs(want); }

std::vector<double> load_nist(const std::string& name) {
  std::string path = std::string(KVMBENCH_TEST_DATA) + "/nist/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_plain_numbers(ss.str()).values;
}

// NumAcc2..4 as NIST defines them: 1001 values, the first is c + 0.2, then
// 500 pairs c + 0.1, c + 0.3. Certified mean c + 0.2, sd 0.1.
std::vector<double> numacc(double first, double low, double high) {
  std::vector<double> xs{first};
  for (int i = 0; i < 500; ++i) {
    xs.push_back(low);
    xs.push_back(high);
  }
  return xs;
}

// ---------------------------------------------------------------- NIST StRD

struct Certified {
  const char* file;
  std::size_t n;
  double mean, sd;
};

// Certified values (15 significant digits) from the NIST StRD univariate
// pages; the data files carry them in their header too. We require 12
// significant digits: relative error <= 1e-12.
TEST(StatisticsNist, RealWorldAndPiDigitsMatchCertifiedValues) {
  const Certified sets[] = {
      {"Lew.dat", 200, -177.435000000000, 277.332168044316},
      {"Lottery.dat", 218, 518.958715596330, 291.699727470969},
      {"Mavro.dat", 50, 2.00185600000000, 0.000429123454003053},
      {"Michelso.dat", 100, 299.852400000000, 0.0790105478190518},
      {"PiDigits.dat", 5000, 4.53480000000000, 2.86733906028871},
  };
  for (const auto& c : sets) {
    SCOPED_TRACE(c.file);
    auto xs = load_nist(c.file);
    ASSERT_EQ(xs.size(), c.n);
    Summary s = summarize(xs);
    EXPECT_EQ(s.n, c.n);
    EXPECT_LE(rel_err(s.mean, c.mean), 1e-12) << s.mean;
    EXPECT_LE(rel_err(s.stddev, c.sd), 1e-12) << s.stddev;
  }
}

TEST(StatisticsNist, NumAcc1) {
  std::vector<double> xs{10000001, 10000003, 10000002};
  Summary s = summarize(xs);
  EXPECT_EQ(s.mean, 10000002);  // integers: exact
  EXPECT_LE(rel_err(s.stddev, 1.0), 1e-15);
  EXPECT_EQ(s.median, 10000002);
  EXPECT_EQ(s.min, 10000001);
  EXPECT_EQ(s.max, 10000003);
}

TEST(StatisticsNist, NumAcc2) {
  auto xs = numacc(1.2, 1.1, 1.3);
  Summary s = summarize(xs);
  EXPECT_EQ(s.n, 1001u);
  EXPECT_LE(rel_err(s.mean, 1.2), 1e-14);
  EXPECT_LE(rel_err(s.stddev, 0.1), 1e-12);
}

// NumAcc3 and NumAcc4: 1000000.1 and 10000000.1 are not binary fractions;
// storing them as doubles moves each by up to half an ulp (2^-34 ~ 5.8e-11
// near 1e6, 2^-30 ~ 9.3e-10 near 1e7). Against sd = 0.1 that alone allows a
// relative error of about 1.2e-9 and 1.9e-8: the data do not allow 12 digits
// of the certified sd. So we check (1) the certified values to what the
// representation allows, and (2) 12 digits against the exact statistics of
// the data as stored: x - c is exact for these x and c = 1e6 / 1e7
// (Sterbenz), and the small differences have no cancellation problem, so a
// naive computation on them is an independent reference.
void check_stiff(const std::vector<double>& xs, double shift, double certified_mean,
                 double sd_tolerance) {
  Summary s = summarize(xs);
  EXPECT_LE(rel_err(s.mean, certified_mean), 1e-15);
  EXPECT_LE(rel_err(s.stddev, 0.1), sd_tolerance) << s.stddev;

  std::vector<double> d;
  for (double x : xs) d.push_back(x - shift);  // exact
  double sum = 0;
  for (double v : d) sum += v;
  double dmean = sum / static_cast<double>(d.size());
  double ss = 0;
  for (double v : d) ss += (v - dmean) * (v - dmean);
  double ref_sd = std::sqrt(ss / static_cast<double>(d.size() - 1));
  EXPECT_LE(rel_err(s.stddev, ref_sd), 1e-12) << s.stddev << " vs " << ref_sd;
  // The mean of the stored data, to within one ulp of the shifted mean.
  double ref_mean = shift + dmean;
  EXPECT_LE(std::fabs(s.mean - ref_mean), std::nextafter(ref_mean, kInf) - ref_mean);
}

TEST(StatisticsNist, NumAcc3) {
  check_stiff(numacc(1000000.2, 1000000.1, 1000000.3), 1000000.0, 1000000.2, 2e-9);
}

TEST(StatisticsNist, NumAcc4) {
  check_stiff(numacc(10000000.2, 10000000.1, 10000000.3), 10000000.0, 10000000.2, 3e-8);
}

// ----------------------------------------------------------- Summary basics

TEST(StatisticsSummary, SmallSampleByHand) {
  // {1,2,3,4,5}: mean 3, squared deviations 4+1+0+1+4 = 10, var 10/4 = 2.5,
  // sd = sqrt(2.5) = 1.5811388300841898, cv = sd/3. CI half-width =
  // t_{0.975,4} * sd / sqrt(5) = 2.776445105197799 * sqrt(0.5)
  // = 1.9632431...
  std::vector<double> xs{5, 1, 4, 2, 3};
  Summary s = summarize(xs);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(2.5) / 3);
  double half = 2.776445105197799 * std::sqrt(0.5);
  EXPECT_NEAR(s.ci95_low, 3 - half, 1e-12);
  EXPECT_NEAR(s.ci95_high, 3 + half, 1e-12);
}

TEST(StatisticsSummary, EvenMedianNegativeMeanCv) {
  std::vector<double> xs{-4, -1, -2, -3};
  Summary s = summarize(xs);
  EXPECT_DOUBLE_EQ(s.median, -2.5);
  EXPECT_DOUBLE_EQ(s.mean, -2.5);
  EXPECT_GT(s.cv, 0);  // cv uses |mean|
}

TEST(StatisticsSummary, SingleValueHasNoSpread) {
  std::vector<double> xs{42};
  Summary s = summarize(xs);
  EXPECT_EQ(s.mean, 42);
  EXPECT_EQ(s.median, 42);
  EXPECT_TRUE(std::isnan(s.stddev));
  EXPECT_TRUE(std::isnan(s.ci95_low));
  EXPECT_TRUE(std::isnan(s.ci95_high));
  EXPECT_TRUE(std::isnan(s.cv));
}

TEST(StatisticsSummary, ZeroMeanCvIsNaN) {
  std::vector<double> xs{-1, 1};
  EXPECT_TRUE(std::isnan(summarize(xs).cv));
}

TEST(StatisticsSummary, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{1, kNaN}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{1, kInf}), std::invalid_argument);
}

TEST(StatisticsSummary, FromMoments) {
  Summary s = summary_from_moments(10, 2, 4);
  EXPECT_EQ(s.n, 4u);
  EXPECT_EQ(s.mean, 10);
  EXPECT_EQ(s.stddev, 2);
  EXPECT_DOUBLE_EQ(s.cv, 0.2);
  EXPECT_TRUE(std::isnan(s.min) && std::isnan(s.median) && std::isnan(s.max));
  // half-width t_{0.975,3} * 2 / sqrt(4) = 3.182446305284263
  EXPECT_NEAR(s.ci95_high - s.mean, 3.182446305284263, 1e-12);
  EXPECT_THROW(summary_from_moments(1, 1, 0), std::invalid_argument);
  EXPECT_THROW(summary_from_moments(1, -1, 3), std::invalid_argument);
}

// ------------------------------------------------------------ distributions

TEST(StatisticsDistributions, TQuantilesKnownValues) {
  EXPECT_LE(rel_err(student_t_quantile(0.975, 1), 12.706204736174707), 1e-12);
  EXPECT_LE(rel_err(student_t_quantile(0.975, 10), 2.228138851986274), 1e-12);
  EXPECT_LE(rel_err(student_t_quantile(0.975, kInf), 1.959963984540054), 1e-12);
  EXPECT_LE(rel_err(student_t_quantile(0.975, 1e9), 1.959963984540054), 1e-8);
  EXPECT_LE(rel_err(student_t_quantile(0.025, 10), -2.228138851986274), 1e-12);
  EXPECT_TRUE(std::isnan(student_t_quantile(0, 10)));
  EXPECT_TRUE(std::isnan(student_t_quantile(0.5, 0)));
}

TEST(StatisticsDistributions, TCdfClosedForms) {
  // df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi.
  // df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
  for (double t : {-30.0, -3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 12.7}) {
    EXPECT_NEAR(student_t_cdf(t, 1), 0.5 + std::atan(t) / M_PI, 1e-12) << t;
    EXPECT_NEAR(student_t_cdf(t, 2), 0.5 + t / (2 * std::sqrt(2 + t * t)), 1e-12) << t;
  }
  EXPECT_NEAR(student_t_cdf(2.228138851986274, 10), 0.975, 1e-12);
  EXPECT_NEAR(student_t_cdf(12.706204736174707, 1), 0.975, 1e-12);
  EXPECT_NEAR(student_t_cdf(1.959963984540054, kInf), 0.975, 1e-12);
}

TEST(StatisticsDistributions, NormalAgainstErfc) {
  // Phi(z) = erfc(-z / sqrt 2) / 2, from the C library, not Boost.
  for (double z : {-8.0, -3.0, -1.0, 0.0, 0.3, 1.959963984540054, 5.0})
    EXPECT_NEAR(normal_cdf(z), 0.5 * std::erfc(-z / std::sqrt(2.0)), 1e-15) << z;
  EXPECT_LE(rel_err(normal_quantile(0.975), 1.959963984540054), 1e-14);
  EXPECT_EQ(normal_quantile(0.5), 0);
  EXPECT_TRUE(std::isnan(normal_quantile(1)));
}

// --------------------------------------------------------------------- Welch

TEST(StatisticsWelch, EqualVarianceWorkedExample) {
  // a = {1,2,3}: mean 2, var 1;  b = {4,5,6}: mean 5, var 1.
  // se^2 = 1/3 + 1/3 = 2/3;  t = (2 - 5) / sqrt(2/3) = -3 sqrt(1.5)
  //   = -3.6742346141747673.
  // df = (2/3)^2 / ((1/3)^2/2 + (1/3)^2/2) = (4/9) / (1/9) = 4.
  // For df = 4 the t cdf has the closed form
  //   F(t) = 1/2 + 3/8 * x^(1/2) * (1 - x/12),  x = t^2 / (1 + t^2/4), t > 0.
  // t^2 = 13.5, x = 13.5 / 4.375 = 3.0857142857142857, sqrt(x) = 1.7566201313,
  // 1 - x/12 = 0.7428571428571429, F = 0.5 + 0.375 * 1.30491... = 0.98934418
  // p = 2 (1 - F) = 0.0213116411...
  std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  TestResult r = welch_t_test(summarize(a), summarize(b));
  EXPECT_NEAR(r.statistic, -3 * std::sqrt(1.5), 1e-13);
  EXPECT_NEAR(r.df, 4, 1e-13);
  double t = 3 * std::sqrt(1.5), x = t * t / (1 + t * t / 4);
  double F = 0.5 + 0.375 * std::sqrt(x) * (1 - x / 12);
  EXPECT_NEAR(r.p, 2 * (1 - F), 1e-12);
  EXPECT_NEAR(r.p, 0.0213116411, 1e-10);
  // Order reverses the sign only.
  TestResult back = welch_t_test(summarize(b), summarize(a));
  EXPECT_NEAR(back.statistic, -r.statistic, 1e-13);
  EXPECT_NEAR(back.p, r.p, 1e-15);
}

TEST(StatisticsWelch, UnequalVarianceFromMoments) {
  // a: mean 3, var 2.5, n 5 ({1..5});  b: mean 6, var 10, n 5 ({2,4,..,10}).
  // se_a^2 = 0.5, se_b^2 = 2, se^2 = 2.5, t = -3 / sqrt(2.5) = -sqrt(3.6)
  //   = -1.8973665961010275.
  // df = 2.5^2 / (0.5^2/4 + 2^2/4) = 6.25 / 1.0625 = 100/17 = 5.882352941...
  // p = 2 P(T_{100/17} > sqrt 3.6) = 0.1075312 (Boost; not integral df).
  Summary a = summary_from_moments(3, std::sqrt(2.5), 5);
  Summary b = summary_from_moments(6, std::sqrt(10.0), 5);
  TestResult r = welch_t_test(a, b);
  EXPECT_NEAR(r.statistic, -std::sqrt(3.6), 1e-13);
  EXPECT_NEAR(r.df, 100.0 / 17, 1e-12);
  EXPECT_NEAR(r.p, 2 * student_t_cdf(-std::sqrt(3.6), 100.0 / 17), 1e-14);
  // The same from the raw data.
  std::vector<double> ra{1, 2, 3, 4, 5}, rb{2, 4, 6, 8, 10};
  TestResult raw = welch_t_test(summarize(ra), summarize(rb));
  EXPECT_NEAR(raw.p, r.p, 1e-13);
  // df lies between min(n)-1 and na+nb-2.
  EXPECT_GT(r.df, 4);
  EXPECT_LT(r.df, 8);
}

TEST(StatisticsWelch, ConstantSamplesAndTooSmall) {
  std::vector<double> c{2, 2, 2}, d{3, 3, 3};
  EXPECT_EQ(welch_t_test(summarize(c), summarize(c)).p, 1);
  TestResult r = welch_t_test(summarize(c), summarize(d));
  EXPECT_EQ(r.p, 0);
  EXPECT_TRUE(std::isinf(r.statistic) && r.statistic < 0);
  std::vector<double> one{1};
  EXPECT_THROW(welch_t_test(summarize(one), summarize(c)), std::invalid_argument);
}

// -------------------------------------------------------------- Mann-Whitney

TEST(StatisticsMannWhitney, ExactThreeVsThree) {
  // m = n = 3: C(6,3) = 20 equally likely orderings. The number with U = u
  // (u = 0..9) is the number of partitions of u into at most 3 parts of at
  // most 3: 1 1 2 3 3 3 3 2 1 1 (sum 20).
  // Fully separated, a below b: U_a = 0, P(U <= 0) = 1/20, p = 2/20 = 0.1.
  std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  TestResult r = mann_whitney_u(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.statistic, 0);
  EXPECT_NEAR(r.p, 0.1, 1e-15);
  // a above b: U_a = 9, P(U >= 9) = 1/20, p = 0.1 again.
  r = mann_whitney_u(b, a);
  EXPECT_EQ(r.statistic, 9);
  EXPECT_NEAR(r.p, 0.1, 1e-15);
  // a = {1,2,4}, b = {3,5,6}: only 4 > 3, U_a = 1; P(U <= 1) = 2/20, p = 0.2.
  std::vector<double> a2{1, 2, 4}, b2{3, 5, 6};
  r = mann_whitney_u(a2, b2);
  EXPECT_EQ(r.statistic, 1);
  EXPECT_NEAR(r.p, 0.2, 1e-15);
  // a = {1,4,5}, b = {2,3,6}: 4>2, 4>3, 5>2, 5>3, U_a = 4;
  // P(U <= 4) = (1+1+2+3+3)/20 = 0.5, so p = 1.
  std::vector<double> a3{1, 4, 5}, b3{2, 3, 6};
  r = mann_whitney_u(a3, b3);
  EXPECT_EQ(r.statistic, 4);
  EXPECT_NEAR(r.p, 1.0, 1e-15);
}

TEST(StatisticsMannWhitney, ExactUnequalSizesAndLarger) {
  // m = 2, n = 4: C(6,2) = 15 orderings; a = {1,2} below all of b:
  // U_a = 0, p = 2/15.
  std::vector<double> a{1, 2}, b{3, 4, 5, 6};
  TestResult r = mann_whitney_u(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p, 2.0 / 15, 1e-15);
  // m = n = 10 fully separated: p = 2 / C(20,10) = 2 / 184756.
  std::vector<double> lo, hi;
  for (int i = 0; i < 10; ++i) {
    lo.push_back(i);
    hi.push_back(100 + i);
  }
  r = mann_whitney_u(lo, hi);
  EXPECT_TRUE(r.exact);
  EXPECT_LE(rel_err(r.p, 2.0 / 184756), 1e-12);
  // m = n = 50 (the exact limit), fully separated: p = 2 / C(100,50),
  // C(100,50) = 100891344545564193334812497256.
  std::vector<double> l50, h50;
  for (int i = 0; i < 50; ++i) {
    l50.push_back(i);
    h50.push_back(1000 + i);
  }
  r = mann_whitney_u(l50, h50);
  EXPECT_TRUE(r.exact);
  EXPECT_LE(rel_err(r.p, 2.0 / 100891344545564193334812497256.0), 1e-10);
}

TEST(StatisticsMannWhitney, TiesUseNormalApproximation) {
  // a = {1,2,2,3}, b = {2,4,5,6}. Pooled: 1a 2a 2a 2b 3a 4b 5b 6b; the three
  // 2s share ranks 2,3,4 -> midrank 3. R_a = 1 + 3 + 3 + 5 = 12,
  // U_a = 12 - 4*5/2 = 2 (pairs: a=2 vs b=2 tie 1/2 twice, a=3 > b=2).
  // One tie group of t = 3: sum(t^3 - t) = 24. N = 8, mean U = 8,
  // var = 4*4/12 * (9 - 24/(8*7)) = (4/3) * (60/7) = 80/7.
  // z = (|2 - 8| - 0.5) / sqrt(80/7) = 5.5 / 3.3806170189 = 1.6269219404,
  // p = 2 (1 - Phi(z)) = erfc(z / sqrt 2) = 0.10375368 (R's wilcox.test
  // with correct = TRUE reports the same 0.1038).
  std::vector<double> a{1, 2, 2, 3}, b{2, 4, 5, 6};
  TestResult r = mann_whitney_u(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.statistic, 2);
  double z = 5.5 / std::sqrt(80.0 / 7);
  EXPECT_NEAR(r.p, std::erfc(z / std::sqrt(2.0)), 1e-14);
  EXPECT_NEAR(r.p, 0.10375368, 1e-8);
}

TEST(StatisticsMannWhitney, AllTiedAndLargeSamples) {
  std::vector<double> a{5, 5, 5}, b{5, 5};
  TestResult r = mann_whitney_u(a, b);
  EXPECT_EQ(r.p, 1);
  // Beyond n = 50 without ties: normal approximation, U still exact.
  std::vector<double> x, y;
  for (int i = 0; i < 60; ++i) {
    x.push_back(i);
    y.push_back(i + 0.5);
  }
  r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);
  // U_x = sum over x_i of #{y_j < x_i} = 0+1+...+59 = 1770; mean 1800.
  EXPECT_EQ(r.statistic, 1770);
  EXPECT_GT(r.p, 0.5);
  EXPECT_THROW(mann_whitney_u(std::vector<double>{}, y), std::invalid_argument);
}

// ------------------------------------------------------------------ Fieller

TEST(StatisticsChange, FiellerWorkedExample) {
  // base: mean b = 10, sd 1, n 5   -> vb = 1/5 = 0.2
  // cand: mean a = 12, sd 1.2, n 5 -> va = 1.44/5 = 0.288
  // rho = 1.2, change +20%. rho^2 vb = 0.288 = va, so the Satterthwaite df
  // of va + rho^2 vb is (2 va)^2 / (va^2/4 + va^2/4) = 8, t_{0.975,8} =
  // 2.306004135204166, t^2 = 5.317655071578713.
  // Quadratic (b^2 - t^2 vb) rho^2 - 2ab rho + (a^2 - t^2 va) = 0:
  //   denom = 100 - 0.2 t^2 = 98.936468985684257
  //   disc  = a^2 vb + b^2 va - t^2 va vb = 28.8 + 28.8 - 0.0576 t^2
  //         = 57.293703067877068
  //   rho = (120 -/+ t sqrt(disc)) / denom = 1.0364757835, 1.3893233426
  // -> change CI [+3.6475783, +38.9323343] %, asymmetric around +20%.
  Change c = relative_change(summary_from_moments(10, 1, 5), summary_from_moments(12, 1.2, 5));
  EXPECT_NEAR(c.pct, 20, 1e-12);
  const double t = 2.306004135204166, t2 = t * t;
  const double denom = 100 - 0.2 * t2, disc = 57.6 - 0.0576 * t2;
  EXPECT_NEAR(c.ci95_low, ((120 - t * std::sqrt(disc)) / denom - 1) * 100, 1e-9);
  EXPECT_NEAR(c.ci95_high, ((120 + t * std::sqrt(disc)) / denom - 1) * 100, 1e-9);
  EXPECT_NEAR(c.ci95_low, 3.6475783, 1e-6);
  EXPECT_NEAR(c.ci95_high, 38.9323343, 1e-6);
}

TEST(StatisticsChange, ConstantBaseReducesToPlainCi) {
  // vb = 0: the interval is a/b +- t_{0.975, n-1} se_a / b.
  // cand {9, 10, 11}: mean 10, sd 1, se 1/sqrt 3; base constant 8.
  // t_{0.975,2} = 4.302652729749464 -> ratio 1.25 +- 4.3026527 * 0.57735 / 8.
  std::vector<double> base{8, 8, 8}, cand{9, 10, 11};
  Change c = relative_change(summarize(base), summarize(cand));
  double half = 4.302652729749464 / std::sqrt(3.0) / 8 * 100;
  EXPECT_NEAR(c.pct, 25, 1e-12);
  EXPECT_NEAR(c.ci95_low, 25 - half, 1e-9);
  EXPECT_NEAR(c.ci95_high, 25 + half, 1e-9);
}

TEST(StatisticsChange, UnboundedAndDegenerate) {
  // Base mean not distinguishable from 0 (t^2 vb >= b^2): unbounded -> NaN.
  Change c = relative_change(summary_from_moments(1, 10, 3), summary_from_moments(5, 1, 3));
  EXPECT_NEAR(c.pct, 400, 1e-9);
  EXPECT_TRUE(std::isnan(c.ci95_low));
  EXPECT_TRUE(std::isnan(c.ci95_high));
  // Zero base mean: no relative change at all.
  c = relative_change(summary_from_moments(0, 1, 3), summary_from_moments(5, 1, 3));
  EXPECT_TRUE(std::isnan(c.pct));
  // n = 1: a point change, no CI.
  std::vector<double> one{2}, two{3, 5};
  c = relative_change(summarize(one), summarize(two));
  EXPECT_NEAR(c.pct, 100, 1e-12);
  EXPECT_TRUE(std::isnan(c.ci95_low));
  // No spread anywhere: the CI is the point.
  std::vector<double> b{4, 4}, k{5, 5};
  c = relative_change(summarize(b), summarize(k));
  EXPECT_EQ(c.ci95_low, 25);
  EXPECT_EQ(c.ci95_high, 25);
}

// Positive data whose Fieller interval is unbounded: the CI comes from the
// log scale. By hand: base {1, 4, 25}: mean 10, var 171, var of the mean
// 57, relative 57/100 = 0.57; cand = base / 5: mean 2, var of the mean
// 2.28, relative 2.28/4 = 0.57. Ratio 0.2. Fieller: t^2 vb = 2.776445^2 x
// 57 = 439.4 > b^2 = 100, unbounded. Equal relative variances and n = 3
// make the Satterthwaite df 2(n-1) = 4, t(0.975, 4) = 2.7764451051977987;
// half = t sqrt(0.57 + 0.57) = 2.9644321650666203; ratio bounds
// exp(ln 0.2 -+ half): -98.9682048921041 % and +287.6738675527358 %.
TEST(StatisticsChange, PositiveDataWithAnUnboundedFiellerIntervalUseTheLogScale) {
  std::vector<double> base{1, 4, 25}, cand{0.2, 0.8, 5};
  Change c = relative_change(summarize(base), summarize(cand));
  EXPECT_NEAR(c.pct, -80, 1e-9);
  EXPECT_TRUE(c.log_scale);
  EXPECT_NEAR(c.ci95_low, -98.9682048921041, 1e-9);
  EXPECT_NEAR(c.ci95_high, 287.6738675527358, 1e-9);
  // The same moments without the samples (no min to say they are positive)
  // keep Fieller's answer: unbounded.
  c = relative_change(summary_from_moments(10, std::sqrt(171.0), 3), summary_from_moments(2, std::sqrt(6.84), 3));
  EXPECT_FALSE(c.log_scale);
  EXPECT_TRUE(std::isnan(c.ci95_low));
  // A bounded Fieller interval above a ratio of 0 stays Fieller's.
  std::vector<double> b8{8, 8, 8}, c9{9, 10, 11};
  EXPECT_FALSE(relative_change(summarize(b8), summarize(c9)).log_scale);
}

// --------------------------------------------------------------------- Holm

TEST(StatisticsHolm, HandExample) {
  // p = {0.01, 0.04, 0.03, 0.005}, m = 4. Ascending with multipliers
  // 4,3,2,1: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04
  // -> running max 0.02, 0.03, 0.06, 0.06. In input order:
  // {0.03, 0.06, 0.06, 0.02}.
  std::vector<double> p{0.01, 0.04, 0.03, 0.005};
  auto adj = holm_adjust(p);
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_NEAR(adj[0], 0.03, 1e-15);
  EXPECT_NEAR(adj[1], 0.06, 1e-15);
  EXPECT_NEAR(adj[2], 0.06, 1e-15);
  EXPECT_NEAR(adj[3], 0.02, 1e-15);
}

TEST(StatisticsHolm, CapsAtOneKeepsNaNAndEmpty) {
  // {0.5, 0.6}: 0.5*2 = 1.0, 0.6*1 = 0.6 -> max 1.0: {1, 1}.
  auto adj = holm_adjust(std::vector<double>{0.6, 0.5});
  EXPECT_EQ(adj[0], 1);
  EXPECT_EQ(adj[1], 1);
  // NaN stays NaN and does not count: m = 2 for {0.01, NaN, 0.02}.
  adj = holm_adjust(std::vector<double>{0.01, kNaN, 0.02});
  EXPECT_NEAR(adj[0], 0.02, 1e-15);
  EXPECT_TRUE(std::isnan(adj[1]));
  EXPECT_NEAR(adj[2], 0.02, 1e-15);
  EXPECT_TRUE(holm_adjust(std::vector<double>{}).empty());
  // One test: unchanged.
  EXPECT_EQ(holm_adjust(std::vector<double>{0.03})[0], 0.03);
}

// ------------------------------------------------------------------ verdict

TEST(StatisticsVerdict, NotEnoughData) {
  Summary one = summary_from_moments(10, 0, 1), many = summary_from_moments(5, 1, 10);
  EXPECT_EQ(verdict(one, many, 0.001, Direction::lower_is_better), Verdict::not_enough_data);
  EXPECT_EQ(verdict(many, one, 0.001, Direction::lower_is_better), Verdict::not_enough_data);
  // min_n raises the bar.
  Summary three = summary_from_moments(5, 1, 3);
  EXPECT_EQ(verdict(three, many, 0.001, Direction::lower_is_better, 0.05, 5),
            Verdict::not_enough_data);
  EXPECT_EQ(verdict(many, many, kNaN, Direction::lower_is_better), Verdict::not_enough_data);
  EXPECT_EQ(to_string(Verdict::not_enough_data), "not enough data");
}

TEST(StatisticsVerdict, Direction) {
  Summary base = summary_from_moments(10, 1, 5), lower = summary_from_moments(8, 1, 5),
          higher = summary_from_moments(12, 1, 5);
  // Times: lower is better.
  EXPECT_EQ(verdict(base, lower, 0.01, Direction::lower_is_better), Verdict::faster);
  EXPECT_EQ(verdict(base, higher, 0.01, Direction::lower_is_better), Verdict::slower);
  // Rates: higher is better.
  EXPECT_EQ(verdict(base, higher, 0.01, Direction::higher_is_better), Verdict::faster);
  EXPECT_EQ(verdict(base, lower, 0.01, Direction::higher_is_better), Verdict::slower);
  // Unknown direction: a significant change, neither faster nor slower.
  EXPECT_EQ(verdict(base, lower, 0.01, Direction::unknown), Verdict::different);
  EXPECT_EQ(verdict(base, higher, 0.01, Direction::unknown), Verdict::different);
  EXPECT_EQ(verdict(base, lower, 0.5, Direction::unknown), Verdict::no_significant_difference);
  // Not significant, whatever the direction.
  EXPECT_EQ(verdict(base, lower, 0.05, Direction::lower_is_better),
            Verdict::no_significant_difference);
  EXPECT_EQ(verdict(base, lower, 0.2, Direction::higher_is_better, 0.05),
            Verdict::no_significant_difference);
  EXPECT_EQ(verdict(base, lower, 0.02, Direction::lower_is_better, 0.01),
            Verdict::no_significant_difference);
  EXPECT_EQ(to_string(Verdict::faster), "faster");
  EXPECT_EQ(to_string(Verdict::slower), "slower");
  EXPECT_EQ(to_string(Verdict::no_significant_difference), "no significant difference");
}

}  // namespace
}  // namespace kvmbench::stats
