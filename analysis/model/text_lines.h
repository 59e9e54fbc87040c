// The lines (and words) of a text, one at a time, without building a vector
// of them.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

namespace kvmbench {

// Calls f(number, line) for each line (1-based number; the line without
// its '\n'; a last line without one counts). When f returns bool, false
// stops the walk.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t pos = 0, number = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if constexpr (std::is_same_v<decltype(f(number, line)), bool>) {
      if (!f(++number, line)) return;
    } else {
      f(++number, line);
    }
  }
}

// Calls f(word) for each blank-separated word of `text` (blanks: space,
// tab, newline), in order.
template <typename F>
void for_each_word(std::string_view text, F&& f) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find_first_of(" \t\n", pos);
    if (end == std::string_view::npos) end = text.size();
    if (end > pos) f(text.substr(pos, end - pos));
    pos = end + 1;
  }
}

// `t` without the spaces, tabs and carriage returns around it.
inline std::string_view trimmed(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.remove_suffix(1);
  return t;
}

}  // namespace kvmbench
