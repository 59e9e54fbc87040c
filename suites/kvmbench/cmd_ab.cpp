// kvmbench ab --base K --cand K [--base-append ARGS] [--cand-append ARGS]
//             [-n N | -n auto --max-boots K [--max-time T]] [--order abba|random] [--seed S] [--state DIR]
//             [--out DIR] [--junit F] [--markdown F] [--max-regression PCT] [--steady] [--monitors L] [--plan PILOT...]
//             [--boot-via kexec|reboot]
//             -- run SUITE ...
// kvmbench ab --status | --abort | --resume [--state DIR]
// One verdict across boots (ab_driver.h).
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <memory>

#include "analysis/model/text_wrap.h"
#include "analysis/verdicts/ab_experiment.h"
#include "hostlib/state/run_lock.h"
#include "hostlib/state/state_dir.h"
#include "suites/engine/ab_driver.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/pilot_runs.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

namespace {

// `ab -n auto --plan PILOT`: the pilot's plan for a regression of
// --max-regression % (pilot_plan.h) gives each boot's `run` its
// repetitions and the experiment its budget (--max-boots, unless given).
// Refused, exit 2 before anything is written: without -n auto or a margin,
// a command that is not a `run` of the pilot's suite or sets its own -r,
// a pilot of another machine, a plan out of reach.
void start_from_plan(engine::AbRequest& o, const std::vector<std::string>& pilot, const std::string& n_text,
                     int& max_boots) {
  if (n_text != "auto") usage_error("--plan gives -n auto its repetitions and budget: use -n auto with it");
  if (!(o.max_regression_pct > 0))
    usage_error("--plan needs --max-regression M above 0: the regression the plan is made to find");
  if (o.command.empty() || o.command.front() != "run")
    usage_error("--plan sets each boot's `run -r`: the command after -- is not a `run`");
  // -r N, -rN, --repetitions N, --repetitions=N.
  auto sets_repetitions = [](const std::string& w) {
    return (w.rfind("-r", 0) == 0 && (w.size() == 2 || std::isdigit(static_cast<unsigned char>(w[2])))) ||
           w == "--repetitions" || w.rfind("--repetitions=", 0) == 0;
  };
  if (std::any_of(o.command.begin(), o.command.end(), sets_repetitions))
    usage_error("--plan sets each boot's repetitions: the command has its own -r");
  PilotPlanOptions po;
  po.mde_pct = o.max_regression_pct;
  po.alpha = o.alpha;
  const PilotPlan plan = checked_plan(pilot_runs(pilot, "base"), po);
  if (std::find(o.command.begin() + 1, o.command.end(), plan.suite) == o.command.end())
    usage_error(fmt::format("--plan: the pilot's runs are of {}, the command does not run it", plan.suite));
  if (const std::string here = this_machine(); here != plan.machine)
    usage_error(fmt::format("--plan: the pilot ran on machine {}{}, this is {}: plan from runs of this machine",
                            plan.machine, plan.hostname.empty() ? "" : " (" + plan.hostname + ")", here));
  if (!plan.overall)
    usage_error(fmt::format("--plan: a regression of {:g} % at 95 % power is out of reach within {} boots x {} "
                            "repetitions a side at the pilot's spread (`kvmbench plan` shows it)",
                            po.mde_pct, po.most_boots, po.most_repetitions));
  const std::size_t reps = plan.overall->repetitions, boots = std::max<std::size_t>(2, plan.overall->boots);
  o.command.insert(o.command.begin() + 1, {"-r", std::to_string(reps)});
  const bool budget_given = max_boots != 0;
  if (!budget_given) max_boots = static_cast<int>(std::min<std::size_t>(boots, 1000));
  fmt::print(stderr, "{}",
             wrap_text(fmt::format("kvmbench ab: the plan from {} boots of {}: {} boots x {} repetitions a side "
                                   "find a regression of {:g} % with 95 % power; each boot runs `run -r {}`, -n auto "
                                   "within {} boots a side{}",
                                   plan.boots, plan.suite, plan.overall->boots, reps, po.mde_pct, reps, max_boots,
                                   budget_given ? " (--max-boots)" : ""),
                       80, "  "));
}

}  // namespace

