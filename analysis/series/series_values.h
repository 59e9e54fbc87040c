// The values of a set of samples grouped into series (case, variant,
// metric) and reduced to their experimental units: what every generic
// table of a run (series_table.h's per-case dumps, case_table.h's compact
// tables) computes its statistics over, so that both show the same n.
// Warm-up samples are left out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/model/case_families.h"
#include "analysis/model/result_model.h"
#include "analysis/series/series.h"

namespace kvmbench {

struct CaseSeries {
  std::string case_name;
  std::vector<Series> series;  // each with case_name the case's (pooled: the title)
  bool pooled = false;  // several cases of one family, see group_by_case
};

// The samples' series grouped by case, in first-seen order. When there are
// more than `max_cases` cases (0: no limit), each family of cases (the key
// before '=': "group" of "group=12") larger than that is pooled into one
// case, titled "all N group=* cases pooled (from A to B)"; cases without a
// key are never pooled (family_pooled, case_families.h). Throws
// std::runtime_error when one series mixes units.
std::vector<CaseSeries> group_by_case(const std::vector<Sample>& samples, std::size_t max_cases);
// The `max_cases` of the generic tables (case_table.h, series_table.h) is
// kMaxCases (case_families.h).

// The values a series' statistics are of: one per repetition (its threads,
// CPUs or vCPUs summarised, experimental_unit.h), or one per invocation
// when the run holds several. In a pooled case every value stands alone.
// `summarised` says how many values the largest unit summarised.
std::vector<double> unit_values(const Series& s, bool pooled, std::size_t& summarised);

}  // namespace kvmbench
