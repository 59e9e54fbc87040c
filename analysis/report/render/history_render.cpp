#include "analysis/report/render/history_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/report/render/compare_render.h"
#include "analysis/report/render/html_report.h"
#include "analysis/model/json_input.h"
#include "analysis/report/table.h"

namespace kvmbench {

namespace {

// The series shown in one table: one machine, preset, parameters and metric.
struct Group {
  std::vector<const HistorySeries*> series;
};

std::vector<Group> groups_of(const History& h) {
  std::vector<Group> out;
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, std::size_t> at;
  for (const auto& s : h.series) {
    auto [it, fresh] = at.emplace(std::tuple{s.machine, s.preset, s.parameters, s.metric, s.unit}, out.size());
    if (fresh) out.emplace_back();
    out[it->second].series.push_back(&s);
  }
  return out;
}

// Consecutive points of one kernel: the rows of a table.
struct KernelRow {
  std::string kernel;
  std::vector<std::int64_t> run_ids;
};

std::vector<KernelRow> kernel_rows(const Group& g) {
  const HistorySeries* longest = g.series.front();
  for (auto* s : g.series)
    if (s->points.size() > longest->points.size()) longest = s;
  std::vector<KernelRow> rows;
  for (const auto& p : longest->points) {
    if (rows.empty() || rows.back().kernel != p.kernel_release) rows.push_back({p.kernel_release, {}});
    rows.back().run_ids.push_back(p.run_id);
  }
  return rows;
}

std::string column_name(const HistorySeries& s, bool with_variant) {
  std::string n = s.case_name.empty() ? s.metric : s.case_name;
  if (with_variant && !s.variant.empty()) n += "/" + s.variant;
  return n;
}

std::string detection_line(const History& h, const char* sep) {
  const auto& d = h.options.detect;
  return fmt::format("change points: E-divisive means, permutation test, Holm over the{}{} series scanned "
                     "(alpha {}); segments of {}+ runs, changes of {}%+;{}{}",
                     sep, h.series.size(), d.alpha, d.min_segment, d.min_change_pct, sep,
                     d.window ? fmt::format("short changes: windows of {} runs in series of {}+ runs", d.window,
                                            2 * d.window)
                              : std::string("no scan for short changes (--window 0)"));
}

std::string order_name(KernelOrder o) { return o == KernelOrder::time ? "time" : "release"; }

// The change, then the runs on both sides, on lines of up to 80 columns
// in text (`sep` "\n    ").
std::string change_text(const HistorySeries& s, const changepoint::ChangePoint& c, const std::string& sep) {
  const auto& after = s.points.at(c.index);
  const auto& before = s.points.at(c.index - 1);
  return fmt::format("{} {}{}{} -> {} {}, p {} (Holm {}); {} runs before, {} after{}last before: run {}, {}, {}{}"
                     "first after: run {}, {}, {}",
                     format_pct(c.change.pct), format_ci(c.change), sep, format_number(c.before.mean),
                     format_number(c.after.mean), s.unit, format_p(c.p), format_p(c.p_holm), c.before.n, c.after.n, sep,
                     c.index, before.kernel_release, before.dir_name, sep, c.index + 1, after.kernel_release,
                     after.dir_name);
}

Table group_table(const History& h, const Group& g, std::size_t first, std::size_t count) {
  const HistorySeries& s0 = *g.series.front();
  std::set<std::string> variants;
  for (auto* s : g.series) variants.insert(s->variant);
  Table t;
  t.max_text_rows = 0;
  t.title = fmt::format("# {} {} ({}), mean of each run's repetitions\n"
                        "# {} (machine {}), preset {}, {} run{} by {}\n"
                        "# * marks the kernel a change point falls in",
                        h.options.suite, s0.metric, s0.unit, s0.hostname, s0.machine,
                        s0.preset.empty() ? "-" : s0.preset, s0.points.size(), s0.points.size() == 1 ? "" : "s",
                        h.options.order == KernelOrder::time ? "start time" : "kernel release");
  t.columns = {{"kernel", Align::left}, {"runs", Align::right}};
  const auto rows = kernel_rows(g);
  for (std::size_t i = first; i < first + count; ++i) t.columns.push_back({column_name(*g.series[i], variants.size() > 1)});
  for (const auto& row : rows) {
    std::vector<std::string> cells = {row.kernel, fmt::format("{}", row.run_ids.size())};
    const std::set<std::int64_t> ids(row.run_ids.begin(), row.run_ids.end());
    for (std::size_t i = first; i < first + count; ++i) {
      const HistorySeries& s = *g.series[i];
      double sum = 0;
      std::size_t n = 0;
      bool change = false;
      for (std::size_t k = 0; k < s.points.size(); ++k) {
        if (!ids.count(s.points[k].run_id)) continue;
        sum += s.points[k].value;
        ++n;
        for (const auto& c : s.result.change_points) change |= c.index == k;
      }
      cells.push_back(n ? format_number(sum / n) + (change ? "*" : " ") : "-");
    }
    t.add_row(std::move(cells));
  }
  return t;
}

// "# parameters: a=1 b=2 ..." in lines of up to 80 columns.
std::string params_line(const HistorySeries& s) {
  const auto j = parse_json_input_or_discarded(s.parameters);
  if (!j.is_object() || j.empty()) return "";
  std::string out, line = "# parameters:";
  for (const auto& [k, v] : j.items()) {
    const std::string item = k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    if (line.size() + 1 + item.size() > 80 && line != "# parameters:") out += line + "\n", line = "#  ";
    line += " " + item;
  }
  return out + line + "\n";
}

// How many of a group's series from `first` on fit one table of 80
// columns (one at least): the kernel and runs columns, then each series'
// column as wide as its name or a value ("12345678*").
std::size_t columns_that_fit(const Group& g, std::size_t first) {
  std::set<std::string> variants;
  for (auto* s : g.series) variants.insert(s->variant);
  std::size_t width = std::string_view("kernel").size();
  for (const auto& row : kernel_rows(g)) width = std::max(width, row.kernel.size());
  width += 2 + std::string_view("runs").size();
  std::size_t n = 0;
  for (std::size_t i = first; i < g.series.size(); ++i, ++n) {
    const std::size_t column = 2 + std::max<std::size_t>(column_name(*g.series[i], variants.size() > 1).size(), 9);
    if (n > 0 && width + column > 80) break;
    width += column;
  }
  return n;
}

}  // namespace

Document history_document(const History& h, Format f) {
  Document d;
  d.title = "kvmbench history: " + h.options.suite;
  for (const auto& g : groups_of(h)) {
    for (std::size_t first = 0, count = 0; first < g.series.size(); first += count) {
      count = columns_that_fit(g, first);
      Table t = group_table(h, g, first, count);
      for (auto& l : text_lines(params_line(*g.series.front()))) t.notes.push_back(l);
      d.tables.push_back(std::move(t));
    }
    // Under the group's last table: its change points, each with its series.
    std::vector<std::string>& notes = d.tables.back().notes;
    notes.push_back("");
    std::size_t n = 0;
    for (auto* s : g.series) {
      for (const auto& c : s->result.change_points)
        for (auto& l : text_lines(fmt::format("  {}: {}", s->label(), change_text(*s, c, "\n    "))))
          notes.push_back(l);
      n += s->result.change_points.size();
      if (s->result.below_floor)
        notes.push_back(fmt::format("  {}: {} significant change(s) smaller than {}% not shown", s->label(),
                                    s->result.below_floor, h.options.detect.min_change_pct));
      if (!s->result.note.empty()) notes.push_back(fmt::format("  {}: not tested: {}", s->label(), s->result.note));
    }
    if (n == 0) notes.push_back("  no change points");
  }
  if (!d.tables.empty()) d.closing.push_back("");
  for (auto& l : text_lines("# " + detection_line(h, "\n# "))) d.closing.push_back(l);
  if (h.left_out) d.closing.push_back(fmt::format("# {} runs left out (not complete, or emulated/model)", h.left_out));
  if (h.non_finite)
    d.closing.push_back(fmt::format("# {} samples left out: their value is NaN or infinite", h.non_finite));
  if (f == Format::json) d.data = history_to_json(h);
  return d;
}

nlohmann::json history_to_json(const History& h) {
  nlohmann::json j = {{"suite", h.options.suite},
                      {"kernel_order", order_name(h.options.order)},
                      {"alpha", h.options.detect.alpha},
                      {"min_segment", h.options.detect.min_segment},
                      {"min_change_pct", h.options.detect.min_change_pct},
                      {"window", h.options.detect.window},
                      {"runs", h.runs},
                      {"left_out", h.left_out},
                      {"non_finite_samples", h.non_finite},
                      {"series", nlohmann::json::array()}};
  for (const auto& s : h.series) {
    nlohmann::json points = nlohmann::json::array(), cps = nlohmann::json::array();
    for (const auto& p : s.points)
      points.push_back({{"run", p.dir_name}, {"kernel", p.kernel_release}, {"start_time", p.start_time},
                        {"value", p.value}, {"n", p.n}});
    for (const auto& c : s.result.change_points)
      cps.push_back({{"index", c.index},
                     {"kernel_before", s.points[c.index - 1].kernel_release},
                     {"kernel_after", s.points[c.index].kernel_release},
                     {"run_before", s.points[c.index - 1].dir_name},
                     {"run_after", s.points[c.index].dir_name},
                     {"change_pct", c.change.pct},
                     {"ci95_low_pct", c.change.ci95_low},
                     {"ci95_high_pct", c.change.ci95_high},
                     {"mean_before", c.before.mean},
                     {"mean_after", c.after.mean},
                     {"n_before", c.before.n},
                     {"n_after", c.after.n},
                     {"p", c.p},
                     {"p_holm", c.p_holm},
                     {"found_by", c.windowed ? "window" : "whole segment"}});
    j["series"].push_back({{"machine", s.machine},
                           {"hostname", s.hostname},
                           {"preset", s.preset},
                           {"parameters", parse_json_input_or_discarded(s.parameters)},
                           {"case", s.case_name},
                           {"variant", s.variant},
                           {"metric", s.metric},
                           {"unit", s.unit},
                           {"first_p", std::isfinite(s.result.first_p) ? nlohmann::json(s.result.first_p) : nullptr},
                           {"below_floor", s.result.below_floor},
                           {"note", s.result.note},
                           {"points", points},
                           {"change_points", cps}});
  }
  return j;
}

namespace {

// One series as an inline SVG: every run a dot, the mean of each segment
// between change points a line, each change point a dashed line labelled
// with its kernel.
std::string series_svg(const HistorySeries& s) {
  const double W = 720, H = 240, left = 64, right = 12, top = 40, bottom = 28;
  const double pw = W - left - right, ph = H - top - bottom;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : s.points) lo = std::min(lo, p.value), hi = std::max(hi, p.value);
  if (!(hi > lo)) lo -= 1, hi += 1;
  const double pad = (hi - lo) * 0.08;
  lo -= pad, hi += pad;
  const std::size_t n = s.points.size();
  auto x = [&](double i) { return left + (n > 1 ? i / (n - 1) : 0.5) * pw; };
  auto y = [&](double v) { return top + (hi - v) / (hi - lo) * ph; };
  std::string o = fmt::format("<svg class=\"chart\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
                              "role=\"img\">\n<title>{}</title>\n",
                              W, H, W, H, html_escape(s.label()));
  o += fmt::format("<text class=\"ct\" x=\"{}\" y=\"18\">{} ({})</text>\n", left, html_escape(s.label()),
                   html_escape(s.unit));
  o += fmt::format("<text class=\"cs\" x=\"{}\" y=\"33\">{} runs, {} change point(s)</text>\n", left, n,
                   s.result.change_points.size());
  o += fmt::format("<rect class=\"frame\" fill=\"none\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", left, top,
                   pw, ph);
  for (int k = 0; k <= 4; ++k) {
    const double v = lo + (hi - lo) * k / 4;
    o += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
                     "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
                     left, left + pw, y(v), y(v), left - 4, y(v) + 4, html_escape(format_number(v, 3)));
  }
  for (std::size_t i = 0; i < n; ++i)
    o += fmt::format("<circle class=\"dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"1.8\"><title>{} {}: {}</title></circle>\n",
                     x(i), y(s.points[i].value), html_escape(s.points[i].kernel_release),
                     html_escape(s.points[i].dir_name), html_escape(format_number(s.points[i].value)));
  std::vector<std::size_t> cuts = {0};
  for (const auto& c : s.result.change_points) cuts.push_back(c.index);
  cuts.push_back(n);
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    if (cuts[k + 1] <= cuts[k]) continue;
    double sum = 0;
    for (std::size_t i = cuts[k]; i < cuts[k + 1]; ++i) sum += s.points[i].value;
    const double m = sum / (cuts[k + 1] - cuts[k]);
    o += fmt::format("<line stroke=\"#4c72b0\" stroke-width=\"2\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" "
                     "y2=\"{:.1f}\"/>\n",
                     x(cuts[k]), x(cuts[k + 1] - 1), y(m), y(m));
  }
  for (const auto& c : s.result.change_points) {
    const double cx = x(c.index - 0.5);
    o += fmt::format("<line stroke=\"#cf222e\" stroke-dasharray=\"4 3\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" "
                     "y2=\"{}\"/><text class=\"gl\" x=\"{:.1f}\" y=\"{}\">{} {}</text>\n",
                     cx, cx, top, top + ph, cx, top + ph + 16, html_escape(s.points[c.index].kernel_release),
                     html_escape(format_pct(c.change.pct)));
  }
  o += "</svg>\n";
  return o;
}

}  // namespace

