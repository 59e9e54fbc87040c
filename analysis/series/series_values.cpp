#include "analysis/series/series_values.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "analysis/model/experimental_unit.h"

namespace kvmbench {

namespace {

// The family of a case: its key before '=' ("group=12" -> "group"), or ""
// for names without one.
std::string_view case_family(std::string_view name) {
  const std::size_t eq = name.find('=');
  return eq == std::string_view::npos ? std::string_view() : name.substr(0, eq);
}

}  // namespace

std::vector<CaseSeries> group_by_case(const std::vector<Sample>& samples, std::size_t max_cases) {
  // 1. The distinct cases, and the case of each sample.
  std::unordered_map<std::string_view, std::size_t> case_index;
  std::vector<std::string_view> names;
  std::vector<std::size_t> case_of(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].warmup) continue;
    auto [it, fresh] = case_index.try_emplace(samples[i].case_name, names.size());
    if (fresh) names.push_back(samples[i].case_name);
    case_of[i] = it->second;
  }
  // 2. The table each case goes to: its own, or its family's pooled one.
  std::unordered_map<std::string_view, std::size_t> family_size;
  const bool may_pool = max_cases > 0 && names.size() > max_cases;
  if (may_pool)
    for (auto n : names) ++family_size[case_family(n)];
  std::vector<CaseSeries> out;
  std::vector<std::size_t> table_of(names.size());
  std::unordered_map<std::string_view, std::size_t> family_table;
  std::vector<std::string_view> last_of_family;  // per pooled table
  for (std::size_t c = 0; c < names.size(); ++c) {
    const std::string_view fam = case_family(names[c]);
    if (!may_pool || family_size[fam] <= max_cases) {
      table_of[c] = out.size();
      out.push_back({std::string(names[c]), {}, false});
      last_of_family.emplace_back();
      continue;
    }
    auto [it, fresh] = family_table.try_emplace(fam, out.size());
    if (fresh) {
      out.push_back({fmt::format("all {} {} cases pooled (from {}", family_size[fam],
                                 fam.empty() ? std::string("unkeyed") : std::string(fam) + "=*", names[c]),
                     {},
                     true});
      last_of_family.emplace_back();
    }
    table_of[c] = it->second;
    last_of_family[it->second] = names[c];
  }
  for (std::size_t t = 0; t < out.size(); ++t)
    if (out[t].pooled) out[t].case_name += fmt::format(" to {})", last_of_family[t]);
  // 3. The values of each series, in sample order.
  std::map<std::tuple<std::size_t, std::string_view, std::string_view>, std::size_t> series_index;  // table, variant, metric
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    if (s.warmup) continue;
    const std::size_t t = table_of[case_of[i]];
    CaseSeries& c = out[t];
    const auto [found, fresh] = series_index.try_emplace({t, s.variant, s.metric}, c.series.size());
    if (fresh) c.series.push_back({s.variant, s.metric, s.unit, {}, {}, {}, {}});
    SeriesValues& sv = c.series[found->second];
    if (sv.unit != s.unit)
      throw std::runtime_error(fmt::format("series {} mixes units '{}' and '{}'", s.series_key(), sv.unit, s.unit));
    sv.values.push_back(s.value);
    sv.repetition.push_back(s.iteration);
    int inv = 0;
    if (s.extra.is_object()) {
      if (auto it = s.extra.find("invocation"); it != s.extra.end() && it->is_number_integer()) inv = it->get<int>();
      if (sv.sub_unit_kind.empty())
        if (std::string sub = sub_unit_of(s); !sub.empty()) sv.sub_unit_kind = sub.substr(0, sub.find('='));
    }
    sv.invocation.push_back(inv);
  }
  return out;
}

// A kernel log's records each have a repetition of their own, in order:
// nothing to summarise (and a long log has hundreds of thousands).
std::vector<double> unit_values(const SeriesValues& sv, bool pooled, std::size_t& summarised) {
  summarised = 1;
  bool one_per_unit = true;
  for (std::size_t i = 1; i < sv.values.size() && one_per_unit; ++i)
    one_per_unit = sv.repetition[i] > sv.repetition[i - 1] && sv.invocation[i] == sv.invocation[i - 1];
  if (pooled || one_per_unit) return sv.values;
  std::vector<Observation> obs;
  obs.reserve(sv.values.size());
  for (std::size_t i = 0; i < sv.values.size(); ++i) obs.push_back({sv.values[i], sv.invocation[i], sv.repetition[i], ""});
  ExperimentalUnits u = experimental_units(obs);
  summarised = u.most_per_repetition;
  return u.values;
}

}  // namespace kvmbench
