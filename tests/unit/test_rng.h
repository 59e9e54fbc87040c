// A small deterministic generator for tests that try many inputs: the same
// sequence on every machine and run, so a failure names an input that can
// be made again.
#pragma once

#include <cstdint>

namespace kvmbench::testing {

struct TestRng {
  std::uint64_t state;
  explicit TestRng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;  // Knuth's MMIX LCG
    return state >> 33;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

}  // namespace kvmbench::testing
