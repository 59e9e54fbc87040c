#include "suites/directmap/ramp_charts.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

namespace kvmbench::suites::directmap {

namespace {

// The points of meminfo_csv's file: "t_s,FIELD_bytes" then t,bytes lines.
// Empty when the file cannot be read or holds no such lines.
std::vector<ChartXY> read_meminfo_csv(const std::filesystem::path& p) {
  std::vector<ChartXY> out;
  std::ifstream in(p);
  std::string line;
  if (!std::getline(in, line) || !line.starts_with("t_s,")) return out;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    ChartXY xy;
    char comma = 0;
    if (ls >> xy.x >> comma >> xy.y && comma == ',' && std::isfinite(xy.x) && std::isfinite(xy.y)) out.push_back(xy);
  }
  return out;
}

double number_in(const nlohmann::json& extra, const char* key) {
  if (!extra.is_object()) return NAN;
  const auto it = extra.find(key);
  return it != extra.end() && it->is_number() ? it->get<double>() : NAN;
}

}  // namespace

std::vector<Chart> ramp_charts(const std::filesystem::path& run_dir, const std::vector<Sample>& samples) {
  std::vector<Chart> charts;
  for (const auto& s : samples) {
    if (s.metric != "host_alloc_rate" || s.warmup) continue;
    const std::string file = fmt::format("meminfo-{}.it{}.csv", s.variant, s.iteration);
    Chart c;
    c.kind = Chart::Kind::xy;
    const std::string field = s.extra.is_object() && s.extra.value("meminfo_field", nlohmann::json()).is_string()
                                  ? s.extra["meminfo_field"].get<std::string>()
                                  : std::string("meminfo");
    c.title = fmt::format("{} {} repetition {}: {} while the guest faulted in", s.case_name, s.variant, s.iteration,
                          field);
    c.unit = "B";
    c.x_unit = "s";
    c.xy = read_meminfo_csv(run_dir / "raw" / file);
    if (c.xy.empty()) {
      c.caption = fmt::format("raw/{} is not in the run or not readable", file);
      charts.push_back(std::move(c));
      continue;
    }
    const double t0 = number_in(s.extra, "ramp_t_begin"), t1 = number_in(s.extra, "ramp_t_end");
    const double a = number_in(s.extra, "fit_intercept_bytes"), b = s.value * 1e9;  // GB/s -> bytes/s
    c.caption = fmt::format("fitted {:.4g} GB/s over {:.2f}-{:.2f} s", s.value, t0, t1);
    if (std::isfinite(a) && std::isfinite(t0) && std::isfinite(t1))
      c.lines.push_back({t0, a + b * t0, t1, a + b * t1, fmt::format("fitted: {:.4g} GB/s", s.value)});
    else
      c.caption += " (the line was not recorded by the kvmbench that ran it)";
    charts.push_back(std::move(c));
  }
  return charts;
}

}  // namespace kvmbench::suites::directmap
