// The end of a text (a console, a program's output) for a message: its last
// `n` lines, the final newline not counted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kvmbench {

inline std::string last_lines(std::string_view text, std::size_t n) {
  std::size_t pos = text.size();
  if (pos && text[pos - 1] == '\n') --pos;
  for (std::size_t lines = 0; pos > 0; --pos)
    if (text[pos - 1] == '\n' && ++lines == n) break;
  return std::string(text.substr(pos));
}

}  // namespace kvmbench
