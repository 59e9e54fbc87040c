#include "analysis/report/reading_units.h"

#include <fmt/format.h>

#include <array>
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

}  // namespace kvmbench
