#include "analysis/report/render/html_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "analysis/report/numbers.h"
#include "analysis/report/render/html_escape.h"

namespace kvmbench {

std::string_view tone_class(Tone t) {
  switch (t) {
    case Tone::better: return "better";
    case Tone::worse: return "worse";
    case Tone::plain: break;
  }
  return "";
}

// A "nice" tick step (1, 2 or 5 times a power of ten) for about `n` ticks.
namespace {

double nice_step(double range, int n) {
  if (!(range > 0)) return 1;
  double raw = range / n;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / mag;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * mag;
}

// Decimals that tick labels need for `step` (0, 0.5, 1.0 share them).
int tick_decimals(double step) { return std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))); }

// A horizontal axis's ticks from a0 to a1: a grid line down the plot
// (top to top + ph) at each, its value under it in `text_class`, "+5%"
// where `pct` (a change), else the number.
std::string x_ticks(double a0, double a1, double step, const std::function<double(double)>& x, double top, double ph,
                    const char* text_class, bool pct) {
  std::string o;
  const int dec = tick_decimals(step);
  for (double t = a0; t <= a1 + step * 0.5; t += step) {
    const double xx = x(t), v = std::fabs(t) < step * 1e-6 ? 0.0 : t;
    o += fmt::format("<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\"/>", xx, top, top + ph);
    o += fmt::format("<text class=\"{}\" x=\"{:.1f}\" y=\"{}\">{}</text>\n", text_class, xx, top + ph + 16,
                     pct ? fmt::format("{:+.{}f}%", v, dec) : fmt::format("{:.{}f}", v, dec));
  }
  return o;
}

