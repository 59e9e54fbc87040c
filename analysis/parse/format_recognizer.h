// Decides which parser applies to a file's text, and runs it:
//   gbench JSON     the text is a JSON object with a "benchmarks" key
//   guest output    a kvmbench guest console (KVMBENCH-BEGIN/RESULT lines,
//                   guest_output.h)
//   kernel log      some line holds a record of kernel_log.h (any capture;
//                   checked before guest output: a guest console never
//                   carries the host's records)
//   KVM selftest    a performance line of a KVM selftest (kvm_selftests.h)
//   vmexit          kvm-unit-tests' vmexit output (kvm_unit_tests.h)
//   plain numbers   every non-blank, non-'#' line is one number (plain_numbers.h)
// Anything else is "unrecognised", with the reason.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/parse/gbench_json.h"
#include "analysis/model/metric_roles.h"
#include "analysis/parse/kernel_log.h"
#include "analysis/parse/parse_result.h"

namespace kvmbench::parsers {

enum class InputFormat {
  empty,
  gbench_json,
  guest_output,
  kernel_log,
  kvm_selftest,
  kvm_unit_tests_vmexit,
  plain_numbers,
  unrecognised
};
// True for the formats whose one file is one run of a program (an
// invocation): Google Benchmark JSON, a guest's console, a selftest's or
// vmexit's output. A kernel log is not: each record is its own measurement.
bool is_one_invocation(InputFormat f);
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
  std::vector<GbenchNotMeasured> not_measured;  // gbench only: errored or skipped benchmarks
  nlohmann::json context;                   // gbench only: its "context" object
  MetricRoles roles;                        // which metrics are derived (selftests)
  // kernel log only: the records, and the record of each sample (see
  // kernel_log.h); the records' views point into the parsed text and
  // kernel_joined.
  std::vector<KernelRecord> kernel_records;
  JoinedText kernel_joined;
  std::vector<std::uint32_t> kernel_sample_record;
};

// Recognises and parses. Throws ParseError (with the line) for empty or
// unrecognised text and for malformed input of a recognised format, and
// when a recognised file yields no sample at all.
// Plain numbers become case "values", metric "value", no unit.
ParsedInput parse_any(std::string_view text, Provenance kernel_provenance = Provenance::in_extra);

// A kernel log's parse as parse_any returns it; throws ParseError when it
// yields no sample.
ParsedInput parsed_kernel_log(KernelLogParse parse);

}  // namespace kvmbench::parsers
