#include "analysis/views/plan_view.h"

#include <fmt/format.h>

#include <cmath>

#include "analysis/report/numbers.h"

namespace kvmbench {

std::string format_duration(double s) {
  if (!std::isfinite(s)) return "n/a";
  if (s < 120) return format_reading(s) + " s";
  if (s < 7200) return format_reading(s / 60) + " min";
  return format_reading(s / 3600) + " h";
}

namespace {

// A component as the reader compares it: the sd as a percent of the level
// (of the logs: about the CV), or in the metric's unit.
std::string spread(const MetricPlan& m, double variance) {
  const double sd = std::sqrt(std::max(0.0, variance));
  if (m.log_scale) return format_reading(sd * 100, 2) + "%";
  return format_reading(sd, 3);
}

// The detectable regression in percent.
double pct_of(const MetricPlan& m, double shift) {
  return m.log_scale ? std::expm1(shift) * 100 : shift / std::fabs(m.mean) * 100;
}

}  // namespace

Document plan_document(const PilotPlan& p) {
  Document d;
  d.title = "kvmbench plan";
  d.source = "hardware";
  const auto& o = p.options;
  // The user's own figures as given ("5", not format_number's "5.000").
  const std::string goal = fmt::format("a regression of {:g}% found with {:g}% power (two-sided test at {:g})",
                                       o.mde_pct, o.power * 100, o.alpha);
  if (p.overall)
    d.lead.push_back(fmt::format("PLAN: {} boots x {} repetitions a side ({} boots, about {}) for {}",
                                 p.overall->boots, p.overall->repetitions, 2 * p.overall->boots,
                                 format_duration(p.overall->seconds), goal));
  else
    d.lead.push_back(fmt::format("NO PLAN: {} is out of reach within {} boots x {} repetitions a side", goal,
                                 o.most_boots, o.most_repetitions));
  d.lead.push_back(fmt::format("pilot: {} boots of {} on {}{}; a repetition {}, a boot {} besides", p.boots, p.suite,
                               p.hostname.empty() ? "" : p.hostname + " ", p.machine, format_duration(p.repetition_s),
                               format_duration(p.boot_s)));
  Table t;
  t.title = "# Variance components (sd; % of the level for positive metrics) and the cheapest design per metric";
  t.source = "hardware";
  t.columns = {{"metric", Align::left}, {"boots"}, {"reps"}, {"within"}, {"boot sd"},
               {"a side"}, {"MDE"}, {"time"}};
  for (const auto& m : p.metrics) {
    std::vector<Cell> row{m.key.name()};
    if (!m.components.known) {
      row.insert(row.end(), {"n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"});
      t.rows.push_back(std::move(row));
      continue;
    }
    row.push_back(Cell::number(std::sqrt(m.components.between_boots), "", spread(m, m.components.between_boots)));
    row.push_back(
        Cell::number(std::sqrt(m.components.between_repetitions), "", spread(m, m.components.between_repetitions)));
    row.push_back(Cell::number(std::sqrt(m.components.within_repetition), "", spread(m, m.components.within_repetition)));
    const double unit_var = stats::unit_variance(m.components, std::max(1.0, m.components.mean_repetitions),
                                                 std::max(1.0, m.components.mean_sub_units));
    row.push_back(Cell::number(std::sqrt(unit_var), "", spread(m, unit_var)));
    if (m.plan) {
      row.push_back(fmt::format("{} x {}", m.plan->boots, m.plan->repetitions));
      const double pct = pct_of(m, m.plan->detectable_shift);
      row.push_back(Cell::number(pct, "%", format_reading(pct, 2) + "%"));
      row.push_back(Cell::number(m.plan->seconds, "s", format_duration(m.plan->seconds)));
    } else {
      row.insert(row.end(), {"out of reach", "", ""});
    }
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("boots, reps, within: between boots, between repetitions of a boot, within a repetition "
                    "(Kalibera and Jones, ISMM 2013); boot sd: a pilot boot's mean.");
  t.notes.push_back("a side: boots x repetitions per boot; MDE: the regression it finds with the power asked; time: "
                    "both sides.");
  d.tables.push_back(std::move(t));
  for (const auto& m : p.metrics)
    for (const auto& n : m.components.notes) d.closing.push_back(fmt::format("{}: {}", m.key.name(), n));
  for (const auto& n : p.notes) d.closing.push_back(n);
  if (p.overall)
    d.closing.push_back(fmt::format("run it: kvmbench ab -n {} ... -- run {} -r {} ...", p.overall->boots, p.suite,
                                    p.overall->repetitions));
  return d;
}

}  // namespace kvmbench
