#include "analysis/report/numbers.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "analysis/model/units.h"

namespace kvmbench {

namespace {

struct Step {
  double size;  // in the base unit
  std::string_view name;
};

// The largest step not above |typical|, else the smallest.
template <std::size_t N>
ReadingScale pick(double typical, const std::array<Step, N>& steps, double base_per_unit) {
  const double t = std::fabs(typical) * base_per_unit;
  const Step* chosen = &steps[0];
  for (const Step& s : steps)
    if (t >= s.size) chosen = &s;
  return {base_per_unit / chosen->size, std::string(chosen->name)};
}

}  // namespace

ReadingScale reading_scale(double typical, std::string_view unit) {
  if (!std::isfinite(typical) || typical == 0 || unit == "%") return {1, std::string(unit)};
  if (auto seconds = seconds_per_time_unit(unit)) {
    static constexpr std::array<Step, 4> kTimes{{{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}}};
    return pick(typical, kTimes, *seconds);
  }
  if (unit == "B" || unit == "bytes") {
    static constexpr std::array<Step, 5> kSizes{
        {{1, "B"}, {1024, "KiB"}, {1048576, "MiB"}, {1073741824, "GiB"}, {1099511627776, "TiB"}}};
    return pick(typical, kSizes, 1);
  }
  if (unit == "B/s" || unit == "bytes/s") {
    static constexpr std::array<Step, 5> kRates{{{1, "B/s"}, {1e3, "kB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"}}};
    return pick(typical, kRates, 1);
  }
  if (unit == "GB/s") return pick(typical, std::array<Step, 3>{{{1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"}}}, 1e9);
  // Counts and rates of counts: a prefix from 10^4 on, so 1234 stays 1234.
  const double t = std::fabs(typical);
  const std::string sep = unit.empty() || unit.front() == '/' ? "" : " ";
  static constexpr std::array<Step, 4> kPrefixes{{{1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}}};
  if (t < 1e4) return {1, std::string(unit)};
  const Step* chosen = &kPrefixes[0];
  for (const Step& s : kPrefixes)
    if (t >= s.size) chosen = &s;
  return {1 / chosen->size, std::string(chosen->name) + sep + std::string(unit)};
}

std::string format_reading(double x, int sig) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  const int decimals = std::max(0, sig - 1 - magnitude);
  return fmt::format("{:.{}f}", x, decimals);
}

std::string format_number(double x, int sig) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  double ax = std::fabs(x);
  if (ax == 0) return "0";
  // Whole numbers up to 10 digits read better in full than as 1.235e+06.
  if (ax >= std::pow(10.0, sig - 1) && ax < 1e10) return fmt::format("{:.0f}", x);
  if (ax >= 1e-4 && ax < 1e10) {
    int digits_before = static_cast<int>(std::floor(std::log10(ax))) + 1;
    int decimals = std::max(0, sig - digits_before);
    return fmt::format("{:.{}f}", x, decimals);
  }
  return fmt::format("{:.{}g}", x, sig);
}

std::string format_pct(double pct) {
  if (!std::isfinite(pct)) return "n/a";
  // The end of a wide CI on the logs (+4.4e+12%): its size, not 16 digits.
  if (std::fabs(pct) >= 1e4) return fmt::format("{:+.3g}%", pct);
  return fmt::format("{:+.2f}%", pct);
}

std::string format_p(double p) {
  if (std::isnan(p)) return "n/a";
  if (p >= 0.9995) return "1";
  if (p >= 0.001) return fmt::format("{:.3f}", p);
  return fmt::format("{:.1e}", p);
}

std::string format_level(double level) { return fmt::format("{:.4g}%", 100 * level); }

std::string format_sig(double x, int sig) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return "0";
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  if (e >= 15 || e < -4) return fmt::format("{:.{}g}", x, sig);
  // Whole numbers print as they are: at least `sig` digits long, or shorter
  // and with their zero decimals dropped below. Below 1e15 a double holds
  // them exactly, and an integer prints much faster than a fixed-point
  // double.
  if (std::nearbyint(x) == x) return std::to_string(static_cast<long long>(x));
  const int decimals = std::max(0, sig - 1 - e);
  std::string s = fmt::format("{:.{}f}", x, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string format_fixed(double v, int decimals) {
  char buf[352];  // the longest fixed text of a double (1.8e308) and 17 decimals
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return std::string(buf, r.ptr);
}

// Decimals shown at most: past this a value's digits are noise of the
// clock or the counter, whatever the CI says.
constexpr int kMaxDecimals = 6;

// The power of ten of |x|'s leading digit: 2 for 402, -3 for 0.0012.
static int decimal_exponent(double x) { return static_cast<int>(std::floor(std::log10(std::fabs(x)))); }

int decimals_for(double mean, double half) {
  if (!std::isfinite(mean) || mean == 0) return 0;
  int d = std::max(0, 2 - decimal_exponent(mean));
  if (std::isfinite(half) && half > 0 && half < std::pow(10.0, decimal_exponent(mean) - 2))
    d = std::max(d, -decimal_exponent(half));
  return std::min(d, kMaxDecimals);
}

std::string format_mean_sd(const stats::Summary& s, bool present, const ReadingScale& scale) {
  if (!present || s.n == 0) return "-";
  if (std::isnan(s.mean)) return fmt::format("NaN ({})", s.n);
  if (std::isinf(s.mean)) return fmt::format("{} ({})", s.mean > 0 ? "inf" : "-inf", s.n);
  const double mean = s.mean * scale.factor, sd = s.stddev * scale.factor;
  // The mean to the digit its CI leaves uncertain (3 significant without
  // one), the sd to the same decimal, and to one digit at least.
  const double half = (s.ci95_high - s.ci95_low) / 2 * scale.factor;
  const int d = decimals_for(mean, half);
  if (s.n < 2 || !std::isfinite(sd)) return fmt::format("{} ({})", format_fixed(mean, d), s.n);
  std::string sd_text = format_fixed(sd, d);
  if (sd > 0 && std::stod(sd_text) == 0) sd_text = format_reading(sd, 1);
  return fmt::format("{} ± {} ({})", format_fixed(mean, d), sd_text, s.n);
}

std::string format_ci(const stats::Change& c) {
  if (std::isnan(c.ci95_low) || std::isnan(c.ci95_high)) return "[unbounded]";
  if (std::isinf(c.ci95_high)) return fmt::format("[{}, +inf]", format_pct(c.ci95_low));
  if (std::isinf(c.ci95_low)) return fmt::format("[-inf, {}]", format_pct(c.ci95_high));
  return fmt::format("[{}, {}]{}", format_pct(c.ci95_low), format_pct(c.ci95_high), c.log_scale ? " log" : "");
}

std::string format_ci_compact(const stats::Change& c) {
  if (std::isnan(c.ci95_low) || std::isnan(c.ci95_high)) return "";
  const std::string mark = c.log_scale ? "*" : "";
  if (std::isinf(c.ci95_low) || std::isinf(c.ci95_high))  // a half-line (Fieller)
    return std::isinf(c.ci95_high) ? fmt::format("[{:+.0f},+inf]", c.ci95_low) + mark
                                   : fmt::format("[-inf,{:+.0f}]", c.ci95_high) + mark;
  std::string ci = fmt::format("[{:+.1f},{:+.1f}]", c.ci95_low, c.ci95_high) + mark;
  if (ci.size() > 13) ci = fmt::format("[{:+.0f},{:+.0f}]", c.ci95_low, c.ci95_high) + mark;
  return ci.size() <= 13 ? ci : "(very wide)";
}

}  // namespace kvmbench