const char* kGroupColors[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3"};

// A bar per group: its mean, its 95% CI as a whisker, every sample a dot.
// As points (Chart::Kind::points) the mean is a mark and the axis fits the
// data: a change of a few percent is seen, where bars from 0 hid it.
std::string bars_svg(const Chart& chart) {
  const bool as_points = chart.kind == Chart::Kind::points;
  const std::string& title = chart.title;
  const std::string& unit = chart.unit;
  const std::string& caption = chart.caption;
  const std::vector<ChartGroup>& groups = chart.groups;
  // Wider with more groups (cases side by side), up to the page's width;
  // labels that do not fit their slot are slanted, the chart taller.
  const double right = 12, top = 62, ph = 166;
  const double W = std::clamp(64 + right + 84.0 * groups.size(), 364.0, 1100.0);
  // "(n=...)" on each label only where the groups' sizes differ; else once
  // in the caption.
  auto finite_count = [](const ChartGroup& g) {
    return static_cast<std::size_t>(std::count_if(g.values.begin(), g.values.end(), [](double v) { return std::isfinite(v); }));
  };
  bool same_n = true;
  for (auto& g : groups) same_n = same_n && finite_count(g) == finite_count(groups.front());
  auto group_label = [&](const ChartGroup& g) {
    if (g.label.empty()) return fmt::format("n={}", finite_count(g));
    return same_n && groups.size() > 2 ? g.label : fmt::format("{} (n={})", g.label, finite_count(g));
  };
  std::size_t longest = 0;
  for (auto& g : groups) longest = std::max(longest, group_label(g).size());
  const double slot0 = (W - 64 - right) / std::max<std::size_t>(1, groups.size());
  const bool slanted = 6.5 * longest > slot0 - 6;
  // Room on the left for the first slanted label.
  const double first = groups.empty() ? 0 : 5.4 * group_label(groups.front()).size();
  const double left = slanted ? std::max(64.0, first - slot0 / 2 + 8) : 64;
  const double pw = W - left - right, slot = pw / std::max<std::size_t>(1, groups.size());
  const double bottom = slanted ? 20 + std::min(160.0, 6.5 * longest * 0.6) : 34, H = top + ph + bottom;
  const std::string each_n =
      same_n && groups.size() > 2 ? fmt::format("n={} each", finite_count(groups.front())) : std::string();
  const std::string caption_n = each_n.empty() ? caption : caption.empty() ? each_n : caption + ", " + each_n;

  struct G {
    std::string label;
    std::vector<double> v;
    double mean = NAN, lo = NAN, hi = NAN;
  };
  std::vector<G> gs;
  double typical = 0;
  bool positive = true;
  for (auto& g : groups)
    for (double v : g.values)
      if (std::isfinite(v)) typical = std::max(typical, std::fabs(v)), positive = positive && v >= 0;
  // The axis in a unit for reading (ms, not 1840000 ns).
  const ReadingScale rs = reading_scale(typical, unit);
  double dmin = INFINITY, dmax = -INFINITY;
  for (auto& g : groups) {
    G x{g.label, {}, g.mean * rs.factor, g.ci95_low * rs.factor, g.ci95_high * rs.factor};
    for (double v : g.values)
      if (std::isfinite(v)) x.v.push_back(v * rs.factor);
    if (!x.v.empty()) {
      for (double v : x.v) dmin = std::min(dmin, v), dmax = std::max(dmax, v);
      if (std::isfinite(x.lo)) dmin = std::min(dmin, positive ? std::max(0.0, x.lo) : x.lo), dmax = std::max(dmax, x.hi);
    }
    gs.push_back(std::move(x));
  }
  std::string o = fmt::format(
      "<svg class=\"chart\" role=\"img\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n", W, H);
  o += fmt::format("<title>{}</title>\n", html_escape(title));
  // Long series keys: keep the end (the metric), the full key is in <title>.
  std::string shown = title.size() > 50 ? "…" + title.substr(title.size() - 49) : title;
  o += fmt::format("<text class=\"ct\" x=\"{}\" y=\"18\">{}</text>\n", 8, html_escape(shown));
  std::string sub = rs.unit.empty() ? caption_n : (caption_n.empty() ? rs.unit : rs.unit + " · " + caption_n);
  o += fmt::format("<text class=\"cs {}\" x=\"8\" y=\"36\">{}</text>\n", tone_class(chart.tone), html_escape(sub));
  if (!std::isfinite(dmin)) {
    o += fmt::format("<text class=\"cs\" x=\"{}\" y=\"{}\">no samples</text>\n</svg>\n", left, top + ph / 2);
    return o;
  }
  // Axis: from zero for a positive quantity (or one crossing 0), so that
  // bar lengths mean something (a zoomed axis made 60 and 60.01 cycles look
  // like a difference); the caption gives the change. Zoomed, and saying
  // so, only for a negative quantity.
  bool from_zero = !as_points && (dmin >= 0 || dmax > 0);
  double lo = from_zero ? std::min(0.0, dmin) : dmin, hi = dmax;
  if (hi == lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.01);
  double step = nice_step(hi - lo, 4);
  double pad = from_zero ? 0 : (hi - lo) * 0.08;
  double a0 = std::floor((lo - pad) / step) * step, a1 = std::ceil((hi + (hi - lo) * 0.05) / step) * step;
  if (from_zero && lo >= 0) a0 = 0;
  if (positive && a0 < 0) a0 = 0;  // a quantity that cannot go below 0 gets no axis there
  auto y = [&](double v) { return top + ph - (v - a0) / (a1 - a0) * ph; };
  const std::string unit_shown = rs.unit.empty() ? "" : " " + rs.unit;

  o += "<g class=\"axis\">\n";
  const int dec = tick_decimals(step);
  for (double t = a0; t <= a1 + step * 0.5; t += step) {
    double yy = y(t);
    o += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>", left, yy, W - right, yy);
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\">{:.{}f}</text>\n", left - 6, yy + 4,
                     std::fabs(t) < step * 1e-6 ? 0.0 : t, dec);
  }
  o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" class=\"frame\"/>", left, top, top + ph);
  o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" class=\"frame\"/>\n", left, top + ph, W - right);
  o += "</g>\n";
  if (!from_zero || a0 != 0)
    o += fmt::format("<text class=\"zoom\" x=\"{}\" y=\"{}\">axis does not start at 0</text>\n", W - right - 2,
                     top - 8);

  const double bw = std::min(90.0, slot * 0.55);
  for (std::size_t i = 0; i < gs.size(); ++i) {
    auto& g = gs[i];
    const char* color = kGroupColors[(groups[i].color < 0 ? i : groups[i].color) % 5];
    double cx = left + slot * (i + 0.5);
    o += fmt::format("<g class=\"group\" data-group=\"{}\">\n", html_escape(g.label));
    if (std::isfinite(g.mean)) {
      double yb = y(std::max(a0, std::min(0.0, a1))), ym = y(g.mean);
      if (a0 > 0) yb = y(a0);
      if (as_points)
        o += fmt::format("<rect class=\"mean\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"4\" "
                         "fill=\"{}\"><title>mean {}{}</title></rect>\n",
                         cx - bw / 2, ym - 2, bw, color, format_reading(g.mean), html_escape(unit_shown));
      else
        o += fmt::format("<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                         "fill=\"{}\"><title>mean {}{}</title></rect>\n",
                         cx - bw / 2, std::min(yb, ym), bw, std::fabs(yb - ym), color, format_reading(g.mean),
                         html_escape(unit_shown));
      // Samples as dots, spread across the bar by a fixed low-discrepancy
      // sequence so the picture is the same every time.
      for (std::size_t k = 0; k < g.v.size(); ++k) {
        double jitter = std::fmod(0.5 + k * 0.6180339887, 1.0) - 0.5;
        o += fmt::format("<circle class=\"dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{}</title></circle>\n",
                         cx + jitter * bw * 0.7, y(g.v[k]), format_reading(g.v[k], 4) + html_escape(unit_shown));
      }
      if (std::isfinite(g.lo)) {
        // A positive quantity's interval stops at 0, without a cap there.
        const bool cut_low = positive && g.lo < 0;
        double yl = y(cut_low ? 0.0 : g.lo), yh = y(g.hi), cap = bw * 0.18;
        o += fmt::format("<g class=\"whisker\"><title>95% CI of the mean: {} .. {}{}{}</title>", format_reading(g.lo),
                         format_reading(g.hi), html_escape(unit_shown),
                         cut_low ? " (drawn to 0: the interval crosses 0, the quantity cannot)" : "");
        o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", cx, yl, cx, yh);
        if (!cut_low)
          o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", cx - cap, yl, cx + cap, yl);
        o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/></g>\n", cx - cap, yh,
                         cx + cap, yh);
      }
    }
    const std::string lab = group_label(groups[i]);
    if (slanted)
      o += fmt::format("<text class=\"gl slant\" transform=\"translate({:.1f},{}) rotate(-35)\">{}</text>\n", cx + 4,
                       top + ph + 14, html_escape(lab));
    else
      o += fmt::format("<text class=\"gl\" x=\"{:.1f}\" y=\"{}\">{}</text>\n", cx, H - 12, html_escape(lab));
    o += "</g>\n";
  }
  o += "</svg>\n";
  return o;
}

