// How a gate result is told: a text summary for the terminal, JUnit XML for
// CI systems (one test case per metric), Markdown for a merge-request
// comment.
#pragma once

#include <string>
#include <string_view>

#include "analysis/verdicts/gate.h"

namespace kvmbench {

// Escapes text for XML content and attribute values (& < > " '), and
// replaces control characters XML 1.0 cannot carry.
std::string xml_escape(std::string_view s);

// Text for a Markdown table cell: '|' escaped, newlines as spaces.
std::string markdown_cell(std::string_view s);

std::string render_gate_text(const GateResult& g);
std::string render_gate_junit(const GateResult& g);
std::string render_gate_markdown(const GateResult& g);

}  // namespace kvmbench
