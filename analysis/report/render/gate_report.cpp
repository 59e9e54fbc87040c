#include "analysis/report/render/gate_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/report/render/compare_render.h"
#include "analysis/report/render/junit_xml.h"
#include "analysis/report/table.h"
#include "analysis/report/render/renderer.h"

namespace kvmbench {

std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (unsigned char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      case '\t': case '\n': case '\r': o += static_cast<char>(ch); break;
      default:
        // XML 1.0 has no way to write other C0 controls, not even escaped.
        if (ch < 0x20) o += "?";
        else o += static_cast<char>(ch);
    }
  }
  return o;
}

// Whether a metric is one the gate is about: derived and secondary ones are
// never gated, and are counted, not listed.
static bool gated(const GateResult& g, const GateMetric& m) {
  const MetricStatus s = g.comparison.metrics[m.index].status;
  return s != MetricStatus::derived && s != MetricStatus::secondary;
}

// "24 derived (gated through their primary metric), 24 secondary (--metrics
// gates them)"; "" when there is none.
static std::string not_gated_counts(const GateResult& g) {
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

static std::string headline(const GateResult& g) {
  std::size_t skipped = 0;
  for (auto& m : g.metrics) skipped += m.skipped() && gated(g, m);
  const std::string skipped_text = skipped ? fmt::format(", {} skipped", skipped) : "";
  switch (g.status) {
    case GateStatus::unusable: return "gate: UNUSABLE INPUT (exit 2)";
    case GateStatus::fail: {
      std::size_t test_failed = 0;
      for (auto& m : g.metrics) test_failed += m.regressed() && !g.comparison.metrics[m.index].cand_failed.empty();
      const std::string of_failed_test =
          test_failed ? fmt::format(", {} from a test that failed in cand", test_failed) : "";
      return fmt::format("gate: FAILED, {} of {} gated metrics regressed significantly by more than {}%{}{} (exit 1)",
                         g.failures() - test_failed, g.judged(), g.options.max_regression_pct, of_failed_test,
                         skipped_text);
    }
    case GateStatus::pass: break;
  }
  return fmt::format("gate: PASSED, no significant regression beyond {}% in {} gated metrics{} (exit 0)",
                     g.options.max_regression_pct, g.judged(), skipped_text);
}

// The gate's word for a metric in its table.
static std::string outcome_word(const GateResult& g, const GateMetric& m) {
  if (m.regressed()) return "FAIL";
  if (m.skipped()) return "skipped";
  const MetricComparison& mc = g.comparison.metrics[m.index];
  if (!(mc.p_holm < g.options.alpha)) return "pass ~";
  return mc.verdict == stats::Verdict::faster ? "pass, better" : "pass, worse";
}

static Document gate_text_document(const GateResult& g) {
  Document d;
  d.title = "kvmbench gate: " + g.comparison.cand_label + " vs " + g.comparison.base_label;
  d.lead.push_back(headline(g));
  // Input that never loaded has no source to speak of.
  const bool loaded = !g.comparison.metrics.empty();
  if (loaded) d.source = g.comparison.source_label();
  if (const std::string banner = source_banner(g.comparison); loaded && !banner.empty()) d.lead.push_back(banner);
  if (g.status == GateStatus::unusable) {
    for (auto& p : g.problems) d.lead.push_back("  - " + p);
    for (auto& m : g.metrics)
      if (gated(g, m)) d.lead.push_back(fmt::format("  {}: {}", g.comparison.metrics[m.index].key, m.message));
    return d;
  }
  for (auto& l : comparison_header_lines(g.comparison)) d.lead.push_back(l);
  d.lead.push_back("");
  // The gated metrics grouped by metric name, one line each (two where the
  // case name is long): what a reviewer scans.
  Table t;
  t.max_text_rows = 0;
  t.columns = {{"case", Align::left}, {"change"}, {"CI (%)"}, {"p(Holm)"}, {"gate", Align::left}};
  std::vector<std::string> metric_order;
  for (auto& m : g.metrics) {
    const std::string& name = g.comparison.metrics[m.index].metric;
    if (gated(g, m) && std::find(metric_order.begin(), metric_order.end(), name) == metric_order.end())
      metric_order.push_back(name);
  }
  for (const std::string& name : metric_order) {
    Table part = t;
    for (auto& m : g.metrics) {
      const MetricComparison& mc = g.comparison.metrics[m.index];
      if (!gated(g, m) || mc.metric != name) continue;
      std::string where = mc.case_name + (mc.variant.empty() ? "" : "/" + mc.variant);
      if (where.empty()) where = mc.key;
      part.add_row({where, std::isfinite(mc.change.pct) ? fmt::format("{:+.1f}%", mc.change.pct) : "-",
                    format_ci_compact(mc.change), mc.tested ? format_p(mc.p_holm) : "", outcome_word(g, m)});
    }
    std::string unit;
    for (auto& m : g.metrics)
      if (gated(g, m) && g.comparison.metrics[m.index].metric == name && unit.empty())
        unit = row_scale(g.comparison.metrics[m.index]).unit;
    part.title = unit.empty() ? name : name + " (" + unit + ")";
    d.tables.push_back(std::move(part));
  }
  // Why, for what did not simply pass.
  for (auto& m : g.metrics) {
    if (!gated(g, m)) continue;
    const MetricComparison& mc = g.comparison.metrics[m.index];
    if (m.regressed() || m.skipped() || mc.p_holm < g.options.alpha)
      d.closing.push_back(fmt::format("  {}: {}", mc.key, m.message));
  }
  d.closing.push_back("");
  d.closing.push_back("change: cand / base - 1; CI at Holm's level for the metric's rank; * geometric");
  d.closing.push_back("(Welch and the CI on the logs); ~ not significant.");
  if (const std::string counts = not_gated_counts(g); !counts.empty()) d.closing.push_back("Not gated: " + counts + ".");
  return d;
}

static Document gate_junit_document(const GateResult& g) {
  const auto& c = g.comparison;
  JunitSuite suite;
  suite.name = fmt::format("kvmbench gate: {} vs {}", c.cand_label, c.base_label);
  auto prop = [&](const std::string& k, const std::string& v) { suite.properties.emplace_back(k, v); };
  prop("source", c.source_label());
  prop("base", c.base_label);
  prop("cand", c.cand_label);
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
    jc.classname = "kvmbench.gate." + m.case_name + (m.variant.empty() ? "" : "/" + m.variant);
    jc.name = m.metric;
    std::string change = fmt::format("{}: change {} {}", m.key, format_pct(m.change.pct), format_ci(m.change));
    if (gm.regressed()) {
      jc.result = JunitCase::Result::failure;
      jc.type = m.cand_failed.empty() ? "regression" : "test failed";
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
  Document d;
  d.junit_name = "kvmbench gate";
  d.junit = std::vector<JunitSuite>{std::move(suite)};
  return d;
}

std::string markdown_cell(std::string_view s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += "\\|";
    else if (ch == '\n') o += ' ';
    else o += ch;
  }
  return o;
}

static Document gate_markdown_document(const GateResult& g) {
  const auto& c = g.comparison;
  Document d;
  const char* icon = g.status == GateStatus::pass ? "✅" : g.status == GateStatus::fail ? "❌" : "⚠️";
  d.lead.push_back(fmt::format("### {} kvmbench {}", icon, markdown_cell(headline(g))));
  d.lead.push_back("");
  d.lead.push_back(fmt::format("base `{}` · cand `{}` · source **{}** · alpha {} (Holm) · allowed regression {}%",
                               markdown_cell(c.base_label), markdown_cell(c.cand_label), c.source_label(),
                               g.options.alpha, g.options.max_regression_pct));
  d.lead.push_back("");
  for (auto& p : g.problems) d.lead.push_back("- " + markdown_cell(p));
  if (!g.problems.empty()) d.lead.push_back("");
  if (g.metrics.empty()) return d;
  if (!c.meta_differences.empty()) {
    d.lead.push_back("<details><summary>Configuration that differs</summary>");
    d.lead.push_back("");
    d.lead.push_back("| key | base | cand |");
    d.lead.push_back("|:---|:---|:---|");
    for (auto& m : c.meta_differences)
      d.lead.push_back(
          fmt::format("| `{}` | {} | {} |", markdown_cell(m.key), markdown_cell(m.base), markdown_cell(m.cand)));
    d.lead.push_back("");
    d.lead.push_back("</details>");
    d.lead.push_back("");
  }
  Table t;
  t.max_text_rows = 0;
  t.columns = {{"", Align::left}, {"metric", Align::left}, {"base"}, {"cand"}, {"change"}, {"CI"}, {"p (Holm)"},
               {"gate", Align::left}};
  for (auto& gm : g.metrics) {
    if (!gated(g, gm)) continue;
    const auto& m = c.metrics[gm.index];
    const char* mark = gm.regressed() ? "❌" : gm.skipped() ? "➖" : "✅";
    const ReadingScale scale = row_scale(m);
    t.add_row({mark, fmt::format("`{}` ({})", m.key, scale.unit), format_mean_sd(m.base, m.in_base, scale),
               format_mean_sd(m.cand, m.in_cand, scale), format_pct(m.change.pct), format_ci(m.change),
               format_p(m.p_holm), markdown_cell(gm.message)});
  }
  d.tables.push_back(std::move(t));
  d.closing.push_back(
      "A metric fails when its Holm-adjusted Welch p < alpha and the whole CI of the change (at Holm's level "
      "for the metric's rank; on the logs, geometric, where the values are positive) lies beyond the allowed "
      "regression; ➖ marks a metric that was skipped, with the reason.");
  if (const std::string counts = not_gated_counts(g); !counts.empty()) {
    d.closing.push_back("");
    d.closing.push_back("Not gated: " + markdown_cell(counts) + ".");
  }
  for (auto& n : experimental_unit_notes(c)) {
    d.closing.push_back("");
    d.closing.push_back(markdown_cell(n));
  }
  return d;
}

// The gate's data for programs: its outcome, each gated metric's, and the
// comparison under it.
static nlohmann::json gate_json(const GateResult& g) {
  nlohmann::json j = {{"status", g.status == GateStatus::pass ? "pass" : g.status == GateStatus::fail ? "fail" : "unusable"},
                      {"headline", headline(g)},
                      {"alpha", g.options.alpha},
                      {"max_regression_pct", g.options.max_regression_pct},
                      {"problems", g.problems}};
  j["metrics"] = nlohmann::json::array();
  for (auto& m : g.metrics) {
    if (!gated(g, m)) continue;
    j["metrics"].push_back({{"key", g.comparison.metrics[m.index].key},
                            {"outcome", m.regressed() ? "fail" : m.skipped() ? "skipped" : "pass"},
                            {"message", m.message}});
  }
  j["comparison"] = comparison_to_json(g.comparison);
  return j;
}

Document gate_document(const GateResult& g, Format f) {
  switch (f) {
    case Format::junit: return gate_junit_document(g);
    case Format::md: return gate_markdown_document(g);
    case Format::json: {
      Document d = gate_text_document(g);
      d.data = gate_json(g);
      return d;
    }
    case Format::text:
    case Format::mail:
    case Format::csv:
    case Format::html: break;
  }
  return gate_text_document(g);
}

}  // namespace kvmbench
