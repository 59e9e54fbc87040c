// The published error rates of `kvmbench history`'s change points
// (analysis/change_points.h), measured on synthetic series (run by hand,
// not by ctest: a few minutes on two cores):
//
//   false alarms  1,000 stationary series (60 points, normal noise, CV 1 %)
//                 tested one at a time (each its own family), and 1,000
//                 families of 10 (Holm within each); the share of families
//                 with any change point must be at most alpha (with the
//                 default floor; without one, alpha must lie within its
//                 95 % CI). Both with
//                 the default magnitude floor (1 %) and without one (the
//                 permutation test and Holm alone).
//   detection     1,000 series of 30 points at one level, then a 5 % step
//                 (CV 1 %) and k = 3 (and 5) points at the new level: the
//                 share in which a change point is reported at the step
//                 (its first point) or one point from it, which must be at
//                 least 95 % for k = 3.
//
//   build/bench/kvmbench_changepoint_rates [TRIALS]   (default 1000)
// Exit 0 when both bounds hold, 1 when one does not.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "analysis/change_points.h"

namespace {

using kvmbench::changepoint::detect;
using kvmbench::changepoint::Options;

// Box-Muller over mt19937_64: the same numbers with every standard library.
struct Normal {
  std::mt19937_64 rng;
  explicit Normal(std::uint64_t seed) : rng(seed) {}
  double operator()() {
    const double u1 = (static_cast<double>(rng() >> 11) + 1) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
};

std::vector<double> stationary(Normal& z, std::size_t n) {
  std::vector<double> s(n);
  for (auto& v : s) v = 100 * (1 + 0.01 * z());
  return s;
}

// Wilson's 95 % interval of a proportion k / n.
struct Interval {
  double lo, hi;
  std::string text() const { return fmt::format("[{:.1f} %, {:.1f} %]", 100 * lo, 100 * hi); }
};
Interval wilson(std::size_t k, std::size_t n) {
  const double z = 1.959964, p = static_cast<double>(k) / n, d = 1 + z * z / n;
  const double c = (p + z * z / (2 * n)) / d, h = z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
  return {c - h, c + h};
}

// The share of `families` families of `size` stationary series with any
// change point.
std::size_t false_alarms(std::size_t families, std::size_t size, const Options& opt, std::uint64_t seed) {
  Normal z(seed);
  std::size_t hit = 0;
  for (std::size_t f = 0; f < families; ++f) {
    std::vector<std::vector<double>> fam;
    for (std::size_t i = 0; i < size; ++i) fam.push_back(stationary(z, 60));
    Options o = opt;
    o.seed = seed + f;
    bool any = false;
    for (const auto& r : detect(fam, o)) any |= !r.change_points.empty();
    hit += any;
  }
  return hit;
}

std::size_t detections(std::size_t trials, std::size_t after, const Options& opt, std::uint64_t seed) {
  Normal z(seed);
  std::size_t hit = 0;
  for (std::size_t t = 0; t < trials; ++t) {
    std::vector<double> s = stationary(z, 30);
    for (std::size_t i = 0; i < after; ++i) s.push_back(105 * (1 + 0.01 * z()));
    Options o = opt;
    o.seed = seed + t;
    bool found = false;
    const auto result = detect({s}, o);
    for (const auto& c : result[0].change_points) found |= c.index + 1 >= 30 && c.index <= 31;
    hit += found;
  }
  return hit;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t trials = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000;
  if (trials < 10) {
    fmt::print(stderr, "usage: {} [TRIALS >= 10]\n", argv[0]);
    return 2;
  }
  const Options defaults;  // alpha 0.05, min segment 3, floor 1 %
  Options no_floor = defaults;
  no_floor.min_change_pct = 0;
  const double alpha = defaults.alpha;
  bool ok = true;
  fmt::print("change points: E-divisive means, permutation test, Holm; alpha {}, min segment {}\n\n", alpha,
             defaults.min_segment);
  fmt::print("false alarms, stationary series of 60 points, CV 1 %:\n");
  struct Row {
    const char* what;
    std::size_t families, size;
    const Options* opt;
  };
  const Row rows[] = {{"each series alone, floor 1 %", trials, 1, &defaults},
                      {"each series alone, no floor", trials, 1, &no_floor},
                      {"families of 10, floor 1 %", trials, 10, &defaults},
                      {"families of 10, no floor", trials, 10, &no_floor}};
  for (const auto& r : rows) {
    const std::size_t k = false_alarms(r.families, r.size, *r.opt, 0xfa15e + r.size);
    const double rate = static_cast<double>(k) / r.families;
    const Interval ci = wilson(k, r.families);
    // Above alpha only when the whole CI is: a rate of exactly alpha (what
    // Holm gives on independent series without a floor, 1 - (1 - a/m)^m)
    // reads above it in about half the trials.
    ok &= ci.lo <= alpha;
    fmt::print("  {:<30} {:>4} of {:>4} families: {:5.1f} % {}  {}\n", r.what, k, r.families, 100 * rate,
               ci.text(), rate <= alpha ? "<= alpha" : ci.lo <= alpha ? "alpha within the CI" : "ABOVE ALPHA");
  }
  fmt::print("\ndetection of a 5 % step at CV 1 % after 30 points, found at the step +-1:\n");
  for (std::size_t after : {3, 5}) {
    const std::size_t k = detections(trials, after, defaults, 0xde7ec7 + after);
    const double rate = static_cast<double>(k) / trials;
    if (after == 3) ok &= rate >= 0.95;
    fmt::print("  {} points after the step          {:>4} of {:>4} trials: {:5.1f} % {}{}\n", after, k, trials,
               100 * rate, wilson(k, trials).text(), after == 3 ? (rate >= 0.95 ? "  >= 95 %" : "  BELOW 95 %") : "");
  }
  return ok ? 0 : 1;
}
