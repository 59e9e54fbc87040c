// A summary as one table cell in a reading scale: "2.45 ±0.31" (the mean
// and the half-width of its 95% CI, three and two significant digits), so
// that a table of means in ms or GB/s carries its uncertainty in the same
// column. The cell's value is the mean in the samples' own unit (JSON, CSV
// and charts read that); the half-width is in its text only.
#pragma once

#include <span>
#include <string>

#include "analysis/report/numbers.h"
#include "analysis/stats/statistics.h"
#include "analysis/report/table.h"

namespace kvmbench {

// "mean ±half-width" in `scale` (reading_scale() of the table's values);
// the mean alone when n < 2 (no CI). `unit`: the samples' unit. For a
// quantity that cannot be zero or below (positive_ci.h) whose CI would
// reach below zero, the interval is shown as its bound, "mean ≤high"
// (ci_reaches_zero says so, for the table's note).
Cell mean_ci_cell(const stats::Summary& s, const ReadingScale& scale, const std::string& unit);

// The same in the scale of its own mean, with the unit after it ("36.7 ±5.2
// ms"), for a table whose cells differ by orders of magnitude both across
// and down (sizes in rows, operations in columns).
Cell mean_ci_cell(const stats::Summary& s, const std::string& unit);

// Whether mean_ci_cell shows this summary's CI as a bound.
bool ci_reaches_zero(const stats::Summary& s, const std::string& unit);

// The note under a table with such cells.
inline constexpr const char* kCiBoundNote =
    "≤x: the 95% CI of the mean would reach below zero, which the quantity cannot; only its high end x is shown";

// The scale for a table of these means: the one of their median, so that
// most cells read in [1, 1000) of one unit.
ReadingScale scale_for_means(std::span<const double> means, std::string_view unit);

// "n = 3", or "n = 2 to 5" when the cells differ, for a note.
std::string n_range(std::size_t lowest, std::size_t highest);

}  // namespace kvmbench
