// A kernel's console as the lab reads it for its first fault or stall
// (analysis/parse/kernel_console_trouble.h), and the excerpt it shows.
#include "analysis/parse/kernel_console_trouble.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  for (const auto& trouble : {first_kernel_fault(data), first_kernel_stall(data)})
    if (trouble) console_excerpt(data, trouble->offset, 20);
  console_excerpt(data, data.size() / 2, 5);
}

const RegisterFuzzTarget target({"console_trouble",
                                 {"tests/data/replay/rmpopt/snp-guest0.console.log",
                                  "tests/data/replay/directmap/faultin-unpinned.console.log"},
                                 run});

}  // namespace
}  // namespace kvmbench::fuzz
