#include "suites/engine/run_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include <fmt/ranges.h>

#include "analysis/report/case_table.h"
#include "analysis/model/metric_roles.h"
#include "analysis/report/series_table.h"
#include "analysis/views/run_monitors.h"
#include "analysis/series/series_values.h"
#include "analysis/report/numbers.h"
#include "suites/framework/suite.h"

namespace kvmbench::engine {

using suites::Suite;

std::vector<Table> suite_layout_tables(std::string_view suite, const std::vector<Sample>& samples,
                                       std::string_view source) {
  const Suite* s = suites::find_suite(suite);
  if (!s || !s->tables) return {};
  return s->tables(samples, source);
}

std::string infer_suite(const std::vector<Sample>& samples) {
  for (const auto& sample : samples)
    for (const auto& s : suites::registry())
      if (s.owns_metric && s.owns_metric(sample.metric)) return s.name;
  return "";
}

std::vector<SuiteShare> shares_by_suite(const std::vector<Sample>& samples, const std::string& suite) {
  auto everything = [&](std::string name) {
    SuiteShare one{std::move(name), std::vector<std::size_t>(samples.size())};
    for (std::size_t i = 0; i < samples.size(); ++i) one.samples[i] = i;
    return std::vector<SuiteShare>{std::move(one)};
  };
  if (!suite.empty()) return everything(suite);
  // The owner of each metric, asked once per metric (a long log has
  // millions of samples and a handful of metrics).
  std::map<std::string, std::string, std::less<>> owner;
  std::vector<std::string> suites_seen;
  for (const auto& sample : samples) {
    if (owner.count(sample.metric)) continue;
    std::string name;
    for (const auto& s : suites::registry())
      if (s.owns_metric && s.owns_metric(sample.metric)) {
        name = s.name;
        break;
      }
    if (!name.empty() && std::find(suites_seen.begin(), suites_seen.end(), name) == suites_seen.end())
      suites_seen.push_back(name);
    owner.emplace(sample.metric, std::move(name));
  }
  if (suites_seen.size() <= 1) return everything(suites_seen.empty() ? "" : suites_seen.front());
  std::vector<SuiteShare> shares;
  for (const auto& name : suites_seen) shares.push_back({name, {}});
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const std::string& name = owner.find(samples[i].metric)->second;
    const auto it = std::find_if(shares.begin(), shares.end(), [&](const SuiteShare& x) { return x.suite == name; });
    (it == shares.end() ? shares.front() : *it).samples.push_back(i);
  }
  return shares;
}

// Google Benchmark's own aggregates, kept by `ingest` in meta.json: shown
// as reported, beside the statistics recomputed from the repetitions.
static std::vector<Table> gbench_aggregate_tables(const nlohmann::json& meta, std::string_view source) {
  std::vector<Table> out;
  if (!meta.contains("gbench_aggregates") || !meta["gbench_aggregates"].is_array()) return out;
  std::vector<std::string> cases;
  std::map<std::string, std::vector<std::string>> metrics, aggs;
  std::map<std::string, std::map<std::pair<std::string, std::string>, std::pair<double, std::string>>> v;  // value, unit
  auto once = [](std::vector<std::string>& list, const std::string& x) {
    if (std::find(list.begin(), list.end(), x) == list.end()) list.push_back(x);
  };
  for (const auto& a : meta["gbench_aggregates"]) {
    if (!a.is_object() || !a.contains("value") || !a["value"].is_number()) continue;
    const std::string c = a.value("case", ""), m = a.value("metric", ""), g = a.value("aggregate", "");
    once(cases, c);
    once(metrics[c], m);
    once(aggs[c], g);
    const auto unit = a.find("unit");
    v[c][{m, g}] = {a["value"].get<double>(), unit != a.end() && unit->is_string() ? unit->get<std::string>() : ""};
  }
  for (const auto& c : cases) {
    Table t;
    t.title = c + ": Google Benchmark's aggregates, as reported";
    t.source = std::string(source);
    t.columns.push_back({"", Align::left});
    for (auto& g : aggs[c]) t.columns.push_back({g});
    // Each figure a number in its unit (csv and json hold the value, not
    // its text); the row names the time unit its figures share (cv is a
    // ratio: none).
    for (auto& m : metrics[c]) {
      std::string unit;
      for (auto& g : aggs[c])
        if (auto it = v[c].find({m, g}); it != v[c].end() && !it->second.second.empty()) unit = it->second.second;
      std::vector<Cell> row = {Cell(unit.empty() ? m : m + " (" + unit + ")")};
      for (auto& g : aggs[c]) {
        auto it = v[c].find({m, g});
        row.push_back(it == v[c].end() ? Cell("-")
                                       : Cell::number(it->second.first, it->second.second, format_sig(it->second.first)));
      }
      t.add_row(std::move(row));
    }
    out.push_back(std::move(t));
  }
  return out;
}

