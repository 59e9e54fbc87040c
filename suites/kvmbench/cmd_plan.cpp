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

#include "analysis/report/render/renderer.h"
#include "analysis/views/plan_view.h"
#include "suites/framework/errors.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/db_option.h"
#include "suites/kvmbench/pilot_runs.h"

namespace kvmbench::cli {

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
  cmd->footer("Exit status: 0 planned; 2 a bad option, or pilot runs that cannot be read or hold too "
              "little to plan from.");
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
      runs = pilot_runs(o->inputs, o->side);
    }
    const PilotPlan p = checked_plan(runs, o->plan);
    fmt::print("{}", render(plan_document(p), parse_format(o->format)));
  });
}

}  // namespace kvmbench::cli
