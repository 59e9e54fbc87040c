// The tables of a run, recomputed from its meta.json and samples.jsonl:
// the suite's own layout when it has one (its Suite::tables), then the
// compact generic tables (analysis/report/case_table.h) of the primary metrics the
// layout does not show, and in full detail the other metrics' too and the
// per-case dumps of every series (analysis/report/series_table.h). Used by
// `kvmbench run`, `report`, `ingest`, and by any renderer (html) that wants
// the same tables.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/store/run_store.h"
#include "analysis/report/table.h"

namespace kvmbench::engine {

// brief: what a reader of `run` or `report` wants on a terminal (a short
// table per suite); full: everything, in tables that fit 80 columns
// (--verbose); data: everything, a case's statistics in one table however
// wide (CSV, JSON: no "(part N)" split made for a terminal).
enum class ReportDetail { brief, full, data };

std::vector<Table> report_tables(const Run& run, ReportDetail detail = ReportDetail::brief);

// The suite-specific tables only (empty for an unknown suite, one without a
// layout, or when the samples are not the ones the layout reads).
std::vector<Table> suite_layout_tables(std::string_view suite, const std::vector<Sample>& samples,
                                       std::string_view source);

// The suite a set of samples belongs to: the first suite that owns the
// first sample's metric that any suite owns (Suite::owns_metric), or ""
// when none does.
std::string infer_suite(const std::vector<Sample>& samples);

// The runs a set of samples makes (`ingest`): one per suite that owns some
// of their metrics, each with the indices of its samples in order; samples
// no suite owns go with the first suite's. One run when at most one suite
// owns any (suite "" when none does), or when `suite` names the run's suite.
struct SuiteShare {
  std::string suite;
  std::vector<std::size_t> samples;
};
std::vector<SuiteShare> shares_by_suite(const std::vector<Sample>& samples, const std::string& suite = "");

}  // namespace kvmbench::engine
