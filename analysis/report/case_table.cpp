#include "analysis/report/case_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "analysis/stats/positive_ci.h"
#include "analysis/report/numbers.h"
#include "analysis/series/series_values.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

namespace {

int magnitude(double x) { return static_cast<int>(std::floor(std::log10(std::fabs(x)))); }

// `x` with exactly `decimals` digits after the point (format_reading counts
// significant digits: this many of them puts the last at that decimal).
std::string fixed(double x, int decimals) {
  if (!std::isfinite(x) || x == 0) return format_reading(x);
  return format_reading(x, std::max(1, decimals + 1 + magnitude(x)));
}

// One row's statistics, before formatting.
struct Row {
  std::string label;
  std::size_t n = 0;
  double mean = 0, sd = NAN;
  MeanCi ci{NAN, NAN, false};
  bool finite = true;
  std::size_t summarised = 1;
  std::string sub_unit_kind;
  bool pooled = false;
};

struct MetricRows {
  std::string metric, unit;
  std::vector<Row> rows;
};

}  // namespace

std::vector<Table> case_tables(const std::vector<Sample>& samples, std::string_view source,
                               const std::function<bool(std::string_view metric)>& include, std::size_t max_cases) {
  return case_tables(group_by_case(samples, max_cases), max_cases, source, include);
}

