// Self-contained HTML reports: one file, inline CSS, inline SVG, no script
// and no network fetch, readable in any browser without the tool.
// Charts: a table that says what to chart (Table::chart) gets one chart,
// its rows side by side; a run whose tables have none, and a comparison,
// get per metric a bar for the mean with the 95% CI of the mean as a
// whisker and every sample as a dot (A/B side by side in a comparison).
// Axes are in units scaled for reading and start at 0 for a positive
// quantity, whose whiskers stop there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/verdicts/compare.h"
#include "analysis/store/run_store.h"
#include "analysis/report/table.h"
#include "analysis/report/render/document.h"

namespace kvmbench {

std::string html_escape(std::string_view s);

// A whole page around `body` (the reports' style sheet, `footer` in its
// footer).
std::string html_page(const std::string& title, const std::string& body, const std::string& footer);

// One table as an HTML <table> (title, source, notes included), followed
// by its chart when it has one.
std::string table_to_html(const Table& t);

// A table's chart as an inline <svg>: one horizontal bar per row with a
// number in the chart's value column (labelled by the label column), the
// interval column's low/high as whiskers, named in a legend. "" when the
// table has no chart or no row has a number; a note instead of a chart
// when the rows are not in one unit.
std::string table_chart_svg(const Table& t);

// One chart as an inline <svg>: title, unit, the groups side by side.
// `caption` is printed under the title (e.g. "+5.0% [+4.1, +6.0] slower").
std::string chart_svg(const std::string& title, const std::string& unit,
                      const std::vector<ChartGroup>& groups, const std::string& caption = "",
                      const std::string& caption_class = "");

// Any document as a page: its title with the source's badge and caveat,
// the lead lines as they read in text, the tables (with their charts), the
// charts of samples, the closing lines.
std::string render_document_html(const Document& d);

// The whole A/B page: sides and source, metadata differences, the
// comparison table, one chart per metric.
std::string render_comparison_html(const Comparison& c);

// A page for one run, for `kvmbench report DIR --format html`: the run's
// tables as its report made them, and one chart per series of the run's
// samples (warm-up excluded) unless a table has a chart of its own.
// `title` heads the page; `incomplete` (suites::incomplete_note: e.g.
// "INTERRUPTED: 1 of 5 repetitions measured") goes into a banner at the
// top, as does a source other than hardware.
std::string render_run_html(const Run& run, const std::vector<Table>& tables, const std::string& title = "",
                            const std::string& incomplete = "");

}  // namespace kvmbench
