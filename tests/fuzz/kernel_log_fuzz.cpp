// Kernel log records (analysis/parse/kernel_log.h): the whole-text parse,
// the same text read as a stream in pieces (KernelLogStream, what ingest
// uses), which must give the same, and the live run's parse that skips an
// inconsistent record instead of refusing it, which must never refuse.
#include <fmt/format.h>

#include <functional>

#include "analysis/parse/kernel_log.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/parse_outcome.h"

namespace kvmbench::fuzz {
namespace {

using parsers::BadRecords;
using parsers::Provenance;

void run(std::string_view data) {
  const std::string whole =
      outcome_or_refusal([&] { return parse_outcome(parsers::parse_kernel_log_records(data).result); });
  const std::size_t piece = 1 + std::hash<std::string_view>()(data) % 97;
  const std::string streamed = outcome_or_refusal([&] {
    parsers::KernelLogStream s(Provenance::in_extra);
    for (std::size_t at = 0; at < data.size(); at += piece) s.feed(data.substr(at, piece));
    return parse_outcome(s.finish().result);
  });
  fuzz_check(streamed == whole, fmt::format("read in pieces of {} bytes, the log gives\n{}\nand whole\n{}", piece,
                                            streamed, whole));
  try {
    parsers::parse_kernel_log_records(data, Provenance::by_record, BadRecords::skip);
  } catch (const parsers::ParseError& e) {
    fuzz_finding(fmt::format("BadRecords::skip refused the log: line {}: {}", e.line, e.what()));
  }
}

const RegisterFuzzTarget target({"kernel_log",
                                 {"results/reference", "tests/data/ingest", "tests/data/replay/rmpopt",
                                  "tests/data/replay/make_shared/kmsg.log"},
                                 run});

}  // namespace
}  // namespace kvmbench::fuzz
