#include "analysis/views/gate_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/report/numbers.h"
#include "analysis/verdicts/comparison_bounds.h"
#include "analysis/views/comparison_json.h"
#include "analysis/views/comparison_lead.h"
#include "analysis/views/comparison_notes.h"
#include "analysis/views/comparison_rows.h"
#include "analysis/views/monitors_section.h"

namespace kvmbench {

namespace {

// Whether a metric is one the gate is about: derived and secondary ones are
// never gated, and are counted, not listed.
bool gated(const GateResult& g, const GateMetric& m) {
  const MetricStatus s = g.comparison.metrics[m.index].status;
  return s != MetricStatus::derived && s != MetricStatus::secondary;
}

// "24 derived (gated through their primary metric), 24 secondary (--metrics
// gates them)"; "" when there is none.
std::string not_gated_counts(const GateResult& g) {
  std::size_t derived = 0, secondary = 0;
  for (auto& m : g.metrics) {
    derived += g.comparison.metrics[m.index].status == MetricStatus::derived;
    secondary += g.comparison.metrics[m.index].status == MetricStatus::secondary;
  }
  if (!derived && !secondary) return "";
  if (!secondary) return fmt::format("{} derived metric{}", derived, derived == 1 ? "" : "s");
  return fmt::format("{}{} secondary metric{} (--metrics gates them)",
                     derived ? fmt::format("{} derived, ", derived) : "", secondary, secondary == 1 ? "" : "s");
}

// "a regression beyond 4.2% is excluded (99.2%)": what a pass excludes,
// the largest of the decided metrics' bounds ("" where none was decided).
std::string excluded_text(const GateResult& g) {
  const double x = g.largest_bound_pct();
  if (std::isnan(x)) return "";
  if (std::isinf(x)) return "no regression is excluded (too few units or too wide a spread)";
  return fmt::format("a regression beyond {} is excluded ({})", format_pct(x), format_level(g.bound_level));
}

std::string headline(const GateResult& g) {
  std::size_t skipped = 0;
  for (auto& m : g.metrics) skipped += m.skipped() && gated(g, m);
  const std::string skipped_text = skipped ? fmt::format(", {} skipped", skipped) : "";
  const double allowed = g.options.max_regression_pct;
  switch (g.status) {
    case GateStatus::unusable: return "gate: UNUSABLE INPUT (exit 2)";
    case GateStatus::fail: {
      std::size_t test_failed = 0;
      for (auto& m : g.metrics) test_failed += m.regressed() && !g.comparison.metrics[m.index].cand_failed.empty();
      const std::string of_failed_test =
          test_failed ? fmt::format(", {} from a test that failed in cand", test_failed) : "";
      return fmt::format("gate: FAILED, {} of {} gated metrics regressed significantly by more than {}%{}{} (exit 1)",
                         g.failures() - test_failed, g.judged(), allowed, of_failed_test, skipped_text);
    }
    case GateStatus::inconclusive: {
      std::size_t most = 0;
      for (auto& m : g.metrics)
        if (m.undecided() && m.decision.units_to_decide) most = std::max(most, *m.decision.units_to_decide);
      return fmt::format("gate: INCONCLUSIVE, a regression of {}% or more is neither shown nor excluded in {} of {} "
                         "gated metrics{}{} (exit 3)",
                         allowed, g.undecided(), g.judged(),
                         most ? fmt::format("; about {} units a side would decide them", most) : "", skipped_text);
    }
    case GateStatus::pass: break;
  }
  const std::string excluded = excluded_text(g);
  if (g.options.within_noise())
    return fmt::format("gate: PASSED, {} in {} gated metrics, within the allowed {}%{} (exit 0)", excluded, g.judged(),
                       allowed, skipped_text);
  return fmt::format("gate: PASSED, no significant regression beyond {}% in {} gated metrics{}{} (exit 0)", allowed,
                     g.judged(), excluded.empty() ? "" : "; " + excluded, skipped_text);
}

// The gate's word for a metric in its table.
std::string outcome_word(const GateResult& g, const GateMetric& m) {
  if (m.regressed()) return "FAIL";
  if (m.skipped()) return "skipped";
  if (m.undecided()) return "INCONCLUSIVE";
  const MetricComparison& mc = g.comparison.metrics[m.index];
  if (!(mc.p_holm < g.options.alpha)) return "pass ~";
  return mc.verdict == stats::Verdict::faster ? "pass, better" : "pass, worse";
}

// A test case per gated metric; an error case per input problem.
std::vector<JunitSuite> gate_junit(const GateResult& g) {
  const auto& c = g.comparison;
  JunitSuite suite;
  suite.name = fmt::format("kvmbench gate: {} vs {}", c.cand.label, c.base.label);
  auto prop = [&](const std::string& k, const std::string& v) { suite.properties.emplace_back(k, v); };
  prop("source", c.source_label());
  prop("base", c.base.label);
  prop("cand", c.cand.label);
  prop("alpha", fmt::format("{}", g.options.alpha));
  prop("max_regression_pct", fmt::format("{}", g.options.max_regression_pct));
  for (auto& d : c.meta_differences) prop("differs." + d.key, d.base + " -> " + d.cand);
  if (g.status == GateStatus::unusable)
    for (std::size_t i = 0; i < g.problems.size(); ++i)
      suite.cases.push_back({"kvmbench.gate", fmt::format("input check {}", i + 1), JunitCase::Result::error,
                             "unusable input", g.problems[i], ""});
  for (auto& gm : g.metrics) {
    if (!gated(g, gm)) continue;  // never gated: no test case, not a skipped one
    const auto& m = c.metrics[gm.index];
    JunitCase jc;
    jc.classname = "kvmbench.gate." + m.key.where();
    jc.name = m.key.metric;
    std::string change = fmt::format("{}: change {} {}", m.key.name(), format_pct(m.change.pct), format_ci(m.change));
    if (gm.regressed()) {
      jc.result = JunitCase::Result::failure;
      jc.type = m.cand_failed.empty() ? "regression" : "test failed";
      jc.message = change + "; " + gm.message;
    } else if (gm.undecided()) {
      jc.result = JunitCase::Result::failure;
      jc.type = "inconclusive";
      jc.message = change + "; " + gm.message;
    } else if (gm.skipped()) {
      jc.result = JunitCase::Result::skipped;
      jc.message = gm.message;
    }
    const ReadingScale scale = row_scale(m);
    jc.system_out = fmt::format("{}\n{}\nbase: {}\ncand: {}\nverdict: {}", gm.message, change,
                                format_mean_sd(m.base, m.in_base, scale) + " " + scale.unit,
                                format_mean_sd(m.cand, m.in_cand, scale) + " " + scale.unit,
                                stats::to_string(m.verdict));
    suite.cases.push_back(std::move(jc));
  }
  return {std::move(suite)};
}

// The gate's data for programs: its outcome, each gated metric's, and the
// comparison under it.
nlohmann::json gate_json(const GateResult& g) {
  auto status = [&] {
    switch (g.status) {
      case GateStatus::pass: return "pass";
      case GateStatus::fail: return "fail";
      case GateStatus::inconclusive: return "inconclusive";
      case GateStatus::unusable: break;
    }
    return "unusable";
  };
  // NaN and inf are no JSON numbers: null where a figure does not exist.
  auto figure = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json j = {{"status", status()},
                      {"headline", headline(g)},
                      {"alpha", g.options.alpha},
                      {"max_regression_pct", g.options.max_regression_pct},
                      {"decision", g.options.within_noise() ? "within_noise" : "significance"},
                      {"excluded_level", figure(g.bound_level)},
                      {"problems", g.problems}};
  j["metrics"] = nlohmann::json::array();
  for (auto& m : g.metrics) {
    if (!gated(g, m)) continue;
    nlohmann::json jm = {{"key", g.comparison.metrics[m.index].key.name()},
                         {"outcome", m.regressed() ? "fail" : m.skipped() ? "skipped" : m.undecided() ? "inconclusive" : "pass"},
                         {"message", m.message}};
    if (!m.decision.key.empty()) {
      jm["excluded_beyond_pct"] = figure(m.decision.excluded_beyond_pct);
      jm["nothing_excluded"] = says_nothing(m.decision.excluded_beyond_pct, g.comparison.metrics[m.index].direction);
      jm["mde_80_pct"] = figure(m.decision.detectable_80_pct);
      jm["mde_95_pct"] = figure(m.decision.detectable_95_pct);
      jm["finding"] = std::string(to_string(m.decision.finding));
      if (m.decision.units_to_decide) jm["units_to_decide"] = *m.decision.units_to_decide;
    }
    j["metrics"].push_back(std::move(jm));
  }
  j["comparison"] = comparison_to_json(g.comparison);
  return j;
}

}  // namespace

std::string verdict_exclusion(const GateResult& g, std::string_view units) {
  if (g.status == GateStatus::inconclusive) {
    std::string names;
    std::size_t most = 0;
    for (const auto& m : g.metrics) {
      if (!m.undecided()) continue;
      names += (names.empty() ? "" : ", ") + g.comparison.metrics[m.index].key.name();
      if (m.decision.units_to_decide) most = std::max(most, *m.decision.units_to_decide);
    }
    return fmt::format(": {} neither shown nor excluded{}", names,
                       most ? fmt::format("; about {} {} a side would decide it", most, units) : "");
  }
  if (g.status != GateStatus::pass) return "";
  const double x = g.largest_bound_pct();
  if (std::isnan(x)) return "";
  if (std::isinf(x)) return ": no regression is excluded (too few boots or too wide a spread)";
  return fmt::format(": a regression beyond {} is excluded ({})", format_pct(x), format_level(g.bound_level));
}

Document gate_document(const GateResult& g) {
  const Comparison& c = g.comparison;
  Document d;
  d.title = "kvmbench gate: " + c.cand.label + " vs " + c.base.label;
  d.lead.push_back(headline(g));
  d.junit_name = "kvmbench gate";
  d.junit = gate_junit(g);
  d.data = gate_json(g);
  // Input that never loaded has no source to speak of.
  const bool loaded = !c.metrics.empty();
  if (loaded) d.source = c.source_label();
  if (const std::string banner = source_banner(c); loaded && !banner.empty()) d.lead.push_back(banner);
  if (g.status == GateStatus::unusable) {
    for (auto& p : g.problems) d.lead.push_back("  - " + p);
    for (auto& m : g.metrics)
      if (gated(g, m)) d.lead.push_back(fmt::format("  {}: {}", c.metrics[m.index].key.name(), m.message));
    return d;
  }
  for (auto& l : comparison_context(c)) d.lead.push_back(l);
  d.lead.push_back("");
  // The gated metrics grouped by metric name, one line each: what a
  // reviewer scans.
  std::vector<std::string> metric_order;
  for (auto& m : g.metrics) {
    const std::string& name = c.metrics[m.index].key.metric;
    if (gated(g, m) && std::find(metric_order.begin(), metric_order.end(), name) == metric_order.end())
      metric_order.push_back(name);
  }
  for (const std::string& name : metric_order) {
    Table part;
    part.max_text_rows = 0;
    part.source = c.source_label();
    part.columns = {{"case", Align::left},
                    {"key", Align::left, Readers::programs},
                    {"change", Align::right, Readers::all, "change_pct"},
                    {"CI (%)", Align::right, Readers::all, "change_ci"},
                    {"p(Holm)", Align::right, Readers::all, "p_holm"},
                    {"excl. >", Align::right, Readers::all, "excluded_beyond_pct"},
                    {"MDE80", Align::right, Readers::programs, "mde_80_pct"},
                    {"gate", Align::left},
                    {"message", Align::left, Readers::programs}};
    std::string unit;
    for (auto& m : g.metrics) {
      const MetricComparison& mc = c.metrics[m.index];
      if (!gated(g, m) || mc.key.metric != name) continue;
      if (unit.empty()) unit = row_scale(mc).unit;
      const std::string where = mc.key.where().empty() ? mc.key.name() : mc.key.where();
      Cell change = std::isfinite(mc.change.pct) ? Cell::number(mc.change.pct, "", fmt::format("{:+.1f}%", mc.change.pct))
                                                 : Cell("-");
      Cell ci = std::isfinite(mc.change.ci95_low) && std::isfinite(mc.change.ci95_high)
                    ? Cell::interval(mc.change.ci95_low, mc.change.ci95_high, "", format_ci_compact(mc.change))
                    : Cell(format_ci_compact(mc.change));
      Cell p = mc.tested ? Cell::number(mc.p_holm, "", format_p(mc.p_holm)) : Cell("");
      const MetricDecision& dm = m.decision;
      Cell excluded = dm.key.empty() || std::isnan(dm.excluded_beyond_pct) ? Cell("")
                      : says_nothing(dm.excluded_beyond_pct, mc.direction)
                          ? Cell("none")
                          : Cell::number(dm.excluded_beyond_pct, "", format_pct(dm.excluded_beyond_pct));
      Cell mde = dm.key.empty() || !std::isfinite(dm.detectable_80_pct)
                     ? Cell("")
                     : Cell::number(dm.detectable_80_pct, "", format_pct(dm.detectable_80_pct));
      Cell word = outcome_word(g, m);
      if (m.regressed() || m.undecided()) word.tone = Tone::worse;
      part.add_row({where, mc.key.name(), change, ci, p, excluded, mde, word, m.message});
    }
    part.title = unit.empty() ? name : name + " (" + unit + ")";
    d.tables.push_back(std::move(part));
  }
  // Why, for what did not simply pass.
  for (auto& m : g.metrics) {
    if (!gated(g, m)) continue;
    const MetricComparison& mc = c.metrics[m.index];
    if (m.regressed() || m.skipped() || m.undecided() || mc.p_holm < g.options.alpha)
      d.closing.push_back(fmt::format("  {}: {}", mc.key.name(), m.message));
  }
  d.closing.push_back("");
  d.closing.push_back(fmt::format(
      "change: cand / base - 1; CI at Holm's level for the metric's rank; * geometric (Welch and the CI on the "
      "logs); ~ not significant. A metric fails when its Holm-adjusted Welch p < alpha ({}) and the whole CI of "
      "the change lies beyond the allowed regression ({}%). excl. >: a regression beyond it is excluded (one-"
      "sided, at {}: Bonferroni over the gated metrics).{}",
      g.options.alpha, g.options.max_regression_pct,
      std::isnan(g.bound_level) ? std::string("1 - alpha / k") : format_level(g.bound_level),
      g.options.within_noise()
          ? fmt::format(" A metric passes only when that is below {}%; neither is INCONCLUSIVE (exit 3; "
                        "--significance-only passes it as before).",
                        g.options.max_regression_pct)
          : std::string(" Without --max-regression above 0 a metric passes when no regression is shown.")));
  if (const std::string counts = not_gated_counts(g); !counts.empty()) d.closing.push_back("Not gated: " + counts + ".");
  for (auto& n : experimental_unit_notes(c)) d.closing.push_back(n);
  // What the kernel counted, below the verdict: it explains, never decides.
  append_monitors_section(d, c);
  return d;
}

}  // namespace kvmbench
