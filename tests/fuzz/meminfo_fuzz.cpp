// /proc/meminfo text (analysis/parse/meminfo.h), and a meminfo series as a run
// stores and a replay reads it (raw/meminfo-*.csv, suites/collect/capture.h).
#include "analysis/parse/meminfo.h"
#include "suites/collect/capture.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  parse_meminfo(data);
  meminfo_field(data, "DirectMap2M");
  const std::string text(data);
  std::vector<double> t, v;
  suites::parse_meminfo_csv(text, suites::meminfo_csv_field(text), "fuzz.csv", t, v);
  fuzz_check(t.size() == v.size(), "a meminfo series with times and values of different lengths");
}

const RegisterFuzzTarget target({"meminfo",
                                 {"tests/data/replay/directmap/meminfo-pinned-node0.csv",
                                  "tests/data/replay/directmap/meminfo-unpinned.it0.csv"},
                                 run});

}  // namespace
}  // namespace kvmbench::fuzz
