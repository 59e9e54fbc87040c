#include "analysis/model/experimental_unit.h"

#include <cmath>
#include <map>
#include <utility>

namespace kvmbench {

std::string sub_unit_of(const Sample& s) {
  if (!s.extra.is_object()) return "";
  for (std::string_view key : kSubUnitKeys) {
    auto it = s.extra.find(key);
    if (it == s.extra.end()) continue;
    const auto& v = *it;
    return std::string(key) + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return "";
}

std::string_view to_string(UnitLevel l) { return l == UnitLevel::invocation ? "invocation" : "repetition"; }

namespace {

// Repetition values (mean of their sub-units), grouped by invocation, both
// in order of first appearance.
struct Nested {
  std::vector<std::vector<double>> by_invocation;
  std::size_t most_per_repetition = 0;
  std::string sub_unit_kind;
};

Nested nest(std::span<const Observation> obs) {
  struct Acc {
    double sum = 0;
    std::size_t n = 0;
  };
  std::map<int, std::size_t> invocation_index;
  std::vector<std::map<int, std::size_t>> repetition_index;
  std::vector<std::vector<Acc>> acc;
  Nested out;
  for (const Observation& o : obs) {
    auto [inv, fresh] = invocation_index.try_emplace(o.invocation, acc.size());
    if (fresh) {
      acc.emplace_back();
      repetition_index.emplace_back();
    }
    auto& reps = repetition_index[inv->second];
    auto [rep, new_rep] = reps.try_emplace(o.repetition, acc[inv->second].size());
    if (new_rep) acc[inv->second].emplace_back();
    Acc& a = acc[inv->second][rep->second];
    a.sum += o.value;  // a non-finite value makes the sum non-finite, as it should
    ++a.n;
    if (out.sub_unit_kind.empty() && !o.sub_unit.empty())
      out.sub_unit_kind = o.sub_unit.substr(0, o.sub_unit.find('='));
  }
  for (auto& inv : acc) {
    std::vector<double> reps;
    for (const Acc& a : inv) {
      reps.push_back(a.sum / static_cast<double>(a.n));
      out.most_per_repetition = std::max(out.most_per_repetition, a.n);
    }
    out.by_invocation.push_back(std::move(reps));
  }
  if (out.most_per_repetition > 1 && out.sub_unit_kind.empty()) out.sub_unit_kind = "value";
  return out;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

}  // namespace

ExperimentalUnits experimental_units(std::span<const Observation> obs) {
  ExperimentalUnits u;
  Nested n = nest(obs);
  u.invocations = n.by_invocation.size();
  u.most_per_repetition = n.most_per_repetition;
  u.sub_unit_kind = n.most_per_repetition > 1 ? n.sub_unit_kind : "";
  for (auto& reps : n.by_invocation) u.repetitions += reps.size();
  if (u.invocations > 1) {
    u.level = UnitLevel::invocation;
    for (auto& reps : n.by_invocation) u.values.push_back(mean_of(reps));
  } else {
    u.level = UnitLevel::repetition;
    if (!n.by_invocation.empty()) u.values = std::move(n.by_invocation.front());
  }
  return u;
}

LevelVariance level_variance(std::span<const Observation> obs) {
  LevelVariance v;
  Nested n = nest(obs);
  v.invocations = n.by_invocation.size();
  if (v.invocations < 2) return v;
  double within_ss = 0, inverse_r = 0, reps = 0;
  std::size_t within_df = 0;
  std::vector<double> means;
  for (auto& r : n.by_invocation) {
    if (r.size() < 2) return v;
    const double m = mean_of(r);
    for (double x : r) within_ss += (x - m) * (x - m);
    within_df += r.size() - 1;
    inverse_r += 1.0 / static_cast<double>(r.size());
    reps += static_cast<double>(r.size());
    means.push_back(m);
  }
  const double k = static_cast<double>(v.invocations);
  const double grand = mean_of(means);
  double between_ss = 0;
  for (double m : means) between_ss += (m - grand) * (m - grand);
  if (!std::isfinite(within_ss) || !std::isfinite(between_ss)) return v;
  v.within = within_ss / static_cast<double>(within_df);
  v.between = std::max(0.0, between_ss / (k - 1) - v.within * inverse_r / k);
  v.mean_repetitions = reps / k;
  v.known = true;
  return v;
}

std::optional<std::size_t> optimal_repetitions(const LevelVariance& v, double invocation_cost_s,
                                               double repetition_cost_s) {
  if (!v.known || !(v.between > 0) || !(invocation_cost_s > 0) || !(repetition_cost_s > 0)) return std::nullopt;
  const double r = std::sqrt(invocation_cost_s / repetition_cost_s * v.within / v.between);
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(r)));
}

}  // namespace kvmbench
