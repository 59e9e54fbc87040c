// Google Benchmark JSON output (--benchmark_format=json or
// --benchmark_out=FILE). Per-repetition iteration rows become samples:
//   case    run_name (name without the "_mean"-style suffix; falls back to name)
//   metric  "real_time", "cpu_time" (unit: the row's time_unit, default "ns"),
//           and each user counter (unit "/s" for *_per_second counters,
//           otherwise empty)
//   iteration  repetition_index (0 without repetitions)
//   extra   line (of the row's opening brace), iterations, threads
// Aggregate rows (mean, median, stddev, cv, BigO, RMS) are kept apart in
// `aggregates`, never as samples: they are derived, and the report recomputes
// its own statistics from the repetitions. Rows with error_occurred are
// skipped with a warning.
// Truncated or malformed JSON, a missing "benchmarks" array or an unknown
// time_unit throw ParseError with the line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/parsers/parse_result.h"

namespace kvmbench::parsers {

struct GbenchAggregate {
  std::string case_name;       // run_name
  std::string aggregate_name;  // "mean", "median", "stddev", "cv", ...
  std::string metric;          // "real_time", "cpu_time" or a counter
  std::string unit;            // time unit, "" for cv (a ratio) and counters
  double value = 0;
  std::size_t line = 0;
};

struct GbenchParse {
  ParseResult result;  // format "gbench-json"
  std::vector<GbenchAggregate> aggregates;
  nlohmann::json context;  // the "context" object (host, caches, library build type)
};

GbenchParse parse_gbench_json(std::string_view text);

// True when the text is (the start of) a JSON object that has a
// "benchmarks" key; cheap, does not parse the whole text.
bool looks_like_gbench_json(std::string_view text);

nlohmann::json to_json(const GbenchAggregate& a);

}  // namespace kvmbench::parsers
