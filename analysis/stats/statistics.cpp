// Descriptive and inferential statistics (see statistics.h for the contract).
// Distribution functions come from Boost.Math; nothing here hand-rolls a
// special function.
#include "analysis/stats/statistics.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace kvmbench::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Neumaier's compensated sum: keeps the rounding error of every addition in
// a second accumulator, so a sum of n values is accurate to about one
// rounding error instead of n of them.
struct CompensatedSum {
  double sum = 0, carry = 0;
  void add(double x) {
    double t = sum + x;
    if (std::fabs(sum) >= std::fabs(x))
      carry += (sum - t) + x;
    else
      carry += (x - t) + sum;
    sum = t;
  }
  double value() const { return sum + carry; }
};

void check_finite(std::span<const double> xs, const char* what) {
  for (double x : xs)
    if (!std::isfinite(x))
      throw std::invalid_argument(std::string(what) + ": non-finite value in the sample");
}

// Two-sided 95% CI half-width factor t_{0.975, df}.
double t975(double df) { return student_t_quantile(0.975, df); }

void fill_ci(Summary& s) {
  if (s.n < 2 || !std::isfinite(s.stddev)) {
    s.ci95_low = s.ci95_high = kNaN;
    return;
  }
  double half = t975(static_cast<double>(s.n - 1)) * s.stddev / std::sqrt(static_cast<double>(s.n));
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
}

double cv_of(double mean, double stddev) {
  if (mean == 0 || !std::isfinite(stddev)) return kNaN;
  return stddev / std::fabs(mean);
}

// Squared standard error of a mean.
double se2(const Summary& s) { return s.stddev * s.stddev / static_cast<double>(s.n); }

}  // namespace

Summary summarize(std::span<const double> xs) {
  if (xs.empty()) throw std::invalid_argument("summarize: empty sample");
  check_finite(xs, "summarize");
  Summary s;
  s.n = xs.size();
  const double n = static_cast<double>(s.n);

  // Mean: compensated sum, then one correction pass (the mean of the
  // residuals), which removes what rounding in the first pass left behind.
  CompensatedSum sum;
  for (double x : xs) sum.add(x);
  double mean = sum.value() / n;
  CompensatedSum resid;
  for (double x : xs) resid.add(x - mean);
  mean += resid.value() / n;
  s.mean = mean;

  // Variance: the corrected two-pass algorithm (Chan, Golub & LeVeque 1983):
  // sum of squared deviations minus (sum of deviations)^2 / n, where the
  // second term is the exact-arithmetic zero that rounding made non-zero.
  if (s.n >= 2) {
    CompensatedSum sq, dev;
    for (double x : xs) {
      double d = x - mean;
      sq.add(d * d);
      dev.add(d);
    }
    double ss = sq.value() - dev.value() * dev.value() / n;
    s.stddev = std::sqrt(std::max(ss, 0.0) / (n - 1));
  } else {
    s.stddev = kNaN;  // n - 1 = 0: no spread can be estimated from one value
  }

  // Median by selection, not a full sort (a long log's series run to
  // hundreds of thousands of values): the element at n/2, and for even n
  // the largest of those below it.
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  s.min = *lo;
  s.max = *hi;
  std::vector<double> part(xs.begin(), xs.end());
  const std::size_t mid = s.n / 2;
  std::nth_element(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(mid), part.end());
  const double upper = part[mid];
  if (s.n % 2) {
    s.median = upper;
  } else {
    const double lower = *std::max_element(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(mid));
    s.median = lower + (upper - lower) / 2;
  }

  s.cv = cv_of(s.mean, s.stddev);
  fill_ci(s);
  return s;
}

