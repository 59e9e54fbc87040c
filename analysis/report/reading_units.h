// Units scaled for reading: 402117733 ns is "402 ms", 1.5e9 B/s "1.5 GB/s",
// 2.4e6 pages/s "2.4 M pages/s". One scale per row or column (chosen from a
// typical value), so that the numbers a reader compares share their unit.
#pragma once

#include <string>
#include <string_view>

namespace kvmbench {

struct ReadingScale {
  double factor = 1;  // value * factor is in `unit`
  std::string unit;
};

// The scale that puts |typical| in [1, 1000) where the unit allows it:
// times (ns, us, ms, s) up to seconds, bytes in KiB/MiB/GiB/TiB, B/s in
// kB/s..TB/s, anything else (cycles, pages/s, "") with k/M/G/T from 10^4
// on. Percentages and NaN keep their unit.
ReadingScale reading_scale(double typical, std::string_view unit);

// `x` rounded to `sig` significant digits, in fixed notation ("402",
// "1.23", "0.00120"; 123456 stays "123456"); "n/a" for NaN.
std::string format_reading(double x, int sig = 3);

}  // namespace kvmbench
