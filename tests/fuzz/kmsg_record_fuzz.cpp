// /dev/kmsg records (analysis/parse/kmsg_record.h), as a saved capture holds them:
// each line that reads as a record is written back to the same record.
#include "analysis/parse/kmsg_record.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

bool same(const KmsgRecord& a, const KmsgRecord& b) {
  return a.seq == b.seq && a.timestamp_us == b.timestamp_us && a.priority == b.priority &&
         a.facility == b.facility && a.flags == b.flags && a.message == b.message && a.dict == b.dict;
}

void run(std::string_view data) {
  // One record: a header line and the " KEY=value" lines after it.
  std::size_t at = 0;
  while (at < data.size()) {
    std::size_t end = data.find('\n', at);
    while (end != std::string_view::npos && end + 1 < data.size() && data[end + 1] == ' ')
      end = data.find('\n', end + 1);
    const std::string_view text = data.substr(at, end == std::string_view::npos ? end : end - at);
    if (const auto r = parse_kmsg_record(text)) {
      const auto again = parse_kmsg_record(format_kmsg_record(*r));
      fuzz_check(again && same(*r, *again), "a kmsg record does not read back as itself");
    }
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
}

const RegisterFuzzTarget target({"kmsg_record", {"tests/data/replay/rmpopt", "tests/data/replay/make_shared/kmsg.log"},
                                 run});

}  // namespace
}  // namespace kvmbench::fuzz
