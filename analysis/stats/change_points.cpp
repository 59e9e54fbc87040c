#include "analysis/stats/change_points.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "analysis/stats/e_divisive.h"

namespace kvmbench::changepoint {

std::size_t permutations_for(double alpha, std::size_t series, double share) {
  const double m = static_cast<double>(std::max<std::size_t>(1, series));
  const auto r = static_cast<std::size_t>(std::ceil(20 * m / (share * alpha))) - 1;
  return std::max<std::size_t>(999, r);
}

namespace {

// Summaries and changes of the segments that `cps` cut z into.
void describe(const std::vector<double>& z, std::vector<ChangePoint>& cps) {
  std::size_t begin = 0;
  std::vector<stats::Summary> seg;
  for (std::size_t k = 0; k <= cps.size(); ++k) {
    const std::size_t end = k < cps.size() ? cps[k].index : z.size();
    seg.push_back(stats::summarize(std::span<const double>(z).subspan(begin, end - begin)));
    begin = end;
  }
  for (std::size_t k = 0; k < cps.size(); ++k) {
    cps[k].before = seg[k];
    cps[k].after = seg[k + 1];
    cps[k].change = stats::relative_change(seg[k], seg[k + 1]);
  }
}

// Merges away the smallest change under the floor until none is left.
std::size_t apply_floor(const std::vector<double>& z, std::vector<ChangePoint>& cps, double floor_pct) {
  std::size_t merged = 0;
  while (true) {
    describe(z, cps);
    std::size_t smallest = cps.size();
    for (std::size_t k = 0; k < cps.size(); ++k) {
      const double size = std::fabs(cps[k].change.pct);
      // A change from a mean of 0 has no percent size: kept (it is no
      // small change).
      if (std::isnan(size) || size >= floor_pct) continue;
      if (smallest == cps.size() || size < std::fabs(cps[smallest].change.pct)) smallest = k;
    }
    if (smallest == cps.size()) return merged;
    cps.erase(cps.begin() + static_cast<std::ptrdiff_t>(smallest));
    ++merged;
  }
}

// One series' tests: the whole-segment scan's and, when the series has
// windows, the windowed scan's, each judged at its share of a level.
struct SeriesTests {
  std::unique_ptr<EDivisive> ed;
  bool windows = false;
  double window_floor = 0;  // the smallest p the windowed test can give (0 with the tail)
  std::optional<Candidate> whole, window;

