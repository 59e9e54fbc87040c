#include "analysis/report/document.h"

#include "analysis/model/text_lines.h"
#include "analysis/stats/statistics.h"

namespace kvmbench {

ChartGroup sample_group(std::string label, std::vector<double> values, int color) {
  ChartGroup g{std::move(label), std::move(values), NAN, NAN, NAN, color};
  std::vector<double> finite;
  for (double v : g.values)
    if (std::isfinite(v)) finite.push_back(v);
  if (finite.empty()) return g;
  const stats::Summary s = stats::summarize(finite);
  g.mean = s.mean;
  g.ci95_low = s.ci95_low;
  g.ci95_high = s.ci95_high;
  return g;
}

std::vector<std::string> text_lines(std::string_view text) {
  std::vector<std::string> out;
  for_each_line(text, [&](std::size_t, std::string_view line) { out.emplace_back(line); });
  return out;
}

}  // namespace kvmbench
