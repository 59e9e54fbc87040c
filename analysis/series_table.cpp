#include "analysis/series_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "analysis/experimental_unit.h"
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
  std::vector<int> invocation, repetition;  // of each value
  std::string sub_unit_kind;                // the first sub-unit a sample named
};

struct CaseSeries {
  std::string case_name;
  std::vector<SeriesValues> series;
};

// The family of a case: its key before '=' ("group=12" -> "group"), or ""
// for names without one.
std::string_view case_family(std::string_view name) {
  const std::size_t eq = name.find('=');
  return eq == std::string_view::npos ? std::string_view() : name.substr(0, eq);
}

// The samples' series grouped by case, in first-seen order. When there are
// more than `max_cases` cases, each family larger than that is pooled into
// one (a long kernel log makes a "group=N" case per group of prints: a table
// per case would print tens of thousands of tables of one print each);
// `pooled` tells which. Keys are views into the samples.
std::vector<CaseSeries> group_by_case(const std::vector<Sample>& samples, std::size_t max_cases,
                                      std::vector<bool>& pooled) {
  // 1. The distinct cases, and the case of each sample.
  std::unordered_map<std::string_view, std::size_t> case_index;
  std::vector<std::string_view> names;
  std::vector<std::size_t> case_of(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].warmup) continue;
    auto [it, fresh] = case_index.try_emplace(samples[i].case_name, names.size());
    if (fresh) names.push_back(samples[i].case_name);
    case_of[i] = it->second;
  }
  // 2. The table each case goes to: its own, or its family's pooled one.
  std::unordered_map<std::string_view, std::size_t> family_size;
  const bool may_pool = max_cases > 0 && names.size() > max_cases;
  if (may_pool)
    for (auto n : names) ++family_size[case_family(n)];
  std::vector<CaseSeries> out;
  std::vector<std::size_t> table_of(names.size());
  std::unordered_map<std::string_view, std::size_t> family_table;
  std::vector<std::string_view> last_of_family;  // per pooled table
  pooled.clear();
  for (std::size_t c = 0; c < names.size(); ++c) {
    const std::string_view fam = case_family(names[c]);
    if (!may_pool || family_size[fam] <= max_cases) {
      table_of[c] = out.size();
      out.push_back({std::string(names[c]), {}});
      pooled.push_back(false);
      last_of_family.emplace_back();
      continue;
    }
    auto [it, fresh] = family_table.try_emplace(fam, out.size());
    if (fresh) {
      out.push_back({fmt::format("all {} {} cases pooled (from {}", family_size[fam],
                                 fam.empty() ? std::string("unkeyed") : std::string(fam) + "=*", names[c]),
                     {}});
      pooled.push_back(true);
      last_of_family.emplace_back();
    }
    table_of[c] = it->second;
    last_of_family[it->second] = names[c];
  }
  for (std::size_t t = 0; t < out.size(); ++t)
    if (pooled[t]) out[t].case_name += fmt::format(" to {})", last_of_family[t]);
  // 3. The values of each series, in sample order.
  std::map<std::tuple<std::size_t, std::string_view, std::string_view>, std::size_t> series_index;  // table, variant, metric
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    if (s.warmup) continue;
    const std::size_t t = table_of[case_of[i]];
    CaseSeries& c = out[t];
    const auto [found, fresh] = series_index.try_emplace({t, s.variant, s.metric}, c.series.size());
    if (fresh) c.series.push_back({s.variant, s.metric, s.unit, {}, {}, {}, {}});
    SeriesValues& sv = c.series[found->second];
    if (sv.unit != s.unit)
      throw std::runtime_error(fmt::format("series {} mixes units '{}' and '{}'", s.series_key(), sv.unit, s.unit));
    sv.values.push_back(s.value);
    sv.repetition.push_back(s.iteration);
    int inv = 0;
    if (s.extra.is_object()) {
      if (auto it = s.extra.find("invocation"); it != s.extra.end() && it->is_number_integer()) inv = it->get<int>();
      if (sv.sub_unit_kind.empty())
        if (std::string sub = sub_unit_of(s); !sub.empty()) sv.sub_unit_kind = sub.substr(0, sub.find('='));
    }
    sv.invocation.push_back(inv);
  }
  return out;
}

// The values a series' statistics are of: one per repetition (its threads,
// CPUs or vCPUs summarised, experimental_unit.h), or one per invocation
// when the run holds several. A pooled table mixes cases, whose
// repetitions are not one another's: there every value stands alone.
// `summarised` says how many values the largest unit summarised.
std::vector<double> unit_values(const SeriesValues& sv, bool pooled, std::size_t& summarised) {
  summarised = 1;
  // A kernel log's records each have a repetition of their own, in order:
  // nothing to summarise (and a long log has hundreds of thousands).
  bool one_per_unit = true;
  for (std::size_t i = 1; i < sv.values.size() && one_per_unit; ++i)
    one_per_unit = sv.repetition[i] > sv.repetition[i - 1] && sv.invocation[i] == sv.invocation[i - 1];
  if (pooled || one_per_unit) return sv.values;
  std::vector<Observation> obs;
  obs.reserve(sv.values.size());
  for (std::size_t i = 0; i < sv.values.size(); ++i) obs.push_back({sv.values[i], sv.invocation[i], sv.repetition[i], ""});
  ExperimentalUnits u = experimental_units(obs);
  summarised = u.most_per_repetition;
  return u.values;
}

std::vector<std::string> statistic_cells(const std::vector<double>& values, const SeriesValues& sv) {
  const bool finite = std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  if (!finite) {
    // NaN or infinite, as the input has them: shown, no statistic.
    const double first = *std::find_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); });
    const std::string shown = std::isnan(first) ? "NaN" : format_sig(first);
    return {sv.unit.empty() ? "-" : sv.unit, std::to_string(values.size()), shown, "n/a", "n/a", "n/a", "n/a",
            "n/a", "n/a", "n/a"};
  }
  const stats::Summary m = stats::summarize(values);
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
                                         std::size_t max_width, std::size_t max_cases) {
  std::vector<Table> tables;
  std::vector<bool> is_pooled;
  const std::vector<CaseSeries> cases = group_by_case(samples, max_cases, is_pooled);
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const CaseSeries& c = cases[ci];
    const bool pooled = is_pooled[ci];
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> columns;
    std::vector<std::string> summarised_notes;  // per column, "" when none
    for (const auto& sv : c.series) {
      headers.push_back(sv.variant.empty() ? sv.metric : sv.variant + "/" + sv.metric);
      std::size_t summarised = 1;
      columns.push_back(statistic_cells(unit_values(sv, pooled, summarised), sv));
      summarised_notes.push_back(summarised < 2 ? std::string()
                                                : fmt::format("{}: up to {} {}s per repetition, summarised by "
                                                              "their mean (n counts repetitions)",
                                                              headers.back(), summarised,
                                                              sv.sub_unit_kind.empty() ? "value" : sv.sub_unit_kind));
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
