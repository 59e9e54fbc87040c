#include "analysis/views/compare_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/report/numbers.h"
#include "analysis/verdicts/comparison_bounds.h"
#include "analysis/verdicts/family_verdicts.h"
#include "analysis/views/comparison_json.h"
#include "analysis/views/comparison_lead.h"
#include "analysis/views/comparison_notes.h"
#include "analysis/views/comparison_rows.h"
#include "analysis/views/monitors_section.h"

namespace kvmbench {

namespace {

// The columns of the change table, in its order; people read the LKP
// layout, programs the figures in full (data_header: the names compare's
// CSV has always had).
enum Col : std::size_t {
  kIndex, kSeries, kKey, kUnit, kDirection, kBase, kBaseSd, kBaseN, kChange, kCand, kCandSd, kCandN, kN, kCi,
  kPWelch, kPMannWhitney, kMannWhitney, kPHolm, kExcluded, kMde80, kMde95, kVerdictWord, kVerdict, kStatus, kDerivedFrom, kMeans, kNote,
  kColumns
};

std::vector<Column> change_columns() {
  std::vector<Column> c(kColumns);
  c[kIndex] = {"#", Align::right, Readers::people};
  c[kSeries] = {"series", Align::left, Readers::people};
  c[kKey] = {"metric", Align::left, Readers::programs};
  c[kUnit] = {"unit", Align::left, Readers::programs};
  c[kDirection] = {"direction", Align::left, Readers::programs};
  c[kBase] = {"base", Align::right, Readers::all, "base_mean"};
  c[kBaseSd] = {"%stddev", Align::right, Readers::all, "base_sd_pct"};
  c[kBaseN] = {"base_n", Align::right, Readers::programs};
  c[kChange] = {"%change", Align::right, Readers::all, "change_pct"};
  c[kCand] = {"cand", Align::right, Readers::all, "cand_mean"};
  c[kCandSd] = {"%stddev", Align::right, Readers::all, "cand_sd_pct"};
  c[kCandN] = {"cand_n", Align::right, Readers::programs};
  c[kN] = {"n", Align::right, Readers::people};
  c[kCi] = {"CI (%)", Align::right, Readers::all, "change_ci"};
  c[kPWelch] = {"p_welch", Align::right, Readers::programs};
  c[kPMannWhitney] = {"p_mann_whitney", Align::right, Readers::programs};
  c[kMannWhitney] = {"mann_whitney", Align::left, Readers::programs};
  c[kPHolm] = {"p(Holm)", Align::right, Readers::all, "p_holm"};
  // For programs: in text the table would pass 80 columns and lose its
  // LKP gaps; people read the largest bound in the line under the verdict
  // (gate, with fewer columns, shows each).
  c[kExcluded] = {"excluded_beyond_pct", Align::right, Readers::programs};
  c[kMde80] = {"mde_80_pct", Align::right, Readers::programs};
  c[kMde95] = {"mde_95_pct", Align::right, Readers::programs};
  c[kVerdictWord] = {"verdict", Align::left, Readers::people};
  c[kVerdict] = {"verdict", Align::left, Readers::programs};
  c[kStatus] = {"status", Align::left, Readers::programs};
  c[kDerivedFrom] = {"derived_from", Align::left, Readers::programs};
  c[kMeans] = {"means", Align::left, Readers::programs};
  c[kNote] = {"note", Align::left, Readers::programs};
  return c;
}

// A number for programs (its value in full, in the row's unit: the unit
// column says which) and its text for people.
Cell figure(double value, std::string text) { return Cell::number(value, "", std::move(text)); }

// A side's mean (geometric where its test was on the logs) in the row's
// reading unit, and its spread in percent.
std::pair<Cell, Cell> center_cells(const MetricComparison& m, bool base, const ReadingScale& scale) {
  if (!(base ? m.in_base : m.in_cand)) return {Cell("-"), Cell("")};
  const RowCenter r = row_center(m, base);
  const std::string mean = std::isnan(r.mean)   ? "NaN"
                           : std::isinf(r.mean) ? (r.mean > 0 ? "inf" : "-inf")
                                                : format_reading(r.mean * scale.factor);
  Cell spread = std::isfinite(r.spread_pct)
                    ? figure(r.spread_pct, fmt::format("±{:.{}f}%", r.spread_pct, r.spread_pct < 9.95 ? 1 : 0))
                    : Cell("");
  return {figure(r.mean, mean), spread};
}

// "5", or "5/3" where the sides' units differ in number ("-" for a side
// without the series).
std::string n_text(const MetricComparison& m) {
  auto n = [](bool in, const stats::Summary& s) { return in ? std::to_string(s.n) : std::string("-"); };
  const std::string b = n(m.in_base, m.base), c = n(m.in_cand, m.cand);
  return b == c ? b : b + "/" + c;
}

bool has_change(const MetricComparison& m) {
  return m.status != MetricStatus::one_side && m.status != MetricStatus::not_comparable;
}

bool has_ci(const MetricComparison& m) {
  return m.status == MetricStatus::tested || m.status == MetricStatus::derived ||
         m.status == MetricStatus::secondary;
}

Cell p_cell(double p) { return std::isfinite(p) ? figure(p, format_p(p)) : Cell(""); }

std::vector<Cell> change_row(const MetricComparison& m, std::size_t index) {
  std::vector<Cell> r(kColumns);
  const ReadingScale scale = row_scale(m);
  r[kIndex] = std::to_string(index + 1);
  r[kSeries] = m.key.name() + (scale.unit.empty() ? "" : " (" + scale.unit + ")");
  r[kKey] = m.key.name();
  r[kUnit] = m.key.unit;
  r[kDirection] = std::string(to_string(m.direction));
  std::tie(r[kBase], r[kBaseSd]) = center_cells(m, true, scale);
  std::tie(r[kCand], r[kCandSd]) = center_cells(m, false, scale);
  if (m.in_base) r[kBaseN] = figure(static_cast<double>(m.base.n), std::to_string(m.base.n));
  if (m.in_cand) r[kCandN] = figure(static_cast<double>(m.cand.n), std::to_string(m.cand.n));
  r[kN] = n_text(m);
  r[kChange] = has_change(m) && std::isfinite(m.change.pct) ? figure(m.change.pct, format_pct(m.change.pct))
                                                            : Cell("-");
  if (has_ci(m) && std::isfinite(m.change.ci95_low) && std::isfinite(m.change.ci95_high))
    r[kCi] = Cell::interval(m.change.ci95_low, m.change.ci95_high, "", format_ci_compact(m.change));
  else if (has_ci(m))
    r[kCi] = format_ci_compact(m.change);
  r[kPWelch] = p_cell(m.p_welch);
  r[kPMannWhitney] = p_cell(m.p_mann_whitney);
  r[kMannWhitney] = std::isnan(m.p_mann_whitney) ? "" : m.mann_whitney_exact ? "exact" : "normal approximation";
  if (m.tested) r[kPHolm] = p_cell(m.p_holm);
  if (says_nothing(m.excluded_beyond_pct, m.direction)) r[kExcluded] = Cell("none");
  else if (std::isfinite(m.excluded_beyond_pct)) r[kExcluded] = figure(m.excluded_beyond_pct, format_pct(m.excluded_beyond_pct));
  if (std::isfinite(m.mde_80_pct)) r[kMde80] = figure(m.mde_80_pct, format_pct(m.mde_80_pct));
  if (std::isfinite(m.mde_95_pct)) r[kMde95] = figure(m.mde_95_pct, format_pct(m.mde_95_pct));
  r[kVerdictWord] = verdict_word(m);
  r[kVerdictWord].tone = verdict_tone(m);
  r[kVerdict] = std::string(stats::to_string(m.verdict));
  r[kStatus] = std::string(to_string(m.status));
  r[kDerivedFrom] = m.derived_from;
  r[kMeans] = row_center(m, true).geometric || row_center(m, false).geometric ? "geometric" : "arithmetic";
  r[kNote] = m.note;
  return r;
}

// The notes under the change table: each row note once with the rows it
// is about, the legend, the log-scale marks, what --all would add, how the
// units were made.
std::vector<std::string> change_notes(const Comparison& c, const Comparison& all_rows, bool all) {
  std::vector<std::string> out;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> notes;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const std::string& n = c.metrics[i].note;
    if (n.empty()) continue;
    auto it = std::find_if(notes.begin(), notes.end(), [&](auto& e) { return e.first == n; });
    if (it == notes.end()) notes.push_back({n, {i}});
    else it->second.push_back(i);
  }
  for (auto& [n, idx] : notes) out.push_back(fmt::format("{}: {}", index_list(idx), n));
  out.push_back("base, cand: the mean of the units, %stddev: their sd in percent of it; n: units a side (base/cand "
                "where they differ); %change: cand / base - 1; CI: of the change, at Holm's level for a tested "
                "metric's rank (1 - alpha / (metrics - rank)), 95% for others; ~ not significant.");
  bool geometric = false, fallback = false;
  for (const auto& m : c.metrics) {
    geometric = geometric || (m.change.log_scale && m.change.geometric);
    fallback = fallback || (m.change.log_scale && !m.change.geometric);
  }
  if (geometric)
    out.push_back("*: on the logs: geometric means and sd, Welch's test and the CI on the logs (a busy host slows "
                  "by a factor).");
  if (fallback)
    out.push_back(std::string(geometric ? "* elsewhere" : "*") +
                  ": the CI on the log scale: the linear one would let a positive quantity fall by 100% or more.");
  if (const std::string hidden = hidden_rows_line(all_rows, all); !hidden.empty()) out.push_back(hidden + ".");
  for (auto& n : experimental_unit_notes(c)) out.push_back(n);
  return out;
}

// Kalibera and Jones's table, for the tested metrics where a side had at
// least two invocations of two repetitions.
std::optional<Table> levels_table(const Comparison& c) {
  Table t;
  t.title = "Repetitions per invocation (Kalibera and Jones 2013)";
  t.source = c.source_label();
  t.columns = {{"#"}, {"side", Align::left}, {"sd within"}, {"sd between"}, {"best r"}};
  bool costs_missing = false;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    if (!m.tested) continue;
    for (bool base : {true, false}) {
      const LevelVariance& v = base ? m.base_levels : m.cand_levels;
      if (!v.known) continue;
      const LevelCosts& k = (base ? c.base : c.cand).costs;
      const auto r = optimal_repetitions(v, k.invocation_s, k.repetition_s);
      std::string best = r ? std::to_string(*r) : v.between == 0 ? "more" : "?";
      costs_missing = costs_missing || (!r && v.between > 0);
      t.add_row({std::to_string(i + 1), base ? "base" : "cand",
                 Cell::number(std::sqrt(v.within), m.key.unit, format_number(std::sqrt(v.within), 3)),
                 Cell::number(std::sqrt(v.between), m.key.unit, format_number(std::sqrt(v.between), 3)), best});
    }
  }
  if (t.rows.empty()) return std::nullopt;
  t.notes.push_back("sd within: of repetitions inside an invocation; sd between: of invocations beyond that. best r: "
                    "repetitions per invocation for the least variance per second, sqrt((c2/c1) (within/between)^2) "
                    "with c1 a repetition's and c2 an invocation's own seconds; \"more\": no noise between "
                    "invocations seen, more repetitions in fewer invocations pay.");
  if (costs_missing) t.notes.push_back("?: the runs did not record their seconds (c1, c2).");
  return t;
}

