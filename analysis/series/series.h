// A series: the non-warm-up values of one case/variant/metric, each with
// the invocation, repetition and sub-unit it came from. What compare, gate,
// history and export reduce to experimental units (experimental_unit.h).
// The run tables group theirs by case (series_values.h) in the same type.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model/experimental_unit.h"
#include "analysis/model/series_key.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

// The non-warm-up values of one series, in the order they were measured,
// each with the invocation, repetition and sub-unit it came from.
struct Series {
  SeriesKey key;  // its name(): Sample::series_key()
  std::vector<Observation> observations;
  std::size_t warmups_dropped = 0;
  // Aggregates-only Google Benchmark input: the mean, stddev and count the
  // file gives (no observations).
  std::optional<stats::Summary> given;
  // Why the test that printed these figures failed (its samples' extra
  // "failed"); "" for a good run's.
  std::string failed;
};

// The kind of sub-unit the series' values name ("thread" of "thread=1"):
// its first observation's that names one, "" when none does.
std::string sub_unit_kind(const Series& s);

}  // namespace kvmbench
