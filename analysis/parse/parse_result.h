// What every raw-output parser returns: the samples it found, where each came
// from (the source line is kept in Sample::extra["line"]), and how much of the
// input it did not use, so a caller can tell "nothing matched" from "matched".
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/model/result_model.h"

namespace kvmbench::parsers {

// A program whose output this is that failed (a selftest's "not ok", its
// TEST_ASSERT): what it printed before is kept, each of those samples
// marked with extra "failed" (the reason), so that no comparison reads
// them as a good run.
struct ProgramFailure {
  std::string program;      // "memslot_perf_test"; "" when the output names none
  std::string reason;       // as printed: "TIMEOUT 120 seconds", the assertion
  std::size_t line = 0;
  std::size_t samples = 0;  // the figures it printed before
};

struct ParseResult {
  std::string format;                 // "kernel-log", "gbench-json", "plain-numbers"
  std::vector<Sample> samples;
  std::size_t lines_read = 0;         // physical lines of the input
  std::size_t records = 0;            // records recognised (a wrapped record counts once)
  std::size_t lines_ignored = 0;      // non-blank lines that were not part of a record
  std::vector<std::string> warnings;  // "line N: ..." for things skipped on purpose
  std::vector<std::string> notes;     // "line N: ..." for lines known not to be records (status lines)
  std::vector<ProgramFailure> failures;
};

// Malformed input. `line` is 1-based (0 when no line applies); what() is the
// bare reason, without the file name, so callers can prefix "file:line: ".
struct ParseError : std::runtime_error {
  std::size_t line;
  ParseError(std::size_t l, const std::string& msg) : std::runtime_error(msg), line(l) {}
};

}  // namespace kvmbench::parsers
