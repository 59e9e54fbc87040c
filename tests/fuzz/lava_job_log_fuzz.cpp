// A LAVA job's log as the server's API gives it (analysis/parse/lava_job_log.h),
// and the runs kvmbench's test definition publishes in it: whatever the
// log holds, what comes back as published runs is what was announced.
#include "analysis/model/sha256.h"
#include "analysis/parse/lava_job_log.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  const LavaLog log = parse_lava_log(std::string(data));
  std::string why;
  if (const auto runs = published_runs(log, why))
    fuzz_check(sha256_hex(runs->tarball) == runs->sha256, "published runs returned that do not match their SHA-256");
  else
    fuzz_check(!why.empty(), "no published runs and no reason why");
  for (const auto& e : error_messages(log)) fuzz_check(!e.empty(), "an empty error message");
}

// The excerpt (the publication and the lines around it) as the seed: the
// whole log (144 kB) would leave a few seconds of fuzzing a few inputs.
const RegisterFuzzTarget target({"lava_job_log", {"tests/data/lava/job-excerpt.yaml"}, run});

}  // namespace
}  // namespace kvmbench::fuzz
