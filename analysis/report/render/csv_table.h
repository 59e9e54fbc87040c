// A table as CSV, built from the data: a number is its value in full, the
// unit goes into the header when the whole column has one, else beside the
// value; an interval column is two columns, its low and high ends.
#pragma once

#include <string>

#include "analysis/report/table.h"

namespace kvmbench {

std::string render_csv(const Table& t);

}  // namespace kvmbench
