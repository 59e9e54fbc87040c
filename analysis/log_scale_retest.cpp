#include "analysis/log_scale_retest.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "analysis/statistics.h"

namespace kvmbench {

namespace {

bool all_positive(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x) && x > 0; });
}

stats::Summary log_summary(const std::vector<double>& v) {
  std::vector<double> logs(v.size());
  std::transform(v.begin(), v.end(), logs.begin(), [](double x) { return std::log(x); });
  return stats::summarize(logs);
}

void add_note(MetricComparison& m, const std::string& note) {
  m.note = m.note.empty() ? note : m.note + "; " + note;
}

}  // namespace

void retest_on_log_scale(Comparison& c) {
  struct Tested {
    std::size_t index;
    bool on_logs;
    stats::Summary base, cand;  // of the logs, when on_logs
    double df = NAN;
  };
  std::vector<Tested> tested;
  std::vector<double> raw_p;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    MetricComparison& m = c.metrics[i];
    if (!m.tested) continue;
    Tested t{i, !m.from_aggregates && all_positive(m.base_values) && all_positive(m.cand_values), {}, {}};
    if (t.on_logs) {
      t.base = log_summary(m.base_values);
      t.cand = log_summary(m.cand_values);
      const stats::TestResult w = stats::welch_t_test(t.base, t.cand);
      m.p_welch = w.p;
      t.df = w.df;
    }
    raw_p.push_back(m.p_welch);
    tested.push_back(t);
  }
  const std::vector<double> holm = stats::holm_adjust(raw_p);
  // Holm's rank of each p (0 = smallest): the metric of rank r is judged
  // at alpha / (k - r), and its CI is taken at that level.
  std::vector<std::size_t> order(raw_p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return raw_p[a] < raw_p[b]; });
  const std::size_t k = raw_p.size();
  for (std::size_t r = 0; r < k; ++r) {
    const std::size_t j = order[r];
    const Tested& t = tested[j];
    MetricComparison& m = c.metrics[t.index];
    m.p_holm = holm[j];
    if (!t.on_logs) {
      m.verdict = stats::verdict(m.base, m.cand, m.p_holm, m.direction, c.alpha);
      continue;
    }
    const double d = t.cand.mean - t.base.mean;
    const double se = std::sqrt(t.cand.stddev * t.cand.stddev / static_cast<double>(t.cand.n) +
                                t.base.stddev * t.base.stddev / static_cast<double>(t.base.n));
    const double level = c.alpha / static_cast<double>(k - r);
    const double df = std::isfinite(t.df) ? t.df : static_cast<double>(t.base.n + t.cand.n - 2);
    const double half = se == 0 ? 0 : stats::student_t_quantile(1 - level / 2, df) * se;
    m.change.pct = (std::exp(d) - 1) * 100;
    m.change.ci95_low = (std::exp(d - half) - 1) * 100;
    m.change.ci95_high = (std::exp(d + half) - 1) * 100;
    m.change.log_scale = true;
    m.change.geometric = true;
    m.verdict = stats::verdict(t.base, t.cand, m.p_holm, m.direction, c.alpha);
    add_note(m, k > 1 && r + 1 < k
                    ? fmt::format("geometric means, Welch on the logs, CI at {:.4g}% (Holm's level for its rank)",
                                  100 * (1 - level))
                    : std::string("geometric means, Welch on the logs"));
  }
}

}  // namespace kvmbench
