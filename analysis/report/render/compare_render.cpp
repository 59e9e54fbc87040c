#include "analysis/report/render/compare_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>

#include "analysis/report/render/compare_mail.h"
#include "analysis/report/case_table.h"
#include "analysis/verdicts/family_verdicts.h"
#include "analysis/report/render/html_report.h"
#include "analysis/report/numbers.h"

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
  return reading_scale(typical, m.unit);
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

std::string verdict_line(const Comparison& c) {
  const std::size_t k = c.tested_count();
  if (k == 0) {
    std::size_t both = 0;
    for (const auto& m : c.metrics) both += m.in_base && m.in_cand;
    return both == 0 ? "verdict: none: no metric is in both BASE and CAND"
                     : "verdict: none: no metric could be tested (see the rows' notes)";
  }
  std::vector<std::string> slower, faster, different;
  for (const auto& m : c.metrics) {
    if (!m.tested) continue;
    if (m.verdict == stats::Verdict::slower) slower.push_back(m.key);
    if (m.verdict == stats::Verdict::faster) faster.push_back(m.key);
    if (m.verdict == stats::Verdict::different) different.push_back(m.key);
  }
  const std::string family = fmt::format("(Holm, alpha {})", c.alpha);
  if (slower.empty() && faster.empty() && different.empty())
    return fmt::format("verdict: no significant difference in {} tested metric{} {}", k, k == 1 ? "" : "s", family);
  std::vector<std::string> parts;
  for (auto [word, list] : {std::pair{"WORSE", &slower}, std::pair{"better", &faster}, std::pair{"different", &different}})
    if (!list->empty()) parts.push_back(fmt::format("{} in {}", word, list->size()));
  std::string line = fmt::format("verdict: {} of {} tested metric{} {}", fmt::join(parts, ", "), k, k == 1 ? "" : "s",
                                 family);
  // The one metric by name when it fits: the line is what gets quoted.
  const std::size_t changed = slower.size() + faster.size() + different.size();
  if (changed == 1) {
    const std::string& name = !slower.empty() ? slower[0] : !faster.empty() ? faster[0] : different[0];
    if (line.size() + name.size() + 2 <= 80) line += ": " + name;
  }
  return line;
}

