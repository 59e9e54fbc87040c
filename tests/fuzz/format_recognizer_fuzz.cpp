// What ingest reads (analysis/parse/format_recognizer.h): any format,
// recognised and parsed, whole (parse_any) and in pieces (InputReader, as
// ingest reads a file), which must give the same.
#include <fmt/format.h>

#include <functional>

#include "analysis/parse/input_reader.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/parse_outcome.h"

namespace kvmbench::fuzz {
namespace {

using parsers::ParsedInput;
using parsers::Provenance;

// The format and what the parse gave.
std::string outcome(const ParsedInput& p) {
  return fmt::format("{} {}\n", to_string(p.format), p.kernel_records.size()) + parse_outcome(p.result);
}

void run(std::string_view data) {
  const std::string whole = outcome_or_refusal([&] { return outcome(parsers::parse_any(data, Provenance::by_record)); });
  const std::size_t piece = 1 + std::hash<std::string_view>()(data) % 4096;
  const std::string streamed = outcome_or_refusal([&] {
    parsers::InputReader r(Provenance::by_record, data.size());
    for (std::size_t at = 0; at < data.size(); at += piece) r.feed(data.substr(at, piece));
    return outcome(r.finish());
  });
  fuzz_check(streamed == whole, fmt::format("read in pieces of {} bytes, the input gives\n{}\nand whole\n{}", piece,
                                            streamed, whole));
}

const RegisterFuzzTarget target({"format_recognizer",
                                 {"results/reference", "tests/data/ingest", "tests/data/gbench", "tests/data/kvm",
                                  "tests/data/replay/asid/cpuid_rate.npt-on.console.log",
                                  "tests/data/replay/rmpopt/snp-guest0.console.log"},
                                 run});

}  // namespace
}  // namespace kvmbench::fuzz
