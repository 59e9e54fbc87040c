// Several tables in one output (run, reproduce, ingest, report): a Document
// of them in the renderer of the format (analysis/report/render/renderer.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/report/render/format.h"
#include "analysis/report/table.h"

namespace kvmbench::engine {

// Throws ExitError(2) for an unknown format, and for html and junit, which
// these commands' outputs of several parts have no page or test cases for.
Format parse_table_format(const std::string& name);

std::string render_tables(const std::vector<Table>& tables, Format f);
nlohmann::json tables_json(const std::vector<Table>& tables);

}  // namespace kvmbench::engine