void add_ab_command(CLI::App& app) {
  auto o = std::make_shared<engine::AbRequest>();
  auto state = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "ab", "Run a command once per boot, alternately on a base and a candidate kernel (kexec between boots), and "
            "give one verdict with the boot as the unit: exit 0 pass, 1 regression, 3 inconclusive");
  cmd->footer("Exit status: 0 pass; 1 regression; 3 inconclusive; 2 a bad option or an experiment that "
              "cannot run here (checked before the first boot); 75 the run lock is held, or --status while "
              "the experiment runs; 130 interrupted (`kvmbench ab --resume` goes on).");
  cmd->add_option("--base", o->base,
                  "the base kernel: running (default), an installed release, a Debian kernel package (.deb) or a "
                  "bzImage");
  cmd->add_option("--cand", o->cand, "the candidate kernel, as --base");
  cmd->add_option("--base-append", o->base_append, "words added to the base kernel's command line");
  cmd->add_option("--cand-append", o->cand_append,
                  "words added to the candidate's command line (e.g. clearcpuid=flushbyasid, kvm_amd.npt=0)");
  auto n_text = std::make_shared<std::string>("3");
  auto max_boots = std::make_shared<int>(0);
  cmd->add_option("-n", *n_text,
                  "boots a side (default 3, at least 2), or auto: pairs of boots until every primary metric is "
                  "decided against --max-regression (a group-sequential design), within --max-boots");
  cmd->add_option("--max-boots", *max_boots, "with -n auto: the most boots a side (at least 2)");
  cmd->add_option("--max-time", o->max_time_s,
                  "with -n auto: seconds from the start after which no further boot begins (the verdict is given "
                  "on the boots made)");
  cmd->add_option("--order", o->order, "abba (counterbalanced blocks, default) or random (with --seed)")
      ->check(CLI::IsMember({"abba", "random"}));
  cmd->add_option("--seed", o->seed, "the random order's seed (default 1)");
  cmd->add_option("--state", *state,
                  "the experiment's state directory (default $KVMBENCH_AB_STATE, else /var/lib/kvmbench/ab)");
  cmd->add_option("--out", o->out_dir, "where each boot's run goes (default results/runs/<experiment>)");
  cmd->add_option("--junit", o->junit, "write the verdict as JUnit XML here");
  cmd->add_option("--markdown", o->markdown, "write the verdict as Markdown here");
  cmd->add_option("--max-regression", o->max_regression_pct, "allowed regression in percent (default 0); above 0, PASS needs a regression of that much excluded, "
                  "else INCONCLUSIVE (exit 3) with the boots that would decide it");
  cmd->add_option("--alpha", o->alpha, "family-wise significance level (Holm; default 0.05)");
  cmd->add_option("--boot-via", o->boot_via,
                  "kexec (default: kexec-tools jumps into each kernel) or reboot (the boot loader boots it once: "
                  "GRUB's grub-reboot with GRUB_DEFAULT=saved, systemd-boot's bootctl set-oneshot, or UEFI's "
                  "BootNext through efibootmgr; the default entry stays, so a hang comes back in it): for a TDX host, or Secure Boot with an unsigned candidate")
      ->check(CLI::IsMember({"kexec", "reboot"}));
  cmd->add_option("--boot-timeout", o->boot_timeout_s,
                  "seconds a kexec'd kernel has to come back before its boot counts as failed (default 600)");
  cmd->add_option("--step-timeout", o->step_timeout_s,
                  "seconds a boot's command may run; one still running then is stopped (SIGTERM, SIGKILL a minute "
                  "later), its boot failed, and the experiment goes on (default 0: no limit)");
  cmd->add_option("--db", o->db, "import each boot's run into this results database (else $KVMBENCH_DB, if set)");
  cmd->add_flag("--status", o->status,
                "say where the experiment stands; exit 75 while it runs, then the verdict's code (0, 1, 3)");
  cmd->add_flag("--abort", o->abort, "stop the experiment after its current step (the machine ends in base)");
  cmd->add_flag("--resume", o->resume, "go on with the experiment in the state directory (what runs at boot)");
  auto plan_pilot = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--plan", *plan_pilot,
                  "with -n auto: a pilot as `kvmbench plan` takes it (run directories, one per boot, or an ab state "
                  "directory's base boots) of this machine and suite; its plan for a regression of "
                  "--max-regression % at 95 % power sets each boot's repetitions (run -r) and, unless given, "
                  "--max-boots (one directory a --plan; give it again for more)")
      ->allow_extra_args(false);
  auto steady = std::make_shared<bool>(false);
  cmd->add_flag("--steady", *steady,
                "each boot's `run` holds the host still (`run --steady`: free page reporting held off, ASLR off, "
                "the performance governor, THP defrag) and puts it back");
  auto monitors = std::make_shared<std::string>();
  cmd->add_option("--monitors", *monitors,
                  "what each boot's `run` stores beside its figures of what the kernel counted (`run --monitors`): "
                  "off, basic (the run's default) or all; the verdict lists below it those that changed")
      ->check(CLI::IsMember({"off", "basic", "all"}));
  cmd->add_option("command", o->command, "after --: the kvmbench command each boot runs (run SUITE ...)");
  cmd->callback([o, state, n_text, max_boots, steady, monitors, plan_pilot] {
    o->state_dir = host::ab_state_dir(*state);
    // --steady is the boots' `run --steady`: written into the command, so
    // the experiment's record and every boot's meta.json say it.
    if (*steady) {
      if (o->command.empty() || o->command.front() != "run")
        usage_error("--steady holds the host still for `run`: the command after -- is not a `run`");
      if (std::find(o->command.begin(), o->command.end(), "--steady") == o->command.end())
        o->command.insert(o->command.begin() + 1, "--steady");
    }
    // --monitors likewise is the boots' `run --monitors`.
    if (!monitors->empty()) {
      if (o->command.empty() || o->command.front() != "run")
        usage_error("--monitors is what each boot's `run` stores: the command after -- is not a `run`");
      for (std::size_t i = 1; i < o->command.size(); ++i)
        if (o->command[i] == "--monitors" || o->command[i].starts_with("--monitors="))
          usage_error("--monitors is given to ab and to the command after --: give it once");
      o->command.insert(o->command.begin() + 1, {"--monitors", *monitors});
    }
    if (!plan_pilot->empty()) start_from_plan(*o, *plan_pilot, *n_text, *max_boots);
    // -n N or -n auto with its budget; refused before anything is written.
    if (*n_text == "auto") {
      if (*max_boots == 0)
        usage_error("-n auto needs a budget: --max-boots K, the most boots a side (and --max-time T if you like)");
      if (o->order != "abba")
        usage_error("-n auto adds pairs of the ABBA order; --order random fixes every boot in advance");
      o->sequential = true;
      o->n = *max_boots;
    } else {
      if (*max_boots != 0) usage_error("--max-boots is the budget of -n auto; with -n N the boots are N a side");
      std::size_t used = 0;
      long long n = 0;
      try {
        n = std::stoll(*n_text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != n_text->size())
        usage_error(fmt::format("-n {}: a number of boots a side, or auto", *n_text));
      o->n = static_cast<int>(std::clamp<long long>(n, INT_MIN, INT_MAX));
    }
    if (o->db.empty())
      if (const char* d = std::getenv("KVMBENCH_DB"); d && *d) o->db = d;
    // What the state could not keep is refused before anything is written.
    std::vector<std::string> texts = o->command;
    texts.insert(texts.end(), {o->base, o->cand, o->base_append, o->cand_append, o->out_dir, o->junit, o->markdown, o->db});
    ab::check_settings(
        {o->n, o->order, o->max_regression_pct, o->alpha, o->boot_timeout_s, std::move(texts), o->sequential,
         o->max_time_s, o->step_timeout_s});
    // A lock it could never take (a read-only directory, a directory in
    // its place) is bad set-up, exit 2, not busy (which a poller retries):
    // run_ab's RunLockUnusable; a start refused by its checks leaves
    // neither the directory nor the lock file behind.
    const int code = engine::run_ab(*o);
    if (code != kExitOk) throw ExitError(code, "");
  });
}

}  // namespace kvmbench::cli
