#include "analysis/views/run_view.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/model/experimental_unit.h"
#include "analysis/verdicts/compare.h"

namespace kvmbench {

namespace {

// One chart per variant/metric with its cases side by side, in first-seen
// order: a run of 24 cases and 2 metrics is 2 charts, not 48 of one bar.
std::vector<Chart> sample_charts(const Run& run) {
  std::vector<Chart> charts;
  for (const Series& s : group_series(run.samples)) {
    const std::string title = s.key.variant.empty() ? s.key.metric : s.key.variant + "/" + s.key.metric;
    auto it = std::find_if(charts.begin(), charts.end(),
                           [&](const Chart& c) { return c.title == title && c.unit == s.key.unit; });
    if (it == charts.end()) {
      it = charts.insert(charts.end(), Chart{});
      it->title = title;
      it->unit = s.key.unit;
    }
    // One point per repetition: its sub-units (threads, CPUs) summarised.
    // One colour: the cases are one quantity's values, not sides.
    it->groups.push_back(sample_group(s.key.case_name, experimental_units(s.observations).values, 0));
  }
  for (Chart& c : charts)
    if (c.groups.size() > 1) c.caption = fmt::format("{} cases", c.groups.size());
  return charts;
}

}  // namespace

Document run_document(const Run& run, RunReport report) {
  Document d;
  const std::string name = run.dir.filename().empty() ? run.dir.parent_path().filename().string()
                                                      : run.dir.filename().string();
  d.title = "kvmbench run " + name;
  d.source = std::string(to_string(run.source()));
  // A run whose parts were all (or some) skipped finished "complete": the
  // alert says what it lacks.
  if (run.status() != "complete")
    d.alerts.push_back(fmt::format("note: the run is not complete ({}){}", run.status(),
                                   report.incomplete.empty() ? "" : "; " + report.incomplete));
  else if (!report.incomplete.empty())
    d.alerts.push_back("note: " + report.incomplete);
  d.lead.push_back("run: " + report.dir);
  d.lead.push_back(fmt::format("suite: {}  status: {}  source: {}  samples: {}", run.suite(), run.status(), d.source,
                               run.samples.size()));
  for (auto& l : report.about) d.lead.push_back(std::move(l));
  d.lead.push_back("");
  if (run.samples.empty()) d.lead.push_back("(no samples)");
  // Per-series sample charts only while no table charts itself: they are
  // the only picture of a run whose tables say nothing about charts, and a
  // repetition of the tables' charts (one chart per series, dozens) when
  // the tables do.
  // The suite's own pictures first: they show what the tables summarise.
  d.charts = std::move(report.charts);
  if (std::none_of(report.tables.begin(), report.tables.end(), [](const Table& t) { return t.chart.has_value(); }))
    for (auto& c : sample_charts(run)) d.charts.push_back(std::move(c));
  d.tables = std::move(report.tables);
  nlohmann::json data = {{"run", report.dir},
                         {"suite", run.suite()},
                         {"status", run.status()},
                         {"source", d.source},
                         {"samples", run.samples.size()}};
  if (!report.incomplete.empty()) data["incomplete"] = report.incomplete;
  if (run.meta.contains("skipped_parts")) data["skipped_parts"] = run.meta["skipped_parts"];
  d.data = std::move(data);
  d.tables_in_data = true;
  return d;
}

}  // namespace kvmbench
