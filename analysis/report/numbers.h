// Numbers as every table and format prints them: significant digits,
// percentages and p values, fixed point, and units scaled for reading
// (402117733 ns is "402 ms", 1.5e9 B/s "1.5 GB/s", 2.4e6 pages/s "2.4 M
// pages/s": one scale per row or column, chosen from a typical value, so
// that the numbers a reader compares share their unit).
#pragma once

#include <string>
#include <string_view>

#include "analysis/stats/statistics.h"

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

// A number with about `sig` significant digits, without an exponent for
// ordinary magnitudes ("1234567", "12.35", "0.0004321").
std::string format_number(double x, int sig = 4);
// "+5.03%" / "-0.41%"; "+4.4e+12%" from 10000% on; "n/a" for NaN.
std::string format_pct(double pct);
// "1.2e-05", "0.0312", "1"; "n/a" for NaN.
std::string format_p(double p);
// A CI's confidence: "95%", "99.79%".
std::string format_level(double level);
// A number for a table cell: about `sig` significant digits, fixed notation
// for ordinary magnitudes, integers without decimals, "n/a" for NaN.
std::string format_sig(double x, int sig = 6);

// Fixed-point text of a double, as printf("%.*f") writes it, for tables of
// tens of thousands of rows (a long log's conversion listing): through
// std::to_chars, which is exact and several times faster than fmt 9's
// fixed precision (that falls back to big-integer arithmetic for values
// past 2^53 / 10^decimals).
// "nan", "inf", "-inf" for non-finite values; decimals from 0 to 17.
std::string format_fixed(double v, int decimals);

// The digits after the decimal point for a mean `mean` whose 95% CI has
// half-width `half` (both in the unit printed): 3 significant digits, and
// more when the CI is narrower than the third digit, so that the last digit
// shown is the first the CI leaves uncertain. NaN `half`: 3 significant.
int decimals_for(double mean, double half);

// "45.3 ± 0.1 (3)" in `scale`: the digits of the mean as its CI allows;
// "-" when absent.
std::string format_mean_sd(const stats::Summary& s, bool present, const ReadingScale& scale);

// A change's CI: "[+4.1%, +6.0%]" (" log" after it when on the log scale);
// "[unbounded]" when it has no finite bounds.
std::string format_ci(const stats::Change& c);

// "[-7.1,-3.5]" within 13 columns: whole percents when tenths do not fit,
// "(very wide)" when neither does; "*" marks a CI on the log scale.
std::string format_ci_compact(const stats::Change& c);

}  // namespace kvmbench