std::string source_banner(const Comparison& c) {
  const bool emulated = c.base_source == Source::emulated || c.cand_source == Source::emulated;
  const bool model = c.base_source == Source::model || c.cand_source == Source::model;
  const bool replay = c.base_source == Source::replay || c.cand_source == Source::replay;
  if (model) return "MODEL: figures computed by a model, not measured: no performance verdict";
  if (emulated) return "EMULATED: measured in the emulated lab (TCG): a functional check, not performance";
  if (replay) return "REPLAY: figures read from published output, not measured on this machine";
  return "";
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

// Text tables are narrow: "not significant" instead of the full verdict.
static std::string short_verdict(const MetricComparison& m) {
  switch (m.status) {
    case MetricStatus::derived: return "derived";
    case MetricStatus::secondary: return "secondary";
    case MetricStatus::change_only: return "change only";
    case MetricStatus::one_side: return m.in_base ? "only in base" : "only in cand";
    case MetricStatus::not_comparable: return "not compared";
    case MetricStatus::tested: break;
  }
  if (m.verdict == stats::Verdict::no_significant_difference) return "not significant";
  if (m.verdict == stats::Verdict::different) return "different";  // the note says why not faster/slower
  return std::string(stats::to_string(m.verdict));
}

static std::string verdict_cell(const MetricComparison& m) {
  std::string v = m.status == MetricStatus::tested ? std::string(stats::to_string(m.verdict)) : short_verdict(m);
  return m.note.empty() ? v : v + " (" + m.note + ")";
}

// The change's CI where the row has one (tested or derived), else "-".
static std::string ci_cell(const MetricComparison& m) {
  return m.status == MetricStatus::tested || m.status == MetricStatus::derived || m.status == MetricStatus::secondary
             ? format_ci(m.change)
             : "-";
}

static std::string change_cell(const MetricComparison& m) {
  return m.status == MetricStatus::one_side || m.status == MetricStatus::not_comparable ? "-"
                                                                                          : format_pct(m.change.pct);
}

static std::string mann_whitney_cell(const MetricComparison& m) {
  if (std::isnan(m.p_mann_whitney)) return m.tested && m.from_aggregates ? "n/a (aggregates)" : "n/a";
  return fmt::format("{} ({})", format_p(m.p_mann_whitney), m.mann_whitney_exact ? "exact" : "normal");
}

// "#1, #3-#5" for 0-based indices.
static std::string index_list(const std::vector<std::size_t>& idx) {
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

// How one side's units were made, for the notes: "1 invocation, 5
// repetitions" or "3 invocations of 5 repetitions".
static std::string side_shape(const Comparison& c, bool base) {
  std::size_t lo = SIZE_MAX, hi = 0;
  for (auto& m : c.metrics) {
    if (!(base ? m.in_base : m.in_cand) || m.from_aggregates) continue;
    const auto& u = base ? m.base_units : m.cand_units;
    const std::size_t per = u.repetitions / std::max<std::size_t>(1, u.invocations);
    lo = std::min(lo, per);
    hi = std::max(hi, per);
  }
  const std::size_t inv = base ? c.base_invocations : c.cand_invocations;
  std::string reps = hi == 0    ? ""
                     : lo == hi ? fmt::format("{} repetition{}", hi, hi == 1 ? "" : "s")
                                : fmt::format("{} to {} repetitions", lo, hi);
  const std::string invocations = fmt::format("{} invocation{}", inv, inv == 1 ? "" : "s");
  return reps.empty() ? invocations : invocations + " of " + reps;
}

std::vector<std::string> experimental_unit_notes(const Comparison& c) {
  std::vector<std::string> notes;
  const std::string what = c.repetition.empty() ? "" : " (a repetition: " + c.repetition + ")";
  const std::string base = side_shape(c, true), cand = side_shape(c, false);
  const std::string shape = base == cand ? "each side: " + base : "base: " + base + "; cand: " + cand;
  if (c.base_invocations == 1 || c.cand_invocations == 1)
    notes.push_back(fmt::format(
        "Units: {}{}. With one invocation on a side, CI and tests are over its repetitions: the noise between "
        "invocations (what makes two consecutive A/A invocations differ) is not in them. Several runs per side "
        "(BASE1,BASE2,... each a fresh `kvmbench run` or tool run) put it in.",
        shape, what));
  else
    notes.push_back(fmt::format("Units: {}{}. CI and tests are over the invocations, each the mean of its "
                                "repetitions (Kalibera and Jones 2013).",
                                shape, what));
  // Sub-units summarised, by kind.
  std::map<std::string, std::vector<std::size_t>> by_kind;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    const std::size_t most = std::max(m.base_units.most_per_repetition, m.cand_units.most_per_repetition);
    if (most < 2) continue;
    const std::string kind = m.base_units.sub_unit_kind.empty() ? m.cand_units.sub_unit_kind : m.base_units.sub_unit_kind;
    by_kind[fmt::format("up to {} {}s", most, kind)].push_back(i);
  }
  for (auto& [kind, idx] : by_kind)
    notes.push_back(fmt::format("{}: {} per repetition, summarised by their mean before any statistic "
                                "(--per-unit shows them).",
                                index_list(idx), kind));
  std::vector<std::size_t> aggregates, exact, normal;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    if (m.from_aggregates && m.status != MetricStatus::one_side) aggregates.push_back(i);
    if (!std::isnan(m.p_mann_whitney)) (m.mann_whitney_exact ? exact : normal).push_back(i);
  }
  if (!aggregates.empty())
    notes.push_back(fmt::format("{}: from the file's aggregates (mean, stddev, count): Welch from the summaries, no "
                                "Mann-Whitney.",
                                index_list(aggregates)));
  if (!exact.empty() || !normal.empty()) {
    std::string mw = "Mann-Whitney U:";
    if (!exact.empty()) mw += fmt::format(" exact (no ties, n <= 50) for {}", index_list(exact));
    if (!normal.empty())
      mw += fmt::format("{} normal approximation (tie and continuity corrected) for {}", exact.empty() ? "" : ";",
                        index_list(normal));
    notes.push_back(mw + ".");
  }
  auto not_measured = [&](const std::vector<NotMeasured>& list, const char* side) {
    for (auto& e : list) notes.push_back(fmt::format("{} did not measure {}: {}", side, e.case_name, e.message));
  };
  not_measured(c.base_not_measured, "base");
  not_measured(c.cand_not_measured, "cand");
  auto failed = [&](const std::vector<FailedTest>& list, const char* side) {
    for (auto& f : list)
      notes.push_back(fmt::format("{}: {} failed ({}): the figures it printed before are not compared{}", side,
                                  f.test.empty() ? "a test" : f.test, f.reason,
                                  side[0] == 'c' ? "; the gate fails on them" : ""));
  };
  failed(c.base_failed_tests, "base");
  failed(c.cand_failed_tests, "cand");
  for (auto& n : c.base_input_notes) notes.push_back("base: " + n);
  for (auto& n : c.cand_input_notes) notes.push_back("cand: " + n);
  for (auto& m : c.metrics)
    if (m.change.log_scale) {
      notes.push_back("log: the CI of the change computed on the log scale (delta method): its linear form would let "
                      "a positive quantity fall by 100% or more.");
      break;
    }
  if (c.left_out) notes.push_back(fmt::format("{} series left out by --metrics / --exclude.", c.left_out));
  return notes;
}

