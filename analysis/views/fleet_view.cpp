#include "analysis/views/fleet_view.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace kvmbench {

Table machine_kinds_table(const std::vector<FleetMachine>& machines) {
  Table t;
  t.title = "# What differs between the machines";
  t.max_text_rows = 0;
  if (machines.size() < 2) return t;
  t.columns = {{"field", Align::left}};
  for (const auto& m : machines) t.columns.push_back({m.hostname + " " + m.identity.fingerprint.substr(0, 8), Align::left});
  // Fields in the order the first machine that has them lists them.
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& m : machines)
    for (const auto& f : m.identity.fields)
      if (seen.insert(f.name).second) names.push_back(f.name);
  for (const auto& name : names) {
    std::vector<std::string> values;
    std::set<std::string> distinct;
    for (const auto& m : machines) {
      const std::string* v = m.identity.field(name);
      values.push_back(v ? *v : "(absent)");
      distinct.insert(values.back());
    }
    if (distinct.size() < 2) continue;
    std::vector<std::string> row = {name};
    row.insert(row.end(), values.begin(), values.end());
    t.add_row(row);
  }
  if (t.rows.empty()) t.notes.push_back("the machines' fingerprints differ in no field they both have");
  return t;
}

Document fleet_document(const std::string& server, const std::vector<std::string>& labels,
                        const std::vector<FleetJobOutcome>& jobs, const std::vector<FleetRun>& runs,
                        const std::vector<FleetMachine>& machines, bool people,
                        const std::vector<FleetVerdict>& verdicts) {
  Document d;
  d.title = "kvmbench fleet";
  std::size_t failed = 0;
  for (const auto& j : jobs) failed += j.ok() ? 0 : 1;
  std::string label_list;
  for (const auto& l : labels) label_list += (label_list.empty() ? "" : ",") + l;
  d.lead.push_back(fmt::format("fleet: {} device{} with the labels {} on {}: {} gave runs, {} failed", jobs.size(),
                               jobs.size() == 1 ? "" : "s", label_list, server, jobs.size() - failed, failed));
  d.lead.push_back(fmt::format("{} run{} from {} machine{}", runs.size(), runs.size() == 1 ? "" : "s",
                               machines.size(), machines.size() == 1 ? "" : "s"));

  Table t;
  t.title = "# Jobs";
  t.max_text_rows = 0;
  t.columns = {{"device", Align::left}, {"job"}, {"health", Align::left}, {"runs"}, {"machine", Align::left}};
  std::vector<std::string> problems;
  for (const auto& j : jobs) {
    std::string device = j.device;
    if (!j.ran_on.empty() && j.ran_on != j.device) device += " (ran on " + j.ran_on + ")";
    // Numbers as numbers for JSON and CSV (a job not submitted has none).
    t.add_row({Cell(device),
               j.job ? Cell::number(static_cast<double>(j.job), "", std::to_string(j.job)) : Cell("-"), Cell(j.health),
               Cell::number(static_cast<double>(j.runs), "", std::to_string(j.runs)),
               Cell(j.machine.empty() ? "-" : j.machine)});
    if (!j.ok())
      problems.push_back(fmt::format("{}{}: {}", j.device, j.job ? fmt::format(" (job {})", j.job) : "", j.problem));
  }
  t.notes = problems;
  d.tables.push_back(std::move(t));

  if (!verdicts.empty()) {
    Table v;
    v.title = "# Verdicts (the boot as the unit)";
    v.max_text_rows = 0;
    v.columns = {{"device", Align::left}, {"boots"}, {"verdict", Align::left}};
    for (const auto& f : verdicts) {
      const char* word = f.code == 0 ? "PASS" : f.code == 1 ? "REGRESSION" : "INCONCLUSIVE";
      v.add_row(std::vector<std::string>{f.device, fmt::format("{}/{}", f.base_boots, f.cand_boots), word});
    }
    v.notes.push_back("boots: base/candidate boots that stored a run, in the order LAVA made them:");
    for (const auto& f : verdicts) v.notes.push_back(fmt::format("  {}: {}", f.device, f.order));
    // What each verdict rests on and excludes: the gate's own lines.
    for (const auto& f : verdicts) {
      v.notes.push_back(f.device + ":");
      for (std::size_t i = 0; i < f.gate.lead.size(); ++i)
        if (!f.gate.lead[i].empty()) v.notes.push_back("  " + f.gate.lead[i]);
    }
    d.tables.push_back(std::move(v));
    for (const auto& f : verdicts)
      for (Table t : f.gate.tables) {
        t.title = fmt::format("{} ({})", t.title, f.device);
        d.tables.push_back(std::move(t));
      }
  } else {
    const auto groups = merge_fleet(runs);
    for (auto& table : people ? fleet_text_tables(groups) : fleet_tables(groups)) d.tables.push_back(std::move(table));
  }
  if (machines.size() > 1) d.tables.push_back(machine_kinds_table(machines));
  return d;
}

}  // namespace kvmbench
