// Noise of three shapes for synthetic series, from mt19937_64 by formulas
// (Box-Muller; Student's t as a normal over the root of a chi-square; the
// exponential of a normal): the same numbers with every standard library,
// unlike std::normal_distribution. Each draw has mean 0 and variance 1, so
// 100 * (1 + cv * draw) has a coefficient of variation cv. Header-only; used
// by unit tests and bench/.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace kvmbench::test_support {

enum class NoiseShape {
  normal,
  student_t3,  // heavy tails: Student's t with 3 degrees of freedom
  lognormal,   // skewed: exp(N(0, 0.5^2)), skewness 1.75
};

inline const char* noise_name(NoiseShape s) {
  switch (s) {
    case NoiseShape::normal: return "normal";
    case NoiseShape::student_t3: return "Student t, 3 df";
    case NoiseShape::lognormal: return "log-normal, sigma 0.5";
  }
  return "?";
}

struct Noise {
  std::mt19937_64 rng;
  explicit Noise(std::uint64_t seed) : rng(seed) {}

  double normal() {
    const double u1 = (static_cast<double>(rng() >> 11) + 1) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
  double operator()() { return normal(); }

  double draw(NoiseShape shape) {
    switch (shape) {
      case NoiseShape::normal: return normal();
      case NoiseShape::student_t3: {
        double chi2 = 0;
        for (int k = 0; k < 3; ++k) {
          const double z = normal();
          chi2 += z * z;
        }
        // t_3 has variance 3 / (3 - 2) = 3.
        return normal() / std::sqrt(chi2 / 3) / std::sqrt(3.0);
      }
      case NoiseShape::lognormal: {
        constexpr double s2 = 0.25;  // sigma^2 of the log
        const double mean = std::exp(s2 / 2), sd = std::sqrt((std::exp(s2) - 1) * std::exp(s2));
        return (std::exp(0.5 * normal()) - mean) / sd;
      }
    }
    return 0;
  }
};

}  // namespace kvmbench::test_support
