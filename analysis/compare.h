// A/B comparison of two sets of samples (two runs, or two Google Benchmark
// JSON files with repetitions): one row per series (case/variant/metric)
// with both summaries, the relative change and its 95% CI, Welch and
// Mann-Whitney p-values, the Holm-adjusted p across all metrics of the
// comparison, and a verdict by the metric's direction. Pure: the caller
// loads the two sides (see compare_input.h).
#pragma once

#include <nlohmann/json.hpp>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/result_model.h"
#include "analysis/run_store.h"
#include "analysis/statistics.h"

namespace kvmbench {

// The non-warm-up values of one series, in the order they were measured.
struct Series {
  std::string key;  // Sample::series_key(): case/variant/metric
  std::string case_name, variant, metric, unit;
  std::vector<double> values;
  std::size_t warmups_dropped = 0;
};

// One side of a comparison.
struct ComparisonSide {
  std::string label;                              // what the user named (a path)
  Source source = Source::replay;
  nlohmann::json meta = nlohmann::json::object(); // meta.json, or the benchmark context
  std::vector<Series> series;                     // in first-seen order
  std::string status;                             // run status ("complete", ...); may be empty
};

// Groups samples into series (first-seen order), dropping warm-up samples.
// Throws std::runtime_error when one series mixes units.
std::vector<Series> group_series(const std::vector<Sample>& samples);

// A side from a loaded run directory.
ComparisonSide side_from_run(const Run& run, std::string label);

// One key whose value differs between the two sides' metadata (flattened to
// dotted paths). For lists, and long space-separated strings such as the
// kernel cmdline, only the items that differ are shown.
struct MetaDifference {
  std::string key;
  std::string base, cand;  // "(absent)" when the key is missing on that side
};

// Flattens nested JSON to "a.b.c" -> scalar text; arrays of scalars become
// one space-separated value, arrays of objects "a[0].b".
std::vector<std::pair<std::string, std::string>> flatten_json(const nlohmann::json& j);

// The differences worth reading: times, durations, the run status and the
// run directory differ in every pair of runs and are left out.
std::vector<MetaDifference> meta_differences(const nlohmann::json& base, const nlohmann::json& cand);

struct MetricComparison {
  std::string key, case_name, variant, metric, unit;
  Direction direction = Direction::unknown;
  bool in_base = false, in_cand = false;
  stats::Summary base, cand;             // valid where in_base / in_cand
  std::vector<double> base_values, cand_values;
  // Valid only when both sides have n >= 2 (`tested`).
  bool tested = false;
  stats::Change change{NAN, NAN, NAN};
  double p_welch = NAN, p_mann_whitney = NAN;
  double p_holm = NAN;                   // Welch p, Holm-adjusted over the tested metrics
  stats::Verdict verdict = stats::Verdict::not_enough_data;
  std::string note;                      // e.g. "only in base", "n < 2"
};

struct CompareOptions {
  double alpha = 0.05;
  std::size_t min_n = 2;  // below this, "not enough data"
};

struct Comparison {
  std::string base_label, cand_label;
  Source base_source = Source::replay, cand_source = Source::replay;
  std::string base_status, cand_status;
  double alpha = 0.05;
  std::vector<MetaDifference> meta_differences;
  std::vector<MetricComparison> metrics;  // base order, then cand-only series

  // "hardware", or "base hardware, cand replay" when they differ.
  std::string source_label() const;
};

// Compares cand against base. Verdicts use the Holm-adjusted Welch p-value,
// so that "faster"/"slower" across many metrics keeps the family-wise error
// rate at alpha.
Comparison compare(const ComparisonSide& base, const ComparisonSide& cand,
                   const CompareOptions& opt = {});

}  // namespace kvmbench
