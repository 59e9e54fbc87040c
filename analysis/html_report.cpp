#include "analysis/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/compare_render.h"
#include "analysis/statistics.h"

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

std::string table_to_html(const Table& t) {
  std::string o = "<section class=\"table\">\n";
  if (!plain_title(t).empty()) o += "<h3>" + html_escape(plain_title(t)) + "</h3>\n";
  if (!t.source.empty()) o += "<p class=\"source\">source: <b>" + html_escape(t.source) + "</b></p>\n";
  o += "<div class=\"scroll\"><table>\n<thead><tr>";
  for (auto& c : t.columns)
    o += fmt::format("<th class=\"{}\">{}</th>", c.align == Align::left ? "l" : "r", html_escape(c.header));
  o += "</tr></thead>\n<tbody>\n";
  for (auto& r : t.rows) {
    o += "<tr>";
    for (std::size_t i = 0; i < r.size(); ++i)
      o += fmt::format("<td class=\"{}\">{}</td>", t.columns[i].align == Align::left ? "l" : "r",
                       html_escape(r[i].text));
    o += "</tr>\n";
  }
  o += "</tbody>\n</table></div>\n";
  for (auto& n : t.notes) o += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  return o + "</section>\n";
}

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

static const char* kGroupColors[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3"};

std::string chart_svg(const std::string& title, const std::string& unit, const std::vector<ChartGroup>& groups,
                      const std::string& caption, const std::string& caption_class) {
  const double W = 364, H = 262, left = 64, right = 12, top = 62, bottom = 34;
  const double pw = W - left - right, ph = H - top - bottom;

  struct G {
    std::string label;
    std::vector<double> v;
    double mean = NAN, lo = NAN, hi = NAN;
  };
  std::vector<G> gs;
  double dmin = INFINITY, dmax = -INFINITY;
  for (auto& g : groups) {
    G x{g.label, {}, NAN, NAN, NAN};
    for (double v : g.values)
      if (std::isfinite(v)) x.v.push_back(v);
    if (!x.v.empty()) {
      auto s = stats::summarize(x.v);
      x.mean = s.mean;
      x.lo = s.ci95_low;
      x.hi = s.ci95_high;
      for (double v : x.v) dmin = std::min(dmin, v), dmax = std::max(dmax, v);
      if (std::isfinite(x.lo)) dmin = std::min(dmin, x.lo), dmax = std::max(dmax, x.hi);
    }
    gs.push_back(std::move(x));
  }
  std::string o = fmt::format(
      "<svg class=\"chart\" role=\"img\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n", W, H);
  o += fmt::format("<title>{}</title>\n", html_escape(title));
  // Long series keys: keep the end (the metric), the full key is in <title>.
  std::string shown = title.size() > 50 ? "…" + title.substr(title.size() - 49) : title;
  o += fmt::format("<text class=\"ct\" x=\"{}\" y=\"18\">{}</text>\n", 8, html_escape(shown));
  std::string sub = unit.empty() ? caption : (caption.empty() ? unit : unit + " · " + caption);
  o += fmt::format("<text class=\"cs {}\" x=\"8\" y=\"36\">{}</text>\n", html_escape(caption_class),
                   html_escape(sub));
  if (!std::isfinite(dmin)) {
    o += fmt::format("<text class=\"cs\" x=\"{}\" y=\"{}\">no samples</text>\n</svg>\n", left, top + ph / 2);
    return o;
  }
  // Axis: from zero when the data sit reasonably far from it, so bar
  // lengths mean something; otherwise zoomed, and the chart says so.
  bool from_zero = dmin >= 0 ? dmin <= 0.5 * dmax : dmax <= 0 ? false : true;
  double lo = from_zero ? std::min(0.0, dmin) : dmin, hi = dmax;
  if (hi == lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.01);
  double step = nice_step(hi - lo, 4);
  double pad = from_zero ? 0 : (hi - lo) * 0.08;
  double a0 = std::floor((lo - pad) / step) * step, a1 = std::ceil((hi + (hi - lo) * 0.05) / step) * step;
  if (from_zero && lo >= 0) a0 = 0;
  auto y = [&](double v) { return top + ph - (v - a0) / (a1 - a0) * ph; };

  o += "<g class=\"axis\">\n";
  for (double t = a0; t <= a1 + step * 0.5; t += step) {
    double yy = y(t);
    o += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>", left, yy, W - right, yy);
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\">{}</text>\n", left - 6, yy + 4,
                     html_escape(format_number(t, 3)));
  }
  o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" class=\"frame\"/>", left, top, top + ph);
  o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" class=\"frame\"/>\n", left, top + ph, W - right);
  o += "</g>\n";
  if (!from_zero || a0 != 0)
    o += fmt::format("<text class=\"zoom\" x=\"{}\" y=\"{}\">axis does not start at 0</text>\n", W - right - 2,
                     top - 8);

  const double slot = pw / std::max<std::size_t>(1, gs.size());
  const double bw = std::min(90.0, slot * 0.55);
  for (std::size_t i = 0; i < gs.size(); ++i) {
    auto& g = gs[i];
    const char* color = kGroupColors[i % 5];
    double cx = left + slot * (i + 0.5);
    o += fmt::format("<g class=\"group\" data-group=\"{}\">\n", html_escape(g.label));
    if (std::isfinite(g.mean)) {
      double yb = y(std::max(a0, std::min(0.0, a1))), ym = y(g.mean);
      if (a0 > 0) yb = y(a0);
      o += fmt::format("<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                       "fill=\"{}\"><title>mean {}</title></rect>\n",
                       cx - bw / 2, std::min(yb, ym), bw, std::fabs(yb - ym), color,
                       html_escape(format_number(g.mean)));
      // Samples as dots, spread across the bar by a fixed low-discrepancy
      // sequence so the picture is the same every time.
      for (std::size_t k = 0; k < g.v.size(); ++k) {
        double jitter = std::fmod(0.5 + k * 0.6180339887, 1.0) - 0.5;
        o += fmt::format("<circle class=\"dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{}</title></circle>\n",
                         cx + jitter * bw * 0.7, y(g.v[k]), html_escape(format_number(g.v[k], 6)));
      }
      if (std::isfinite(g.lo)) {
        double yl = y(g.lo), yh = y(g.hi), cap = bw * 0.18;
        o += fmt::format("<g class=\"whisker\"><title>95% CI of the mean {} .. {}</title>",
                         html_escape(format_number(g.lo)), html_escape(format_number(g.hi)));
        o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", cx, yl, cx, yh);
        o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", cx - cap, yl, cx + cap, yl);
        o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/></g>\n", cx - cap, yh,
                         cx + cap, yh);
      }
    }
    std::string lab = g.label.empty() ? fmt::format("n={}", g.v.size()) : fmt::format("{} (n={})", g.label, g.v.size());
    o += fmt::format("<text class=\"gl\" x=\"{:.1f}\" y=\"{}\">{}</text>\n", cx, H - 12, html_escape(lab));
    o += "</g>\n";
  }
  o += "</svg>\n";
  return o;
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
svg .grid{stroke:#eaeef2} svg .frame{stroke:#8c959f}
svg .bar{fill-opacity:.55} svg .dot{fill:#1f2328;fill-opacity:.75}
svg .whisker line{stroke:#1f2328;stroke-width:2}
svg .zoom{font-size:10px;fill:#9a6700;text-anchor:end}
.verdict-slower{color:#cf222e;font-weight:600} .verdict-faster{color:#1a7f37;font-weight:600}
footer{margin-top:24px;color:#8c959f;font-size:12px}
)";

std::string html_page(const std::string& title, const std::string& body, const std::string& footer) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n" + body +
         "<footer>Made by kvmbench. " + html_escape(footer) + "</footer>\n</body>\n</html>\n";
}

static std::string page(const std::string& title, const std::string& body) {
  return html_page(title, body,
                   "Bars: mean; whiskers: 95% CI of the mean (Student t); dots: individual samples, warm-up excluded.");
}

static std::string badge(const std::string& source) {
  std::string cls = source == "emulated" || source == "model" ? source : "";
  return fmt::format("<span class=\"badge {}\">source: {}</span>", cls, html_escape(source));
}

static std::string verdict_class(const MetricComparison& m) {
  if (!m.tested) return "";
  if (m.verdict == stats::Verdict::slower) return "slower";
  if (m.verdict == stats::Verdict::faster) return "faster";
  return "";
}

std::string render_comparison_html(const Comparison& c) {
  std::string b;
  b += "<h1>A/B comparison " + badge(c.source_label()) + "</h1>\n";
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
  Table t = comparison_table(c);
  t.title.clear();
  std::string th = table_to_html(t);
  // Colour the verdict cells: the rows are in metric order.
  std::size_t pos = 0;
  for (auto& m : c.metrics) {
    std::string cls = verdict_class(m);
    pos = th.find("<tr><td", pos);
    if (pos == std::string::npos) break;
    std::size_t last = th.rfind("<td class=\"l\">", th.find("</tr>", pos));
    if (!cls.empty() && last != std::string::npos)
      th.replace(last, 14, "<td class=\"l verdict-" + cls + "\">");
    pos += 7;
  }
  b += th;
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

std::string render_run_html(const Run& run, const std::vector<Table>& tables, const std::string& title) {
  std::string heading = title.empty() ? "kvmbench run " + run.dir.filename().string() : title;
  std::string src(to_string(run.source()));
  std::string b = "<h1>" + html_escape(heading) + " " + badge(src) + "</h1>\n";
  b += fmt::format("<p class=\"sides\">suite <code>{}</code> · status <code>{}</code> · <code>{}</code></p>\n",
                   html_escape(run.suite()), html_escape(run.status()), html_escape(run.dir.string()));
  if (!tables.empty()) b += "<h2>Tables</h2>\n";
  for (auto& t : tables) b += table_to_html(t);
  auto series = group_series(run.samples);
  if (!series.empty()) b += "<h2>Charts</h2>\n<div class=\"charts\">\n";
  for (auto& s : series) {
    // One point per repetition: its sub-units (threads, CPUs) summarised.
    const std::vector<double> values = experimental_units(s.observations).values;
    std::string cap;
    if (values.size() >= 2 && std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); })) {
      auto sm = stats::summarize(values);
      cap = fmt::format("mean {} ± {} (n={})", format_number(sm.mean), format_number(sm.stddev, 2), sm.n);
    }
    b += chart_svg(s.key, s.unit, {{"", values}}, cap);
  }
  if (!series.empty()) b += "</div>\n";
  return page(heading, b);
}

}  // namespace kvmbench