// Kalibera and Jones's table, for the tested metrics where a side had at
// least two invocations of two repetitions.
static std::optional<Table> levels_table(const Comparison& c) {
  Table t;
  t.title = "Repetitions per invocation (Kalibera and Jones 2013)";
  t.columns = {{"#"}, {"side", Align::left}, {"sd within"}, {"sd between"}, {"best r"}};
  bool costs_missing = false;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    if (!m.tested) continue;
    for (bool base : {true, false}) {
      const LevelVariance& v = base ? m.base_levels : m.cand_levels;
      if (!v.known) continue;
      const LevelCosts& k = base ? c.base_costs : c.cand_costs;
      const auto r = optimal_repetitions(v, k.invocation_s, k.repetition_s);
      std::string best = r ? std::to_string(*r) : v.between == 0 ? "more" : "?";
      costs_missing = costs_missing || (!r && v.between > 0);
      t.add_row({std::to_string(i + 1), base ? "base" : "cand", format_number(std::sqrt(v.within), 3),
                 format_number(std::sqrt(v.between), 3), best});
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

Table comparison_table(const Comparison& c) {
  Table t;
  t.title = "A/B comparison: " + c.cand_label + " vs " + c.base_label;
  t.source = c.source_label();
  t.columns = {{"metric", Align::left}, {"unit", Align::left}, {"base mean ± sd (n)"},
               {"cand mean ± sd (n)"},  {"change"},            {"95% CI"},
               {"p (Welch)"},           {"p (M-W)"},  {"p (Holm)"},
               {"verdict", Align::left}};
  for (auto& m : c.metrics) {
    const ReadingScale scale = row_scale(m);
    t.add_row({m.key, scale.unit, format_mean_sd(m.base, m.in_base, scale), format_mean_sd(m.cand, m.in_cand, scale),
               change_cell(m), ci_cell(m), format_p(m.p_welch), mann_whitney_cell(m), format_p(m.p_holm),
               verdict_cell(m)});
  }
  t.notes.push_back(fmt::format(
      "change: (cand - base) / base, 95% CI by Fieller; p (M-W): Mann-Whitney U; verdict at alpha {} "
      "on the Welch p, Holm-adjusted over {} tested primary metrics (derived metrics are not tested again); "
      "warm-up samples excluded.",
      c.alpha, c.tested_count()));
  for (auto& n : experimental_unit_notes(c)) t.notes.push_back(n);
  return t;
}

std::string configuration_line(const MetaDifference& d) {
  std::string line = fmt::format("  {}: {} -> {}", d.key, d.base, d.cand);
  if (line.size() <= 80) return line;
  const std::size_t fixed = 2 + d.key.size() + 2 + 4;
  const std::size_t each = fixed + 2 * 8 <= 80 ? (80 - fixed) / 2 : 8;
  auto cut = [each](const std::string& v) { return v.size() <= each ? v : v.substr(0, each - 3) + "..."; };
  return fmt::format("  {}: {} -> {}", d.key, cut(d.base), cut(d.cand));
}

std::vector<std::string> comparison_header_lines(const Comparison& c) {
  std::vector<std::string> out;
  auto side = [](const std::string& label, Source s, const std::string& status) {
    std::string st = status.empty() || status == "complete" ? "" : ", run " + status;
    return fmt::format("{} ({}{})", label, to_string(s), st);
  };
  out.push_back("base: " + side(c.base_label, c.base_source, c.base_status));
  out.push_back("cand: " + side(c.cand_label, c.cand_source, c.cand_status));
  out.push_back("source: " + c.source_label());
  out.push_back("");
  if (c.meta_differences.empty()) {
    out.push_back("Configuration: the same (kernel, firmware, KVM, THP, SMT, QEMU, parameters)");
  } else {
    out.push_back("Configuration that differs (base -> cand):");
    for (auto& d : c.meta_differences) out.push_back(configuration_line(d));
  }
  return out;
}

// "1.56 ±51%": the row's mean (geometric where its test was on the logs)
// in its reading unit, and the spread in percent.
static std::string center_cell(const MetricComparison& m, bool base, const ReadingScale& scale) {
  if (!(base ? m.in_base : m.in_cand)) return "-";
  const RowCenter r = row_center(m, base);
  const std::size_t n = (base ? m.base : m.cand).n;
  if (std::isnan(r.mean)) return fmt::format("NaN ({})", n);
  if (std::isinf(r.mean)) return fmt::format("{} ({})", r.mean > 0 ? "inf" : "-inf", n);
  const std::string mean = format_reading(r.mean * scale.factor);
  return std::isfinite(r.spread_pct) ? fmt::format("{} ±{:.{}f}% ({})", mean, r.spread_pct, r.spread_pct < 9.95 ? 1 : 0, n)
                                     : fmt::format("{} ({})", mean, n);
}

static bool wider_than_80(const std::string& text) {
  std::size_t col = 0;  // display columns: UTF-8 continuation bytes do not count
  for (unsigned char ch : text) {
    if (ch == '\n') col = 0;
    else if ((ch & 0xC0) != 0x80 && ++col > 80) return true;
  }
  return false;
}

static Document comparison_text_document(const Comparison& all_rows, bool all) {
  // The rows shown, numbered as shown: the notes' "#k" are theirs.
  Comparison c = all_rows;
  c.metrics.clear();
  for (const auto& m : all_rows.metrics)
    if (all || shown_by_default(m)) c.metrics.push_back(m);
  Document d;
  d.source = c.source_label();
  d.lead.push_back(verdict_line(c));
  if (const std::string banner = source_banner(c); !banner.empty()) d.lead.push_back(banner);
  for (auto& l : comparison_header_lines(c)) d.lead.push_back(l);
  d.lead.push_back("");

  const std::size_t tested = c.tested_count();
  Table t;
  t.title = tested == 0 ? "Change of cand vs base (no metric with a test: the change only)"
                        : fmt::format("Change of cand vs base (Welch, Holm over {} metric{}; alpha {})", tested,
                                      tested == 1 ? "" : "s", c.alpha);
  t.max_text_rows = 0;  // what is shown is already chosen
  t.columns = {{"#"},      {"metric", Align::left}, {"unit", Align::left}, {"base"},
               {"cand"},   {"change"},              {"CI (%)"},            {"p(Holm)"},
               {"verdict", Align::left}};
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    const ReadingScale scale = row_scale(m);
    const bool has_ci = m.status == MetricStatus::tested || m.status == MetricStatus::derived ||
                        m.status == MetricStatus::secondary;
    t.add_row({std::to_string(i + 1), m.key, scale.unit, center_cell(m, true, scale), center_cell(m, false, scale),
               change_cell(m), has_ci ? format_ci_compact(m.change) : "", m.tested ? format_p(m.p_holm) : "",
               m.status == MetricStatus::tested && m.verdict == stats::Verdict::no_significant_difference
                   ? "~"
                   : short_verdict(m)});
  }
  if (wider_than_80(render_text(t))) {
    // Long metric names: listed with their unit, the table keeps the numbers.
    d.lead.push_back("Metrics:");
    for (std::size_t i = 0; i < c.metrics.size(); ++i) {
      const std::string unit = row_scale(c.metrics[i]).unit;
      d.lead.push_back(fmt::format("  #{} {}{}", i + 1, c.metrics[i].key, unit.empty() ? "" : " (" + unit + ")"));
    }
    d.lead.push_back("");
    for (auto& row : t.rows) row.erase(row.begin() + 1, row.begin() + 3);
    t.columns.erase(t.columns.begin() + 1, t.columns.begin() + 3);
  }
  // One line per distinct note, with the rows it is about.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> notes;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const std::string& n = c.metrics[i].note;
    if (n.empty()) continue;
    auto it = std::find_if(notes.begin(), notes.end(), [&](auto& e) { return e.first == n; });
    if (it == notes.end()) notes.push_back({n, {i}});
    else it->second.push_back(i);
  }
  for (auto& [n, idx] : notes) t.notes.push_back(fmt::format("{}: {}", index_list(idx), n));
  t.notes.push_back("base, cand: mean ±sd in percent of it (units); change: cand / base - 1; CI: of the change, "
                    "at Holm's level for a tested metric's rank (1 - alpha / (metrics - rank)), 95% for others; ~ not "
                    "significant.");
  bool geometric = false, fallback = false;
  for (const auto& m : c.metrics) {
    geometric = geometric || (m.change.log_scale && m.change.geometric);
    fallback = fallback || (m.change.log_scale && !m.change.geometric);
  }
  if (geometric)
    t.notes.push_back("*: on the logs: geometric means and sd, Welch's test and the CI on the logs (a busy host "
                      "slows by a factor).");
  if (fallback)
    t.notes.push_back(std::string(geometric ? "* elsewhere" : "*") +
                      ": the CI on the log scale: the linear one would let a positive quantity fall by 100% or more.");
  if (const std::string hidden = hidden_rows_line(all_rows, all); !hidden.empty()) t.notes.push_back(hidden + ".");
  for (auto& n : experimental_unit_notes(c))
    if (!n.starts_with("Mann-Whitney") && !n.starts_with("log:")) t.notes.push_back(n);
  d.tables.push_back(std::move(t));
  if (auto levels = levels_table(c)) d.tables.push_back(std::move(*levels));
  return d;
}

