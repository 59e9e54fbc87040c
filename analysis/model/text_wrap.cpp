#include "analysis/model/text_wrap.h"

#include <algorithm>

#include "analysis/model/text_lines.h"

namespace kvmbench {

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;  // continuation bytes take no column
  return w;
}

std::string wrap_text(std::string_view text, std::size_t width, const std::string& more_text) {
  const std::size_t indent = std::min(text.find_first_not_of(' '), text.size());
  std::string out, line(indent, ' ');
  const std::string more = indent ? line + "  " : more_text;
  std::size_t pos = indent;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    const bool fresh = line.size() == indent || line == more;  // nothing on it yet
    if (!fresh && display_width(line) + 1 + display_width(word) > width) {
      out += line + "\n";
      line = more;
    } else if (!fresh) {
      line += ' ';
    }
    line += word;
  }
  if (line.size() > indent && line != more) out += line + "\n";
  return out;
}

std::vector<std::string> wrap_lines(std::string_view text, const std::string& indent, std::size_t width,
                                    const std::string& more) {
  const std::size_t room = width > display_width(indent) ? width - display_width(indent) : 1;
  std::vector<std::string> out;
  for_each_line(wrap_text(text, room, more), [&](std::size_t, std::string_view line) {
    out.push_back(indent + std::string(line));
  });
  return out;
}

std::string cut_to_width(const std::string& line, std::size_t width) {
  if (display_width(line) <= width) return line;
  // Whole code points up to width - 3 columns, then "...".
  std::size_t columns = 0, end = 0;
  for (; end < line.size(); ++end) {
    const bool starts_a_column = (static_cast<unsigned char>(line[end]) & 0xC0) != 0x80;
    if (starts_a_column && columns++ == width - 3) break;
  }
  return line.substr(0, end) + "...";
}

}  // namespace kvmbench
