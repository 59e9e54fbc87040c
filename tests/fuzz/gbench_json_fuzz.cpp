// Google Benchmark JSON (analysis/parse/gbench_json.h), as ingest and
// compare read it.
#include "analysis/parse/gbench_json.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  if (parsers::looks_like_gbench_json(data)) parsers::parse_gbench_json(data);
}

const RegisterFuzzTarget target({"gbench_json",
                                 {"tests/data/gbench", "tests/data/compare/gbench_base.json",
                                  "tests/data/compare/gbench_cand.json", "tests/data/ingest/gbench_repetitions.json",
                                  "tests/data/ingest/gbench_truncated.json"},
                                 run});

}  // namespace
}  // namespace kvmbench::fuzz
