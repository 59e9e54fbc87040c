#include "analysis/views/history_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/model/json_input.h"
#include "analysis/report/numbers.h"
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
    auto [it, fresh] = at.emplace(std::tuple{s.machine, s.preset, s.parameters, s.key.metric, s.key.unit}, out.size());
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
  std::string n = s.key.case_name.empty() ? s.key.metric : s.key.case_name;
  if (with_variant && !s.key.variant.empty()) n += "/" + s.key.variant;
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
                     format_number(c.after.mean), s.key.unit, format_p(c.p), format_p(c.p_holm), c.before.n, c.after.n, sep,
                     c.index, before.kernel_release, before.dir_name, sep, c.index + 1, after.kernel_release,
                     after.dir_name);
}

Table group_table(const History& h, const Group& g, std::size_t first, std::size_t count) {
  const HistorySeries& s0 = *g.series.front();
  std::set<std::string> variants;
  for (auto* s : g.series) variants.insert(s->key.variant);
  Table t;
  t.max_text_rows = 0;
  t.title = fmt::format("# {} {} ({}), mean of each run's repetitions\n"
                        "# {} (machine {}), preset {}, {} run{} by {}\n"
                        "# * marks the kernel a change point falls in",
                        h.options.suite, s0.key.metric, s0.key.unit, s0.hostname, s0.machine,
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
  for (auto* s : g.series) variants.insert(s->key.variant);
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

// One series along its runs: every run a dot, the mean of each segment
// between change points a line, each change point a dashed line labelled
// with its kernel and change.
Chart series_chart(const HistorySeries& s) {
  Chart ch;
  ch.kind = Chart::Kind::along;
  ch.title = s.label();
  ch.unit = s.key.unit;
  ch.caption = fmt::format("{} runs, {} change point(s)", s.points.size(), s.result.change_points.size());
  for (const auto& p : s.points) ch.points.push_back({p.kernel_release + " " + p.dir_name, p.value});
  std::vector<std::size_t> cuts = {0};
  for (const auto& c : s.result.change_points) cuts.push_back(c.index);
  cuts.push_back(s.points.size());
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    if (cuts[k + 1] <= cuts[k]) continue;
    double sum = 0;
    for (std::size_t i = cuts[k]; i < cuts[k + 1]; ++i) sum += s.points[i].value;
    ch.segments.push_back({cuts[k], cuts[k + 1] - 1, sum / static_cast<double>(cuts[k + 1] - cuts[k])});
  }
  for (const auto& c : s.result.change_points)
    ch.marks.push_back({c.index, s.points[c.index].kernel_release + " " + format_pct(c.change.pct)});
  return ch;
}

}  // namespace

Document history_document(const History& h) {
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
  for (const auto& s : h.series) d.charts.push_back(series_chart(s));
  d.data = history_to_json(h);
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
                           {"case", s.key.case_name},
                           {"variant", s.key.variant},
                           {"metric", s.key.metric},
                           {"unit", s.key.unit},
                           {"first_p", std::isfinite(s.result.first_p) ? nlohmann::json(s.result.first_p) : nullptr},
                           {"below_floor", s.result.below_floor},
                           {"note", s.result.note},
                           {"points", points},
                           {"change_points", cps}});
  }
  return j;
}

}  // namespace kvmbench