// One bar of a table's chart, in the table's own unit.
struct TableBar {
  std::string label;
  double value = NAN;
  std::optional<double> low, high;
};

// Points in order (runs by kernel), each segment's mean a line, each mark
// a dashed line with its label.
std::string along_svg(const Chart& chart) {
  const double W = 720, H = 240, left = 64, right = 12, top = 40, bottom = 28;
  const double pw = W - left - right, ph = H - top - bottom;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : chart.points)
    if (std::isfinite(p.value)) lo = std::min(lo, p.value), hi = std::max(hi, p.value);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (!(hi > lo)) lo -= 1, hi += 1;
  const double pad = (hi - lo) * 0.08;
  lo -= pad, hi += pad;
  const std::size_t n = chart.points.size();
  auto x = [&](double i) { return left + (n > 1 ? i / (n - 1) : 0.5) * pw; };
  auto y = [&](double v) { return top + (hi - v) / (hi - lo) * ph; };
  std::string o = fmt::format("<svg class=\"chart\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
                              "role=\"img\">\n<title>{}</title>\n",
                              W, H, W, H, html_escape(chart.title));
  o += fmt::format("<text class=\"ct\" x=\"{}\" y=\"18\">{}{}</text>\n", left, html_escape(chart.title),
                   html_escape(chart.unit.empty() ? "" : " (" + chart.unit + ")"));
  o += fmt::format("<text class=\"cs {}\" x=\"{}\" y=\"33\">{}</text>\n", tone_class(chart.tone), left,
                   html_escape(chart.caption));
  o += fmt::format("<rect class=\"frame\" fill=\"none\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", left, top,
                   pw, ph);
  for (int k = 0; k <= 4; ++k) {
    const double v = lo + (hi - lo) * k / 4;
    o += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
                     "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
                     left, left + pw, y(v), y(v), left - 4, y(v) + 4, html_escape(format_number(v, 3)));
  }
  for (std::size_t i = 0; i < n; ++i)
    o += fmt::format("<circle class=\"dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"1.8\"><title>{}: {}</title></circle>\n", x(i),
                     y(chart.points[i].value), html_escape(chart.points[i].label),
                     html_escape(format_number(chart.points[i].value)));
  for (const auto& s : chart.segments)
    o += fmt::format("<line stroke=\"#4c72b0\" stroke-width=\"2\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" "
                     "y2=\"{:.1f}\"/>\n",
                     x(s.first), x(s.last), y(s.mean), y(s.mean));
  for (const auto& m : chart.marks) {
    const double cx = x(m.at - 0.5);
    o += fmt::format("<line stroke=\"#cf222e\" stroke-dasharray=\"4 3\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" "
                     "y2=\"{}\"/><text class=\"gl\" x=\"{:.1f}\" y=\"{}\">{}</text>\n",
                     cx, cx, top, top + ph, cx, top + ph + 16, html_escape(m.label));
  }
  return o + "</svg>\n";
}