  double whole_share() const { return windows ? kWholeSegmentShare : 1.0; }
  double share(const Candidate& c) const { return c.split == Split::window ? kWindowShare : whole_share(); }
  double weighted(const std::optional<Candidate>& c) const { return c ? c->p / share(*c) : INFINITY; }
  // The candidate significant at `level`, whole-segment first; nullopt
  // when neither is.
  std::optional<Candidate> significant(double level) const {
    if (whole && whole->p <= share(*whole) * level) return whole;
    if (window && window->p <= share(*window) * level) return window;
    return std::nullopt;
  }
  // Tests the current segments: the whole-segment scan, then the windowed
  // one when it could still matter, i.e. give a weighted p-value under
  // both `loosest` (the largest level this test can be judged at) and the
  // whole-segment scan's.
  void test(double loosest) {
    whole = ed->next(whole_share() * loosest);
    window.reset();
    if (!windows) return;
    const double beat = std::min(loosest, weighted(whole));
    if (window_floor / kWindowShare < beat) window = ed->next(kWindowShare * beat, Split::window);
  }
};

}  // namespace

std::vector<SeriesResult> detect(const std::vector<std::vector<double>>& series, const Options& opt) {
  if (!(opt.alpha > 0 && opt.alpha < 1))
    throw std::invalid_argument(fmt::format("alpha must be between 0 and 1, not {}", opt.alpha));
  if (opt.min_segment < 2) throw std::invalid_argument("the minimum segment length is at least 2 points");
  if (opt.window != 0 && opt.window < 2 * opt.min_segment)
    throw std::invalid_argument(fmt::format("a window of {} points cannot hold two segments of {}: give {} or more "
                                            "(or 0 for no windows)",
                                            opt.window, opt.min_segment, 2 * opt.min_segment));
  if (!(opt.min_change_pct >= 0)) throw std::invalid_argument("the magnitude floor must be >= 0 %");
  for (auto& s : series)
    for (double v : s)
      if (!std::isfinite(v)) throw std::invalid_argument("a series holds a value that is not a finite number");

  const std::size_t m = series.size();
  // R per test: what the family's strictest level needs when the p-values
  // are exact; what one series alone needs when small ones come from the
  // tail (the same for any family, so the cost grows as m, not m^2).
  auto count = [&](double share) {
    return opt.permutations ? opt.permutations : permutations_for(opt.alpha, opt.tail ? 1 : m, share);
  };
  std::vector<SeriesResult> out(m);
  std::vector<SeriesTests> tests(m);
  std::vector<double> first_p(m, NAN);
  for (std::size_t i = 0; i < m; ++i) {
    if (series[i].size() < 2 * opt.min_segment) {
      out[i].permutations = count(1.0);
      out[i].first_p = NAN;
      out[i].note = fmt::format("{} points: too few to test (a change needs {} on each side)", series[i].size(),
                                opt.min_segment);
      continue;
    }
    SeriesTests& t = tests[i];
    t.windows = opt.window != 0 && series[i].size() >= 2 * opt.window;
    out[i].permutations = count(t.whole_share());
    if (t.windows) {
      out[i].window_permutations = count(kWindowShare);
      // (with the tail there is no floor: the windowed test always runs)
      t.window_floor = opt.tail ? 0.0 : 1.0 / static_cast<double>(out[i].window_permutations + 1);
    }
    // Each series its own stream, so that adding a series to the family
    // does not change another's permutations.
    t.ed = std::make_unique<EDivisive>(series[i], opt.min_segment, out[i].permutations,
                                       opt.seed + 0x9e3779b97f4a7c15ull * (i + 1), t.windows ? opt.window : 0,
                                       out[i].window_permutations);
    t.ed->use_tail(opt.tail);
    // No series can be declared with p > alpha, Holm's loosest level.
    t.test(opt.alpha);
    const double p = std::min(t.weighted(t.whole), t.weighted(t.window));
    if (std::isinf(p)) continue;
    first_p[i] = std::min(1.0, p);
    out[i].first_p = first_p[i];
    const bool whole_first = t.weighted(t.whole) <= t.weighted(t.window);
    out[i].first_p_is_lower_bound = whole_first ? t.whole->p_is_lower_bound : t.window->p_is_lower_bound;
  }

  // Holm's step-down over the series that could be tested.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < m; ++i)
    if (!std::isnan(first_p[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return first_p[a] < first_p[b]; });
  const std::size_t tested = order.size();
  double running_adjusted = 0;
  for (std::size_t k = 0; k < tested; ++k) {
    const std::size_t i = order[k];
    SeriesTests& t = tests[i];
    const double factor = static_cast<double>(tested - k);
    const double level = opt.alpha / factor;
    if (!(first_p[i] <= level)) break;  // step-down: this one and all after it stand
    running_adjusted = std::max(running_adjusted, std::min(1.0, first_p[i] * factor));
    std::vector<ChangePoint> cps;
    auto add = [&](const Candidate& c, double adjusted) {
      ChangePoint cp;
      cp.index = c.tau;
      cp.windowed = c.split == Split::window;
      cp.q = c.q;
      cp.p = c.p;
      cp.p_holm = adjusted;
      cps.insert(std::upper_bound(cps.begin(), cps.end(), cp,
                                  [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; }),
                 cp);
    };
    auto c = t.significant(level);
    add(*c, running_adjusted);
    while (c) {
      t.ed->accept(*c);
      t.test(level);
      c = t.significant(level);
      if (c) add(*c, std::max(running_adjusted, std::min(1.0, t.weighted(c) * factor)));
    }
    out[i].below_floor = apply_floor(series[i], cps, opt.min_change_pct);
    out[i].change_points = std::move(cps);
  }
  return out;
}

}  // namespace kvmbench::changepoint
