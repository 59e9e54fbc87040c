// What a parse gave, as one text, so that two ways of reading one input
// (whole, and as a stream in pieces) can be compared; a refusal as its
// line and reason.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <string>

#include "analysis/parse/parse_result.h"

namespace kvmbench::fuzz {

inline std::string parse_outcome(const parsers::ParseResult& r) {
  std::string out = fmt::format("{} {} {} {}\n", r.lines_read, r.records, r.lines_ignored, r.samples.size());
  for (const auto& w : r.warnings) out += w + "\n";
  for (const auto& n : r.notes) out += n + "\n";
  // Invalid UTF-8 replaced, as the run's files write it (sample_jsonl.cpp):
  // a reader keeps the bytes of its input, the writer makes them valid.
  for (const auto& s : r.samples)
    out += fmt::format("{}|{}|{}|{}|{}|{}\n", s.case_name, s.variant, s.metric, s.value, s.iteration,
                       s.extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return out;
}

// `describe()`'s text, or the ParseError it threw (any other exception goes
// on to the driver, which judges it).
template <typename F>
std::string outcome_or_refusal(F describe) {
  try {
    return describe();
  } catch (const parsers::ParseError& e) {
    return fmt::format("ParseError {}: {}", e.line, e.what());
  }
}

}  // namespace kvmbench::fuzz
