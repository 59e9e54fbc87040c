// A table in Markdown (GitLab and GitHub comments, job summaries): a
// heading, its source, a pipe table, the notes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/report/table.h"

namespace kvmbench {

std::string render_markdown(const Table& t);

// Text for a Markdown table cell or line: '|' escaped.
std::string md_escape(std::string_view s);

// Lines that stay lines in Markdown (a hard break after each, where a line
// follows; "" a paragraph break), none read as a heading.
std::string markdown_lines(const std::vector<std::string>& lines);

}  // namespace kvmbench