// A chart per row with values: both sides' units, the change in its
// caption.
Chart row_chart(const MetricComparison& m) {
  Chart ch;
  // Points, not bars from 0: a change of a few percent must show.
  ch.kind = Chart::Kind::points;
  ch.title = m.key.name();
  ch.unit = m.key.unit;
  ch.groups = {sample_group("base", m.base_values), sample_group("cand", m.cand_values)};
  // "not significant": the full verdict does not fit beside the change.
  const std::string v = m.verdict == stats::Verdict::no_significant_difference ? "not significant"
                                                                               : std::string(stats::to_string(m.verdict));
  ch.caption = m.tested ? fmt::format("{} {} · {}", format_pct(m.change.pct), format_ci(m.change), v)
                        : (m.note.empty() ? std::string(stats::to_string(m.verdict)) : m.note);
  ch.tone = verdict_tone(m);
  return ch;
}

std::string title_of(const Comparison& c) {
  const ComparedSide& named = c.base.suite.empty() ? c.cand : c.base;
  if (named.suite.empty()) return "kvmbench compare";
  return "kvmbench compare: " + named.suite + (named.preset.empty() ? "" : " --preset " + named.preset);
}

}  // namespace

std::vector<std::string> per_unit_lines(const Comparison& c) {
  std::vector<std::string> out = {"Per unit (for looking: the verdicts are on the units above)"};
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    out.push_back(fmt::format("#{} {} ({})", i + 1, m.key.name(), m.key.unit));
    for (bool base : {true, false}) {
      const auto& obs = base ? m.base_observations : m.cand_observations;
      // The values of each repetition, in order, with their sub-units.
      std::map<std::pair<int, int>, std::vector<const Observation*>> reps;
      std::vector<std::pair<int, int>> order;
      for (const auto& o : obs) {
        auto& v = reps[{o.invocation, o.repetition}];
        if (v.empty()) order.push_back({o.invocation, o.repetition});
        v.push_back(&o);
      }
      for (const auto& at : order) {
        const auto& v = reps[at];
        double sum = 0;
        for (auto* o : v) sum += o->value;
        std::string line = fmt::format("  {} inv {} rep {}: {}", base ? "base" : "cand", at.first + 1, at.second,
                                       format_number(sum / static_cast<double>(v.size())));
        if (v.size() > 1) {
          line += " = mean of";
          for (auto* o : v) {
            std::string item = fmt::format(" {} {}", o->sub_unit.empty() ? "value" : o->sub_unit,
                                           format_number(o->value));
            if (line.size() + item.size() > 80) {
              out.push_back(line);
              line = "     ";
            }
            line += item;
          }
        }
        out.push_back(line);
      }
    }
  }
  return out;
}