// The overview of a comparison: a row per metric, its change in percent
// as a dot and its CI as a line, 0 dashed. The axis holds every change
// and the CIs up to four times the largest change (at least +-10 %): a CI
// wider than that (+16926 % of three noisy repetitions) is cut at the
// axis's end with an arrow, its ends in the row's tooltip.
std::string changes_svg(const Chart& chart) {
  const std::vector<ChartChange>& rows = chart.changes;
  const double row_h = 22, top = 48, left_min = 120, right = 24, W = 720;
  std::size_t longest = 0;
  for (const auto& r : rows) longest = std::max(longest, r.label.size());
  const double left = std::clamp(6.2 * static_cast<double>(longest) + 16, left_min, 380.0);
  const double pw = W - left - right, ph = row_h * static_cast<double>(std::max<std::size_t>(1, rows.size()));
  const double H = top + ph + 30;
  double biggest = 0;
  for (const auto& r : rows)
    if (std::isfinite(r.pct)) biggest = std::max(biggest, std::fabs(r.pct));
  const double limit = std::max(10.0, 4 * biggest);
  double lo = 0, hi = 0;
  for (const auto& r : rows) {
    for (double v : {r.pct, r.low, r.high})
      if (std::isfinite(v)) lo = std::min(lo, std::max(v, -limit)), hi = std::max(hi, std::min(v, limit));
  }
  if (hi - lo < 1) lo -= 1, hi += 1;
  const double step = nice_step(hi - lo, 5);
  const double a0 = std::floor(lo / step) * step, a1 = std::ceil(hi / step) * step;
  auto x = [&](double v) { return left + (std::clamp(v, a0, a1) - a0) / (a1 - a0) * pw; };
  std::string o = fmt::format(
      "<svg class=\"chart overview\" role=\"img\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n", W, H);
  o += fmt::format("<title>{}</title>\n", html_escape(chart.title));
  o += fmt::format("<text class=\"ct\" x=\"8\" y=\"18\">{}</text>\n", html_escape(chart.title));
  o += fmt::format("<text class=\"cs\" x=\"8\" y=\"36\">{}</text>\n", html_escape(chart.caption));
  o += x_ticks(a0, a1, step, x, top, ph, "gl", true);
  o += fmt::format("<line class=\"zero\" stroke-dasharray=\"4 3\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" "
                   "y2=\"{2}\"/>\n",
                   x(0), top - 4, top + ph);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ChartChange& r = rows[i];
    const double cy = top + row_h * (static_cast<double>(i) + 0.5);
    const std::string tip = fmt::format("{}: {:+.2f}% [{}, {}]", r.label, r.pct,
                                        std::isfinite(r.low) ? fmt::format("{:+.2f}%", r.low) : "-inf",
                                        std::isfinite(r.high) ? fmt::format("{:+.2f}%", r.high) : "+inf");
    o += fmt::format("<g class=\"change {}\"><title>{}</title>", tone_class(r.tone), html_escape(tip));
    o += fmt::format("<text class=\"rl\" x=\"{}\" y=\"{:.1f}\">{}</text>", left - 8, cy + 4, html_escape(r.label));
    if (std::isfinite(r.pct)) {
      // An end beyond the axis (or none: unbounded) is drawn to the axis's end, an arrow saying it goes on.
      const bool cut_low = !std::isfinite(r.low) || r.low < a0, cut_high = !std::isfinite(r.high) || r.high > a1;
      const double xl = cut_low ? x(a0) : x(r.low), xh = cut_high ? x(a1) : x(r.high);
      o += fmt::format("<line class=\"ci\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>", xl, xh, cy, cy);
      if (cut_low)
        o += fmt::format("<path class=\"ci\" d=\"M{0:.1f},{1:.1f} l6,-4 v8 z\"/>", xl, cy);
      if (cut_high)
        o += fmt::format("<path class=\"ci\" d=\"M{0:.1f},{1:.1f} l-6,-4 v8 z\"/>", xh, cy);
      o += fmt::format("<circle class=\"pt\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\"/>", x(r.pct), cy);
    } else {
      o += fmt::format("<text class=\"cs\" x=\"{}\" y=\"{:.1f}\">no change computed</text>", left + 4, cy + 4);
    }
    o += "</g>\n";
  }
  return o + "</svg>\n";
}

