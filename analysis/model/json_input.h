// JSON from a file that someone else may have written (a run's meta.json and
// samples.jsonl, a `--host` file, Google Benchmark output, a db dump, a
// guest's result line). nlohmann's parser takes a value nested as deep as the
// text goes, and its copy and dump then recurse once a level, so a deep
// enough one overflows the stack wherever it is copied later; and of two
// members with one key it keeps the last, so the first is lost unseen. Every
// reader of such JSON parses it here, which refuses both.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvmbench {

// Deeper than anything kvmbench writes or reads (a meta.json holds a host
// file a few levels down), far from what the stack can take.
inline constexpr int kMaxJsonDepth = 100;

// A well-formed document that is refused; `line` counts from 1 in the text.
struct JsonInputError : std::runtime_error {
  std::size_t line;
  std::string reason;
  JsonInputError(std::size_t l, std::string r);
};

// Parses `text` as one JSON document. Throws JsonInputError for a NUL byte
// (nlohmann would end the document there and ignore the rest), nesting
// deeper than kMaxJsonDepth, a key given twice in one object or a number
// beyond a double's range (nlohmann's out_of_range.406, which no reader
// expected), and nlohmann::json::parse_error (unchanged) for text that is
// not JSON.
nlohmann::json parse_json_input(std::string_view text);

// Throws the JsonInputError parse_json_input throws for a NUL byte in
// `text` (nlohmann's lexer takes one for the end of the input), naming its
// line, offset and column: for a reader that rewrites its text before it
// parses it, so that the offset is the file's.
void refuse_nul_bytes(std::string_view text);

// The same, for a reader that skips what it cannot use: a discarded value
// (is_discarded()) for text that is refused or is not JSON.
nlohmann::json parse_json_input_or_discarded(std::string_view text);

// How many arrays and objects deep `value` nests (0 for a number, 1 for
// `[1]`), counted without recursion. A writer checks what it built from
// inputs (a host file inside meta.json) against kMaxJsonDepth, so that
// nothing is stored that its readers would refuse.
std::size_t json_depth(const nlohmann::json& value);

// "FILE:LINE: reason", LINE counted from `first_line` (the line of a
// JSON-lines file the text came from).
std::string json_input_message(const JsonInputError& e, std::string_view file, std::size_t first_line = 1);

}  // namespace kvmbench