std::string render_per_unit_text(const Comparison& c) {
  std::string out = "Per unit (for looking: the verdicts are on the units above)\n";
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const auto& m = c.metrics[i];
    out += fmt::format("#{} {} ({})\n", i + 1, m.key, m.unit);
    for (bool base : {true, false}) {
      const auto& obs = base ? m.base_observations : m.cand_observations;
      if (obs.empty()) continue;
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
              out += line + "\n";
              line = "     ";
            }
            line += item;
          }
        }
        out += line + "\n";
      }
    }
  }
  return out;
}

static Document comparison_markdown_document(const Comparison& c) {
  Document d;
  d.source = c.source_label();
  d.lead = {"### kvmbench compare", "",
            fmt::format("- base: `{}` ({})", c.base_label, to_string(c.base_source)),
            fmt::format("- cand: `{}` ({})", c.cand_label, to_string(c.cand_source)), ""};
  if (!c.meta_differences.empty()) {
    Table t;
    t.title = "Configuration that differs";
    t.columns = {{"key", Align::left}, {"base", Align::left}, {"cand", Align::left}};
    t.max_text_rows = 0;
    for (auto& m : c.meta_differences) t.add_row({"`" + m.key + "`", m.base, m.cand});
    d.tables.push_back(std::move(t));
  }
  d.tables.push_back(comparison_table(c));
  return d;
}

