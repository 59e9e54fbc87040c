// Renders a Comparison for people (text for mail within 80 columns,
// Markdown) and for programs (CSV, JSON with numbers, not strings).
// HTML is in html_report.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "analysis/report/numbers.h"
#include "analysis/report/table.h"

namespace kvmbench {

// The unit a row reads in: its larger mean's (numbers.h), so that
// 45.28 s is not 4.528e+10 ns.
ReadingScale row_scale(const MetricComparison& m);
// "45.3 ± 0.1 (3)" in `scale`: the digits of the mean as its CI allows;
// "-" when absent.
std::string format_mean_sd(const stats::Summary& s, bool present, const ReadingScale& scale);
// "[+4.1%, +6.0%]"; "[unbounded]" when the CI has no finite bounds.
std::string format_ci(const stats::Change& c);

std::string_view to_string(MetricStatus s);  // "tested", "derived", ...

// "[-7.1,-3.5]" within 13 columns: whole percents when tenths do not fit,
// "(very wide)" when neither does; "*" marks a CI on the log scale.
std::string format_ci_compact(const stats::Change& c);

// Whether a row is printed without --all: derived and secondary metrics
// are never tested, and a reader of a verdict wants the tested ones.
bool shown_by_default(const MetricComparison& m);
// "48 derived and 24 secondary metrics not shown (--all shows them)"; ""
// when none is hidden.
std::string hidden_rows_line(const Comparison& c, bool all);

// The first line of a comparison for people: the verdict over the tested
// metrics ("verdict: no significant difference in 24 tested metrics (Holm,
// alpha 0.05)", "verdict: SLOWER in 2 of 24 tested metrics: ...").
std::string verdict_line(const Comparison& c);
// A line saying the figures are no measurement of this machine's
// performance, for emulated, model and replay input; "" for hardware.
std::string source_banner(const Comparison& c);

// The mean a row shows and its spread: the geometric mean and the
// geometric sd as a percentage where the row's test was on the logs (so
// that the change is cand / base of what is shown), else the arithmetic
// mean and the CV.
struct RowCenter {
  double mean = NAN;
  double spread_pct = NAN;  // sd / mean, or exp(sd of logs) - 1, in percent
  bool geometric = false;
};
RowCenter row_center(const MetricComparison& m, bool base);

// What the experimental units of the comparison were and how they were
// made (one note each): the level the CI is for, sub-units summarised,
// aggregates used, the Mann-Whitney method, benchmarks that did not measure.
std::vector<std::string> experimental_unit_notes(const Comparison& c);

// Every unit's value and its sub-units' values, for looking (`compare
// --per-unit`); never used for a verdict.
std::string render_per_unit_text(const Comparison& c);

// The whole comparison as one wide table (Markdown, CSV, and the HTML page).
Table comparison_table(const Comparison& c);

// "  key: base -> cand" in 80 columns: values that do not fit are cut, each
// to its half of what the key leaves ("..." says so; meta.json and the
// json/md formats have them whole).
std::string configuration_line(const MetaDifference& d);

// Header lines: the two sides, their source, and the metadata differences.
std::string render_comparison_header_text(const Comparison& c);

// `all`: the derived and secondary metrics too.
std::string render_comparison_text(const Comparison& c, bool all = false);
std::string render_comparison_markdown(const Comparison& c);
std::string render_comparison_csv(const Comparison& c);
nlohmann::json comparison_to_json(const Comparison& c);

// text | md | csv | json | html; `all` for text (the others hold every row).
std::string render_comparison(const Comparison& c, Format f, bool all = false);

}  // namespace kvmbench
