// A `kvmbench db dump` file (analysis/store/db/db_dump.h), read as `db load` reads
// it before it opens the database.
#include <sstream>

#include "analysis/store/db/db_dump.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  std::istringstream in{std::string(data)};
  db::check_dump(in, "fuzz.jsonl");
}

const RegisterFuzzTarget target({"db_dump", {}, run});

}  // namespace
}  // namespace kvmbench::fuzz
