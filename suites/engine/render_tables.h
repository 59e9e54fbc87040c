// Several tables in one output (reproduce, ingest, report): text and
// Markdown separated by blank lines, CSV as one block per table preceded by
// a "# title" line, JSON as an array of tables. HTML is not rendered here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/report/table.h"

namespace kvmbench::cli {

// Throws ExitError(2) for --format html (rendered by the html report).
Format parse_table_format(const std::string& name);

std::string render_tables(const std::vector<Table>& tables, Format f);
nlohmann::json tables_json(const std::vector<Table>& tables);

// Word-wraps a paragraph to `width` columns; continuation lines get `indent`.
std::string wrap_text(const std::string& text, std::size_t width = 80, const std::string& indent = "  ");

}  // namespace kvmbench::cli
