#include "analysis/views/comparison_lead.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analysis/model/text_wrap.h"
#include "analysis/report/numbers.h"
#include "analysis/verdicts/comparison_bounds.h"

namespace kvmbench {

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
    if (m.verdict == stats::Verdict::slower) slower.push_back(m.key.name());
    if (m.verdict == stats::Verdict::faster) faster.push_back(m.key.name());
    if (m.verdict == stats::Verdict::different) different.push_back(m.key.name());
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

std::string excluded_line(const Comparison& c) {
  std::size_t k = 0, none = 0;
  double bound = -INFINITY, mde80 = -INFINITY, mde95 = -INFINITY;
  bool undetectable = false;
  for (const auto& m : c.metrics) {
    if (std::isnan(m.excluded_beyond_pct)) continue;
    ++k;
    if (says_nothing(m.excluded_beyond_pct, m.direction)) ++none;
    else bound = std::max(bound, m.excluded_beyond_pct);
    if (says_nothing(m.mde_80_pct, m.direction) || says_nothing(m.mde_95_pct, m.direction)) undetectable = true;
    if (std::isfinite(m.mde_80_pct)) mde80 = std::max(mde80, m.mde_80_pct);
    if (std::isfinite(m.mde_95_pct)) mde95 = std::max(mde95, m.mde_95_pct);
  }
  if (k == 0) return "";
  const std::string each = k == 1 ? "" : fmt::format(" for each of {} tested metrics", k);
  std::string line =
      none == k ? fmt::format("excluded: no regression{} (too few units or too wide a spread)", each)
      : none    ? fmt::format("a regression beyond {} is excluded for {} of {} tested metrics ({}), none for the "
                              "other {}",
                              format_pct(bound), k - none, k, format_level(c.bound_level), none)
                : fmt::format("a regression beyond {} is excluded{} ({})", format_pct(bound), each,
                              format_level(c.bound_level));
  if (undetectable)
    line += k == 1 ? "; this design detects no regression with 80% power"
                   : "; for some, this design detects no regression with 80% power";
  else if (mde80 >= 1000)  // ten times slower or more: said as a size, not in digits
    line += "; this design detects no regression below +1000% with 80% power";
  else if (std::isfinite(mde80))
    line += fmt::format("; this design detects {} with 80% power, {} with 95%", format_pct(mde80), format_pct(mde95));
  return line;
}

std::string source_banner(const Comparison& c) {
  auto either = [&](Source s) { return c.base.source == s || c.cand.source == s; };
  if (either(Source::model)) return "MODEL: figures computed by a model, not measured: no performance verdict";
  if (either(Source::emulated)) return "EMULATED: measured in the emulated lab (TCG): a functional check, not performance";
  if (either(Source::replay)) return "REPLAY: figures read from published output, not measured on this machine";
  return "";
}

std::string configuration_line(const MetaDifference& d) {
  std::string line = fmt::format("  {}: {} -> {}", d.key, d.base, d.cand);
  if (line.size() <= 80) return line;
  const std::size_t fixed = 2 + d.key.size() + 2 + 4;
  const std::size_t each = fixed + 2 * 8 <= 80 ? (80 - fixed) / 2 : 8;
  auto cut = [each](const std::string& v) { return v.size() <= each ? v : v.substr(0, each - 3) + "..."; };
  return fmt::format("  {}: {} -> {}", d.key, cut(d.base), cut(d.cand));
}

namespace {

// "lab7, AMD EPYC 9654, 192 CPUs [8f07002788f45435]"
std::string machine_text(const ComparedSide& s) {
  const std::string line = s.machine_line.empty() ? "(not recorded)" : s.machine_line;
  return s.machine.known() ? line + " [" + s.machine.fingerprint + "]" : line;
}

// What the user named, by the names of its runs or files: the last part
// of each path ("directmap-20261201T131037Z-lab7", not the directory it
// was copied to), a comma and a space apart. The label whole is in JSON.
std::string run_names(const std::string& label) {
  std::string out;
  for (std::size_t at = 0; at <= label.size();) {
    std::size_t end = label.find(',', at);
    if (end == std::string::npos) end = label.size();
    std::filesystem::path p = std::filesystem::path(label.substr(at, end - at)).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    out += (out.empty() ? "" : ", ") + (p.filename().empty() ? p.string() : p.filename().string());
    at = end + 1;
  }
  return out;
}

// "base: directmap-20261201T131037Z-lab7 (kernel 6.12.0, run interrupted)":
// the side's runs, the kernel they ran, a run that did not complete.
std::string side_line(const char* which, const ComparedSide& s) {
  const std::string label = run_names(s.label);
  std::vector<std::string> about;
  if (!s.kernel.empty()) about.push_back("kernel " + s.kernel);
  if (!s.status.empty() && s.status != "complete") about.push_back("run " + s.status);
  return fmt::format("{}: {}{}", which, label, about.empty() ? "" : fmt::format(" ({})", fmt::join(about, ", ")));
}

}  // namespace

std::vector<std::string> comparison_context(const Comparison& c) {
  std::vector<std::string> out;
  const ComparedSide& named = c.base.suite.empty() ? c.cand : c.base;
  if (!named.suite.empty())
    out.push_back("suite: " + named.suite + (named.preset.empty() ? "" : " --preset " + named.preset));
  if (c.one_machine()) {
    out.push_back("machine: " + machine_text(c.base));
  } else {
    out.push_back("base machine: " + machine_text(c.base));
    out.push_back("cand machine: " + machine_text(c.cand));
    out.push_back("  (two machines: a change below is not the patch's alone)");
  }
  out.push_back(side_line("base", c.base));
  out.push_back(side_line("cand", c.cand));
  if (c.base_host_recorded && c.cand_host_recorded) {
    if (c.meta_differences.empty()) {
      out.push_back("configuration: the same (kernel, firmware, KVM, THP, SMT, QEMU, parameters)");
    } else {
      out.push_back("configuration that differs (base -> cand):");
      for (auto& d : c.meta_differences) out.push_back(configuration_line(d));
    }
    return out;
  }
  // Published output: what its files say, nothing more.
  if (!c.meta_differences.empty()) {
    out.push_back("configuration that differs (base -> cand):");
    for (auto& d : c.meta_differences) out.push_back(configuration_line(d));
  }
  std::vector<std::string> alike;
  for (auto& d : c.meta_alike)
    if (d.key.starts_with("context.") || d.key.starts_with("host.") || d.key.starts_with("parameters."))
      alike.push_back(fmt::format("{} {}", d.key.starts_with("context.") ? d.key.substr(8) : d.key, d.base));
  if (!alike.empty())
    for (auto& l : wrap_lines(fmt::format("configuration alike as {} say: {}",
                                          c.meta_differences.empty() ? "both sides" : "both sides also",
                                          fmt::join(alike, ", ")),
                              "", 80, "  "))
      out.push_back(l);
  const char* whose = !c.base_host_recorded && !c.cand_host_recorded ? "base's and cand's"
                      : !c.base_host_recorded                         ? "base's"
                                                                      : "cand's";
  for (auto& l : wrap_lines(fmt::format("configuration unknown: {} kernel, firmware, KVM, THP, SMT, QEMU (published "
                                        "output: kvmbench never saw its host){}",
                                        whose, c.meta_differences.empty() && alike.empty() ? "; nothing is known to differ or to be alike" : ""),
                            "", 80, "  "))
    out.push_back(l);
  return out;
}

}  // namespace kvmbench
