#include "analysis/views/monitors_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/report/numbers.h"
#include "analysis/views/comparison_rows.h"

namespace kvmbench {

namespace {

// A side's mean in the row's reading unit and its spread in percent.
std::pair<Cell, Cell> side_cells(const MetricComparison& m, bool base, const ReadingScale& scale) {
  const RowCenter r = row_center(m, base);
  if (!std::isfinite(r.mean)) return {Cell("-"), Cell("")};
  Cell mean = Cell::number(r.mean, "", format_reading(r.mean * scale.factor));
  Cell spread = std::isfinite(r.spread_pct)
                    ? Cell::number(r.spread_pct, "", fmt::format("±{:.{}f}%", r.spread_pct, r.spread_pct < 9.95 ? 1 : 0))
                    : Cell("");
  return {mean, spread};
}

// "vmstat.pgfault, kvm.exits and 3 more": names, at most `shown`.
std::string name_list(const std::vector<std::string>& names, std::size_t shown = 6) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

// A monitor's name as the section shows it: the metric, with its case
// where that is not the repetition's.
std::string monitor_name(const MetricComparison& m) {
  std::string name = m.key.metric;
  if (!m.key.case_name.empty() && m.key.case_name != "repetition") name = m.key.case_name + "/" + name;
  if (!m.key.variant.empty()) name += " [" + m.key.variant + "]";
  return name;
}

}  // namespace

std::vector<std::size_t> changed_monitors(const Comparison& c) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < c.monitors.size(); ++i) {
    const auto& m = c.monitors[i];
    if (m.tested && std::isfinite(m.p_holm) && m.p_holm < c.alpha && std::isfinite(m.change.pct)) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return std::fabs(c.monitors[a].change.pct) > std::fabs(c.monitors[b].change.pct);
  });
  return out;
}

void append_monitors_section(Document& d, const Comparison& c) {
  if (c.monitors.empty()) return;
  std::size_t tested = 0;
  std::vector<std::string> untested;
  // A counter that moved on one side only (the other stores none that did
  // not move: shadow paging's mmu_* under npt=0), with its mean there,
  // largest first: often the explanation itself.
  std::vector<std::pair<double, std::string>> only[2];
  for (const auto& m : c.monitors) {
    if (m.tested) {
      ++tested;
    } else if (m.in_base != m.in_cand) {
      const double mean = row_center(m, m.in_base).mean;
      only[m.in_cand].emplace_back(std::isfinite(mean) ? std::fabs(mean) : 0,
                                   monitor_name(m) + (std::isfinite(mean) ? " " + format_reading(mean) : ""));
    } else {
      untested.push_back(monitor_name(m));
    }
  }
  std::vector<std::string> only_base, only_cand;
  for (int side = 0; side < 2; ++side) {
    std::stable_sort(only[side].begin(), only[side].end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [mean, text] : only[side]) (side ? only_cand : only_base).push_back(text);
  }
  const std::vector<std::size_t> changed = changed_monitors(c);

  Table t;
  t.title = fmt::format("Monitors that changed beyond noise (Welch, Holm over {} monitor{}; alpha {})", tested,
                        tested == 1 ? "" : "s", c.alpha);
  t.source = c.source_label();
  t.max_text_rows = 0;  // chosen below
  t.columns = {{"base", Align::right, Readers::all, "base_mean"},
               {"%stddev", Align::right, Readers::all, "base_sd_pct"},
               {"%change", Align::right, Readers::all, "change_pct"},
               {"cand", Align::right, Readers::all, "cand_mean"},
               {"%stddev", Align::right, Readers::all, "cand_sd_pct"},
               {"monitor", Align::left, Readers::all},
               {"p(Holm)", Align::right, Readers::programs, "p_holm"}};
  t.narrow_gap_when_wide = true;
  t.stacked_label = 5;
  for (std::size_t k = 0; k < changed.size() && k < kMonitorRowsShown; ++k) {
    const auto& m = c.monitors[changed[k]];
    // Counts read as they are (1.23e+05); a time or a size in its reading unit.
    const ReadingScale scale = m.key.unit == "count" ? ReadingScale{} : row_scale(m);
    std::vector<Cell> r(7);
    std::tie(r[0], r[1]) = side_cells(m, true, scale);
    std::tie(r[3], r[4]) = side_cells(m, false, scale);
    r[2] = Cell::number(m.change.pct, "", format_pct(m.change.pct));
    r[5] = monitor_name(m) + (scale.unit.empty() ? "" : " (" + scale.unit + ")");
    r[6] = Cell::number(m.p_holm, "", format_p(m.p_holm));
    t.add_row(std::move(r));
  }
  if (changed.size() > kMonitorRowsShown)
    t.notes.push_back(fmt::format("The {} largest of {} changed monitors shown.", kMonitorRowsShown, changed.size()));
  if (!only_base.empty())
    t.notes.push_back("Moved only in base (its mean there; not compared): " + name_list(only_base) + ".");
  if (!only_cand.empty())
    t.notes.push_back("Moved only in cand (its mean there; not compared): " + name_list(only_cand) + ".");
  if (!untested.empty())
    t.notes.push_back(fmt::format("Too few units to test (a test needs {} a side): {}.", 2, name_list(untested)));
  t.notes.push_back("Monitors: what the kernel counted in each repetition (a delta), tested as their own family: "
                    "an explanation of the verdict, never part of it.");
  if (!changed.empty()) {
    d.tables.push_back(std::move(t));
    return;
  }
  // Nothing changed: the words without an empty table.
  d.closing.push_back("");
  d.closing.push_back(fmt::format("Monitors: none of the {} tested changed beyond noise (Welch, Holm over the "
                                  "monitors; alpha {}).",
                                  tested, c.alpha));
  for (std::size_t i = 0; i + 1 < t.notes.size(); ++i) d.closing.push_back(t.notes[i]);
}

}  // namespace kvmbench