Summary summary_from_moments(double mean, double stddev, std::size_t n) {
  if (n == 0) throw std::invalid_argument("summary_from_moments: n must be >= 1");
  if (!std::isfinite(mean)) throw std::invalid_argument("summary_from_moments: non-finite mean");
  if (n >= 2 && !(std::isfinite(stddev) && stddev >= 0))
    throw std::invalid_argument("summary_from_moments: stddev must be finite and >= 0");
  Summary s;
  s.n = n;
  s.mean = mean;
  s.stddev = n >= 2 ? stddev : kNaN;
  s.min = s.median = s.max = kNaN;
  s.cv = cv_of(s.mean, s.stddev);
  fill_ci(s);
  return s;
}

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  if (std::isinf(df)) return normal_cdf(t);
  boost::math::students_t_distribution<double> dist(df);
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return boost::math::cdf(dist, t);
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return kNaN;
  if (std::isinf(df)) return normal_quantile(p);
  // In double throughout: Boost's default promotes to long double, whose
  // powl made this quantile nearly all of a gate's time (WelchPower asks for
  // 400 of them per metric); double keeps ~1e-15, far below what is printed.
  using DoublePolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
  boost::math::students_t_distribution<double, DoublePolicy> dist(df);
  return boost::math::quantile(dist, p);
}

double normal_cdf(double z) {
  if (std::isnan(z)) return kNaN;
  if (std::isinf(z)) return z > 0 ? 1.0 : 0.0;
  // In double, as student_t_quantile: the group-sequential boundaries
  // (group_sequential.cpp) integrate it thousands of times a look, and
  // Boost's default long double erf was half of that time (perf).
  using DoublePolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
  return boost::math::cdf(boost::math::normal_distribution<double, DoublePolicy>(), z);
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return kNaN;
  return boost::math::quantile(boost::math::normal_distribution<double>(), p);
}

namespace {

// Two-sided p of a t statistic, computed from the upper tail so that small
// p-values keep their relative accuracy.
double two_sided_t_p(double t, double df) {
  if (std::isnan(t) || std::isnan(df)) return kNaN;
  double at = std::fabs(t);
  if (std::isinf(at)) return 0.0;
  double tail;
  if (std::isinf(df))
    tail = boost::math::cdf(boost::math::complement(boost::math::normal_distribution<double>(), at));
  else
    tail = boost::math::cdf(boost::math::complement(boost::math::students_t_distribution<double>(df), at));
  return std::min(1.0, 2 * tail);
}

// Welch-Satterthwaite degrees of freedom for va + vb (both squared standard
// errors) with na - 1 and nb - 1 degrees of freedom.
double satterthwaite_df(double va, double na, double vb, double nb) {
  double num = (va + vb) * (va + vb);
  double den = va * va / (na - 1) + vb * vb / (nb - 1);
  if (den == 0) return kNaN;
  return num / den;
}

}  // namespace

TestResult welch_t_test(const Summary& a, const Summary& b) {
  if (a.n < 2 || b.n < 2) throw std::invalid_argument("welch_t_test: needs n >= 2 on both sides");
  if (!std::isfinite(a.stddev) || !std::isfinite(b.stddev))
    throw std::invalid_argument("welch_t_test: non-finite standard deviation");
  TestResult r;
  double va = se2(a), vb = se2(b);
  double diff = a.mean - b.mean;
  double se = std::sqrt(va + vb);
  if (se == 0) {
    // Both samples constant: identical means are no evidence of a
    // difference (p = 1); different means are a certain one (p = 0).
    r.df = static_cast<double>(a.n + b.n - 2);
    if (diff == 0) {
      r.statistic = 0;
      r.p = 1;
    } else {
      r.statistic = diff > 0 ? std::numeric_limits<double>::infinity()
                             : -std::numeric_limits<double>::infinity();
      r.p = 0;
    }
    return r;
  }
  r.statistic = diff / se;
  r.df = satterthwaite_df(va, static_cast<double>(a.n), vb, static_cast<double>(b.n));
  r.p = two_sided_t_p(r.statistic, r.df);
  return r;
}

