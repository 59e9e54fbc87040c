// How a gate result is told: a text summary for the terminal, JUnit XML for
// CI systems (one test case per metric), Markdown for a merge-request
// comment, JSON for programs: one Document (document.h) per format.
#pragma once

#include <string>
#include <string_view>

#include "analysis/verdicts/gate.h"
#include "analysis/report/render/document.h"

namespace kvmbench {

// Escapes text for XML content and attribute values (& < > " '), and
// replaces control characters XML 1.0 cannot carry.
std::string xml_escape(std::string_view s);

// Text for a Markdown table cell: '|' escaped, newlines as spaces.
std::string markdown_cell(std::string_view s);

// The gate's result as `f` shows it (renderer.h writes it): text (and mail,
// csv, html) the headline first, the gated metrics' tables, why what did
// not pass; md a merge-request comment; junit a test case per gated metric;
// json its data and the comparison's.
Document gate_document(const GateResult& g, Format f);
}  // namespace kvmbench