// Points over x (a meminfo field over seconds), each fitted line over its
// part in red, its label the line's tooltip. Axes fit the data; y in a
// unit scaled for reading.
std::string xy_svg(const Chart& chart) {
  const double W = 720, H = 260, left = 64, right = 12, top = 44, bottom = 34;
  const double pw = W - left - right, ph = H - top - bottom;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  auto take = [&](double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  };
  for (const auto& p : chart.xy) take(p.x, p.y);
  std::string o = fmt::format("<svg class=\"chart\" role=\"img\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n"
                              "<title>{2}</title>\n",
                              W, H, html_escape(chart.title));
  const ReadingScale rs = reading_scale(std::max(std::fabs(y0), std::fabs(y1)), chart.unit);
  o += fmt::format("<text class=\"ct\" x=\"8\" y=\"18\">{}</text>\n", html_escape(chart.title));
  o += fmt::format("<text class=\"cs {}\" x=\"8\" y=\"36\">{}</text>\n", tone_class(chart.tone),
                   html_escape(rs.unit.empty() ? chart.caption : rs.unit + " · " + chart.caption));
  if (!std::isfinite(x0)) return o + "<text class=\"cs\" x=\"64\" y=\"120\">no points</text>\n</svg>\n";
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 1;
  const double xs = nice_step(x1 - x0, 6), ys = nice_step((y1 - y0) * rs.factor, 4);
  const double ax0 = std::floor(x0 / xs) * xs, ax1 = std::ceil(x1 / xs) * xs;
  const double ay0 = std::floor(y0 * rs.factor / ys) * ys, ay1 = std::ceil(y1 * rs.factor / ys) * ys;
  auto X = [&](double x) { return left + (x - ax0) / (ax1 - ax0) * pw; };
  auto Y = [&](double y) { return top + ph - (y * rs.factor - ay0) / (ay1 - ay0) * ph; };
  for (double t = ay0; t <= ay1 + ys * 0.5; t += ys)
    o += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/><text class=\"tick\" x=\"{}\" "
                     "y=\"{:.1f}\">{:.{}f}</text>\n",
                     left, W - right, Y(t / rs.factor), Y(t / rs.factor), left - 6, Y(t / rs.factor) + 4, t,
                     tick_decimals(ys));
  for (double t = ax0; t <= ax1 + xs * 0.5; t += xs)
    o += fmt::format("<text class=\"gl\" x=\"{:.1f}\" y=\"{}\">{:.{}f}{}</text>\n", X(t), top + ph + 16, t,
                     tick_decimals(xs), html_escape(chart.x_unit.empty() ? "" : " " + chart.x_unit));
  o += fmt::format("<rect class=\"frame\" fill=\"none\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", left, top,
                   pw, ph);
  for (const auto& p : chart.xy)
    if (std::isfinite(p.x) && std::isfinite(p.y))
      o += fmt::format("<circle class=\"dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\"/>", X(p.x), Y(p.y));
  o += "\n";
  for (const auto& l : chart.lines)
    o += fmt::format("<line class=\"fit\" stroke=\"#cf222e\" stroke-width=\"2.5\" x1=\"{:.1f}\" y1=\"{:.1f}\" "
                     "x2=\"{:.1f}\" y2=\"{:.1f}\"><title>{}</title></line>\n",
                     X(l.x0), Y(l.y0), X(l.x1), Y(l.y1), html_escape(l.label));
  return o + "</svg>\n";
}

}  // namespace

