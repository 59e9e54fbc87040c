// Wilson's 95 % score interval of a proportion k / n (Wilson, "Probable
// inference, the law of succession, and statistical inference", JASA 22,
// 1927): the interval a measured error rate or power is printed with. It
// stays inside [0, 1] and is honest at rates near 0 or 1, where the
// normal (Wald) interval collapses. Header-only; used by bench/.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <string>

namespace kvmbench::test_support {

struct Interval {
  double lo, hi;
  std::string text() const { return fmt::format("[{:.1f} %, {:.1f} %]", 100 * lo, 100 * hi); }
};

inline Interval wilson(std::size_t k, std::size_t n) {
  const double z = 1.959964, p = static_cast<double>(k) / n, d = 1 + z * z / n;
  const double c = (p + z * z / (2 * n)) / d, h = z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
  return {c - h, c + h};
}

}  // namespace kvmbench::test_support
