// Decides which parser applies to a file's text, and runs it:
//   gbench JSON     the text is a JSON object with a "benchmarks" key
//   guest output    a kvmbench guest console (KVMBENCH-BEGIN/RESULT lines,
//                   guest_output.h)
//   kernel log      some line holds a record of kernel_log.h (any capture;
//                   checked before guest output: a guest console never
//                   carries the host's records)
//   plain numbers   every non-blank, non-'#' line is one number (plain_numbers.h)
// Anything else is "unrecognised", with the reason.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/parsers/gbench_json.h"
#include "analysis/parsers/kernel_log.h"
#include "analysis/parsers/parse_result.h"

namespace kvmbench::parsers {

enum class InputFormat { empty, gbench_json, guest_output, kernel_log, plain_numbers, unrecognised };
std::string_view to_string(InputFormat f);

struct Recognition {
  InputFormat format = InputFormat::unrecognised;
  std::string reason;  // why it was not recognised (empty otherwise)
};

Recognition recognise_format(std::string_view text);

struct ParsedInput {
  InputFormat format = InputFormat::unrecognised;
  ParseResult result;
  std::vector<GbenchAggregate> aggregates;  // gbench only
  nlohmann::json context;                   // gbench only: its "context" object
  // kernel log with Provenance::by_record only: the records, and the record
  // of each sample (see kernel_log.h); the records' views point into the
  // parsed text and kernel_joined.
  std::vector<KernelRecord> kernel_records;
  JoinedText kernel_joined;
  std::vector<std::uint32_t> kernel_sample_record;
};

// Recognises and parses. Throws ParseError (with the line) for empty or
// unrecognised text and for malformed input of a recognised format, and
// when a recognised file yields no sample at all.
// Plain numbers become case "values", metric "value", no unit.
ParsedInput parse_any(std::string_view text, Provenance kernel_provenance = Provenance::in_extra);

}  // namespace kvmbench::parsers