namespace {

// Exact null distribution of U for sizes (m, n) without ties: the number of
// orderings of m a's and n b's with U = u, where U counts the (a, b) pairs
// with a > b. Recurrence on the largest element: it is an a (which beats all
// n b's, U shifts by n) or a b (U unchanged):
//   f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u).
// Returns probabilities P(U = u), u = 0 .. m*n. Counts reach C(100, 50) ~ 1e29
// for m = n = 50, within double range; each entry carries only rounding
// error from additions of positive numbers.
std::vector<double> exact_u_distribution(std::size_t m, std::size_t n) {
  const std::size_t umax = m * n;
  // table[j][u] = f(i, j, u) for the current i (rolling over i).
  std::vector<std::vector<double>> table(n + 1, std::vector<double>(umax + 1, 0.0));
  for (std::size_t j = 0; j <= n; ++j) table[j][0] = 1;  // i = 0: one ordering, U = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(umax + 1, 0.0));
    next[0][0] = 1;  // j = 0: only a's, U = 0
    for (std::size_t j = 1; j <= n; ++j)
      for (std::size_t u = 0; u <= i * j; ++u)
        next[j][u] = (u >= j ? table[j][u - j] : 0.0) + next[j - 1][u];
    table.swap(next);
  }
  std::vector<double>& counts = table[n];
  double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  for (double& c : counts) c /= total;
  return counts;
}

}  // namespace

TestResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("mann_whitney_u: empty sample");
  check_finite(a, "mann_whitney_u");
  check_finite(b, "mann_whitney_u");
  const std::size_t na = a.size(), nb = b.size(), N = na + nb;

  // Midranks of the pooled sample.
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  pooled.reserve(N);
  for (double x : a) pooled.emplace_back(x, true);
  for (double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& l, const auto& r) { return l.first < r.first; });
  double rank_sum_a = 0;
  double tie_term = 0;  // sum over tie groups of t^3 - t
  for (std::size_t i = 0; i < N;) {
    std::size_t j = i;
    while (j < N && pooled[j].first == pooled[i].first) ++j;
    double t = static_cast<double>(j - i);
    double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum_a += midrank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double dna = static_cast<double>(na), dnb = static_cast<double>(nb);
  TestResult r;
  r.statistic = rank_sum_a - dna * (dna + 1) / 2;  // U_a: pairs with a > b, ties count 1/2
  r.df = 0;

  if (tie_term == 0 && na <= 50 && nb <= 50) {
    auto pmf = exact_u_distribution(na, nb);
    auto u = static_cast<std::size_t>(std::llround(r.statistic));
    double lower = 0, upper = 0;
    for (std::size_t k = 0; k <= u; ++k) lower += pmf[k];
    for (std::size_t k = u; k < pmf.size(); ++k) upper += pmf[k];
    r.p = std::min(1.0, 2 * std::min(lower, upper));
    r.exact = true;
    return r;
  }

  // Normal approximation; variance with the tie correction, and a
  // continuity correction of 1/2 towards the mean (never past it).
  double dN = static_cast<double>(N);
  double mu = dna * dnb / 2;
  double var = dna * dnb / 12 * ((dN + 1) - tie_term / (dN * (dN - 1)));
  if (!(var > 0)) {  // every value tied: no evidence either way
    r.p = 1;
    return r;
  }
  double z = std::max(0.0, std::fabs(r.statistic - mu) - 0.5) / std::sqrt(var);
  double tail =
      boost::math::cdf(boost::math::complement(boost::math::normal_distribution<double>(), z));
  r.p = std::min(1.0, 2 * tail);
  return r;
}

