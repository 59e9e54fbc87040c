#include "analysis/series_table.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "analysis/statistics.h"

namespace kvmbench {

std::string format_sig(double x, int sig) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return "0";
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  if (e >= 15 || e < -4) return fmt::format("{:.{}g}", x, sig);
  // Whole numbers at least as long as `sig` digits print as they are.
  if (e + 1 >= sig && std::nearbyint(x) == x) return fmt::format("{:.0f}", x);
  const int decimals = std::max(0, sig - 1 - e);
  std::string s = fmt::format("{:.{}f}", x, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

namespace {

struct SeriesValues {
  std::string variant, metric, unit;
  std::vector<double> values;
};

struct CaseSeries {
  std::string case_name;
  std::vector<SeriesValues> series;
};

std::vector<CaseSeries> group_by_case(const std::vector<Sample>& samples) {
  std::vector<CaseSeries> cases;
  std::map<std::string, std::size_t> case_index;
  std::map<std::string, std::pair<std::size_t, std::size_t>> series_index;
  for (const auto& s : samples) {
    if (s.warmup) continue;
    auto [cit, new_case] = case_index.try_emplace(s.case_name, cases.size());
    if (new_case) cases.push_back({s.case_name, {}});
    CaseSeries& c = cases[cit->second];
    const std::string key = s.series_key();
    auto [sit, new_series] = series_index.try_emplace(key, cit->second, c.series.size());
    if (new_series) c.series.push_back({s.variant, s.metric, s.unit, {}});
    SeriesValues& sv = cases[sit->second.first].series[sit->second.second];
    if (sv.unit != s.unit)
      throw std::runtime_error(fmt::format("series {} mixes units '{}' and '{}'", key, sv.unit, s.unit));
    sv.values.push_back(s.value);
  }
  return cases;
}

std::vector<std::string> statistic_cells(const SeriesValues& sv) {
  const stats::Summary m = stats::summarize(sv.values);
  const std::string cv = std::isnan(m.cv) || m.n < 2 ? "n/a" : format_sig(100 * m.cv, 3) + "%";
  return {sv.unit.empty() ? "-" : sv.unit, std::to_string(m.n), format_sig(m.mean),
          format_sig(m.stddev), cv, format_sig(m.ci95_low), format_sig(m.ci95_high),
          format_sig(m.min), format_sig(m.median), format_sig(m.max)};
}

const std::vector<std::string>& statistic_names() {
  static const std::vector<std::string> names = {"unit",        "n",   "mean",   "sd",  "CV", "95% CI low",
                                                 "95% CI high", "min", "median", "max"};
  return names;
}

}  // namespace

std::vector<Table> series_summary_tables(const std::vector<Sample>& samples, std::string_view source,
                                         std::size_t max_width) {
  std::vector<Table> tables;
  for (const auto& c : group_by_case(samples)) {
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> columns;
    for (const auto& sv : c.series) {
      headers.push_back(sv.variant.empty() ? sv.metric : sv.variant + "/" + sv.metric);
      columns.push_back(statistic_cells(sv));
    }
    const std::size_t label_width = 11;  // "95% CI high"
    std::size_t start = 0;
    int part = 0;
    while (start < columns.size()) {
      // As many series as fit in max_width (at least one).
      std::size_t width = label_width, end = start;
      while (end < columns.size()) {
        std::size_t w = headers[end].size();
        for (auto& cell : columns[end]) w = std::max(w, cell.size());
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
        std::vector<std::string> row = {statistic_names()[r]};
        for (std::size_t k = start; k < end; ++k) row.push_back(columns[k][r]);
        t.add_row(std::move(row));
      }
      tables.push_back(std::move(t));
      start = end;
    }
  }
  return tables;
}

}  // namespace kvmbench
