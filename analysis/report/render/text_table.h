// A table in plain text, as it reads in a terminal and in a mail: the
// title (wrapped), its source line, the columns padded with spaces, a rule
// under the header, the notes wrapped to 80 columns.
#pragma once

#include <string>

#include "analysis/report/table.h"

namespace kvmbench {

std::string render_text(const Table& t);

}  // namespace kvmbench
