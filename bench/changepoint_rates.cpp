// The published error rates of `kvmbench history`'s change points
// (analysis/stats/change_points.h), measured on synthetic series (run by hand,
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
// and on long histories (500 runs, CV 5 %), where the windowed scan runs,
// each figure also without it (--window 0: the whole-segment scan alone):
//   false alarms  LONG stationary series of each noise shape (normal,
//                 Student t with 3 df, log-normal), each series alone: the
//                 share with any change point; alpha must not be below the
//                 95 % CI's low end (as above).
//   short         LONG series with a regression of k runs (k = 10, 5; +30 %,
//                 +20 %, +10 %) starting at a run drawn in 200..289, then
//                 back: the share with both edges reported (each within
//                 one run), which must be at least 95 % for +30 % and 10
//                 runs.
//   long step     LONG series with a +2 % step (0.4 sigma) at run 250: the
//                 share with a change point within 10 runs of it (what the
//                 windowed scan's share of alpha costs a small step).
//
//   build/bench/kvmbench_changepoint_rates [TRIALS [LONG]]   (defaults 1000, 200)
// Exit 0 when every bound holds, 1 when one does not.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "analysis/stats/change_points.h"
#include "tests/support/noise.h"
#include "tests/support/wilson_interval.h"

namespace {

using kvmbench::changepoint::detect;
using kvmbench::changepoint::Options;
using kvmbench::test_support::NoiseShape;
using Normal = kvmbench::test_support::Noise;
using kvmbench::test_support::wilson;

std::vector<double> stationary(Normal& z, std::size_t n) {
  std::vector<double> s(n);
  for (auto& v : s) v = 100 * (1 + 0.01 * z());
  return s;
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

// Long histories: 500 runs at CV 5 %, the level x `factor` for runs
// [from, to).
constexpr std::size_t kLong = 500;

std::vector<double> long_history(Normal& z, NoiseShape shape, std::size_t from = 0, std::size_t to = 0,
                                 double factor = 1) {
  std::vector<double> s(kLong);
  for (std::size_t i = 0; i < kLong; ++i) s[i] = (i >= from && i < to ? factor : 1) * 100 * (1 + 0.05 * z.draw(shape));
  return s;
}

bool near(std::size_t index, std::size_t want, std::size_t within) {
  return index + within >= want && index <= want + within;
}

struct LongFigures {
  std::size_t hit = 0, trials = 0;
};

// How often `found` holds over `trials` long histories made by `make`.
template <class Make, class Found>
LongFigures long_rate(std::size_t trials, const Options& opt, std::uint64_t seed, Make make, Found found) {
  Normal z(seed);
  std::mt19937_64 where(seed ^ 0x5eed);
  LongFigures f;
  for (std::size_t t = 0; t < trials; ++t) {
    const std::size_t start = 200 + where() % 90;
    Options o = opt;
    o.seed = seed + t;
    const auto r = detect({make(z, start)}, o);
    f.hit += found(r[0].change_points, start);
    ++f.trials;
  }
  return f;
}

// A false-alarm rate k / n against alpha. Above it only when the whole CI
// is: a rate of exactly alpha (what Holm gives on independent series
// without a floor, 1 - (1 - a/m)^m) reads above it in about half the
// trials.
bool within_alpha(std::size_t k, std::size_t n, double alpha) { return wilson(k, n).lo <= alpha; }
const char* against_alpha(std::size_t k, std::size_t n, double alpha) {
  return static_cast<double>(k) / n <= alpha ? "<= alpha" : within_alpha(k, n, alpha) ? "alpha within the CI" : "ABOVE ALPHA";
}

std::string rate_text(const LongFigures& f) {
  return fmt::format("{:>4} of {:>4}: {:5.1f} % {}", f.hit, f.trials, 100.0 * f.hit / f.trials,
                     wilson(f.hit, f.trials).text());
}

bool long_histories(std::size_t trials, const Options& with_windows) {
  fmt::print("\nlong histories: {} runs, CV 5 %, windows of {} runs (before: --window 0)\n", kLong,
             with_windows.window);
  bool ok = true;
  Options without = with_windows;
  without.window = 0;
  fmt::print("false alarms, each series alone ({} a shape):\n", trials);
  for (const auto shape : {NoiseShape::normal, NoiseShape::student_t3, NoiseShape::lognormal}) {
    const auto seed = 0x10a6 + static_cast<std::uint64_t>(shape);
    auto make = [&](Normal& z, std::size_t) { return long_history(z, shape); };
    auto any = [](const auto& cps, std::size_t) { return !cps.empty(); };
    const auto before = long_rate(trials, without, seed, make, any);
    const auto after = long_rate(trials, with_windows, seed, make, any);
    ok &= within_alpha(after.hit, after.trials, with_windows.alpha);
    fmt::print("  {:<22} before {}\n  {:<22} after  {}  {}\n", kvmbench::test_support::noise_name(shape),
               rate_text(before), "", rate_text(after), against_alpha(after.hit, after.trials, with_windows.alpha));
  }
  fmt::print("short regressions, normal noise, both edges found within one run ({} each):\n", trials);
  struct Short {
    double factor;
    std::size_t runs;
  };
  for (const Short s : {Short{1.3, 10}, Short{1.3, 5}, Short{1.2, 10}, Short{1.2, 5}, Short{1.1, 10}, Short{1.1, 5}}) {
    const auto seed = 0x5407 + s.runs * 100 + static_cast<std::uint64_t>(s.factor * 100);
    auto make = [&](Normal& z, std::size_t start) {
      return long_history(z, NoiseShape::normal, start, start + s.runs, s.factor);
    };
    auto both = [&](const auto& cps, std::size_t start) {
      bool up = false, down = false;
      for (const auto& c : cps) {
        up |= near(c.index, start, 1);
        down |= near(c.index, start + s.runs, 1);
      }
      return up && down;
    };
    const auto before = long_rate(trials, without, seed, make, both);
    const auto after = long_rate(trials, with_windows, seed, make, both);
    const double rate = static_cast<double>(after.hit) / after.trials;
    const bool bounded = s.factor == 1.3 && s.runs == 10;
    if (bounded) ok &= rate >= 0.95;
    fmt::print("  +{:.0f} % for {:>2} runs        before {}\n  {:<22} after  {}{}\n", (s.factor - 1) * 100, s.runs,
               rate_text(before), "", rate_text(after),
               bounded ? (rate >= 0.95 ? "  >= 95 %" : "  BELOW 95 %") : "");
  }
  fmt::print("a +2 % step (0.4 sigma) at run 250, a change point within 10 runs of it ({}):\n", trials);
  {
    auto make = [&](Normal& z, std::size_t) { return long_history(z, NoiseShape::normal, 250, kLong, 1.02); };
    auto at_step = [](const auto& cps, std::size_t) {
      for (const auto& c : cps)
        if (near(c.index, 250, 10)) return true;
      return false;
    };
    fmt::print("  {:<22} before {}\n  {:<22} after  {}\n", "", rate_text(long_rate(trials, without, 0x57e9, make, at_step)),
               "", rate_text(long_rate(trials, with_windows, 0x57e9, make, at_step)));
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t trials = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000;
  const std::size_t long_trials = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200;
  if (trials < 10 || long_trials < 10) {
    fmt::print(stderr, "usage: {} [TRIALS >= 10 [LONG >= 10]]\n", argv[0]);
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
    ok &= within_alpha(k, r.families, alpha);
    fmt::print("  {:<30} {:>4} of {:>4} families: {:5.1f} % {}  {}\n", r.what, k, r.families,
               100.0 * k / r.families, wilson(k, r.families).text(), against_alpha(k, r.families, alpha));
  }
  fmt::print("\ndetection of a 5 % step at CV 1 % after 30 points, found at the step +-1:\n");
  for (std::size_t after : {3, 5}) {
    const std::size_t k = detections(trials, after, defaults, 0xde7ec7 + after);
    const double rate = static_cast<double>(k) / trials;
    if (after == 3) ok &= rate >= 0.95;
    fmt::print("  {} points after the step          {:>4} of {:>4} trials: {:5.1f} % {}{}\n", after, k, trials,
               100 * rate, wilson(k, trials).text(), after == 3 ? (rate >= 0.95 ? "  >= 95 %" : "  BELOW 95 %") : "");
  }
  ok &= long_histories(long_trials, defaults);
  return ok ? 0 : 1;
}