// Relative change with a 95% CI by Fieller's theorem.
//
// With a = cand mean, b = base mean, va, vb their squared standard errors
// (independent samples, so no covariance), the ratio rho = mu_cand / mu_base
// satisfies (a - rho b) / sqrt(va + rho^2 vb) ~ t(df). The 95% set of rho is
// where (a - rho b)^2 <= t^2 (va + rho^2 vb), i.e. the quadratic
//   (b^2 - t^2 vb) rho^2 - 2 a b rho + (a^2 - t^2 va) <= 0,
// whose roots are
//   rho = [a b -/+ t sqrt(a^2 vb + b^2 va - t^2 va vb)] / (b^2 - t^2 vb).
// It is a bounded interval only when g = t^2 vb / b^2 < 1, i.e. when the base
// mean is significantly different from zero; otherwise the set is unbounded
// (or the whole line) and we return NaN bounds. t = t_{0.975, df} with df the
// Welch-Satterthwaite df of va + rho^2 vb at the point estimate rho = a / b
// (the "Fieller-Welch" interval). Percent = (rho - 1) * 100.
Change relative_change(const Summary& base, const Summary& cand) {
  Change c;
  const double a = cand.mean, b = base.mean;
  if (b == 0 || !std::isfinite(a) || !std::isfinite(b)) {
    c.pct = c.ci95_low = c.ci95_high = kNaN;
    return c;
  }
  const double rho = a / b;
  c.pct = (rho - 1) * 100;
  if (base.n < 2 || cand.n < 2 || !std::isfinite(base.stddev) || !std::isfinite(cand.stddev)) {
    c.ci95_low = c.ci95_high = kNaN;
    return c;
  }
  const double va = se2(cand), vb = se2(base);
  if (va == 0 && vb == 0) {  // no spread on either side: the ratio is known exactly
    c.ci95_low = c.ci95_high = c.pct;
    return c;
  }
  const double wb = rho * rho * vb;
  const double df = satterthwaite_df(va, static_cast<double>(cand.n), wb, static_cast<double>(base.n));
  const double t = t975(std::isnan(df) ? static_cast<double>(cand.n + base.n - 2) : df);
  const double t2 = t * t;
  const double denom = b * b - t2 * vb;
  const double disc = a * a * vb + b * b * va - t2 * va * vb;
  const bool positive = base.min > 0 && cand.min > 0 && a > 0 && b > 0;
  const bool fieller_bounded = denom > 0 && disc >= 0;
  const double root = fieller_bounded ? t * std::sqrt(disc) : kNaN;
  const double lo = (a * b - root) / denom, hi = (a * b + root) / denom;
  if (positive && (!fieller_bounded || !(lo > 0))) {
    const double half = t * std::sqrt(va / (a * a) + vb / (b * b));
    c.ci95_low = (std::exp(std::log(rho) - half) - 1) * 100;
    c.ci95_high = (std::exp(std::log(rho) + half) - 1) * 100;
    c.log_scale = true;
    return c;
  }
  if (!fieller_bounded) {
    c.ci95_low = c.ci95_high = kNaN;
    return c;
  }
  c.ci95_low = (lo - 1) * 100;
  c.ci95_high = (hi - 1) * 100;
  return c;
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::no_significant_difference: return "no significant difference";
    case Verdict::not_enough_data: return "not enough data";
    case Verdict::different: return "different (direction unknown)";
  }
  return "not enough data";
}

Verdict verdict(const Summary& base, const Summary& cand, double p, Direction dir, double alpha,
                std::size_t min_n) {
  const std::size_t need = std::max<std::size_t>(min_n, 2);
  if (base.n < need || cand.n < need) return Verdict::not_enough_data;
  if (std::isnan(p) || std::isnan(base.mean) || std::isnan(cand.mean)) return Verdict::not_enough_data;
  if (!(p < alpha) || cand.mean == base.mean) return Verdict::no_significant_difference;
  if (dir == Direction::unknown) return Verdict::different;
  const bool cand_higher = cand.mean > base.mean;
  const bool higher_better = dir == Direction::higher_is_better;
  return cand_higher == higher_better ? Verdict::faster : Verdict::slower;
}

std::vector<double> holm_adjust(std::span<const double> p) {
  // NaN p-values (no test possible) stay NaN and do not count towards m.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) { return p[l] < p[r]; });
  std::vector<double> adj(p.size(), kNaN);
  const std::size_t m = order.size();
  double running = 0;
  for (std::size_t k = 0; k < m; ++k) {
    double v = std::min(1.0, static_cast<double>(m - k) * p[order[k]]);
    running = std::max(running, v);  // step-down: never below an earlier step
    adj[order[k]] = running;
  }
  return adj;
}

}  // namespace kvmbench::stats