static Document comparison_csv_document(const Comparison& c) {
  // Plain numbers for spreadsheets, one row per metric.
  Table t;
  t.columns = {{"metric"},    {"unit"},      {"direction"}, {"base_n"},     {"base_mean"},
               {"base_sd"},   {"cand_n"},    {"cand_mean"}, {"cand_sd"},    {"change_pct"},
               {"ci95_low"},  {"ci95_high"}, {"p_welch"},   {"p_mann_whitney"}, {"mann_whitney"},
               {"p_holm"},    {"verdict"},   {"status"},    {"derived_from"}, {"source"}};
  auto num = [](double x) { return std::isfinite(x) ? fmt::format("{}", x) : std::string(); };
  for (auto& m : c.metrics)
    t.add_row({m.key, m.unit, std::string(to_string(m.direction)),
               m.in_base ? std::to_string(m.base.n) : "0", m.in_base ? num(m.base.mean) : "",
               m.in_base ? num(m.base.stddev) : "", m.in_cand ? std::to_string(m.cand.n) : "0",
               m.in_cand ? num(m.cand.mean) : "", m.in_cand ? num(m.cand.stddev) : "",
               num(m.change.pct), num(m.change.ci95_low), num(m.change.ci95_high), num(m.p_welch),
               num(m.p_mann_whitney),
               std::isnan(m.p_mann_whitney) ? "" : m.mann_whitney_exact ? "exact" : "normal approximation",
               num(m.p_holm), std::string(stats::to_string(m.verdict)), std::string(to_string(m.status)),
               m.derived_from, c.source_label()});
  Document d;
  d.tables.push_back(std::move(t));
  return d;
}

