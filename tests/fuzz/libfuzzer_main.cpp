// The fuzz targets under libFuzzer (clang -fsanitize=fuzzer; the fuzz
// preset): one program for all of them, the target named by
// KVMBENCH_FUZZ_TARGET. libFuzzer's own options and corpus folders follow
// on its command line (docs/fuzzing.md).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_target.h"

namespace {
const kvmbench::fuzz::FuzzTarget* g_target = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("KVMBENCH_FUZZ_TARGET");
  g_target = name ? kvmbench::fuzz::find_fuzz_target(name) : nullptr;
  if (!g_target) {
    std::fprintf(stderr, "kvmbench libfuzzer: set KVMBENCH_FUZZ_TARGET to one of:\n");
    for (const auto& t : kvmbench::fuzz::fuzz_targets()) std::fprintf(stderr, "  %s\n", t.name.c_str());
    std::exit(2);
  }
  // What the readers print goes nowhere; libFuzzer reports on stderr.
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ::dup2(null_fd, 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kvmbench::fuzz::run_fuzz_input(*g_target, {reinterpret_cast<const char*>(data), size});
  return 0;
}