Document comparison_document(const Comparison& all_rows, const CompareView& view) {
  // The rows shown, numbered as shown: the notes' "#k" are theirs.
  Comparison c = all_rows;
  c.metrics.clear();
  for (const auto& m : all_rows.metrics)
    if (view.all || shown_by_default(m)) c.metrics.push_back(m);

  Document d;
  d.title = title_of(c);
  d.source = c.source_label();
  d.lead.push_back(verdict_line(all_rows));
  if (const std::string excluded = excluded_line(all_rows); !excluded.empty()) d.lead.push_back(excluded);
  if (const std::string banner = source_banner(c); !banner.empty()) d.lead.push_back(banner);
  for (auto& l : comparison_context(c)) d.lead.push_back(l);
  d.lead.push_back("");

  const std::size_t tested = c.tested_count();
  Table t;
  t.title = tested == 0 ? "Change of cand vs base (no metric with a test: the change only)"
                        : fmt::format("Change of cand vs base (Welch, Holm over {} metric{}; alpha {})", tested,
                                      tested == 1 ? "" : "s", c.alpha);
  t.source = c.source_label();
  t.max_text_rows = 0;  // what is shown is already chosen
  t.columns = change_columns();
  t.narrow_gap_when_wide = true;
  t.stacked_label = kSeries;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) t.add_row(change_row(c.metrics[i], i));
  t.notes = change_notes(c, all_rows, view.all);
  d.tables.push_back(std::move(t));
  if (auto levels = levels_table(c)) d.tables.push_back(std::move(*levels));
  append_monitors_section(d, all_rows);

  // HTML: every shown metric's change at a glance under the verdict, then
  // a chart per metric after the tables.
  Chart overview;
  overview.kind = Chart::Kind::changes;
  overview.title = "Change of cand vs base";
  overview.caption = "percent; the CI a tested metric's at Holm's level, else 95%";
  for (const auto& m : c.metrics)
    if (m.in_base && m.in_cand)
      overview.changes.push_back({m.key.name(), m.change.pct, m.change.ci95_low, m.change.ci95_high, verdict_tone(m)});
  if (!overview.changes.empty()) d.overview.push_back(std::move(overview));
  for (const auto& m : c.metrics)
    if (m.in_base || m.in_cand) d.charts.push_back(row_chart(m));
  if (view.per_unit) {
    d.closing.push_back("");
    for (auto& l : per_unit_lines(c)) d.closing.push_back(l);
  }
  d.data = comparison_to_json(all_rows);
  return d;
}

}  // namespace kvmbench