static nlohmann::json num_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

// JSON has no NaN or infinity: those values are written as the text
// Google Benchmark writes for them.
static nlohmann::json value_json(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
}

static nlohmann::json summary_json(const stats::Summary& s, const ExperimentalUnits& u) {
  nlohmann::json values = nlohmann::json::array();
  for (double v : u.values) values.push_back(value_json(v));
  return {{"n", s.n},
          {"mean", value_json(s.mean)},
          {"stddev", num_or_null(s.stddev)},
          {"ci95_low", num_or_null(s.ci95_low)},
          {"ci95_high", num_or_null(s.ci95_high)},
          {"unit_level", to_string(u.level)},
          {"invocations", u.invocations},
          {"repetitions", u.repetitions},
          {"sub_units_per_repetition", u.most_per_repetition},
          {"sub_unit", u.sub_unit_kind},
          {"values", values}};
}

nlohmann::json comparison_to_json(const Comparison& c) {
  nlohmann::json j;
  j["base"] = {{"label", c.base_label}, {"source", to_string(c.base_source)}, {"status", c.base_status}};
  j["cand"] = {{"label", c.cand_label}, {"source", to_string(c.cand_source)}, {"status", c.cand_status}};
  j["source"] = c.source_label();
  j["verdict"] = verdict_line(c);
  j["alpha"] = c.alpha;
  j["meta_differences"] = nlohmann::json::array();
  for (auto& d : c.meta_differences)
    j["meta_differences"].push_back({{"key", d.key}, {"base", d.base}, {"cand", d.cand}});
  j["metrics"] = nlohmann::json::array();
  for (auto& m : c.metrics) {
    nlohmann::json r = {{"key", m.key},
                        {"case", m.case_name},
                        {"variant", m.variant},
                        {"metric", m.metric},
                        {"unit", m.unit},
                        {"direction", to_string(m.direction)},
                        {"base", m.in_base ? summary_json(m.base, m.base_units) : nlohmann::json(nullptr)},
                        {"cand", m.in_cand ? summary_json(m.cand, m.cand_units) : nlohmann::json(nullptr)},
                        {"change_pct", num_or_null(m.change.pct)},
                        {"change_ci95_low", num_or_null(m.change.ci95_low)},
                        {"change_ci95_high", num_or_null(m.change.ci95_high)},
                        {"change_ci_scale", m.change.log_scale ? "log" : "linear"},
                        {"change_ci_level", num_or_null(m.change.level)},
                        {"change_geometric", m.change.geometric},
                        {"p_welch", num_or_null(m.p_welch)},
                        {"p_mann_whitney", num_or_null(m.p_mann_whitney)},
                        {"p_holm", num_or_null(m.p_holm)},
                        {"verdict", stats::to_string(m.verdict)},
                        {"status", to_string(m.status)},
                        {"derived_from", m.derived_from},
                        {"mann_whitney", std::isnan(m.p_mann_whitney) ? nlohmann::json(nullptr)
                                                                       : nlohmann::json(m.mann_whitney_exact
                                                                                            ? "exact"
                                                                                            : "normal approximation")},
                        {"from_aggregates", m.from_aggregates},
                        {"note", m.note}};
    // Why the side's test failed, where it did: its figures are no good run's.
    if (!m.base_failed.empty()) r["base_failed"] = m.base_failed;
    if (!m.cand_failed.empty()) r["cand_failed"] = m.cand_failed;
    j["metrics"].push_back(std::move(r));
  }
  j["notes"] = experimental_unit_notes(c);
  auto not_measured = [](const std::vector<NotMeasured>& list) {
    nlohmann::json a = nlohmann::json::array();
    for (auto& e : list) a.push_back({{"case", e.case_name}, {"message", e.message}});
    return a;
  };
  j["base"]["not_measured"] = not_measured(c.base_not_measured);
  j["cand"]["not_measured"] = not_measured(c.cand_not_measured);
  auto failed = [](const std::vector<FailedTest>& list) {
    nlohmann::json a = nlohmann::json::array();
    for (auto& f : list) a.push_back({{"test", f.test}, {"reason", f.reason}});
    return a;
  };
  j["base"]["failed_tests"] = failed(c.base_failed_tests);
  j["cand"]["failed_tests"] = failed(c.cand_failed_tests);
  j["base"]["input_notes"] = c.base_input_notes;
  j["cand"]["input_notes"] = c.cand_input_notes;
  j["base"]["invocations"] = c.base_invocations;
  j["cand"]["invocations"] = c.cand_invocations;
  return j;
}

Document comparison_document(const Comparison& c, Format f, bool all, const nlohmann::json& base_meta,
                             const nlohmann::json& cand_meta) {
  switch (f) {
    case Format::mail: return comparison_mail_document(c, base_meta, cand_meta, all);
    case Format::md: return comparison_markdown_document(c);
    case Format::csv: return comparison_csv_document(c);
    case Format::json: {
      Document d = comparison_text_document(c, all);
      d.data = comparison_to_json(c);
      return d;
    }
    case Format::text:
    case Format::html:
    case Format::junit: break;
  }
  return comparison_text_document(c, all);
}

}  // namespace kvmbench
