#include "suites/run_report.h"

#include "analysis/series_table.h"
#include "suites/directmap/report.h"
#include "suites/make_shared/report.h"
#include "suites/rmpopt/report.h"

namespace kvmbench::suites {

std::vector<Table> suite_layout_tables(std::string_view suite, const std::vector<Sample>& samples,
                                       std::string_view source) {
  if (suite == "make_shared") return make_shared::report_tables(samples, source);
  if (suite == "rmpopt") return rmpopt::report_tables(samples, source);
  if (suite == "directmap") return directmap::report_tables(samples, source);
  return {};
}

std::string infer_suite(const std::vector<Sample>& samples) {
  for (const auto& s : samples) {
    if (s.metric == "make_shared_cycles" || s.metric == "total_cycles") return "make_shared";
    if (s.metric == "sweep_time" || s.metric.starts_with("rmpopt_cycles_")) return "rmpopt";
    if (s.metric == directmap::kMetric) return "directmap";
  }
  return "";
}

std::vector<Table> report_tables(const Run& run) {
  const std::string source(to_string(run.source()));
  std::vector<Table> tables = suite_layout_tables(run.suite(), run.samples, source);
  for (auto& t : series_summary_tables(run.samples, source)) tables.push_back(std::move(t));
  return tables;
}

}  // namespace kvmbench::suites