std::vector<Table> case_tables(const std::vector<CaseSeries>& cases, std::size_t max_cases, std::string_view source,
                               const std::function<bool(std::string_view metric)>& include) {
  std::vector<MetricRows> metrics;
  std::map<std::string, std::size_t, std::less<>> metric_index;
  for (const CaseSeries& c : cases) {
    for (const Series& sv : c.series) {
      if (include && !include(sv.key.metric)) continue;
      // One table per metric and unit: Google Benchmark files give one
      // benchmark's real_time in ns and another's in us.
      auto [it, fresh] = metric_index.try_emplace(sv.key.metric + '\0' + sv.key.unit, metrics.size());
      if (fresh) metrics.push_back({sv.key.metric, sv.key.unit, {}});
      MetricRows& m = metrics[it->second];
      Row r;
      r.label = c.case_name.empty() ? "(no case)" : c.case_name;
      if (!sv.key.variant.empty()) r.label += "/" + sv.key.variant;
      r.pooled = c.pooled;
      r.sub_unit_kind = sub_unit_kind(sv);
      const std::vector<double> values = unit_values(sv, c.pooled, r.summarised);
      r.n = values.size();
      r.finite = std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
      if (!r.finite) {
        r.mean = *std::find_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); });
      } else {
        const stats::Summary s = stats::summarize(values);
        r.mean = s.mean;
        r.sd = s.stddev;
        r.ci = mean_ci95(values, positive_unit(sv.key.unit));
      }
      m.rows.push_back(std::move(r));
    }
  }
  std::vector<Table> tables;
  for (const MetricRows& m : metrics) {
    double typical = 0, smallest = INFINITY;
    for (const Row& r : m.rows)
      if (r.finite) {
        typical = std::max(typical, std::fabs(r.mean));
        if (r.mean != 0) smallest = std::min(smallest, std::fabs(r.mean));
      }
    const ReadingScale scale = reading_scale(typical, m.unit);
    // Means that span many decades (a Google Benchmark file from ns to s)
    // lose their digits in the largest one's unit: each row reads in its
    // own, said in its cells.
    const bool unit_per_row = std::isfinite(smallest) && smallest * scale.factor < 1e-3 &&
                              reading_scale(smallest, m.unit).unit != scale.unit;
    Table t;
    t.title = scale.unit.empty() || unit_per_row ? "# " + m.metric : fmt::format("# {} ({})", m.metric, scale.unit);
    // CSV and JSON hold the values in their own unit, which their columns
    // name: their title names none.
    t.data_title = m.metric;
    t.source = std::string(source);
    t.columns = {{"", Align::left}, {"mean"}, {"sd"}, {"n"}, {"95% CI of mean"}};
    t.chart = TableChart{.label = 0, .value = 1, .interval = 4};
    bool any_log = false, any_pooled = false, any_single = false, any_too_few = false;
    std::size_t most_summarised = 1;
    std::string sub_unit_kind;
    for (const Row& r : m.rows) {
      std::vector<Cell> cells{r.label};
      if (!r.finite) {
        cells.push_back(Cell::number(r.mean, m.unit, std::isnan(r.mean) ? "NaN" : format_reading(r.mean)));
        cells.insert(cells.end(), {"n/a", std::to_string(r.n), "n/a"});
        t.add_row(std::move(cells));
        continue;
      }
      const ReadingScale row_scale = unit_per_row ? reading_scale(std::fabs(r.mean), m.unit) : scale;
      const std::string unit_text = unit_per_row && !row_scale.unit.empty() ? " " + row_scale.unit : "";
      const double mean = r.mean * row_scale.factor, sd = r.sd * row_scale.factor;
      const double low = r.ci.low * row_scale.factor, high = r.ci.high * row_scale.factor;
      const int d = decimals_for(mean, r.ci.log_scale ? NAN : (high - low) / 2);
      cells.push_back(Cell::number(r.mean, m.unit, fixed(mean, d) + unit_text));
      std::string sd_text = std::isnan(sd) ? "n/a" : fixed(sd, d);
      // A spread smaller than the last digit shown is still not none.
      if (sd > 0 && std::stod(sd_text) == 0) sd_text = format_reading(sd, 1);
      cells.push_back(std::isnan(sd) ? Cell("n/a") : Cell::number(r.sd, m.unit, sd_text + unit_text));
      cells.push_back(Cell::number(static_cast<double>(r.n), "", std::to_string(r.n)));
      if (r.ci.too_few) {
        cells.push_back("n/a");
        any_too_few = true;
      } else if (std::isnan(r.ci.low)) {
        cells.push_back("n/a");
        any_single = true;
      } else if (r.ci.log_scale) {
        // The ends of a geometric mean's CI: 2 significant digits each, as
        // far apart as they are.
        cells.push_back(Cell::interval(
            r.ci.low, r.ci.high, m.unit,
            fmt::format("[{}, {}]{}*", format_reading(low, 2), format_reading(high, 2), unit_text)));
        any_log = true;
      } else {
        cells.push_back(Cell::interval(r.ci.low, r.ci.high, m.unit,
                                       fmt::format("[{}, {}]{}", fixed(low, d), fixed(high, d), unit_text)));
      }
      any_pooled = any_pooled || r.pooled;
      if (r.summarised > most_summarised) {
        most_summarised = r.summarised;
        sub_unit_kind = r.sub_unit_kind;
      }
      t.add_row(std::move(cells));
    }
    if (any_log)
      t.notes.push_back(
          "* the t interval of the mean would go below zero: 95% CI of the geometric mean (log scale)");
    if (any_single) t.notes.push_back("n/a: one value, no interval");
    if (any_too_few)
      t.notes.push_back("n/a at n = 2: the two values are too far apart for a 95% CI to say anything (at n = 2 "
                        "it is 12.7 standard errors to each side: below zero, or orders of magnitude wide on the "
                        "log scale); more repetitions give one");
    if (unit_per_row)
      t.notes.push_back(fmt::format("each row in its own unit: the means span {} {} to {} {}",
                                    format_reading(smallest * reading_scale(smallest, m.unit).factor),
                                    reading_scale(smallest, m.unit).unit, format_reading(typical * scale.factor),
                                    scale.unit));
    if (most_summarised > 1)
      t.notes.push_back(fmt::format("n counts repetitions: up to {} {}s of one summarised by their mean", most_summarised,
                                    sub_unit_kind.empty() ? "value" : sub_unit_kind));
    if (any_pooled)
      t.notes.push_back(fmt::format("\"pooled\": more than {} cases of a kind, each value on its own", max_cases));
    // Long case names (layout=random:4/ram=16G/leader-primary) and a CI
    // with its mark can take a row past 80 columns by a few: one space
    // between columns then; a label longer still (a published run's
    // "dirty_log_perf_test [With this series, TDP MMU]/PA-bits:ANY, ...")
    // goes on a line of its own above its figures.
    t.narrow_gap_when_wide = true;
    t.stacked_label = 0;
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace kvmbench
