#include "analysis/verdicts/fleet_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/report/series_table.h"
#include "analysis/report/numbers.h"

namespace kvmbench {

namespace {

// The value of one metric over the complete runs of one machine.
FleetCell cell_of(const std::vector<const ExportedMetric*>& measured) {
  FleetCell c;
  c.runs = measured.size();
  if (measured.empty()) return c;
  if (measured.size() == 1) {
    c.level = measured[0]->unit_level;
    c.summary = measured[0]->summary;
    return c;
  }
  std::vector<double> means;
  for (const ExportedMetric* m : measured) means.push_back(m->summary.mean);
  c.level = "runs";
  c.summary = stats::summarize(means);
  return c;
}

// `factor`: what puts the value in the unit the row reads in (text only:
// the data formats keep the metric's own unit).
std::string cell_text(const FleetCell& c, double factor = 1) {
  if (c.runs == 0) return "-";
  const stats::Summary& s = c.summary;
  if (s.n < 2 || !std::isfinite(s.ci95_low)) return fmt::format("{} (n={})", format_sig(s.mean * factor, 4), s.n);
  return fmt::format("{} ±{} (n={})", format_sig(s.mean * factor, 4),
                     format_sig((s.ci95_high - s.ci95_low) / 2 * factor, 2), s.n);
}

// One scale for a metric's row, from the machines' means (their median):
// 911953 ns reads as 912 us in every machine's column.
ReadingScale row_scale(const FleetGroup& g, std::size_t metric) {
  std::vector<double> means;
  for (const FleetRow& r : g.rows)
    if (r.cells[metric].runs > 0 && std::isfinite(r.cells[metric].summary.mean))
      means.push_back(std::fabs(r.cells[metric].summary.mean));
  if (means.empty()) return ReadingScale{1, g.units[metric]};
  std::nth_element(means.begin(), means.begin() + means.size() / 2, means.end());
  return reading_scale(means[means.size() / 2], g.units[metric]);
}

// The notes every layout of a group has: what n counts, what "runs" says.
std::vector<std::string> group_notes(const FleetGroup& g) {
  bool one_run = false, several = false, not_complete = false;
  for (const FleetRow& r : g.rows) {
    for (const FleetCell& c : r.cells) {
      one_run = one_run || c.runs == 1;
      several = several || c.runs > 1;
    }
    not_complete = not_complete || r.other_runs > 0;
  }
  std::vector<std::string> notes = {"mean ±half of its 95% CI (n units)"};
  if (several) notes.push_back("a machine with several complete runs: n counts its runs, each the mean of its own units");
  if (one_run)
    notes.push_back("a machine with one run: n counts that run's repetitions; the noise between runs is not in its CI");
  if (not_complete) notes.push_back("runs: complete+other (interrupted, failed, running): only complete runs give values");
  return notes;
}

std::string runs_text(const FleetRow& r) {
  return r.other_runs ? fmt::format("{}+{}", r.complete_runs, r.other_runs) : fmt::format("{}", r.complete_runs);
}

}  // namespace

std::vector<FleetGroup> merge_fleet(const std::vector<FleetRun>& runs) {
  // Group key -> the runs of each machine in it.
  std::map<std::tuple<std::string, std::string, std::string>, std::map<std::string, std::vector<const FleetRun*>>>
      by_group;
  for (const FleetRun& r : runs) by_group[{r.run.suite, r.run.preset, r.run.source}][r.machine].push_back(&r);

  std::vector<FleetGroup> out;
  for (const auto& [key, machines] : by_group) {
    FleetGroup g;
    std::tie(g.suite, g.preset, g.source) = key;
    for (const auto& [machine, mruns] : machines)
      for (const FleetRun* r : mruns)
        if (r->run.status == "complete")
          for (const ExportedMetric& m : r->run.metrics)
            if (m.units > 0 && std::find(g.metric_keys.begin(), g.metric_keys.end(), m.key.name()) == g.metric_keys.end()) {
              g.metric_keys.push_back(m.key.name());
              g.units.push_back(m.key.unit);
            }
    for (const auto& [machine, mruns] : machines) {
      FleetRow row;
      row.machine = machine;
      std::vector<std::vector<const ExportedMetric*>> measured(g.metric_keys.size());
      std::vector<std::string> kernels;
      for (const FleetRun* r : mruns) {
        if (row.hostname.empty()) row.hostname = r->run.hostname;
        if (r->run.status != "complete") {
          ++row.other_runs;
          continue;
        }
        ++row.complete_runs;
        if (std::find(kernels.begin(), kernels.end(), r->run.kernel) == kernels.end()) kernels.push_back(r->run.kernel);
        for (const ExportedMetric& m : r->run.metrics) {
          auto it = std::find(g.metric_keys.begin(), g.metric_keys.end(), m.key.name());
          if (m.units > 0 && it != g.metric_keys.end()) measured[it - g.metric_keys.begin()].push_back(&m);
        }
      }
      row.kernels = fmt::format("{}", fmt::join(kernels, ","));
      for (const auto& m : measured) row.cells.push_back(cell_of(m));
      g.rows.push_back(std::move(row));
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<Table> fleet_tables(const std::vector<FleetGroup>& groups) {
  std::vector<Table> out;
  for (const FleetGroup& g : groups) {
    Table t;
    t.title = fmt::format("# {} / {}: {} machine{}", g.suite, g.preset, g.rows.size(), g.rows.size() == 1 ? "" : "s");
    t.source = g.source;
    t.columns = {{"machine", Align::left}, {"host", Align::left}, {"runs"}, {"kernel", Align::left}};
    for (std::size_t i = 0; i < g.metric_keys.size(); ++i) t.columns.push_back({fmt::format("#{}", i + 1)});
    for (const FleetRow& r : g.rows) {
      std::vector<std::string> cells = {r.machine, r.hostname, runs_text(r), r.kernels.empty() ? "-" : r.kernels};
      for (const FleetCell& c : r.cells) cells.push_back(cell_text(c));
      t.add_row(std::move(cells));
    }
    for (std::size_t i = 0; i < g.metric_keys.size(); ++i)
      t.notes.push_back(fmt::format("#{} {} ({})", i + 1, g.metric_keys[i], g.units[i]));
    for (auto& n : group_notes(g)) t.notes.push_back(std::move(n));
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Table> fleet_text_tables(const std::vector<FleetGroup>& groups) {
  constexpr std::size_t kWidth = 80;
  std::vector<Table> out;
  for (const FleetGroup& g : groups) {
    Table machines;
    machines.title =
        fmt::format("# {} / {}: {} machine{}", g.suite, g.preset, g.rows.size(), g.rows.size() == 1 ? "" : "s");
    machines.source = g.source;
    machines.columns = {{"host", Align::left}, {"machine", Align::left}, {"runs"}, {"kernel", Align::left}};
    for (const FleetRow& r : g.rows)
      machines.add_row(std::vector<std::string>{r.hostname, r.machine, runs_text(r), r.kernels.empty() ? "-" : r.kernels});
    out.push_back(std::move(machines));

    // Rows: the metrics; columns: the machines (by host name), in tables
    // as wide as 80 columns allow (one machine at least).
    std::vector<std::string> names;
    std::vector<ReadingScale> scales;
    std::size_t name_width = std::string_view("metric").size();
    for (std::size_t i = 0; i < g.metric_keys.size(); ++i) {
      scales.push_back(row_scale(g, i));
      names.push_back(fmt::format("{} ({})", g.metric_keys[i], scales.back().unit));
      name_width = std::max(name_width, names.back().size());
    }
    for (std::size_t first = 0; first < g.rows.size();) {
      std::size_t width = name_width, last = first;
      for (; last < g.rows.size(); ++last) {
        std::size_t column = g.rows[last].hostname.size();
        for (std::size_t i = 0; i < g.rows[last].cells.size(); ++i)
          column = std::max(column, cell_text(g.rows[last].cells[i], scales[i].factor).size());
        if (last > first && width + 2 + column > kWidth) break;
        width += 2 + column;
      }
      Table t;
      t.max_text_rows = 0;  // every metric
      t.title = fmt::format("# {} / {}: each machine's metrics", g.suite, g.preset);
      t.source = g.source;
      t.columns = {{"metric", Align::left}};
      for (std::size_t m = first; m < last; ++m) t.columns.push_back({g.rows[m].hostname});
      for (std::size_t i = 0; i < names.size(); ++i) {
        std::vector<std::string> cells = {names[i]};
        for (std::size_t m = first; m < last; ++m) cells.push_back(cell_text(g.rows[m].cells[i], scales[i].factor));
        t.add_row(std::move(cells));
      }
      if (last == g.rows.size()) t.notes = group_notes(g);
      out.push_back(std::move(t));
      first = last;
    }
  }
  return out;
}

}  // namespace kvmbench
