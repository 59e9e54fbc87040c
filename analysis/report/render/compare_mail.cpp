#include "analysis/report/render/compare_mail.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analysis/report/render/compare_render.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/report/numbers.h"

namespace kvmbench {

namespace {

// The columns of a metric's row; the header and the rows share it.
std::string row(const std::string& base, const std::string& base_sd, const std::string& change,
                const std::string& cand, const std::string& cand_sd, const std::string& ci, const std::string& p,
                const std::string& verdict) {
  std::string line =
      fmt::format("{:>9}{:>8}{:>9}  {:>9}{:>8}  {:>13}  {:>7}  {}", base, base_sd, change, cand, cand_sd, ci, p, verdict);
  line.erase(line.find_last_not_of(' ') + 1);
  return line;
}

std::string text_of(const nlohmann::json& meta, const char* group, const char* key) {
  const auto g = meta.find("host");
  if (g == meta.end() || !g->is_object()) return "";
  const auto sub = g->find(group);
  if (sub == g->end() || !sub->is_object()) return "";
  const auto v = sub->find(key);
  if (v == sub->end()) return "";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

// "vm, AMD EPYC, 2 CPUs"
std::string machine_text(const nlohmann::json& meta) {
  std::string out = meta.value("hostname", "");
  const std::string cpu = text_of(meta, "cpu", "model_name");
  if (!cpu.empty()) out += (out.empty() ? "" : ", ") + cpu;
  const std::string threads = text_of(meta, "topology", "threads");
  if (!threads.empty()) out += fmt::format("{}{} CPUs", out.empty() ? "" : ", ", threads);
  return out.empty() ? "(not recorded)" : out;
}

std::string kernel_text(const nlohmann::json& meta) {
  const std::string release = text_of(meta, "kernel", "release");
  return release.empty() ? "kernel not recorded" : "kernel " + release;
}

std::string run_name(const std::string& label) {
  const std::filesystem::path p(label);
  const std::string name = p.filename().string();
  return name.empty() ? label : name;
}

std::string percent_sd(const RowCenter& r) {
  if (!std::isfinite(r.spread_pct)) return "";
  return fmt::format("±{:.0f}%", r.spread_pct);
}

// The last column: the verdict of a tested metric, else why there is none.
std::string verdict_column(const MetricComparison& m) {
  switch (m.status) {
    case MetricStatus::tested: break;
    case MetricStatus::derived: return "derived";
    case MetricStatus::secondary: return "secondary";
    case MetricStatus::one_side: return "one side";
    case MetricStatus::change_only:
    case MetricStatus::not_comparable: return "-";
  }
  switch (m.verdict) {
    case stats::Verdict::faster: return "faster";
    case stats::Verdict::slower: return "slower";
    case stats::Verdict::different: return "different";
    case stats::Verdict::no_significant_difference: return "~";
    case stats::Verdict::not_enough_data: return "-";
  }
  return "";
}

}  // namespace

Document comparison_mail_document(const Comparison& c, const nlohmann::json& base_meta,
                                  const nlohmann::json& cand_meta, bool all) {
  std::string out;
  const std::string suite = base_meta.value("suite", "");
  const std::string preset = base_meta.value("preset", "");
  out += fmt::format("kvmbench compare{}{} ({})\n", suite.empty() ? "" : ": " + suite,
                     preset.empty() ? "" : " --preset " + preset, c.source_label());
  out += verdict_line(c) + "\n";
  if (const std::string banner = source_banner(c); !banner.empty()) out += banner + "\n";
  const MachineIdentity base_machine = machine_identity(base_meta), cand_machine = machine_identity(cand_meta);
  if (base_machine.fingerprint == cand_machine.fingerprint) {
    out += fmt::format("machine: {}{}\n", machine_text(base_meta),
                       base_machine.known() ? " [" + base_machine.fingerprint + "]" : "");
  } else {
    out += fmt::format("base machine: {} [{}]\n", machine_text(base_meta), base_machine.fingerprint);
    out += fmt::format("cand machine: {} [{}]\n", machine_text(cand_meta), cand_machine.fingerprint);
    out += "  (two machines: a change below is not the patch's alone)\n";
  }
  out += fmt::format("base: {} ({})\n", run_name(c.base_label), kernel_text(base_meta));
  out += fmt::format("cand: {} ({})\n", run_name(c.cand_label), kernel_text(cand_meta));
  if (!c.meta_differences.empty()) {
    out += "configuration that differs (base -> cand):\n";
    for (const MetaDifference& d : c.meta_differences) out += configuration_line(d) + "\n";
  }

  out += "\n" + row("base", "%stddev", "%change", "cand", "%stddev", "CI (%)", "p(Holm)", "verdict") + "\n";
  out += row("---------", "-------", "--------", "---------", "-------", "-------------", "-------", "---------") + "\n";
  std::size_t shown = 0;
  for (const MetricComparison& m : c.metrics) {
    if (m.status == MetricStatus::not_comparable || !(all || shown_by_default(m))) continue;
    ++shown;
    const double typical = std::max(m.in_base ? std::fabs(m.base.mean) : 0.0, m.in_cand ? std::fabs(m.cand.mean) : 0.0);
    const ReadingScale scale = reading_scale(typical, m.unit);
    std::string what = m.case_name;
    if (!m.variant.empty()) what += (what.empty() ? "" : "/") + m.variant;
    what += (what.empty() ? "" : "  ") + m.metric + (scale.unit.empty() ? "" : " (" + scale.unit + ")");
    out += what + "\n";
    const RowCenter b = row_center(m, true), a = row_center(m, false);
    out += row(m.in_base ? format_reading(b.mean * scale.factor) : "-", percent_sd(b),
               std::isfinite(m.change.pct) ? fmt::format("{:+.1f}%", m.change.pct) : "",
               m.in_cand ? format_reading(a.mean * scale.factor) : "-", percent_sd(a), format_ci_compact(m.change),
               m.tested ? format_p(m.p_holm) : "", verdict_column(m)) +
           "\n";
  }
  if (shown == 0) out += "(no metric both runs measured)\n";
  // A test that failed: its figures are in no row above.
  for (auto [side, list] : {std::pair{"base", &c.base_failed_tests}, std::pair{"cand", &c.cand_failed_tests}})
    for (const FailedTest& f : *list) {
      std::string line = fmt::format("{}: {} FAILED ({}): not compared", side, f.test.empty() ? "a test" : f.test,
                                     f.reason);
      if (line.size() > 80) line = line.substr(0, 62) + "...): not compared";
      out += line + "\n";
    }
  Document d;
  d.source = c.source_label();
  d.lead = text_lines(out);
  out.clear();
  bool any_fallback = false, any_geometric = false;
  for (const MetricComparison& m : c.metrics) {
    if (m.status == MetricStatus::not_comparable || !(all || shown_by_default(m)) || !m.change.log_scale) continue;
    (m.change.geometric ? any_geometric : any_fallback) = true;
  }
  // Several runs a side: each run is a unit, the mean of its repetitions.
  const bool runs_are_units = c.base_invocations > 1 && c.cand_invocations > 1;
  out += fmt::format("\n~ no significant difference; - too few repetitions for a test; derived: a\n"
                     "transform of a tested metric. alpha {}, Holm over {} tested metric{}, each\n"
                     "CI at Holm's level for the metric's rank (95% if not tested);\n"
                     "{} ({}, {}).\n",
                     c.alpha, c.tested_count(), c.tested_count() == 1 ? "" : "s",
                     runs_are_units ? "each run is a unit, the mean of its repetitions" : "the repetition is the unit",
                     c.base_invocations == 1 ? "base one run" : fmt::format("base {} runs", c.base_invocations),
                     c.cand_invocations == 1 ? "cand one run" : fmt::format("cand {} runs", c.cand_invocations));
  if (any_geometric)
    out += "* on the log scale: geometric means and sd, the ratio of geometric means,\n"
           "  Welch and its CI on the logs.\n";
  if (any_fallback)
    out += fmt::format("{} CI of the ratio on the log scale: the linear one would let a positive\n"
                       "  quantity fall by 100% or more.\n",
                       any_geometric ? "* elsewhere:" : "*");
  if (const std::string hidden = hidden_rows_line(c, all); !hidden.empty()) out += hidden + ".\n";
  d.closing = text_lines(out);
  return d;
}

}  // namespace kvmbench
