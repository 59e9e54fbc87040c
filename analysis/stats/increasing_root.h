// The root of an increasing function on a bracket, to about 15 significant
// digits: TOMS 748 (Alefeld, Potra and Shi 1995), Boost's bracketing
// solver. For the statistics that solve for a boundary, a sample size or a
// detectable shift, each of which rises or falls monotonically.
#pragma once

#include <boost/math/tools/roots.hpp>
#include <cstdint>

namespace kvmbench::stats {

// f(lo) < 0 < f(hi), f increasing in between. Boost throws
// boost::math::evaluation_error when the bracket holds no sign change.
template <typename F>
double increasing_root(F f, double lo, double hi) {
  std::uintmax_t iterations = 200;
  const auto [a, b] =
      boost::math::tools::toms748_solve(f, lo, hi, boost::math::tools::eps_tolerance<double>(50), iterations);
  return a + (b - a) / 2;
}

}  // namespace kvmbench::stats