std::string render_history_html(const History& h) {
  std::string b = fmt::format("<h1>kvmbench history: {}</h1>\n<p class=\"note\">{}; kernel order: {}</p>\n",
                              html_escape(h.options.suite), html_escape(detection_line(h, " ")),
                              order_name(h.options.order));
  for (const auto& g : groups_of(h)) {
    const HistorySeries& s0 = *g.series.front();
    b += fmt::format("<h2>{} on {} <code>{}</code>, preset {}</h2>\n", html_escape(s0.metric),
                     html_escape(s0.hostname), html_escape(s0.machine), html_escape(s0.preset));
    b += "<div class=\"charts\">\n";
    for (auto* s : g.series) b += series_svg(*s);
    b += "</div>\n<ul>\n";
    for (auto* s : g.series)
      for (const auto& c : s->result.change_points)
        b += fmt::format("<li>{}: {}</li>\n", html_escape(s->label()), html_escape(change_text(*s, c, "; ")));
    b += "</ul>\n";
    b += "<div class=\"scroll\">" + table_to_html(group_table(h, g, 0, g.series.size())) + "</div>\n";
  }
  return html_page("kvmbench history: " + h.options.suite, b,
                   "Dots: each run's mean; lines: the mean of each segment between change points; dashed: a change "
                   "point, at the first run after it.");
}

}  // namespace kvmbench
