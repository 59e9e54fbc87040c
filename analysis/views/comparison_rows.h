// How a row of a comparison reads, in compare's, gate's and ab's tables:
// its reading unit, the mean it shows and its spread, its status in words,
// and which rows a reader sees without --all.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/report/numbers.h"
#include "analysis/report/table.h"
#include "analysis/verdicts/compare.h"

namespace kvmbench {

// The unit a row reads in: its larger mean's (numbers.h), so that
// 45.28 s is not 4.528e+10 ns.
ReadingScale row_scale(const MetricComparison& m);

std::string_view to_string(MetricStatus s);  // "tested", "derived", ...

// The mean a row shows and its spread: the geometric mean and the
// geometric sd as a percentage where the row's test was on the logs (so
// that the change is cand / base of what is shown), else the arithmetic
// mean and the CV.
struct RowCenter {
  double mean = NAN;
  double spread_pct = NAN;  // sd / mean, or exp(sd of logs) - 1, in percent
  bool geometric = false;
};
RowCenter row_center(const MetricComparison& m, bool base);

// Whether a row is shown without --all: derived and secondary metrics are
// never tested, and a reader of a verdict wants the tested ones.
bool shown_by_default(const MetricComparison& m);
// "48 derived and 24 secondary metrics not shown, never tested (--all
// shows them)"; "" when none is hidden.
std::string hidden_rows_line(const Comparison& c, bool all);

// A tested row's verdict in a word ("~" for no significant difference),
// else why it has none ("derived", "change only", "only in base", ...).
std::string verdict_word(const MetricComparison& m);
// What a row's verdict says for the reader: a regression is worse.
Tone verdict_tone(const MetricComparison& m);

// "#1, #3-#5" for 0-based row indices.
std::string index_list(const std::vector<std::size_t>& idx);

}  // namespace kvmbench