std::string chart_svg(const Chart& chart) {
  switch (chart.kind) {
    case Chart::Kind::along: return along_svg(chart);
    case Chart::Kind::changes: return changes_svg(chart);
    case Chart::Kind::xy: return xy_svg(chart);
    case Chart::Kind::bars:
    case Chart::Kind::points: break;
  }
  return bars_svg(chart);
}

std::string table_chart_svg(const Table& t) {
  if (!t.chart) return "";
  const TableChart& ch = *t.chart;
  const std::size_t ncol = t.columns.size();
  if (ch.label >= ncol || ch.value >= ncol || (ch.interval && *ch.interval >= ncol)) return "";
  std::vector<TableBar> bars;
  std::string unit;
  for (auto& r : t.rows) {
    if (ch.value >= r.size() || !r[ch.value].value || !std::isfinite(*r[ch.value].value)) continue;
    const Cell& v = r[ch.value];
    // One axis: rows in another unit than the first would be drawn on a
    // scale that is not theirs.
    if (bars.empty()) unit = v.unit;
    if (v.unit != unit) return "<p class=\"note\">No chart: the rows are not in one unit.</p>\n";
    TableBar b{ch.label < r.size() ? r[ch.label].text : "", *v.value, {}, {}};
    if (ch.interval && *ch.interval < r.size()) {
      const Cell& iv = r[*ch.interval];
      if (iv.low && iv.high && std::isfinite(*iv.low) && std::isfinite(*iv.high) && iv.unit == unit)
        b.low = *iv.low, b.high = *iv.high;
    }
    bars.push_back(std::move(b));
  }
  if (bars.empty()) return "";

  double typical = 0, vmin = 0, vmax = 0;
  bool positive = true, negative = true;
  for (auto& b : bars) {
    typical = std::max(typical, std::fabs(b.value));
    positive = positive && b.value >= 0;
    negative = negative && b.value <= 0;
  }
  const ReadingScale rs = reading_scale(typical, unit);
  for (auto& b : bars) {
    b.value *= rs.factor;
    if (b.low) *b.low *= rs.factor, *b.high *= rs.factor;
    vmin = std::min({vmin, b.value, b.low.value_or(b.value)});
    vmax = std::max({vmax, b.value, b.high.value_or(b.value)});
  }
  // A positive quantity's axis starts at 0 and its whiskers stop there (a
  // CI of a few noisy samples can reach below 0, the quantity cannot);
  // likewise at 0 for a negative one.
  if (positive) vmin = 0;
  if (negative && !positive) vmax = 0;
  if (vmax == vmin) vmax = vmin + 1;
  const double step = nice_step(vmax - vmin, 5);
  const double a0 = std::floor(vmin / step + 1e-9) * step, a1 = std::ceil(vmax / step - 1e-9) * step;

  std::size_t longest = 0;
  for (auto& b : bars) longest = std::max(longest, b.label.size());
  const double W = 1100, label_w = std::clamp(12.0 + 7.0 * longest, 80.0, 360.0), right = 120;
  const double top = 56, row_h = 26, bar_h = 16, ph = row_h * bars.size(), H = top + ph + 44;
  const double left = label_w + 8, pw = W - left - right;
  auto x = [&](double v) { return left + (std::clamp(v, a0, a1) - a0) / (a1 - a0) * pw; };
  const std::string unit_shown = rs.unit.empty() ? "" : " " + rs.unit;

  std::string o = fmt::format(
      "<svg class=\"chart table-chart\" role=\"img\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n", W, H);
  const std::string what = t.columns[ch.value].header.empty() ? "value" : t.columns[ch.value].header;
  o += fmt::format("<title>{}</title>\n", html_escape(plain_title(t)));
  o += fmt::format("<text class=\"ct\" x=\"8\" y=\"20\">{}{}</text>\n", html_escape(what),
                   html_escape(rs.unit.empty() ? "" : " (" + rs.unit + ")"));
  // The legend: what a bar and a whisker are.
  o += fmt::format("<rect class=\"bar swatch\" x=\"8\" y=\"31\" width=\"14\" height=\"10\"/><text class=\"cs\" x=\"27\" "
                   "y=\"40\">bar: {}</text>\n",
                   html_escape(what));
  bool any_whisker = false;
  for (auto& b : bars) any_whisker = any_whisker || b.low.has_value();
  if (any_whisker) {
    const double lx = 40 + 7.0 * what.size() + 40;
    o += fmt::format("<g class=\"whisker legend\"><line x1=\"{0}\" y1=\"36\" x2=\"{1}\" y2=\"36\"/><line x1=\"{0}\" "
                     "y1=\"31\" x2=\"{0}\" y2=\"41\"/><line x1=\"{1}\" y1=\"31\" x2=\"{1}\" y2=\"41\"/></g>"
                     "<text class=\"cs whisker-name\" x=\"{2}\" y=\"40\">whiskers: {3}</text>\n",
                     lx, lx + 18, lx + 24, html_escape(ch.interval_name));
  }

  o += "<g class=\"axis\">\n";
  o += x_ticks(a0, a1, step, x, top, ph, "tick mid", false);
  o += fmt::format("<text class=\"cs mid\" x=\"{:.1f}\" y=\"{}\">{}</text>\n", left + pw / 2, top + ph + 36,
                   html_escape(rs.unit.empty() ? what : rs.unit));
  o += fmt::format("<line class=\"zero\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>\n", x(0), top - 4,
                   top + ph);
  o += "</g>\n";

  for (std::size_t i = 0; i < bars.size(); ++i) {
    const TableBar& b = bars[i];
    const double cy = top + row_h * (i + 0.5);
    o += "<g class=\"row\">";
    o += fmt::format("<text class=\"rl\" x=\"{}\" y=\"{:.1f}\">{}</text>", left - 8, cy + 4, html_escape(b.label));
    const double x0 = x(0), xv = x(b.value);
    o += fmt::format("<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\"><title>{}: {}{}"
                     "</title></rect>",
                     std::min(x0, xv), cy - bar_h / 2, std::fabs(xv - x0), bar_h, html_escape(what),
                     format_reading(b.value), html_escape(unit_shown));
    double end = std::max(x0, xv);
    if (b.low) {
      const bool cut_low = positive && *b.low < 0, cut_high = negative && !positive && *b.high > 0;
      const double xl = x(positive ? std::max(0.0, *b.low) : *b.low);
      const double xh = x(negative && !positive ? std::min(0.0, *b.high) : *b.high);
      const double cap = 5;
      o += fmt::format("<g class=\"whisker\"><title>{}: {} .. {}{}{}</title>", html_escape(ch.interval_name),
                       format_reading(*b.low), format_reading(*b.high), html_escape(unit_shown),
                       cut_low || cut_high ? " (drawn to 0: the interval crosses 0, the quantity cannot)" : "");
      o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", xl, cy, xh, cy);
      // A cut end has no cap: the interval goes on past it.
      if (!cut_low)
        o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>", xl, cy - cap, cy + cap);
      if (!cut_high)
        o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>", xh, cy - cap, cy + cap);
      o += "</g>";
      end = std::max(end, xh);
    }
    o += fmt::format("<text class=\"rv\" x=\"{:.1f}\" y=\"{:.1f}\">{}{}</text>", end + 6, cy + 4,
                     format_reading(b.value), html_escape(unit_shown));
    o += "</g>\n";
  }
  return o + "</svg>\n";
}


}  // namespace kvmbench
