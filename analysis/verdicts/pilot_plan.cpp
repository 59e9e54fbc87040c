#include "analysis/verdicts/pilot_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/stats/t_power.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/verdicts/compare.h"

namespace kvmbench {

namespace {

std::string where(const Run& r) { return r.dir.filename().string(); }

stats::PlanRequest request(const MetricPlan& m, const PilotPlan& p) {
  stats::PlanRequest r;
  r.components = m.components;
  r.sub_units = std::max(1.0, m.components.mean_sub_units);
  r.target_shift = m.target_shift;
  r.power = p.options.power;
  r.one_sided_error = p.options.alpha / 2;
  r.boot_s = p.boot_s;
  r.repetition_s = p.repetition_s;
  r.most_boots = p.options.most_boots;
  r.most_repetitions = p.options.most_repetitions;
  return r;
}

}  // namespace

PilotPlan plan_from_pilot(const std::vector<Run>& runs, const PilotPlanOptions& opt) {
  if (!(opt.mde_pct > 0) || !std::isfinite(opt.mde_pct))
    throw std::invalid_argument(fmt::format("--mde {}: a regression to find above 0 %", opt.mde_pct));
  if (!(opt.alpha > 0 && opt.alpha < 1)) throw std::invalid_argument(fmt::format("alpha {}: between 0 and 1", opt.alpha));
  if (!(opt.power > opt.alpha / 2 && opt.power < 1))
    throw std::invalid_argument(fmt::format("power {}: between the test's error and 1", opt.power));
  if (!(opt.extra_boot_s >= 0) || !std::isfinite(opt.extra_boot_s))
    throw std::invalid_argument(fmt::format("a boot's extra seconds {}: a number >= 0", opt.extra_boot_s));
  if (runs.size() < 2)
    throw std::invalid_argument(fmt::format("a pilot of {} boot{}: the spread between boots needs at least 2 "
                                            "(runs, one per boot)",
                                            runs.size(), runs.size() == 1 ? "" : "s"));
  PilotPlan p;
  p.options = opt;
  p.boots = runs.size();
  p.suite = runs.front().suite();
  const MachineIdentity first = machine_identity(runs.front().meta);
  if (!first.known())
    throw std::invalid_argument(fmt::format("{}: its metadata does not say which machine it ran on (no CPU): a plan "
                                            "is for one machine",
                                            where(runs.front())));
  p.machine = first.fingerprint;
  std::vector<ComparisonSide> sides;
  for (const Run& r : runs) {
    if (r.suite() != p.suite)
      throw std::invalid_argument(fmt::format("{} is a run of suite '{}' but {} of '{}': a pilot is one suite",
                                              where(r), r.suite(), where(runs.front()), p.suite));
    const MachineIdentity id = machine_identity(r.meta);
    if (id.fingerprint != p.machine)
      throw std::invalid_argument(fmt::format("{} ran on machine {} but {} on {}: a pilot is one machine", where(r),
                                              id.known() ? id.fingerprint : "(unknown)", where(runs.front()),
                                              p.machine));
    const Source src = r.source();
    if (src == Source::emulated || src == Source::model)
      throw std::invalid_argument(fmt::format("{}: source '{}' is no performance figure to plan from", where(r),
                                              to_string(src)));
    if (r.status() != "complete")
      throw std::invalid_argument(fmt::format("{}: status '{}': a pilot's runs must have completed", where(r),
                                              r.status()));
    sides.push_back(side_from_run(r, where(r)));
  }
  if (const auto h = runs.front().meta.find("host");
      h != runs.front().meta.end() && h->is_object() && h->contains("hostname") && (*h)["hostname"].is_string())
    p.hostname = (*h)["hostname"].get<std::string>();
  ComparisonSide pilot = merge_invocations(std::move(sides));
  if (!std::isfinite(pilot.costs.repetition_s) || !std::isfinite(pilot.costs.invocation_s) ||
      !(pilot.costs.repetition_s > 0))
    throw std::invalid_argument("the pilot's runs did not record their seconds (meta.json repetition_seconds and "
                                "invocation_seconds): no cost to plan with");
  p.repetition_s = pilot.costs.repetition_s;
  // A boot's cost may be all but nothing (a run without set-up, no reboot
  // counted); a millisecond keeps it above 0.
  p.boot_s = std::max(1e-3, pilot.costs.invocation_s + opt.extra_boot_s);

  for (const Series& s : pilot.series) {
    if (!pilot.roles.is_primary(s.key.metric) || s.observations.empty()) continue;
    MetricPlan m;
    m.key = s.key;
    m.log_scale = std::all_of(s.observations.begin(), s.observations.end(),
                              [](const Observation& o) { return o.value > 0; });
    std::vector<Observation> obs = s.observations;
    if (m.log_scale)
      for (auto& o : obs) o.value = std::log(o.value);
    m.components = stats::variance_components(obs);
    const auto units = experimental_units(s.observations);
    double sum = 0;
    for (double v : units.values) sum += v;
    m.mean = units.values.empty() ? NAN : sum / static_cast<double>(units.values.size());
    if (!m.components.known) {
      p.notes.push_back(fmt::format("{}: {}", s.key.name(),
                                    m.components.notes.empty() ? "no variance components" : m.components.notes.front()));
      p.metrics.push_back(std::move(m));
      continue;
    }
    m.target_shift = m.log_scale ? std::log1p(opt.mde_pct / 100) : opt.mde_pct / 100 * std::fabs(m.mean);
    if (!(m.target_shift > 0)) {
      p.notes.push_back(fmt::format("{}: a mean of 0 has no percent", s.key.name()));
      p.metrics.push_back(std::move(m));
      continue;
    }
    m.plan = stats::cheapest_plan(request(m, p));
    p.metrics.push_back(std::move(m));
  }
  if (p.metrics.empty())
    throw std::invalid_argument(fmt::format("the pilot's runs of '{}' hold no primary metric to plan for", p.suite));

  // Every metric at once: at each repetition count the most boots any
  // metric needs.
  bool all_plannable = true;
  for (const auto& m : p.metrics) all_plannable = all_plannable && m.components.known && m.target_shift > 0;
  if (all_plannable)
    for (std::size_t reps = 1; reps <= opt.most_repetitions; ++reps) {
      std::size_t boots = 0;
      bool reached = true;
      for (const auto& m : p.metrics) {
        const auto b = stats::fewest_boots(request(m, p), reps);
        if (!b) {
          reached = false;
          break;
        }
        boots = std::max(boots, *b);
      }
      if (!reached) continue;
      const double seconds = 2 * static_cast<double>(boots) * (p.boot_s + static_cast<double>(reps) * p.repetition_s);
      if (p.overall && !(seconds < p.overall->seconds)) continue;
      stats::Plan o{boots, reps, 0, 0, seconds};
      for (const auto& m : p.metrics) {
        const double sd = std::sqrt(stats::unit_variance(m.components, static_cast<double>(reps),
                                                         std::max(1.0, m.components.mean_sub_units)));
        const double shift = stats::detectable_shift(stats::TwoSampleDesign{boots, boots, sd, sd}, opt.power,
                                                     opt.alpha / 2);
        const double pct = m.log_scale ? std::expm1(shift) * 100 : shift / std::fabs(m.mean) * 100;
        o.detectable_shift = std::max(o.detectable_shift, pct);  // percent here
      }
      p.overall = o;
    }
  return p;
}

}  // namespace kvmbench