// The metrics the suite's layout shows in `layout` (none when it printed
// nothing: the samples were not the ones it reads).
static std::function<bool(std::string_view)> shown_by_layout(std::string_view suite, const std::vector<Table>& layout) {
  const Suite* s = suites::find_suite(suite);
  if (!s || layout.empty()) return [](std::string_view) { return false; };
  if (s->layout_shows) return s->layout_shows;
  if (s->owns_metric) return s->owns_metric;
  return [](std::string_view) { return false; };
}

std::vector<Table> report_tables(const Run& run, ReportDetail detail) {
  const std::string source(to_string(run.source()));
  const MetricRoles roles = MetricRoles::from_json(run.meta.value("metric_roles", nlohmann::json::object()));
  // The monitors have a table of their own (--verbose): the suite's tables
  // read the suite's samples.
  const std::vector<Sample> measured = without_monitors(run.samples, roles);
  std::vector<Table> tables = suite_layout_tables(run.suite(), measured, source);
  const auto in_layout = shown_by_layout(run.suite(), tables);
  const bool everything = detail != ReportDetail::brief;
  if (const Suite* s = suites::find_suite(run.suite()); everything && s && s->detail_tables)
    for (auto& t : s->detail_tables(measured, source)) tables.push_back(std::move(t));
  // In brief, the primary metrics only (what a gate decides on): the
  // derived ones and the measurements beside are a --verbose away.
  std::set<std::string, std::less<>> left_out;
  auto wanted = [&](std::string_view metric) {
    if (in_layout(metric)) return false;
    if (everything || roles.is_primary(metric)) return true;
    left_out.emplace(metric);
    return false;
  };
  // Both generic tables are of the same series: the samples (a long log
  // has up to three per record) are grouped once.
  const std::vector<CaseSeries> cases = group_by_case(measured, kMaxCases);
  for (auto& t : case_tables(cases, kMaxCases, source, wanted)) {
    // "# rmpopt: emulated_sweep_wall (ms)": `run all` prints several suites'.
    if (suites::find_suite(run.suite())) t.title.insert(2, run.suite() + ": ");
    tables.push_back(std::move(t));
  }
  if (!left_out.empty() && !tables.empty()) {
    // Their names when they fit the line, else how many: a run of many
    // metrics should not end with a paragraph of names.
    const std::string where = "`kvmbench report --verbose DIR` or --format csv/json";
    const std::string named = fmt::format("also {}: {}", fmt::join(left_out, ", "), where);
    tables.back().notes.push_back(named.size() <= 80 ? named
                                                     : fmt::format("{} more metrics: {}", left_out.size(), where));
  }
  if (const std::size_t monitors = monitor_count(run.samples, roles); !everything && monitors > 0 && !tables.empty())
    tables.back().notes.push_back(
        fmt::format("{} monitor{} (what the kernel counted): `kvmbench report --verbose DIR`", monitors,
                    monitors == 1 ? "" : "s"));
  if (everything)
    for (auto& t : series_summary_tables(cases, kMaxCases, source,
                                         detail == ReportDetail::data ? std::numeric_limits<std::size_t>::max() : 80))
      tables.push_back(std::move(t));
  if (everything)
    if (auto t = run_monitors_table(run.samples, roles, source)) tables.push_back(std::move(*t));
  for (auto& t : gbench_aggregate_tables(run.meta, source)) tables.push_back(std::move(t));
  return tables;
}

}  // namespace kvmbench::engine
