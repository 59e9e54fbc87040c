// kvmbench plan [PILOT...] [--side base|cand] [--suite S] [--machine FP|HOST]
//               [--mde PCT] [--power P] [--alpha A] [--boot-seconds S]
//               [--format text|md|csv|json|html] [--db DB]
// The boots x repetitions a side that find a regression of --mde percent
// with --power, in the least time, from a pilot's variance components
// (analysis/verdicts/pilot_plan.h). The pilot is one of:
//   run directories (or directories of runs): one run per boot;
//   an `ab` experiment's state directory (state.json): the runs of its
//     finished boots of one side (--side, base by default);
//   none: the results database (--db, $KVMBENCH_DB, results/kvmbench.db),
//     the complete runs of --suite on this machine (or --machine) of the
//     newest run's kernel and preset.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "analysis/model/json_input.h"
#include "analysis/report/render/renderer.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/store/run_store.h"
#include "analysis/verdicts/ab_experiment.h"
#include "analysis/views/plan_view.h"
#include "hostlib/describe/host_metadata.h"
#include "hostlib/os/tarball.h"
#include "suites/framework/errors.h"
#include "suites/kvmbench/commands.h"
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

}  // namespace

void add_plan_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> inputs;
    std::string side = "base", suite, machine, format = "text";
    std::optional<std::string> db;
    PilotPlanOptions plan;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("plan", "The boots x repetitions a side that find a regression of --mde percent "
                                         "at 95 % power in the least time, from a pilot's variance components");
  cmd->add_option("PILOT", o->inputs,
                  "run directories (one per boot) or directories of runs, or an ab experiment's state directory; "
                  "none: the results database's runs of --suite on this machine");
  cmd->add_option("--side", o->side, "of an ab experiment: the boots of 'base' or 'cand'")
      ->capture_default_str()
      ->check(CLI::IsMember({"base", "cand"}));
  cmd->add_option("--suite", o->suite, "of the results database: the suite");
  cmd->add_option("--machine", o->machine,
                  "of the results database: a fingerprint (or 4+ leading characters) or host name (default: this "
                  "machine)");
  cmd->add_option("--mde", o->plan.mde_pct, "the regression to find, percent")->capture_default_str();
  cmd->add_option("--power", o->plan.power, "the chance to find it")->capture_default_str();
  cmd->add_option("--alpha", o->plan.alpha, "the test's false-alarm rate, two-sided")->capture_default_str();
  cmd->add_option("--boot-seconds", o->plan.extra_boot_s,
                  "what a boot costs besides what a run records (a reboot or kexec), seconds")
      ->capture_default_str();
  cmd->add_option("--format", o->format, "text, md, csv, json or html")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "md", "csv", "json", "html"}));
  add_db_option(cmd, o->db);
  cmd->callback([o] {
    // Options first: nothing is read for a request that cannot be planned.
    if (!std::isfinite(o->plan.mde_pct) || !(o->plan.mde_pct > 0))
      usage_error(fmt::format("--mde {}: a regression to find, percent above 0", o->plan.mde_pct));
    if (!(o->plan.power > 0 && o->plan.power < 1)) usage_error(fmt::format("--power {}: between 0 and 1", o->plan.power));
    if (!(o->plan.alpha > 0 && o->plan.alpha < 1)) usage_error(fmt::format("--alpha {}: between 0 and 1", o->plan.alpha));
    if (!std::isfinite(o->plan.extra_boot_s) || o->plan.extra_boot_s < 0)
      usage_error(fmt::format("--boot-seconds {}: seconds, 0 or more", o->plan.extra_boot_s));
    std::vector<Run> runs;
    if (o->inputs.empty()) {
      runs = db_pilot(o->db, o->suite, o->machine);
    } else {
      if (!o->suite.empty() || !o->machine.empty())
        usage_error("--suite and --machine choose runs in the results database: not with a pilot named");
      for (const auto& input : o->inputs) {
        std::error_code ec;
        if (!fs::is_directory(input, ec)) usage_error(fmt::format("{}: not a directory", input));
        if (fs::exists(fs::path(input) / "state.json", ec)) {
          auto more = ab_pilot(input, o->side);
          if (more.empty())
            usage_error(fmt::format("{}: the experiment has no finished boot of its {} side", input, o->side));
          for (auto& r : more) runs.push_back(std::move(r));
          continue;
        }
        const auto dirs = find_run_directories(input);
        if (dirs.empty()) usage_error(fmt::format("{}: no run directories (no meta.json) in it", input));
        for (const auto& dir : dirs) runs.push_back(load_pilot_run(dir));
      }
    }
    PilotPlan p;
    try {
      p = plan_from_pilot(runs, o->plan);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    } catch (const std::runtime_error& e) {  // merge_invocations: mixed units or sources
      usage_error(e.what());
    }
    fmt::print("{}", render(plan_document(p), parse_format(o->format)));
  });
}

}  // namespace kvmbench::cli
