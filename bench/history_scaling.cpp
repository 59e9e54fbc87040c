// What one `kvmbench history` call costs as the suite grows (issue 41):
// m series of 500 runs (CV 5 %, normal noise), each with a real short
// regression (+30 % for 10 runs starting at a run drawn in 200..289, then
// back), passed to changepoint::detect at once, as history does. Timed
// with the fitted tail (the default: R per test does not grow with m) and
// with exact p-values only (R grows with m: the former cost, about
// 0.12 m^2 CPU seconds), each with the share of series in which both edges
// were found (within one run) and the series with a change point elsewhere.
// Times are CPU seconds of the process.
//
//   build/bench/kvmbench_history_scaling [M...] [--exact-up-to M]
//     (defaults: 5 20 50, exact up to 20: at 50 it runs about 5 minutes)
#include <fmt/format.h>

#include <ctime>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/stats/change_points.h"
#include "tests/support/noise.h"

namespace {

using kvmbench::changepoint::detect;
using kvmbench::changepoint::Options;
using kvmbench::test_support::Noise;

struct Family {
  std::vector<std::vector<double>> series;
  std::vector<std::size_t> start;
};

Family family(std::size_t m, std::uint64_t seed) {
  Noise z(seed);
  Family f;
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t from = 200 + static_cast<std::size_t>(z.rng() % 90);
    std::vector<double> s(500);
    for (std::size_t k = 0; k < s.size(); ++k) s[k] = (k >= from && k < from + 10 ? 1.3 : 1.0) * 100 * (1 + 0.05 * z());
    f.series.push_back(std::move(s));
    f.start.push_back(from);
  }
  return f;
}

void run(const Family& f, bool tail) {
  Options opt;
  opt.tail = tail;
  // CPU seconds of this process (one thread): on a shared machine the wall
  // clock says more about the neighbours.
  auto cpu = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  };
  const double t0 = cpu();
  const auto r = detect(f.series, opt);
  const double s = cpu() - t0;
  std::size_t both = 0, other = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    bool up = false, down = false, elsewhere = false;
    for (const auto& c : r[i].change_points) {
      const auto d_up = std::labs(static_cast<long>(c.index) - static_cast<long>(f.start[i]));
      const auto d_down = std::labs(static_cast<long>(c.index) - static_cast<long>(f.start[i] + 10));
      up = up || d_up <= 1;
      down = down || d_down <= 1;
      elsewhere = elsewhere || (d_up > 1 && d_down > 1);
    }
    both += up && down;
    other += elsewhere;
  }
  fmt::print("{:>4} {:<6} {:>10.2f} {:>10} {:>10} {:>12}\n", f.series.size(), tail ? "tail" : "exact", s,
             fmt::format("{}/{}", both, r.size()), other, r.empty() ? 0 : r[0].window_permutations);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> ms;
  std::size_t exact_up_to = 20;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--exact-up-to" && a + 1 < argc) {
      exact_up_to = std::strtoul(argv[++a], nullptr, 10);
    } else {
      char* end = nullptr;
      const auto m = std::strtoul(arg.c_str(), &end, 10);
      if (arg.empty() || *end || m == 0) {
        fmt::print(stderr, "usage: {} [M...] [--exact-up-to M]\n", argv[0]);
        return 2;
      }
      ms.push_back(m);
    }
  }
  if (ms.empty()) ms = {5, 20, 50};
  fmt::print("{:>4} {:<6} {:>10} {:>10} {:>10} {:>12}\n", "m", "p", "CPU s", "both edges", "elsewhere",
             "R (windows)");
  for (const auto m : ms) {
    const Family f = family(m, 41 + m);
    run(f, true);
    if (m <= exact_up_to) run(f, false);
  }
  return 0;
}
