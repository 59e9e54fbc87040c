// Parser for the simplest raw input: numbers, one per line (what
// `kvmbench summarize` reads). Blank lines and lines whose first non-blank
// character is '#' are ignored; anything else must be exactly one finite
// decimal number (leading/trailing blanks and a CR line ending allowed).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench {

struct PlainNumbers {
  std::vector<double> values;
  std::vector<std::size_t> lines;  // 1-based line number of each value
};

// The first bad line: its 1-based number and what is wrong with it.
struct PlainNumbersError : std::runtime_error {
  std::size_t line;
  PlainNumbersError(std::size_t l, const std::string& msg) : std::runtime_error(msg), line(l) {}
};

// Throws PlainNumbersError on the first line that is not a number.
PlainNumbers parse_plain_numbers(std::string_view text);

}  // namespace kvmbench
