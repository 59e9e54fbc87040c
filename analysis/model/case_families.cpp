#include "analysis/model/case_families.h"

#include <fmt/format.h>

#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/model/printable.h"

namespace kvmbench {

std::string_view case_family(std::string_view name) {
  const std::size_t eq = name.find('=');
  return eq == std::string_view::npos ? std::string_view() : name.substr(0, eq);
}

bool family_pooled(std::string_view family, std::size_t family_cases, std::size_t all_cases, std::size_t max_cases) {
  return !family.empty() && max_cases > 0 && all_cases > max_cases && family_cases > max_cases;
}

std::optional<std::string> mixed_units_problem(std::span<const Sample* const> samples, std::size_t max_cases) {
  std::unordered_map<std::string_view, std::size_t> cases_of_family;
  std::unordered_map<std::string_view, bool> seen;
  for (const Sample* s : samples)
    if (!s->warmup && seen.try_emplace(s->case_name, true).second) ++cases_of_family[case_family(s->case_name)];
  // A pooled family's cases are one "case" here, its family's name.
  std::map<std::tuple<std::string_view, bool, std::string_view, std::string_view>, std::string_view> unit_of;
  for (const Sample* sample : samples) {
    const Sample& s = *sample;
    if (s.warmup) continue;
    const std::string_view family = case_family(s.case_name);
    const bool pooled = family_pooled(family, cases_of_family[family], seen.size(), max_cases);
    const auto [it, fresh] =
        unit_of.try_emplace({pooled ? family : std::string_view(s.case_name), pooled, s.variant, s.metric}, s.unit);
    if (!fresh && it->second != s.unit)
      return fmt::format("series {} mixes units '{}' and '{}'", printable(s.series_key()), printable(it->second),
                         printable(s.unit));
  }
  return std::nullopt;
}

std::optional<std::string> mixed_units_problem(const std::vector<Sample>& samples, std::size_t max_cases) {
  std::vector<const Sample*> all;
  all.reserve(samples.size());
  for (const Sample& s : samples) all.push_back(&s);
  return mixed_units_problem(all, max_cases);
}

}  // namespace kvmbench
