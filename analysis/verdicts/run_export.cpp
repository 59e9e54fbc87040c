#include "analysis/verdicts/run_export.h"

#include <cmath>

#include <fmt/format.h>

#include "analysis/verdicts/compare.h"
#include "analysis/model/experimental_unit.h"
#include "analysis/stats/positive_ci.h"

namespace kvmbench {

std::string_view to_string(ExportResult r) {
  switch (r) {
    case ExportResult::pass: return "pass";
    case ExportResult::fail: return "fail";
    case ExportResult::skip: return "skip";
  }
  return "?";
}

std::string_view to_string(ExportVerdict v) {
  switch (v) {
    case ExportVerdict::ok: return "ok";
    case ExportVerdict::failed: return "failed";
    case ExportVerdict::inconclusive: return "inconclusive";
  }
  return "?";
}

static std::string text_of(const nlohmann::json& meta, std::initializer_list<const char*> path) {
  const nlohmann::json* p = &meta;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return "";
    p = &(*p)[k];
  }
  return p->is_string() ? p->get<std::string>() : "";
}

ExportedRun export_run(const Run& run, std::string name) {
  ExportedRun e;
  e.name = std::move(name);
  e.suite = run.suite();
  e.status = run.status();
  e.source = std::string(to_string(run.source()));
  e.preset = text_of(run.meta, {"preset"});
  e.tool_version = text_of(run.meta, {"tool_version"});
  e.hostname = text_of(run.meta, {"hostname"});
  e.kernel = text_of(run.meta, {"host", "kernel", "release"});
  e.start_time = text_of(run.meta, {"start_time"});
  e.end_time = text_of(run.meta, {"end_time"});
  e.error = text_of(run.meta, {"error"});
  if (const auto& sp = run.meta.value("skipped_parts", nlohmann::json()); sp.is_array())
    for (const auto& p : sp)
      if (p.is_object())
        e.skipped.push_back({p.value("part", std::string("?")), p.value("reason", std::string())});

  // The series and roles as compare and gate read them: the same units.
  const ComparisonSide side = side_from_run(run, e.name);
  for (const auto& s : side.series) {
    const bool monitor = side.roles.is_monitor(s.key.metric);
    if (!monitor && !side.roles.is_primary(s.key.metric)) continue;
    ExportedMetric m;
    m.key = s.key;
    const ExperimentalUnits u = experimental_units(s.observations);
    m.unit_level = std::string(to_string(u.level));
    std::vector<double> finite;
    for (double v : u.values)
      if (std::isfinite(v)) finite.push_back(v);
    m.units = finite.size();
    if (!finite.empty()) m.summary = stats::summarize(finite);
    if (monitor) {
      // A count of the kernel's, beside the figures: nothing to pass.
      e.monitors.push_back(std::move(m));
      continue;
    }
    // A time or a rate has no CI below zero: where the t interval would
    // reach there, the geometric one (positive_ci.h).
    if (finite.size() >= 2 && positive_unit(m.key.unit)) {
      const MeanCi ci = mean_ci95(finite, true);
      m.summary.ci95_low = ci.low;
      m.summary.ci95_high = ci.high;
      if (ci.too_few) {
        m.result = ExportResult::skip;
        m.message = fmt::format("2 {}s spread so far apart that no CI of this positive quantity holds", m.unit_level);
      }
    }
    if (finite.size() < 2) {
      m.result = ExportResult::skip;
      m.message = finite.empty() ? "no finite value" : fmt::format("1 {}: too few for a CI", m.unit_level);
    }
    e.metrics.push_back(std::move(m));
  }
  return e;
}

ExportVerdict export_verdict(const std::vector<ExportedRun>& runs) {
  bool inconclusive = runs.empty();
  for (const auto& r : runs) {
    if (r.status == "failed") return ExportVerdict::failed;
    if (r.status != "complete" || r.metrics.empty()) inconclusive = true;
    for (const auto& m : r.metrics) inconclusive |= m.result != ExportResult::pass;
  }
  return inconclusive ? ExportVerdict::inconclusive : ExportVerdict::ok;
}

}  // namespace kvmbench
