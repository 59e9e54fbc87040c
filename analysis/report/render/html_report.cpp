#include "analysis/report/render/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "analysis/report/render/compare_render.h"
#include "analysis/report/numbers.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

std::string html_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += ch;
    }
  }
  return o;
}

// The <table> itself; `cell_class` adds a class to a body cell (row, column).
static std::string table_element(const Table& t,
                                 const std::function<std::string(std::size_t, std::size_t)>& cell_class) {
  std::string o = "<div class=\"scroll\"><table>\n<thead><tr>";
  for (auto& c : t.columns)
    o += fmt::format("<th class=\"{}\">{}</th>", c.align == Align::left ? "l" : "r", html_escape(c.header));
  o += "</tr></thead>\n<tbody>\n";
  for (std::size_t ri = 0; ri < t.rows.size(); ++ri) {
    auto& r = t.rows[ri];
    o += "<tr>";
    for (std::size_t i = 0; i < r.size(); ++i) {
      std::string cls = i < t.columns.size() && t.columns[i].align == Align::left ? "l" : "r";
      if (cell_class) {
        const std::string extra = cell_class(ri, i);
        if (!extra.empty()) cls += " " + extra;
      }
      o += fmt::format("<td class=\"{}\">{}</td>", cls, html_escape(r[i].text));
    }
    o += "</tr>\n";
  }
  return o + "</tbody>\n</table></div>\n";
}

static std::string table_section(const Table& t,
                                 const std::function<std::string(std::size_t, std::size_t)>& cell_class) {
  std::string o = "<section class=\"table\">\n";
  if (!plain_title(t).empty()) o += "<h3>" + html_escape(plain_title(t)) + "</h3>\n";
  if (!t.source.empty()) o += "<p class=\"source\">source: <b>" + html_escape(t.source) + "</b></p>\n";
  o += table_element(t, cell_class);
  for (auto& n : t.notes) o += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  o += table_chart_svg(t);
  return o + "</section>\n";
}

std::string table_to_html(const Table& t) { return table_section(t, nullptr); }

// ---- charts ---------------------------------------------------------------

// A "nice" tick step (1, 2 or 5 times a power of ten) for about `n` ticks.
static double nice_step(double range, int n) {
  if (!(range > 0)) return 1;
  double raw = range / n;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / mag;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * mag;
}

// Decimals that tick labels need for `step` (0, 0.5, 1.0 share them).
static int tick_decimals(double step) { return std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))); }

