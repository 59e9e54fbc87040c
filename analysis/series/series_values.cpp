#include "analysis/series/series_values.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "analysis/model/case_families.h"
#include "analysis/model/experimental_unit.h"

namespace kvmbench {

std::vector<CaseSeries> group_by_case(const std::vector<Sample>& samples, std::size_t max_cases) {
  // Checked before anything is grouped, as db import checks it
  // (case_families.h): each series below is then of one unit.
  if (const auto problem = mixed_units_problem(samples, max_cases)) throw std::runtime_error(*problem);
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
  for (auto n : names) ++family_size[case_family(n)];
  std::vector<CaseSeries> out;
  std::vector<std::size_t> table_of(names.size());
  std::unordered_map<std::string_view, std::size_t> family_table;
  std::vector<std::string_view> last_of_family;  // per pooled table
  for (std::size_t c = 0; c < names.size(); ++c) {
    const std::string_view fam = case_family(names[c]);
    if (!family_pooled(fam, family_size[fam], names.size(), max_cases)) {
      table_of[c] = out.size();
      out.push_back({std::string(names[c]), {}, false});
      last_of_family.emplace_back();
      continue;
    }
    auto [it, fresh] = family_table.try_emplace(fam, out.size());
    if (fresh) {
      out.push_back({fmt::format("all {} {}=* cases pooled (from {}", family_size[fam], fam, names[c]),
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
    if (fresh) {
      Series& added = c.series.emplace_back();
      added.key = s.key();
    }
    Series& sv = c.series[found->second];
    Observation& o = sv.observations.emplace_back();
    o.value = s.value;
    o.repetition = s.iteration;
    if (s.extra.is_object() && !s.extra.empty()) {
      if (auto it = s.extra.find("invocation"); it != s.extra.end() && it->is_number_integer())
        o.invocation = it->get<int>();
      o.sub_unit = sub_unit_of(s);
    }
  }
  for (CaseSeries& c : out)
    for (Series& sv : c.series) sv.key.case_name = c.case_name;
  return out;
}

// A kernel log's records each have a repetition of their own, in order:
// nothing to summarise (and a long log has hundreds of thousands).
std::vector<double> unit_values(const Series& s, bool pooled, std::size_t& summarised) {
  summarised = 1;
  const std::vector<Observation>& obs = s.observations;
  bool one_per_unit = true;
  for (std::size_t i = 1; i < obs.size() && one_per_unit; ++i)
    one_per_unit = obs[i].repetition > obs[i - 1].repetition && obs[i].invocation == obs[i - 1].invocation;
  if (pooled || one_per_unit) {
    std::vector<double> values;
    values.reserve(obs.size());
    for (const Observation& o : obs) values.push_back(o.value);
    return values;
  }
  ExperimentalUnits u = experimental_units(obs);
  summarised = u.most_per_repetition;
  return u.values;
}

std::string sub_unit_kind(const Series& s) {
  for (const Observation& o : s.observations)
    if (!o.sub_unit.empty()) return o.sub_unit.substr(0, o.sub_unit.find('='));
  return "";
}

}  // namespace kvmbench
