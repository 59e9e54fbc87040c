// A Comparison as a Document (renderer.h writes it): for people (text
// and mail within 80 columns, Markdown) and for programs (CSV, JSON with
// numbers, not strings). HTML is in html_report.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "analysis/report/numbers.h"
#include "analysis/report/table.h"
#include "analysis/report/render/document.h"

namespace kvmbench {

// The unit a row reads in: its larger mean's (numbers.h), so that
// 45.28 s is not 4.528e+10 ns.
ReadingScale row_scale(const MetricComparison& m);

std::string_view to_string(MetricStatus s);  // "tested", "derived", ...


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
std::vector<std::string> comparison_header_lines(const Comparison& c);
// Every number in full (null where not finite), every verdict: compare's JSON.
nlohmann::json comparison_to_json(const Comparison& c);
// The comparison as `f` shows it (renderer.h writes it): text and json the
// verdict first, the change table (primary metrics; `all`: derived and
// secondary too) and Kalibera and Jones's levels (json: the data); mail
// the LKP layout (compare_mail.h, which needs the runs' meta.json); md one
// wide table; csv plain numbers, a row per metric. HTML is
// render_comparison_html's page (html_report.h).
Document comparison_document(const Comparison& c, Format f, bool all = false,
                             const nlohmann::json& base_meta = {}, const nlohmann::json& cand_meta = {});
}  // namespace kvmbench
