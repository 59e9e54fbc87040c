// What a series is of: a case, its variant, a metric and the unit of its
// values. Series, a comparison's rows, exported metrics and history hold
// one, not copies of its fields.
#pragma once

#include <string>

namespace kvmbench {

struct SeriesKey {
  std::string case_name;  // "anon-4k/threads=1"
  std::string variant;    // "pinned"; may be empty
  std::string metric;     // "faultin_rate"
  std::string unit;       // "GB/s"

  // "case/variant/metric" ("case/metric" without a variant): the name
  // tables, --metrics globs and verdicts use.
  std::string name() const;
  // "case/variant" ("case" without a variant): where a metric was measured.
  std::string where() const;

  friend bool operator==(const SeriesKey&, const SeriesKey&) = default;
};

}  // namespace kvmbench
