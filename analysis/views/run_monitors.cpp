#include "analysis/views/run_monitors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/report/numbers.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

std::vector<Sample> without_monitors(const std::vector<Sample>& samples, const MetricRoles& roles) {
  std::vector<Sample> out;
  out.reserve(samples.size());
  for (const auto& s : samples)
    if (!roles.is_monitor(s.metric)) out.push_back(s);
  return out;
}

std::size_t monitor_count(const std::vector<Sample>& samples, const MetricRoles& roles) {
  std::set<std::string> keys;
  for (const auto& s : samples)
    if (!s.warmup && roles.is_monitor(s.metric)) keys.insert(s.series_key());
  return keys.size();
}

std::optional<Table> run_monitors_table(const std::vector<Sample>& samples, const MetricRoles& roles,
                                        const std::string& source) {
  // Per series, the values of each repetition summed (a monitor is one
  // reading a repetition; several would be sub-units of it).
  struct Series {
    std::string metric, unit, case_name;
    std::map<int, double> by_repetition;
  };
  std::map<std::string, Series> series;
  for (const auto& s : samples) {
    if (s.warmup || !roles.is_monitor(s.metric)) continue;
    auto& x = series[s.series_key()];
    x.metric = s.metric;
    x.unit = s.unit;
    x.case_name = s.case_name;
    x.by_repetition[s.iteration] += s.value;
  }
  if (series.empty()) return std::nullopt;
  Table t;
  t.title = fmt::format("# Monitors: what the kernel counted in each repetition ({})", series.size());
  t.source = source;
  t.max_text_rows = 0;
  t.columns = {{"monitor", Align::left}, {"unit", Align::left}, {"mean"}, {"%stddev"}, {"min"}, {"max"}, {"n"}};
  for (const auto& [key, x] : series) {
    std::vector<double> v;
    for (const auto& [it, value] : x.by_repetition) v.push_back(value);
    if (!std::all_of(v.begin(), v.end(), [](double d) { return std::isfinite(d); })) continue;
    const stats::Summary s = stats::summarize(v);
    const double sd_pct = s.n >= 2 && s.mean != 0 ? 100 * s.stddev / std::fabs(s.mean) : NAN;
    std::string name = x.metric;
    if (!x.case_name.empty() && x.case_name != "repetition") name = x.case_name + "/" + name;
    t.add_row({Cell(name), Cell(x.unit), Cell::number(s.mean, x.unit, format_sig(s.mean)),
               std::isfinite(sd_pct) ? Cell::number(sd_pct, "%", fmt::format("±{:.1f}%", sd_pct)) : Cell(""),
               Cell::number(s.min, x.unit, format_sig(s.min)), Cell::number(s.max, x.unit, format_sig(s.max)),
               Cell::number(static_cast<double>(s.n), "", std::to_string(s.n))});
  }
  t.notes.push_back("A monitor explains a figure and is never one: compare tests them as a family of their own, "
                    "below the verdict.");
  return t;
}

}  // namespace kvmbench
