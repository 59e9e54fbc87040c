// Google Benchmark JSON output (--benchmark_format=json or
// --benchmark_out=FILE), as the library writes it. Per-repetition iteration
// rows become samples:
//   case    run_name (name without the "_mean"-style suffix; falls back to
//           name); when two benchmarks are registered under one name (Kokkos
//           registers one per backend), each gets " (K of N)" after it, K
//           its rank by family_index, so they are never pooled
//   metric  "real_time", "cpu_time" (unit: the row's time_unit, default "ns"),
//           and each user counter (unit "/s" for *_per_second counters,
//           otherwise empty)
//   iteration  repetition_index (0 without repetitions)
//   extra   line (of the row's opening brace), iterations, threads; and
//           value_text "NaN" / "Infinity" / "-Infinity" for a counter the
//           library wrote as that literal (JSON has none: the library
//           writes them bare, which is accepted here and nowhere else)
// Aggregate rows (mean, median, stddev, cv, BigO, RMS) are kept apart in
// `aggregates`, never as samples: they are derived, and the report recomputes
// its own statistics from the repetitions; a file with aggregates only
// (--benchmark_report_aggregates_only) is compared from its mean, stddev
// and count. Rows with error_occurred or skipped are listed in not_measured
// with their message (and a warning).
// Truncated or malformed JSON, a missing "benchmarks" array, an unknown
// time_unit or a context.json_schema_version other than 1 throw ParseError
// with the line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/parse/parse_result.h"

namespace kvmbench::parsers {

struct GbenchAggregate {
  std::string case_name;       // run_name (with " (K of N)" as for samples)
  std::string aggregate_name;  // "mean", "median", "stddev", "cv", ...
  std::string metric;          // "real_time", "cpu_time" or a counter
  std::string unit;            // time unit, "" for cv (a ratio) and counters
  double value = 0;            // NaN / infinity as the file writes them
  std::size_t count = 0;       // the repetitions it summarises ("repetitions")
  std::size_t line = 0;
};

// A benchmark that errored (SkipWithError) or was skipped, once per name.
struct GbenchNotMeasured {
  std::string case_name, message;
  std::size_t line = 0;
};

struct GbenchParse {
  ParseResult result;  // format "gbench-json"
  std::vector<GbenchAggregate> aggregates;
  std::vector<GbenchNotMeasured> not_measured;
  nlohmann::json context;  // the "context" object (host, caches, library build type)
};

// The versions of context.json_schema_version this parser reads (the
// library writes 1; before it wrote none).
inline constexpr int kGbenchJsonSchemaVersion = 1;

GbenchParse parse_gbench_json(std::string_view text);

// True when the text is (the start of) a JSON object that has a
// "benchmarks" key; cheap, does not parse the whole text.
bool looks_like_gbench_json(std::string_view text);

nlohmann::json to_json(const GbenchAggregate& a);

}  // namespace kvmbench::parsers
