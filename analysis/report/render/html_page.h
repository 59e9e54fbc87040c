// A Document as one self-contained HTML page: inline CSS, inline SVG, no
// script and no network fetch, readable in any browser without the tool.
// Its title with the source's badge, a banner for a source other than
// hardware and one per alert, the lead lines as they read in text, the
// tables (each with its chart, Table::chart), the charts, the closing lines.
#pragma once

#include <string>

#include "analysis/report/document.h"
#include "analysis/report/table.h"

namespace kvmbench {

std::string render_document_html(const Document& d);

// A whole page around `body` (the reports' style sheet, `footer` in its
// footer).
std::string html_page(const std::string& title, const std::string& body, const std::string& footer);

// One table as an HTML <table> (title, source, notes included), followed
// by its chart when it has one.
std::string table_to_html(const Table& t);

}  // namespace kvmbench
