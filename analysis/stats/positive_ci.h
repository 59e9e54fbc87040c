// The 95% CI of the mean of a quantity that cannot be zero or below (a
// time, a rate, a size, a count of cycles). The Student t interval of the
// mean crosses zero when the values spread widely over few repetitions
// (three runs of 0.4, 1.6 and 2.3 GB/s give [-0.97, 3.87] GB/s): a bound
// no such quantity can have. There the interval is computed on the log
// scale instead, exp(mean(ln x) +- t(0.975, n-1) sd(ln x) / sqrt(n)): a CI
// for the geometric mean, always above zero, and `log_scale` says so.
#pragma once

#include <span>
#include <string_view>

namespace kvmbench {

// Whether values in `unit` are positive by nature: a unit whose direction
// is known (result_model.h direction_for_unit), except percentages, which
// may be signed changes.
bool positive_unit(std::string_view unit);

struct MeanCi {
  double low = 0, high = 0;  // NaN when n < 2, and when too_few
  bool log_scale = false;
  // Two values of a positive quantity whose t interval reaches below zero:
  // with one degree of freedom the interval is 12.7 standard errors to
  // each side, and on the log scale it spans orders of magnitude for two
  // values far apart: no interval is given.
  bool too_few = false;
};

// The t interval of the mean; on the log scale when `positive` and every
// value is above zero and the t interval's low end is not, from three
// values on (with two: none, too_few).
MeanCi mean_ci95(std::span<const double> xs, bool positive);

}  // namespace kvmbench
