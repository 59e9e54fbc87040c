#include "suites/kvmbench/pilot_runs.h"

#include <fmt/format.h>

#include <filesystem>

#include "analysis/model/json_input.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/verdicts/ab_experiment.h"
#include "hostlib/describe/host_metadata.h"
#include "hostlib/os/tarball.h"
#include "suites/framework/errors.h"
#include "suites/kvmbench/db_option.h"

namespace kvmbench::cli {

namespace fs = std::filesystem;

namespace {

Run load_pilot_run(const fs::path& dir) {
  return naming_bad_input("", [&] {
    Run run = load_run(dir, SampleProvenance::drop);
    if (const auto short_file = check_sample_count(run)) throw std::runtime_error(*short_file);
    return run;
  });
}

// The runs of an ab experiment's finished boots of one side.
std::vector<Run> ab_pilot(const fs::path& state_dir, const std::string& side) {
  const fs::path file = state_dir / "state.json";
  const ab::Experiment e = naming_bad_input(file.string() + ": ", [&] {
    return ab::experiment_from_json(parse_json_input(read_file(file)));
  });
  std::vector<Run> runs;
  for (const auto& s : e.steps) {
    if (s.status != ab::StepStatus::done || s.run_dir.empty()) continue;
    if ((s.side == ab::Side::base) != (side == "base")) continue;
    runs.push_back(load_pilot_run(s.run_dir));
  }
  return runs;
}

}  // namespace

std::string this_machine() {
  host::MetadataOptions m;
  m.probe_kvm = false;
  m.probe_qemu = false;
  m.tsc_calibration_ms = 0;
  const MachineIdentity id = machine_identity(host::collect_metadata(m));
  if (!id.known()) cannot_run("this machine's metadata does not say what its CPU is: name one with --machine");
  return id.fingerprint;
}

// The database's complete runs of the suite on the machine, of the newest
// run's kernel and preset.
std::vector<Run> db_pilot(const std::optional<std::string>& db, const std::string& suite, std::string machine) {
  if (suite.empty()) usage_error("a pilot from the results database needs --suite (or name run directories)");
  db::ResultsDb rdb = open_results_db(db, db::Access::read);
  return naming_bad_input("", [&] {
    if (machine.empty()) {
      machine = this_machine();
    } else {
      // A host name or a fingerprint's 4+ leading characters, as history takes.
      std::vector<std::string> hit;
      for (const auto& m : rdb.machines())
        if (m.fingerprint == machine || m.hostname == machine ||
            (machine.size() >= 4 && m.fingerprint.compare(0, machine.size(), machine) == 0))
          hit.push_back(m.fingerprint);
      if (hit.size() != 1)
        throw std::invalid_argument(fmt::format("{}: --machine {} names {} machines", rdb.name(), machine, hit.size()));
      machine = hit.front();
    }
    db::RunQuery q;
    q.suite = suite;
    q.machine = machine;
    q.status = "complete";
    q.newest_first = true;
    auto newest = rdb.runs(q);
    std::erase_if(newest, [](const db::RunRow& r) { return r.source != "hardware" && r.source != "replay"; });
    if (newest.empty())
      throw std::invalid_argument(fmt::format("{}: no complete runs of {} on machine {}", rdb.name(), suite, machine));
    q.kernel_release = newest.front().kernel_release;
    q.preset = newest.front().preset;
    std::vector<Run> runs;
    for (const auto& r : rdb.runs(q)) {
      if (r.source != "hardware" && r.source != "replay") continue;
      const db::RunRecord rec = rdb.record(r.id);
      std::string lines;
      for (const auto& s : rec.samples) lines += s.line + "\n";
      runs.push_back(run_from_text(rec.dir_name, rec.meta_text, lines, SampleProvenance::drop));
    }
    return runs;
  });
}


std::vector<Run> pilot_runs(const std::vector<std::string>& inputs, const std::string& side) {
  std::vector<Run> runs;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) usage_error(fmt::format("{}: not a directory", input));
    if (fs::exists(fs::path(input) / "state.json", ec)) {
      auto more = ab_pilot(input, side);
      if (more.empty()) usage_error(fmt::format("{}: the experiment has no finished boot of its {} side", input, side));
      for (auto& r : more) runs.push_back(std::move(r));
      continue;
    }
    const auto dirs = find_run_directories(input);
    if (dirs.empty()) usage_error(fmt::format("{}: no run directories (no meta.json) in it", input));
    for (const auto& dir : dirs) runs.push_back(load_pilot_run(dir));
  }
  return runs;
}

PilotPlan checked_plan(const std::vector<Run>& runs, const PilotPlanOptions& options) {
  try {
    return plan_from_pilot(runs, options);
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  } catch (const std::runtime_error& e) {  // merge_invocations: mixed units or sources
    usage_error(e.what());
  }
}

}  // namespace kvmbench::cli
