#include "analysis/report/render/gate_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/report/render/compare_render.h"
#include "analysis/report/render/junit_xml.h"
#include "analysis/report/table.h"

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

std::string render_gate_text(const GateResult& g) {
  std::string out = headline(g) + "\n";
  // Input that never loaded has no source to speak of.
  const bool loaded = !g.comparison.metrics.empty();
  if (const std::string banner = source_banner(g.comparison); loaded && !banner.empty()) out += banner + "\n";
  if (g.status == GateStatus::unusable) {
    for (auto& p : g.problems) out += "  - " + p + "\n";
    for (auto& m : g.metrics)
      if (gated(g, m)) out += fmt::format("  {}: {}\n", g.comparison.metrics[m.index].key, m.message);
    return out;
  }
  out += render_comparison_header_text(g.comparison) + "\n";
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
  std::string rows;
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
    rows += render_text(part);
  }
  out += rows;
  // Why, for what did not simply pass.
  for (auto& m : g.metrics) {
    if (!gated(g, m)) continue;
    const MetricComparison& mc = g.comparison.metrics[m.index];
    if (m.regressed() || m.skipped() || mc.p_holm < g.options.alpha) out += fmt::format("  {}: {}\n", mc.key, m.message);
  }
  out += "\nchange: cand / base - 1; CI at Holm's level for the metric's rank; * geometric\n"
         "(Welch and the CI on the logs); ~ not significant.\n";
  if (const std::string counts = not_gated_counts(g); !counts.empty()) out += "Not gated: " + counts + ".\n";
  return out;
}

std::string render_gate_junit(const GateResult& g) {
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
  return render_junit("kvmbench gate", {suite});
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

std::string render_gate_markdown(const GateResult& g) {
  const auto& c = g.comparison;
  std::string out;
  const char* icon = g.status == GateStatus::pass ? "✅" : g.status == GateStatus::fail ? "❌" : "⚠️";
  out += fmt::format("### {} kvmbench {}\n\n", icon, markdown_cell(headline(g)));
  out += fmt::format("base `{}` · cand `{}` · source **{}** · alpha {} (Holm) · allowed regression {}%\n\n",
                     markdown_cell(c.base_label), markdown_cell(c.cand_label), c.source_label(), g.options.alpha,
                     g.options.max_regression_pct);
  for (auto& p : g.problems) out += "- " + markdown_cell(p) + "\n";
  if (!g.problems.empty()) out += "\n";
  if (g.metrics.empty()) return out;
  if (!c.meta_differences.empty()) {
    out += "<details><summary>Configuration that differs</summary>\n\n| key | base | cand |\n|:---|:---|:---|\n";
    for (auto& d : c.meta_differences)
      out += fmt::format("| `{}` | {} | {} |\n", markdown_cell(d.key), markdown_cell(d.base), markdown_cell(d.cand));
    out += "\n</details>\n\n";
  }
  out += "| | metric | base | cand | change | CI | p (Holm) | gate |\n";
  out += "|:-:|:---|---:|---:|---:|---:|---:|:---|\n";
  for (auto& gm : g.metrics) {
    if (!gated(g, gm)) continue;
    const auto& m = c.metrics[gm.index];
    const char* mark = gm.regressed() ? "❌" : gm.skipped() ? "➖" : "✅";
    const ReadingScale scale = row_scale(m);
    out += fmt::format("| {} | `{}` ({}) | {} | {} | {} | {} | {} | {} |\n", mark, markdown_cell(m.key), markdown_cell(scale.unit),
                       markdown_cell(format_mean_sd(m.base, m.in_base, scale)), markdown_cell(format_mean_sd(m.cand, m.in_cand, scale)),
                       format_pct(m.change.pct), format_ci(m.change), format_p(m.p_holm), markdown_cell(gm.message));
  }
  out += "\nA metric fails when its Holm-adjusted Welch p < alpha and the whole CI of the change (at Holm's level "
         "for the metric's rank; on the logs, geometric, where the values are positive) lies beyond the allowed "
         "regression; ➖ marks a metric that was skipped, with the reason.\n";
  if (const std::string counts = not_gated_counts(g); !counts.empty())
    out += "\nNot gated: " + markdown_cell(counts) + ".\n";
  for (auto& n : experimental_unit_notes(c)) out += "\n" + markdown_cell(n) + "\n";
  return out;
}

}  // namespace kvmbench
