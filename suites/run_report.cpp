#include "suites/run_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/series_table.h"
#include "suites/suite.h"

namespace kvmbench::suites {

std::vector<Table> suite_layout_tables(std::string_view suite, const std::vector<Sample>& samples,
                                       std::string_view source) {
  const Suite* s = find_suite(suite);
  if (!s || !s->tables) return {};
  return s->tables(samples, source);
}

std::string infer_suite(const std::vector<Sample>& samples) {
  for (const auto& sample : samples)
    for (const auto& s : registry())
      if (s.owns_metric && s.owns_metric(sample.metric)) return s.name;
  return "";
}

// Google Benchmark's own aggregates, kept by `ingest` in meta.json: shown
// as reported, beside the statistics recomputed from the repetitions.
static std::vector<Table> gbench_aggregate_tables(const nlohmann::json& meta, std::string_view source) {
  std::vector<Table> out;
  if (!meta.contains("gbench_aggregates") || !meta["gbench_aggregates"].is_array()) return out;
  std::vector<std::string> cases;
  std::map<std::string, std::vector<std::string>> metrics, aggs;
  std::map<std::string, std::map<std::pair<std::string, std::string>, double>> v;
  auto once = [](std::vector<std::string>& list, const std::string& x) {
    if (std::find(list.begin(), list.end(), x) == list.end()) list.push_back(x);
  };
  for (const auto& a : meta["gbench_aggregates"]) {
    if (!a.is_object() || !a.contains("value") || !a["value"].is_number()) continue;
    const std::string c = a.value("case", ""), m = a.value("metric", ""), g = a.value("aggregate", "");
    once(cases, c);
    once(metrics[c], m);
    once(aggs[c], g);
    v[c][{m, g}] = a["value"].get<double>();
  }
  for (const auto& c : cases) {
    Table t;
    t.title = c + ": Google Benchmark's aggregates, as reported";
    t.source = std::string(source);
    t.columns.push_back({"", Align::left});
    for (auto& g : aggs[c]) t.columns.push_back({g});
    for (auto& m : metrics[c]) {
      std::vector<std::string> row = {m};
      for (auto& g : aggs[c]) {
        auto it = v[c].find({m, g});
        row.push_back(it == v[c].end() ? "-" : format_sig(it->second));
      }
      t.add_row(std::move(row));
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Table> report_tables(const Run& run) {
  const std::string source(to_string(run.source()));
  std::vector<Table> tables = suite_layout_tables(run.suite(), run.samples, source);
  for (auto& t : series_summary_tables(run.samples, source)) tables.push_back(std::move(t));
  for (auto& t : gbench_aggregate_tables(run.meta, source)) tables.push_back(std::move(t));
  return tables;
}

}  // namespace kvmbench::suites
