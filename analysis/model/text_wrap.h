// Text laid out for a terminal or a mail: display widths of UTF-8 text, and
// paragraphs broken into lines of at most 80 columns. One implementation
// for table notes, help text, plans and messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kvmbench {

// Columns `s` takes: its UTF-8 code points (not bytes: "±" is one).
std::size_t display_width(std::string_view s);

// One paragraph broken at spaces into lines of at most `width` columns (a
// word longer than a line stays whole), each continuation line starting
// with `more`; every line ends with '\n', and an empty text is "". A
// paragraph that starts indented keeps its indent, and its continuations go
// two columns further in.
std::string wrap_text(std::string_view text, std::size_t width = 80, const std::string& more = "  ");

}  // namespace kvmbench
