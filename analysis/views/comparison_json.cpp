#include "analysis/views/comparison_json.h"

#include <cmath>

#include "analysis/verdicts/comparison_bounds.h"
#include "analysis/views/comparison_lead.h"
#include "analysis/views/comparison_notes.h"
#include "analysis/views/comparison_rows.h"
#include "analysis/views/monitors_section.h"

namespace kvmbench {

namespace {

nlohmann::json num_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

// JSON has no NaN or infinity: those values are written as the text
// Google Benchmark writes for them.
nlohmann::json value_json(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
}

nlohmann::json summary_json(const stats::Summary& s, const ExperimentalUnits& u) {
  nlohmann::json values = nlohmann::json::array();
  for (double v : u.values) values.push_back(value_json(v));
  return {{"n", s.n},
          {"mean", value_json(s.mean)},
          {"stddev", num_or_null(s.stddev)},
          {"ci95_low", num_or_null(s.ci95_low)},
          {"ci95_high", num_or_null(s.ci95_high)},
          {"unit_level", to_string(u.level)},
          {"invocations", u.invocations},
          {"repetitions", u.repetitions},
          {"sub_units_per_repetition", u.most_per_repetition},
          {"sub_unit", u.sub_unit_kind},
          {"values", values}};
}

// A side as the comparison tells it: what the user named, what its
// figures are, and the machine and kernel they came from.
nlohmann::json side_json(const ComparedSide& s) {
  nlohmann::json failed = nlohmann::json::array(), not_measured = nlohmann::json::array();
  for (auto& e : s.not_measured) not_measured.push_back({{"case", e.case_name}, {"message", e.message}});
  for (auto& f : s.failed_tests) failed.push_back({{"test", f.test}, {"reason", f.reason}});
  return {{"label", s.label},
          {"source", to_string(s.source)},
          {"status", s.status},
          {"machine", s.machine_line},
          {"fingerprint", s.machine.fingerprint},
          {"kernel", s.kernel},
          {"suite", s.suite},
          {"preset", s.preset},
          {"invocations", s.invocations},
          {"not_measured", not_measured},
          {"failed_tests", failed},
          {"input_notes", s.input_notes}};
}

// One compared metric (or monitor) as a row of the JSON.
nlohmann::json metric_json(const MetricComparison& m) {
  nlohmann::json r = {{"key", m.key.name()},
                      {"case", m.key.case_name},
                      {"variant", m.key.variant},
                      {"metric", m.key.metric},
                      {"unit", m.key.unit},
                      {"direction", to_string(m.direction)},
                      {"base", m.in_base ? summary_json(m.base, m.base_units) : nlohmann::json(nullptr)},
                      {"cand", m.in_cand ? summary_json(m.cand, m.cand_units) : nlohmann::json(nullptr)},
                      {"change_pct", num_or_null(m.change.pct)},
                      {"change_ci95_low", num_or_null(m.change.ci95_low)},
                      {"change_ci95_high", num_or_null(m.change.ci95_high)},
                      {"change_ci_scale", m.change.log_scale ? "log" : "linear"},
                      {"change_ci_level", num_or_null(m.change.level)},
                      {"change_geometric", m.change.geometric},
                      {"p_welch", num_or_null(m.p_welch)},
                      {"p_mann_whitney", num_or_null(m.p_mann_whitney)},
                      {"p_holm", num_or_null(m.p_holm)},
                      {"verdict", stats::to_string(m.verdict)},
                      {"status", to_string(m.status)},
                      {"derived_from", m.derived_from},
                      {"mann_whitney", std::isnan(m.p_mann_whitney) ? nlohmann::json(nullptr)
                                                                     : nlohmann::json(m.mann_whitney_exact
                                                                                          ? "exact"
                                                                                          : "normal approximation")},
                      {"from_aggregates", m.from_aggregates},
                      {"note", m.note}};
  // What the data exclude (comparison_bounds.h); null where not stated,
  // and nothing_excluded where the bound is unbounded.
  r["excluded_beyond_pct"] = num_or_null(m.excluded_beyond_pct);
  r["nothing_excluded"] = says_nothing(m.excluded_beyond_pct, m.direction);
  r["mde_80_pct"] = num_or_null(m.mde_80_pct);
  r["mde_95_pct"] = num_or_null(m.mde_95_pct);
  // Why the side's test failed, where it did: its figures are no good run's.
  if (!m.base_failed.empty()) r["base_failed"] = m.base_failed;
  if (!m.cand_failed.empty()) r["cand_failed"] = m.cand_failed;
  return r;
}

}  // namespace

nlohmann::json comparison_to_json(const Comparison& c) {
  nlohmann::json j;
  j["base"] = side_json(c.base);
  j["cand"] = side_json(c.cand);
  j["source"] = c.source_label();
  j["verdict"] = verdict_line(c);
  j["excluded"] = excluded_line(c);
  j["excluded_level"] = num_or_null(c.bound_level);
  j["alpha"] = c.alpha;
  j["meta_differences"] = nlohmann::json::array();
  for (auto& d : c.meta_differences)
    j["meta_differences"].push_back({{"key", d.key}, {"base", d.base}, {"cand", d.cand}});
  // Where kvmbench never saw a side's host (published output), its
  // configuration is unknown, not the same.
  j["configuration_unknown"] = nlohmann::json::array();
  if (!c.base_host_recorded) j["configuration_unknown"].push_back("base");
  if (!c.cand_host_recorded) j["configuration_unknown"].push_back("cand");
  j["configuration_alike"] = nlohmann::json::object();
  for (auto& d : c.meta_alike) j["configuration_alike"][d.key] = d.base;
  j["metrics"] = nlohmann::json::array();
  for (auto& m : c.metrics) j["metrics"].push_back(metric_json(m));
  // The monitors (counted while the runs measured), tested as their own
  // family: an explanation beside the verdict, never part of it.
  // "changed": beyond noise, as the monitors section lists them.
  j["monitors"] = nlohmann::json::array();
  std::vector<bool> changed(c.monitors.size(), false);
  for (std::size_t i : changed_monitors(c)) changed[i] = true;
  for (std::size_t i = 0; i < c.monitors.size(); ++i) {
    nlohmann::json r = metric_json(c.monitors[i]);
    r["changed"] = changed[i];
    j["monitors"].push_back(std::move(r));
  }
  j["notes"] = experimental_unit_notes(c);
  if (const std::string log = log_scale_note(c); !log.empty()) j["notes"].push_back(log);
  return j;
}

}  // namespace kvmbench