static const char* kGroupColors[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3"};

std::string chart_svg(const std::string& title, const std::string& unit, const std::vector<ChartGroup>& groups,
                      const std::string& caption, const std::string& caption_class) {
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
    G x{g.label, {}, NAN, NAN, NAN};
    for (double v : g.values)
      if (std::isfinite(v)) x.v.push_back(v * rs.factor);
    if (!x.v.empty()) {
      auto s = stats::summarize(x.v);
      x.mean = s.mean;
      x.lo = s.ci95_low;
      x.hi = s.ci95_high;
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
  o += fmt::format("<text class=\"cs {}\" x=\"8\" y=\"36\">{}</text>\n", html_escape(caption_class),
                   html_escape(sub));
  if (!std::isfinite(dmin)) {
    o += fmt::format("<text class=\"cs\" x=\"{}\" y=\"{}\">no samples</text>\n</svg>\n", left, top + ph / 2);
    return o;
  }
  // Axis: from zero for a positive quantity (or one crossing 0), so that
  // bar lengths mean something (a zoomed axis made 60 and 60.01 cycles look
  // like a difference); the caption gives the change. Zoomed, and saying
  // so, only for a negative quantity.
  bool from_zero = dmin >= 0 || dmax > 0;
  double lo = from_zero ? std::min(0.0, dmin) : dmin, hi = dmax;
  if (hi == lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.01);
  double step = nice_step(hi - lo, 4);
  double pad = from_zero ? 0 : (hi - lo) * 0.08;
  double a0 = std::floor((lo - pad) / step) * step, a1 = std::ceil((hi + (hi - lo) * 0.05) / step) * step;
  if (from_zero && lo >= 0) a0 = 0;
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

// ---- the chart of a table ---------------------------------------------------

namespace {

// One bar of a table's chart, in the table's own unit.
struct TableBar {
  std::string label;
  double value = NAN;
  std::optional<double> low, high;
};

}  // namespace

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
  const int dec = tick_decimals(step);
  for (double tv = a0; tv <= a1 + step * 0.5; tv += step) {
    const double xx = x(tv);
    o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" class=\"grid\"/>", xx, top, top + ph);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tick mid\">{:.{}f}</text>\n", xx, top + ph + 16,
                     std::fabs(tv) < step * 1e-6 ? 0.0 : tv, dec);
  }
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

// ---- pages ----------------------------------------------------------------

static const char* kCss = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1f2328;
  margin:24px auto;max-width:1160px;padding:0 16px;background:#fff}
h1{font-size:22px;margin:0 0 6px} h2{font-size:17px;margin:22px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:12px 0 6px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;
  background:#ddf4ff;color:#0969da;border:1px solid #54aeff;vertical-align:middle}
.badge.emulated,.badge.model{background:#fff8c5;color:#7d4e00;border-color:#d4a72c}
.sides{margin:6px 0;color:#57606a} .sides code{color:#1f2328}
table{border-collapse:collapse;margin:6px 0 4px;font-size:12.5px}
.scroll{overflow-x:auto;max-width:100%}
th,td{padding:4px 7px;border-bottom:1px solid #d8dee4;white-space:nowrap}
th{background:#f6f8fa;font-weight:600} td.r,th.r{text-align:right;font-variant-numeric:tabular-nums} td.l,th.l{text-align:left}
tbody tr:nth-child(even){background:#fafbfc}
td.l:last-child{white-space:normal;min-width:8em}
table.meta td{white-space:normal;max-width:480px;word-break:break-word}
.note,.source{color:#57606a;font-size:12px;margin:2px 0}
.charts{display:flex;flex-wrap:wrap;gap:12px}
svg.chart{border:1px solid #d0d7de;border-radius:6px;background:#fff}
svg .ct{font-size:13px;font-weight:600;fill:#1f2328} svg .cs{font-size:12px;fill:#57606a}
svg .cs.slower{fill:#cf222e;font-weight:600} svg .cs.faster{fill:#1a7f37;font-weight:600}
svg .tick{font-size:11px;fill:#57606a;text-anchor:end} svg .gl{font-size:12px;fill:#1f2328;text-anchor:middle}
svg .gl.slant{text-anchor:end} svg .grid{stroke:#eaeef2} svg .frame{stroke:#8c959f}
svg .bar{fill-opacity:.55} svg .dot{fill:#1f2328;fill-opacity:.75}
svg .whisker line{stroke:#1f2328;stroke-width:2}
svg .zoom{font-size:10px;fill:#9a6700;text-anchor:end}
svg .rl{font-size:12px;fill:#1f2328;text-anchor:end} svg .rv{font-size:12px;fill:#1f2328}
svg .mid{text-anchor:middle} svg .zero{stroke:#57606a;stroke-width:1.5}
svg.table-chart .bar{fill:#4c72b0;fill-opacity:.8} svg.table-chart{margin:8px 0 4px}
.banner{margin:10px 0 14px;padding:12px 16px;border-radius:6px;font-size:15px;font-weight:600;border:2px solid}
.banner.caveat{background:#fff8c5;border-color:#d4a72c;color:#4d2d00}
.banner.incomplete{background:#ffebe9;border-color:#cf222e;color:#82071e}
.results td.key{white-space:normal;overflow-wrap:anywhere;min-width:10em}
.results td.verdict{white-space:normal;min-width:8em}
.verdict-slower{color:#cf222e;font-weight:600} .verdict-faster{color:#1a7f37;font-weight:600}
footer{margin-top:24px;color:#8c959f;font-size:12px}
)";

std::string html_page(const std::string& title, const std::string& body, const std::string& footer) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n" + body +
         "<footer>Made by kvmbench. " + html_escape(footer) + "</footer>\n</body>\n</html>\n";
}

// `sample_charts`: the page has chart_svg's charts, which the footer explains.
static std::string page(const std::string& title, const std::string& body, bool sample_charts = true) {
  return html_page(title, body,
                   sample_charts ? "Bars: mean; whiskers: 95% CI of the mean (Student t); dots: individual samples, "
                                   "warm-up excluded."
                                 : "");
}

static std::string badge(const std::string& source) {
  std::string cls = source == "emulated" || source == "model" ? source : "";
  return fmt::format("<span class=\"badge {}\">source: {}</span>", cls, html_escape(source));
}

// What a source other than hardware means for the figures, said where the
// eye lands first ("" for hardware).
static std::string source_warning(Source s) {
  switch (s) {
    case Source::emulated:
      return "Emulated: a functional run under QEMU TCG. These figures are not performance measurements; "
             "do not compare or publish them as such.";
    case Source::model: return "Model: figures computed by a cost model, not measured.";
    case Source::replay: return "Replay: figures parsed from a log taken elsewhere, not measured on this host.";
    case Source::hardware: return "";
  }
  return "";
}

// A banner at the top of a page: `kind` "caveat" (not a measurement) or
// "incomplete" (a run that did not measure everything).
static std::string banner(const std::string& kind, const std::string& text) {
  if (text.empty()) return "";
  return fmt::format("<div class=\"banner {}\" role=\"alert\">{}</div>\n", kind, html_escape(text));
}

static std::string verdict_class(const MetricComparison& m) {
  if (!m.tested) return "";
  if (m.verdict == stats::Verdict::slower) return "slower";
  if (m.verdict == stats::Verdict::faster) return "faster";
  return "";
}

// The comparison table's columns in the order the page shows them: the
// verdict and the change next to the metric, so that they are in view at a
// laptop's width; the means and p-values after them.
static Table verdict_first(const Table& t) {
  std::vector<std::size_t> order;
  auto col = [&](std::string_view h) {
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].header == h) return i;
    return t.columns.size();
  };
  for (std::string_view h : {"metric", "verdict", "change", "95% CI"})
    if (col(h) < t.columns.size()) order.push_back(col(h));
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  Table o = t;
  o.columns.clear();
  for (std::size_t i : order) o.columns.push_back(t.columns[i]);
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    for (std::size_t k = 0; k < order.size(); ++k)
      o.rows[r][k] = order[k] < t.rows[r].size() ? t.rows[r][order[k]] : Cell();
  return o;
}

std::string render_document_html(const Document& d) {
  const std::string title = d.title.empty() ? "kvmbench" : d.title;
  std::string b = "<h1>" + html_escape(title) + (d.source.empty() ? "" : " " + badge(d.source)) + "</h1>\n";
  if (auto s = parse_source(d.source)) b += banner("caveat", source_warning(*s));
  auto text_block = [&](const std::vector<std::string>& lines) {
    std::string t;
    for (const auto& l : lines) t += html_escape(l) + "\n";
    // As they read in text: aligned lines stay aligned.
    if (!t.empty()) b += "<pre class=\"lead\">" + t + "</pre>\n";
  };
  text_block(d.lead);
  for (const auto& t : d.tables) b += table_to_html(t);
  if (!d.charts.empty()) {
    b += "<div class=\"charts\">\n";
    for (const auto& c : d.charts) b += chart_svg(c.title, c.unit, c.groups, c.caption, c.caption_class);
    b += "</div>\n";
  }
  text_block(d.closing);
  return page(title, b, !d.charts.empty());
}

std::string render_comparison_html(const Comparison& c) {
  std::string b;
  b += "<h1>A/B comparison " + badge(c.source_label()) + "</h1>\n";
  std::string warn = c.cand_source == c.base_source ? source_warning(c.base_source) : "";
  if (c.cand_source != c.base_source)
    for (auto [side, src] : {std::pair{"base", c.base_source}, std::pair{"cand", c.cand_source}})
      if (!source_warning(src).empty()) warn += (warn.empty() ? "" : " ") + fmt::format("{}: {}", side, source_warning(src));
  b += banner("caveat", warn);
  for (auto [side, status] : {std::pair{"base", &c.base_status}, std::pair{"cand", &c.cand_status}})
    if (!status->empty() && *status != "complete")
      b += banner("incomplete", fmt::format("The {} run is not complete (status: {}).", side, *status));
  b += fmt::format("<p class=\"sides\">base: <code>{}</code> ({}) &nbsp; cand: <code>{}</code> ({})</p>\n",
                   html_escape(c.base_label), to_string(c.base_source), html_escape(c.cand_label),
                   to_string(c.cand_source));
  b += "<h2>Configuration that differs</h2>\n";
  if (c.meta_differences.empty()) {
    b += "<p class=\"note\">The same (kernel, firmware, KVM, THP, SMT, QEMU, parameters).</p>\n";
  } else {
    b += "<table class=\"meta\"><thead><tr><th class=\"l\">key</th><th class=\"l\">base</th>"
         "<th class=\"l\">cand</th></tr></thead><tbody>\n";
    for (auto& d : c.meta_differences)
      b += fmt::format("<tr><td class=\"l\"><code>{}</code></td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n",
                       html_escape(d.key), html_escape(d.base), html_escape(d.cand));
    b += "</tbody></table>\n";
  }
  b += "<h2>Results</h2>\n";
  Table t = verdict_first(comparison_table(c));
  t.title.clear();
  // The rows are in metric order; the verdict is column 1.
  b += "<div class=\"results\">" +
       table_section(t,
                     [&](std::size_t row, std::size_t col) {
                       if (col == 0) return std::string("key");
                       if (col != 1 || row >= c.metrics.size()) return std::string();
                       const std::string v = verdict_class(c.metrics[row]);
                       return v.empty() ? std::string("verdict") : "verdict verdict-" + v;
                     }) +
       "</div>\n";
  b += "<h2>Charts</h2>\n<div class=\"charts\">\n";
  for (auto& m : c.metrics) {
    // "not significant": the full verdict does not fit beside the change.
    std::string v = m.verdict == stats::Verdict::no_significant_difference ? "not significant"
                                                                            : std::string(stats::to_string(m.verdict));
    std::string cap = m.tested ? fmt::format("{} {} · {}", format_pct(m.change.pct), format_ci(m.change), v)
                               : (m.note.empty() ? std::string(stats::to_string(m.verdict)) : m.note);
    b += chart_svg(m.key, m.unit, {{"base", m.base_values}, {"cand", m.cand_values}}, cap, verdict_class(m));
  }
  b += "</div>\n";
  return page("kvmbench compare: " + c.cand_label + " vs " + c.base_label, b);
}

std::string render_run_html(const Run& run, const std::vector<Table>& tables, const std::string& title,
                            const std::string& incomplete) {
  std::string heading = title.empty() ? "kvmbench run " + run.dir.filename().string() : title;
  std::string src(to_string(run.source()));
  std::string b = "<h1>" + html_escape(heading) + " " + badge(src) + "</h1>\n";
  b += banner("caveat", source_warning(run.source()));
  std::string inc = incomplete;
  if (inc.empty() && !run.status().empty() && run.status() != "complete") inc = "run status: " + run.status();
  b += banner("incomplete", inc.empty() ? "" : "Incomplete run: " + inc + ". The tables hold what was measured.");
  b += fmt::format("<p class=\"sides\">suite <code>{}</code> · status <code>{}</code> · <code>{}</code></p>\n",
                   html_escape(run.suite()), html_escape(run.status()), html_escape(run.dir.string()));
  if (!tables.empty()) b += "<h2>Tables</h2>\n";
  for (auto& t : tables) b += table_to_html(t);
  // Per-series sample charts only while no table charts itself: they are
  // the only picture of a run whose tables say nothing about charts, and a
  // repetition of the tables' charts (one chart per series, dozens) when
  // the tables do.
  const bool tables_chart = std::any_of(tables.begin(), tables.end(), [](const Table& t) { return t.chart.has_value(); });
  auto series = tables_chart ? std::vector<Series>{} : group_series(run.samples);
  // One chart per variant/metric with its cases side by side, in first-seen
  // order: a run of 24 cases and 2 metrics is 2 charts, not 48 of one bar.
  struct MetricChart {
    std::string title, unit;
    std::vector<ChartGroup> groups;
  };
  std::vector<MetricChart> charts;
  for (auto& s : series) {
    const std::string title = s.variant.empty() ? s.metric : s.variant + "/" + s.metric;
    auto it = std::find_if(charts.begin(), charts.end(),
                           [&](const MetricChart& c) { return c.title == title && c.unit == s.unit; });
    if (it == charts.end()) it = charts.insert(charts.end(), MetricChart{title, s.unit, {}});
    // One point per repetition: its sub-units (threads, CPUs) summarised.
    // One colour: the cases are one quantity's values, not sides.
    it->groups.push_back({s.case_name, experimental_units(s.observations).values, 0});
  }
  if (!charts.empty()) b += "<h2>Charts</h2>\n<div class=\"charts\">\n";
  for (auto& c : charts) {
    std::string cap = c.groups.size() == 1 ? "" : fmt::format("{} cases", c.groups.size());
    b += chart_svg(c.title, c.unit, c.groups, cap);
  }
  if (!charts.empty()) b += "</div>\n";
  return page(heading, b, !charts.empty());
}

}  // namespace kvmbench
