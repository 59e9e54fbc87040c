#include "analysis/parse/kernel_log_split.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace kvmbench::parsers {

std::string SplitRule::label(int part) const {
  return fmt::format("{}={}", by == By::boot ? "boot" : "part", part);
}

std::optional<SplitRule> parse_split_rule(std::string_view text) {
  if (text == "boot") return SplitRule{SplitRule::By::boot, 0};
  if (!text.starts_with("gap=")) return std::nullopt;
  std::string_view v = text.substr(4);
  if (v.ends_with('s')) v.remove_suffix(1);
  double s = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), s);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !(s > 0) || !std::isfinite(s)) return std::nullopt;
  return SplitRule{SplitRule::By::gap, s};
}

std::vector<int> split_parts(const std::vector<KernelRecord>& records, const SplitRule& rule) {
  std::vector<int> part(records.size(), 1);
  int current = 1;
  std::optional<double> last;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (const auto& t = records[i].uptime_s) {
      if (last) {
        const bool next = rule.by == SplitRule::By::boot ? *t < *last : *t - *last > rule.gap_s;
        if (next) ++current;
      }
      last = t;
    }
    part[i] = current;
  }
  return part;
}

std::vector<std::string> pooling_hints(const std::vector<KernelRecord>& records,
                                       const std::vector<std::string>& case_of) {
  std::vector<std::string> hints;
  const std::vector<int> boots = split_parts(records, {SplitRule::By::boot, 0});
  if (!boots.empty() && boots.back() > 1)
    hints.push_back(fmt::format("the records come from {} boots (the uptime goes back {} time{}): they are pooled; "
                                "--split-by boot keeps them apart",
                                boots.back(), boots.back() - 1, boots.back() == 2 ? "" : "s"));
  // Per case, the gaps between its records (in one boot).
  std::map<std::string, std::vector<std::pair<int, double>>> times;
  // A group's cycle stats are consecutive records of one case: one lookup
  // for them (a long log has hundreds of thousands of groups).
  const std::string* last_case = nullptr;
  std::vector<std::pair<int, double>>* last = nullptr;
  for (std::size_t i = 0; i < records.size() && i < case_of.size(); ++i) {
    if (!records[i].uptime_s) continue;
    if (!last_case || case_of[i] != *last_case) {
      last_case = &case_of[i];
      last = &times[case_of[i]];
    }
    last->push_back({boots[i], *records[i].uptime_s});
  }
  for (auto& [name, t] : times) {
    std::vector<double> gaps;
    for (std::size_t i = 1; i < t.size(); ++i)
      if (t[i].first == t[i - 1].first) gaps.push_back(t[i].second - t[i - 1].second);
    if (gaps.size() < 2) continue;
    std::vector<double> sorted = gaps;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    const double median = sorted[sorted.size() / 2];
    const double largest = *std::max_element(gaps.begin(), gaps.end());
    if (largest > 30 && largest > 10 * median) {
      const std::size_t bunches =
          1 + static_cast<std::size_t>(std::count_if(gaps.begin(), gaps.end(), [&](double g) { return g > largest / 2; }));
      hints.push_back(fmt::format("{}: its records fall in {} bunches, {:.0f} s apart where they are usually {:.3g} s "
                                  "(another loop or kernel run later?): they are pooled; --split-by gap={:.0f} keeps "
                                  "them apart",
                                  name, bunches, largest, median, largest / 2));
    }
  }
  return hints;
}

}  // namespace kvmbench::parsers
