#include "analysis/gate_report.h"

#include <fmt/format.h>

#include "analysis/compare_render.h"

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

static std::string headline(const GateResult& g) {
  std::size_t derived = 0, secondary = 0;
  for (auto& m : g.metrics) {
    derived += g.comparison.metrics[m.index].status == MetricStatus::derived;
    secondary += g.comparison.metrics[m.index].status == MetricStatus::secondary;
  }
  std::string skipped = derived ? fmt::format(", {} derived (shown, not gated)", derived) : "";
  if (secondary) skipped += fmt::format(", {} not primary (shown, not gated)", secondary);
  if (g.skipped() > derived + secondary) skipped += fmt::format(", {} skipped", g.skipped() - derived - secondary);
  switch (g.status) {
    case GateStatus::unusable: return "gate: UNUSABLE INPUT (exit 2)";
    case GateStatus::fail:
      return fmt::format("gate: FAILED, {} of {} gated metrics regressed significantly by more than {}%{} (exit 1)",
                         g.failures(), g.judged(), g.options.max_regression_pct, skipped);
    case GateStatus::pass: break;
  }
  return fmt::format("gate: PASSED, no significant regression beyond {}% in {} gated metrics{} (exit 0)",
                     g.options.max_regression_pct, g.judged(), skipped);
}

std::string render_gate_text(const GateResult& g) {
  std::string out;
  if (g.status == GateStatus::unusable) {
    out += headline(g) + "\n";
    for (auto& p : g.problems) out += "  - " + p + "\n";
    for (auto& m : g.metrics)
      out += fmt::format("  #{} {}: {}\n", m.index + 1, g.comparison.metrics[m.index].key, m.message);
    return out;
  }
  out += render_comparison_text(g.comparison) + "\n";
  out += "Gate, per metric:\n";
  for (auto& m : g.metrics) out += fmt::format("  #{} {}\n", m.index + 1, m.message);
  out += headline(g) + "\n";
  return out;
}

std::string render_gate_junit(const GateResult& g) {
  const auto& c = g.comparison;
  const bool unusable = g.status == GateStatus::unusable;
  std::size_t tests = (unusable ? g.problems.size() : 0) + g.metrics.size();
  std::size_t failures = g.failures(), errors = unusable ? g.problems.size() : 0, skipped = g.skipped();
  std::string suite = fmt::format("kvmbench gate: {} vs {}", c.cand_label, c.base_label);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"kvmbench gate\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                     tests, failures, errors, skipped);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                     xml_escape(suite), tests, failures, errors, skipped);
  out += "    <properties>\n";
  auto prop = [&](const std::string& k, const std::string& v) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(k), xml_escape(v));
  };
  prop("source", c.source_label());
  prop("base", c.base_label);
  prop("cand", c.cand_label);
  prop("alpha", fmt::format("{}", g.options.alpha));
  prop("max_regression_pct", fmt::format("{}", g.options.max_regression_pct));
  for (auto& d : c.meta_differences) prop("differs." + d.key, d.base + " -> " + d.cand);
  out += "    </properties>\n";
  if (unusable) {
    for (std::size_t i = 0; i < g.problems.size(); ++i) {
      out += fmt::format("    <testcase classname=\"kvmbench.gate\" name=\"input check {}\">\n", i + 1);
      out += fmt::format("      <error message=\"{}\" type=\"unusable input\"/>\n", xml_escape(g.problems[i]));
      out += "    </testcase>\n";
    }
  }
  for (auto& gm : g.metrics) {
    const auto& m = c.metrics[gm.index];
    std::string cls = "kvmbench.gate." + m.case_name + (m.variant.empty() ? "" : "/" + m.variant);
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", xml_escape(cls), xml_escape(m.metric));
    std::string change = fmt::format("{}: change {} {}", m.key, format_pct(m.change.pct), format_ci(m.change));
    if (gm.regressed())
      out += fmt::format("      <failure message=\"{}\" type=\"regression\"/>\n", xml_escape(change + "; " + gm.message));
    else if (gm.skipped())
      out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(gm.message));
    out += fmt::format("      <system-out>{}\n{}\nbase: {}\ncand: {}\nverdict: {}</system-out>\n", xml_escape(gm.message),
                       xml_escape(change), xml_escape(format_mean_sd(m.base, m.in_base) + " " + m.unit),
                       xml_escape(format_mean_sd(m.cand, m.in_cand) + " " + m.unit),
                       xml_escape(std::string(stats::to_string(m.verdict))));
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

static std::string md_cell(std::string_view s) {
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
  out += fmt::format("### {} kvmbench {}\n\n", icon, md_cell(headline(g)));
  out += fmt::format("base `{}` · cand `{}` · source **{}** · alpha {} (Holm) · allowed regression {}%\n\n",
                     md_cell(c.base_label), md_cell(c.cand_label), c.source_label(), g.options.alpha,
                     g.options.max_regression_pct);
  for (auto& p : g.problems) out += "- " + md_cell(p) + "\n";
  if (!g.problems.empty()) out += "\n";
  if (g.metrics.empty()) return out;
  if (!c.meta_differences.empty()) {
    out += "<details><summary>Metadata that differs</summary>\n\n| key | base | cand |\n|:---|:---|:---|\n";
    for (auto& d : c.meta_differences)
      out += fmt::format("| `{}` | {} | {} |\n", md_cell(d.key), md_cell(d.base), md_cell(d.cand));
    out += "\n</details>\n\n";
  }
  out += "| | metric | base | cand | change | 95% CI | p (Holm) | gate |\n";
  out += "|:-:|:---|---:|---:|---:|---:|---:|:---|\n";
  for (auto& gm : g.metrics) {
    const auto& m = c.metrics[gm.index];
    const char* mark = gm.regressed() ? "❌" : gm.skipped() ? "➖" : "✅";
    out += fmt::format("| {} | `{}` ({}) | {} | {} | {} | {} | {} | {} |\n", mark, md_cell(m.key), md_cell(m.unit),
                       md_cell(format_mean_sd(m.base, m.in_base)), md_cell(format_mean_sd(m.cand, m.in_cand)),
                       format_pct(m.change.pct), format_ci(m.change), format_p(m.p_holm), md_cell(gm.message));
  }
  out += "\nA metric fails when its Holm-adjusted Welch p < alpha and the whole 95% CI of the change "
         "lies beyond the allowed regression; ➖ marks a metric that was skipped, with the reason.\n";
  for (auto& n : experimental_unit_notes(c)) out += "\n" + md_cell(n) + "\n";
  return out;
}

}  // namespace kvmbench
