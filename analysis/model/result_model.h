// The result model: what one measured value is, where it came from, and
// which direction is better. Everything else (run storage, statistics,
// reports) is built on these types.
#pragma once

#include <nlohmann/json.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/series_key.h"

namespace kvmbench {

// Where a number came from. Printed in every table header; gating refuses
// `emulated` and `model`.
enum class Source { hardware, replay, emulated, model };

std::string_view to_string(Source s);
std::optional<Source> parse_source(std::string_view s);

// Which way is better for a metric. Rates are higher-is-better, times and
// cycles lower-is-better; `unknown` makes comparisons refuse a verdict of
// faster/slower and report only the change.
enum class Direction { higher_is_better, lower_is_better, unknown };

// Derived from the unit ("GB/s", "ops/s" -> higher; "ns", "cycles" -> lower).
Direction direction_for_unit(std::string_view unit);
std::string_view to_string(Direction d);

// One measured value, one line of samples.jsonl.
struct Sample {
  std::string case_name;  // e.g. "nr_pages=262144", "anon-4k"
  std::string variant;    // e.g. "all-cpus", "pinned-node0"; may be empty
  std::string metric;     // e.g. "total_cycles", "faultin_rate"
  std::string unit;       // e.g. "cycles", "GB/s", "ns"
  double value = 0;
  int iteration = 0;       // 0-based repetition index
  bool warmup = false;     // warm-up samples are stored but not summarised
  // Anything else worth keeping: null (none) or an object.
  nlohmann::json extra;

  // What the sample is a value of, and that key's name, which groups
  // samples into one series.
  SeriesKey key() const { return {case_name, variant, metric, unit}; }
  std::string series_key() const { return key().name(); }
};

// A sample's keys: the values its case or variant name shows for display
// ("nr_pages=262144", "pinned-node0", "group=2"), kept as data in
// extra.keys ({"keys":{"nr_pages":262144}} in samples.jsonl) so that a
// report reads them instead of parsing the name back.
void set_sample_key(Sample& s, std::string_view name, nlohmann::json value);
// The key `name` when it is an integer; nullopt when the sample has no such
// key (samples.jsonl written before keys: the reader's legacy name parse).
std::optional<long long> sample_key_int(const Sample& s, std::string_view name);

// Where measurements go as they are taken (a RunWriter, a vector in a test).
using SampleSink = std::function<void(const Sample&)>;

nlohmann::json to_json(const Sample& s);
// Throws std::runtime_error with a message naming the missing/bad field.
// A null value (how a non-finite value is stored) reads as NaN, or as the
// infinity its "value_text" names.
Sample sample_from_json(const nlohmann::json& j);

}  // namespace kvmbench
