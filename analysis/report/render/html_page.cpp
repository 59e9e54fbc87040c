#include "analysis/report/render/html_page.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/model/result_model.h"
#include "analysis/report/render/html_chart.h"
#include "analysis/report/render/html_escape.h"

namespace kvmbench {

// The <table> itself: the columns people read, a cell's tone as its class.
static std::string table_element(const Table& t) {
  const std::vector<std::size_t> cols = columns_for(t, Readers::people);
  std::string o = "<div class=\"scroll\"><table>\n<thead><tr>";
  for (std::size_t c : cols)
    o += fmt::format("<th class=\"{}\">{}</th>", t.columns[c].align == Align::left ? "l" : "r",
                     html_escape(t.columns[c].header));
  o += "</tr></thead>\n<tbody>\n";
  for (const auto& r : t.rows) {
    o += "<tr>";
    for (std::size_t c : cols) {
      std::string cls = t.columns[c].align == Align::left ? "l" : "r";
      if (const std::string_view tone = tone_class(r[c].tone); !tone.empty()) cls += " " + std::string(tone);
      o += fmt::format("<td class=\"{}\">{}</td>", cls, html_escape(r[c].text));
    }
    o += "</tr>\n";
  }
  return o + "</tbody>\n</table></div>\n";
}

std::string table_to_html(const Table& t) {
  std::string o = "<section class=\"table\">\n";
  if (!plain_title(t).empty()) o += "<h3>" + html_escape(plain_title(t)) + "</h3>\n";
  if (!t.source.empty()) o += "<p class=\"source\">source: <b>" + html_escape(t.source) + "</b></p>\n";
  o += table_element(t);
  for (auto& n : t.notes) o += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  o += table_chart_svg(t);
  return o + "</section>\n";
}

static const char* kCss = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1f2328;
  margin:24px auto;max-width:1160px;padding:0 16px;background:#fff}
h1{font-size:22px;margin:0 0 6px} h2{font-size:17px;margin:22px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:12px 0 6px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;
  background:#ddf4ff;color:#0969da;border:1px solid #54aeff;vertical-align:middle}
.badge.emulated,.badge.model{background:#fff8c5;color:#7d4e00;border-color:#d4a72c}
table{border-collapse:collapse;margin:6px 0 4px;font-size:12.5px}
.scroll{overflow-x:auto;max-width:100%}
th,td{padding:4px 7px;border-bottom:1px solid #d8dee4;white-space:nowrap}
th{background:#f6f8fa;font-weight:600} td.r,th.r{text-align:right;font-variant-numeric:tabular-nums} td.l,th.l{text-align:left}
tbody tr:nth-child(even){background:#fafbfc}
td.l:last-child{white-space:normal;min-width:8em}
.note,.source{color:#57606a;font-size:12px;margin:2px 0}
.charts{display:flex;flex-wrap:wrap;gap:12px}
svg.chart{border:1px solid #d0d7de;border-radius:6px;background:#fff}
svg .ct{font-size:13px;font-weight:600;fill:#1f2328} svg .cs{font-size:12px;fill:#57606a}
svg .cs.worse{fill:#cf222e;font-weight:600} svg .cs.better{fill:#1a7f37;font-weight:600}
svg .tick{font-size:11px;fill:#57606a;text-anchor:end} svg .gl{font-size:12px;fill:#1f2328;text-anchor:middle}
svg .gl.slant{text-anchor:end} svg .grid{stroke:#eaeef2} svg .frame{stroke:#8c959f}
svg .bar{fill-opacity:.55} svg .dot{fill:#1f2328;fill-opacity:.75}
svg .whisker line{stroke:#1f2328;stroke-width:2}
svg .zoom{font-size:10px;fill:#9a6700;text-anchor:end}
svg .rl{font-size:12px;fill:#1f2328;text-anchor:end} svg .rv{font-size:12px;fill:#1f2328}
svg .mid{text-anchor:middle} svg .zero{stroke:#57606a;stroke-width:1.5}
svg.table-chart .bar{fill:#4c72b0;fill-opacity:.8} svg.table-chart{margin:8px 0 4px}
svg.overview{margin:4px 0 12px} svg .ci{stroke:#1f2328;stroke-width:2;fill:#1f2328} svg .pt{fill:#1f2328}
svg .change.worse .ci{stroke:#cf222e;fill:#cf222e} svg .change.worse .pt{fill:#cf222e}
svg .change.better .ci{stroke:#1a7f37;fill:#1a7f37} svg .change.better .pt{fill:#1a7f37}
svg .change.worse .rl{fill:#cf222e;font-weight:600} svg .change.better .rl{fill:#1a7f37;font-weight:600}
.banner{margin:10px 0 14px;padding:12px 16px;border-radius:6px;font-size:15px;font-weight:600;border:2px solid}
.banner.caveat{background:#fff8c5;border-color:#d4a72c;color:#4d2d00}
.banner.incomplete{background:#ffebe9;border-color:#cf222e;color:#82071e}
td.worse{color:#cf222e;font-weight:600} td.better{color:#1a7f37;font-weight:600}
footer{margin-top:24px;color:#8c959f;font-size:12px}
)";

std::string html_page(const std::string& title, const std::string& body, const std::string& footer) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n" + body +
         "<footer>Made by kvmbench. " + html_escape(footer) + "</footer>\n</body>\n</html>\n";
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

// What the page's charts are, for its footer.
static std::string chart_legend(const std::vector<Chart>& overview, const std::vector<Chart>& per_metric) {
  std::vector<Chart> charts = overview;
  charts.insert(charts.end(), per_metric.begin(), per_metric.end());
  std::string out;
  auto any = [&](Chart::Kind k) {
    return std::any_of(charts.begin(), charts.end(), [&](const Chart& c) { return c.kind == k; });
  };
  if (any(Chart::Kind::changes))
    out += "Overview: each metric's change in percent (a dot) and its CI (the line; an arrow: it goes on past "
           "the axis); red a regression, green an improvement, both significant. ";
  if (any(Chart::Kind::bars))
    out += "Bars: mean; whiskers: 95% CI of the mean (Student t); dots: individual samples, warm-up excluded.";
  if (any(Chart::Kind::points))
    out += std::string(out.empty() || out.back() == ' ' ? "" : " ") +
           "Per metric: the mean a thick mark, whiskers its 95% CI (Student t), dots the units; the axis fits the "
           "data.";
  if (any(Chart::Kind::xy))
    out += std::string(out.empty() ? "" : " ") +
           "Ramps: the host's memory counter while the guest faulted its memory in (dots), the rate fitted over "
           "the ramp (red).";
  if (any(Chart::Kind::along))
    out += std::string(out.empty() ? "" : " ") +
           "Dots: each run's mean; lines: the mean of each segment between change points; dashed: a change "
           "point, at the first run after it.";
  return out;
}

std::string render_document_html(const Document& d) {
  const std::string title = d.title.empty() ? "kvmbench" : d.title;
  std::string b = "<h1>" + html_escape(title) + (d.source.empty() ? "" : " " + badge(d.source)) + "</h1>\n";
  if (auto s = parse_source(d.source)) b += banner("caveat", source_warning(*s));
  for (const auto& a : d.alerts) b += banner("incomplete", a);
  auto text_block = [&](const std::vector<std::string>& lines) {
    std::string t;
    for (const auto& l : lines) t += html_escape(l) + "\n";
    // As they read in text: aligned lines stay aligned.
    if (!t.empty()) b += "<pre class=\"lead\">" + t + "</pre>\n";
  };
  text_block(d.lead);
  for (const auto& c : d.overview) b += chart_svg(c);
  for (const auto& t : d.tables) b += table_to_html(t);
  if (!d.charts.empty()) {
    b += "<div class=\"charts\">\n";
    for (const auto& c : d.charts) b += chart_svg(c);
    b += "</div>\n";
  }
  text_block(d.closing);
  return html_page(title, b, chart_legend(d.overview, d.charts));
}

}  // namespace kvmbench
