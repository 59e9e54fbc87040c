// The rows the reading formats (text, Markdown) print of a long table: the
// first ones, a line saying how many were left out, and the last few, so
// that a listing of a months-long log still reads as a table. CSV and JSON
// always hold every row.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/report/table.h"

namespace kvmbench {

// All rows (omitted 0), or the head and tail around a gap of `omitted`
// rows, which the format reports where the gap is.
struct ShownRows {
  std::size_t head, tail, omitted;
  bool shown(std::size_t row, std::size_t rows) const { return row < head || row >= rows - tail; }
};

ShownRows shown_rows(const Table& t);

// "... 12 more rows (--format csv or json lists them all) ..."
std::string omitted_line(std::size_t omitted);

}  // namespace kvmbench
