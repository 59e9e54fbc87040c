#include "analysis/report/series_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/series/series_values.h"
#include "analysis/stats/statistics.h"
#include "analysis/report/numbers.h"

namespace kvmbench {


namespace {

// A series' statistics as cells holding their numbers (in the series' unit;
// n a count, CV in %).
std::vector<Cell> statistic_cells(const std::vector<double>& values, const Series& sv) {
  const Cell unit = sv.key.unit.empty() ? "-" : sv.key.unit;
  auto count = [](std::size_t n) { return Cell::number(static_cast<double>(n), "", std::to_string(n)); };
  const bool finite = std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  if (!finite) {
    // NaN or infinite, as the input has them: shown, no statistic.
    const double first = *std::find_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); });
    const std::string shown = std::isnan(first) ? "NaN" : format_sig(first);
    return {unit, count(values.size()), shown, "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"};
  }
  const stats::Summary m = stats::summarize(values);
  auto number = [&](double x) { return std::isnan(x) ? Cell("n/a") : Cell::number(x, sv.key.unit, format_sig(x)); };
  const Cell cv = std::isnan(m.cv) || m.n < 2 ? Cell("n/a") : Cell::number(100 * m.cv, "%", format_sig(100 * m.cv, 3) + "%");
  return {unit,        count(m.n),          number(m.mean), number(m.stddev), cv, number(m.ci95_low),
          number(m.ci95_high), number(m.min), number(m.median), number(m.max)};
}

const std::vector<std::string>& statistic_names() {
  static const std::vector<std::string> names = {"unit",        "n",   "mean",   "sd",  "CV", "95% CI low",
                                                 "95% CI high", "min", "median", "max"};
  return names;
}


}  // namespace

std::vector<Table> series_summary_tables(const std::vector<Sample>& samples, std::string_view source,
                                         std::size_t max_width, std::size_t max_cases) {
  return series_summary_tables(group_by_case(samples, max_cases), max_cases, source, max_width);
}

std::vector<Table> series_summary_tables(const std::vector<CaseSeries>& cases, std::size_t max_cases,
                                         std::string_view source, std::size_t max_width) {
  std::vector<Table> tables;
  for (const CaseSeries& c : cases) {
    const bool pooled = c.pooled;
    std::vector<std::string> headers;
    std::vector<std::vector<Cell>> columns;
    std::vector<std::string> summarised_notes;  // per column, "" when none
    for (const auto& sv : c.series) {
      headers.push_back(sv.key.variant.empty() ? sv.key.metric : sv.key.variant + "/" + sv.key.metric);
      std::size_t summarised = 1;
      columns.push_back(statistic_cells(unit_values(sv, pooled, summarised), sv));
      summarised_notes.push_back(summarised < 2 ? std::string()
                                                : fmt::format("{}: up to {} {}s per repetition, summarised by "
                                                              "their mean (n counts repetitions)",
                                                              headers.back(), summarised,
                                                              sub_unit_kind(sv).empty() ? "value" : sub_unit_kind(sv)));
    }
    const std::size_t label_width = 11;  // "95% CI high"
    std::size_t start = 0;
    int part = 0;
    while (start < columns.size()) {
      // As many series as fit in max_width (at least one).
      std::size_t width = label_width, end = start;
      while (end < columns.size()) {
        std::size_t w = headers[end].size();
        for (auto& cell : columns[end]) w = std::max(w, cell.text.size());
        if (end > start && width + 2 + w > max_width) break;
        width += 2 + w;
        ++end;
      }
      Table t;
      t.title = c.case_name.empty() ? "(no case)" : c.case_name;
      if (start > 0 || end < columns.size()) t.title += fmt::format(" (part {})", ++part);
      t.source = std::string(source);
      t.columns.push_back({"", Align::left});
      for (std::size_t k = start; k < end; ++k) t.columns.push_back({headers[k], Align::right});
      for (std::size_t r = 0; r < statistic_names().size(); ++r) {
        std::vector<Cell> row = {statistic_names()[r]};
        for (std::size_t k = start; k < end; ++k) row.push_back(columns[k][r]);
        t.add_row(std::move(row));
      }
      if (pooled)
        t.notes.push_back(fmt::format("more than {} cases of this kind: statistics over all of them; each sample, with its "
                                      "case, is in samples.jsonl",
                                      max_cases));
      for (std::size_t k = start; k < end; ++k)
        if (!summarised_notes[k].empty()) t.notes.push_back(summarised_notes[k]);
      tables.push_back(std::move(t));
      start = end;
    }
  }
  return tables;
}

}  // namespace kvmbench
