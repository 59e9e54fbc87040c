// Numbers one per line (analysis/parse/plain_numbers.h), as summarize and ingest
// read them: every value it gives is finite.
#include <cmath>

#include "analysis/parse/plain_numbers.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  const PlainNumbers p = parse_plain_numbers(data);
  fuzz_check(p.values.size() == p.lines.size(), "a value without its line");
  for (double v : p.values) fuzz_check(std::isfinite(v), "a number that is not finite was read");
}

const RegisterFuzzTarget target({"plain_numbers", {"tests/data/nist/Michelso.dat", "tests/data/nist/Lew.dat"}, run});

}  // namespace
}  // namespace kvmbench::fuzz
