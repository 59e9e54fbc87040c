// Charts as inline SVG for the HTML page: no script, no fetch. Axes are in
// units scaled for reading and start at 0 for a positive quantity, whose
// whiskers stop there.
#pragma once

#include <string>
#include <string_view>

#include "analysis/report/document.h"
#include "analysis/report/table.h"

namespace kvmbench {

// A Chart: bars (a bar per group for its mean, the 95% CI as a whisker,
// every sample a dot; groups side by side) or along (points in order,
// segment means, dashed marks). Its caption under the title.
std::string chart_svg(const Chart& chart);

// A table's chart (Table::chart): one horizontal bar per row with a number
// in the chart's value column (labelled by the label column), the interval
// column's low/high as whiskers, named in a legend. "" when the table has
// no chart or no row has a number; a note instead of a chart when the rows
// are not in one unit.
std::string table_chart_svg(const Table& t);

// The style class of a tone ("worse", "better"; "" for plain).
std::string_view tone_class(Tone t);

}  // namespace kvmbench
