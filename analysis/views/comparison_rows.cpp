#include "analysis/views/comparison_rows.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/verdicts/family_verdicts.h"

namespace kvmbench {

std::string_view to_string(MetricStatus s) {
  switch (s) {
    case MetricStatus::tested: return "tested";
    case MetricStatus::derived: return "derived";
    case MetricStatus::secondary: return "not primary";
    case MetricStatus::change_only: return "change only";
    case MetricStatus::one_side: return "one side";
    case MetricStatus::not_comparable: return "not compared";
  }
  return "";
}

ReadingScale row_scale(const MetricComparison& m) {
  double typical = 0;
  for (auto [present, s] : {std::pair{m.in_base, &m.base}, std::pair{m.in_cand, &m.cand}})
    if (present && std::isfinite(s->mean)) typical = std::max(typical, std::fabs(s->mean));
  return reading_scale(typical, m.key.unit);
}

RowCenter row_center(const MetricComparison& m, bool base) {
  const stats::Summary& s = base ? m.base : m.cand;
  const std::vector<double>& v = base ? m.base_values : m.cand_values;
  RowCenter r;
  if (!(base ? m.in_base : m.in_cand)) return r;
  if (m.change.geometric && all_positive(v) && v.size() >= 2) {
    const stats::Summary logs = log_summary(v);
    r.mean = std::exp(logs.mean);
    r.spread_pct = (std::exp(logs.stddev) - 1) * 100;
    r.geometric = true;
    return r;
  }
  r.mean = s.mean;
  r.spread_pct = std::isfinite(s.cv) ? 100 * s.cv : NAN;
  return r;
}

bool shown_by_default(const MetricComparison& m) {
  return m.status != MetricStatus::derived && m.status != MetricStatus::secondary;
}

std::string hidden_rows_line(const Comparison& c, bool all) {
  if (all) return "";
  std::size_t derived = 0, secondary = 0;
  for (const auto& m : c.metrics) {
    derived += m.status == MetricStatus::derived;
    secondary += m.status == MetricStatus::secondary;
  }
  if (derived + secondary == 0) return "";
  std::string what = derived && secondary ? fmt::format("{} derived and {} secondary metrics", derived, secondary)
                     : derived           ? fmt::format("{} derived metric{}", derived, derived == 1 ? "" : "s")
                                         : fmt::format("{} secondary metric{}", secondary, secondary == 1 ? "" : "s");
  return what + " not shown, never tested (--all shows them)";
}

std::string verdict_word(const MetricComparison& m) {
  switch (m.status) {
    case MetricStatus::derived: return "derived";
    case MetricStatus::secondary: return "secondary";
    case MetricStatus::change_only: return "change only";
    case MetricStatus::one_side: return m.in_base ? "only in base" : "only in cand";
    case MetricStatus::not_comparable: return "not compared";
    case MetricStatus::tested: break;
  }
  if (m.verdict == stats::Verdict::no_significant_difference) return "~";
  if (m.verdict == stats::Verdict::different) return "different";  // the note says why not faster/slower
  return std::string(stats::to_string(m.verdict));
}

Tone verdict_tone(const MetricComparison& m) {
  if (!m.tested) return Tone::plain;
  if (m.verdict == stats::Verdict::slower) return Tone::worse;
  if (m.verdict == stats::Verdict::faster) return Tone::better;
  return Tone::plain;
}

std::string index_list(const std::vector<std::size_t>& idx) {
  std::string out;
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + fmt::format("#{}", idx[i] + 1) +
           (j > i ? fmt::format("-#{}", idx[j] + 1) : std::string());
    i = j + 1;
  }
  return out;
}

}  // namespace kvmbench
