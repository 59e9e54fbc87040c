// Renders a Comparison for people (text for mail within 80 columns,
// Markdown) and for programs (CSV, JSON with numbers, not strings).
// HTML is in html_report.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare.h"
#include "analysis/reading_units.h"
#include "analysis/table.h"

namespace kvmbench {

// A number with about `sig` significant digits, without an exponent for
// ordinary magnitudes ("1234567", "12.35", "0.0004321").
std::string format_number(double x, int sig = 4);
// "+5.03%" / "-0.41%"; "n/a" for NaN.
std::string format_pct(double pct);
// "1.2e-05", "0.0312", "1"; "n/a" for NaN.
std::string format_p(double p);
// The unit a row reads in: its larger mean's (reading_units.h), so that
// 45.28 s is not 4.528e+10 ns.
ReadingScale row_scale(const MetricComparison& m);
// "45.3 ± 0.1 (3)" in `scale`: the digits of the mean as its CI allows;
// "-" when absent.
std::string format_mean_sd(const stats::Summary& s, bool present, const ReadingScale& scale);
// "[+4.1%, +6.0%]"; "[unbounded]" when the CI has no finite bounds.
std::string format_ci(const stats::Change& c);

std::string_view to_string(MetricStatus s);  // "tested", "derived", ...

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

std::string render_comparison_text(const Comparison& c);
std::string render_comparison_markdown(const Comparison& c);
std::string render_comparison_csv(const Comparison& c);
nlohmann::json comparison_to_json(const Comparison& c);

// text | md | csv | json | html.
std::string render_comparison(const Comparison& c, Format f);

}  // namespace kvmbench
