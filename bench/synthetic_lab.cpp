// Writes the synthetic lab year of tests/support/synthetic_lab.h as run
// directories, for measuring `kvmbench db import` and `kvmbench history`
// at a lab's scale:
//   build/bench/kvmbench_synthetic_lab OUT_DIR [DAYS]   (default 365: 1095 runs)
#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <string>

#include "tests/support/synthetic_lab.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fmt::print(stderr, "usage: {} OUT_DIR [DAYS]\n", argv[0]);
    return 2;
  }
  const int days = argc == 3 ? std::atoi(argv[2]) : 365;
  if (days < 1 || days > 3650) {
    fmt::print(stderr, "DAYS must be 1..3650, not {}\n", argv[2]);
    return 2;
  }
  try {
    const auto y = kvmbench::test_support::write_synthetic_year(argv[1], KVMBENCH_TEST_DATA "/hosts", days);
    fmt::print("{} runs written under {}\n", y.runs.size(), argv[1]);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  return 0;
}
