// Text laid out for a terminal or a mail: display widths of UTF-8 text, and
// paragraphs broken into lines of at most 80 columns. One implementation
// for table notes, help text, plans, the run summary and messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench {

// Columns `s` takes: its UTF-8 code points (not bytes: "±" is one).
std::size_t display_width(std::string_view s);

// One paragraph broken at spaces into lines of at most `width` columns (a
// word longer than a line stays whole), each continuation line starting
// with `more`; every line ends with '\n', and an empty text is "". A
// paragraph that starts indented keeps its indent, and its continuations go
// two columns further in.
std::string wrap_text(std::string_view text, std::size_t width = 80, const std::string& more = "  ");

// The lines of wrap_text(text, ...) that stand in a column of their own:
// each begins with `indent`, which counts in the `width`, and those after
// the first with `more` besides; without their '\n'. For the entries of a
// list or a summary ("    reason ..." under its "  name:").
std::vector<std::string> wrap_lines(std::string_view text, const std::string& indent, std::size_t width = 80,
                                    const std::string& more = "");

// `line` cut to `width` columns, ending in "..." where it was cut: for a
// line that stands for more, said in full elsewhere (`report`'s one line a
// skipped part; --verbose has the reason whole).
std::string cut_to_width(const std::string& line, std::size_t width = 80);

}  // namespace kvmbench
