// Rate of change over the ramp of a time series, by least squares: how the
// directmap document gauged the host's guest_memfd allocation rate from
// FileHugePages in /proc/meminfo (a counter that sits at a baseline, rises
// while the guest faults its memory in, then stays on a plateau).
//
// Ramp detection rule (documented here because it decides the number):
//  1. Direction: the series is "rising" when its maximum is further above the
//     first sample than its minimum is below it, else "falling" (then it is
//     mirrored, fitted, and the slope is reported negative).
//  2. baseline = the first sample, plateau = the maximum (rising);
//     rise R = plateau - baseline. No ramp when R <= min_rise.
//  3. end   = the first sample within edge_fraction*R of the plateau.
//     begin = the last sample before `end` within edge_fraction*R of the
//             baseline.
//  4. The line is fitted to the samples strictly between begin and end: all
//     of them are on the ramp, whatever happened between two samples at its
//     corners. With fewer than 3 of them the two corner samples are added
//     (edges_included), which biases the slope low when the ramp started or
//     stopped between samples; with fewer than 2 there is no fit.
//  Anything after `end` (e.g. memory freed after the run) is ignored.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kvmbench {

struct LineFit {
  double slope = 0;          // units of v per unit of t
  double intercept = 0;
  double slope_stderr = 0;   // NaN with 2 points
  double r2 = 0;             // 1 when the points are exactly on a line (also when v is constant)
  std::size_t n = 0;
};

// Ordinary least squares v = intercept + slope * t over [first, last].
// Throws std::invalid_argument when the sizes differ, fewer than 2 points,
// or all t are equal.
LineFit fit_line(const std::vector<double>& t, const std::vector<double>& v, std::size_t first,
                 std::size_t last);

enum class RampDirection { automatic, rising, falling };

struct RampOptions {
  double edge_fraction = 0.02;   // band at the baseline and at the plateau, fraction of the rise
  double min_rise = 0;           // absolute: below this there is no ramp
  RampDirection direction = RampDirection::automatic;
};

struct RampRate {
  bool ok = false;
  std::string reason;            // why there is no fit (when !ok)
  bool rising = true;
  LineFit fit;                   // slope in units of v per unit of t (bytes/s for bytes over seconds)
  std::size_t begin = 0, end = 0;   // corner sample indices (see the rule above)
  std::size_t first = 0, last = 0;  // the samples fitted, inclusive
  double t_begin = 0, t_end = 0;    // t at the corners: the ramp interval
  bool edges_included = false;
  double baseline = 0, plateau = 0;
};

RampRate fit_ramp_rate(const std::vector<double>& t, const std::vector<double>& v,
                       const RampOptions& options = {});

}  // namespace kvmbench
