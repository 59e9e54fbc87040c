// kvmbench run SUITE|all: run a suite preset (or everything this host
// supports), storing each as a run directory; unsupported parts are skipped
// with the reason. The options bind into an engine::RunCommandLine;
// checked_run_request (engine/run_request.h) checks them together.
#include <fmt/format.h>

#include <memory>

#include "suites/engine/dry_run.h"
#include "suites/engine/run_driver.h"
#include "suites/engine/run_request.h"
#include "suites/framework/errors.h"
#include "suites/framework/suite.h"
#include "suites/kvmbench/commands.h"

namespace kvmbench::cli {

void add_run_command(CLI::App& app) {
  auto line = std::make_shared<engine::RunCommandLine>();
  engine::RunRequest& req = line->request;
  auto* cmd = app.add_subcommand("run", "Run a suite (or all) on this host");
  cmd->add_option("suite", req.target,
                  fmt::format("Suite name ({}) or 'all'", suites::suite_names([](const suites::Suite&) { return true; })))
      ->required();
  cmd->add_option("--preset", req.preset,
                  "Preset: document, host or smoke (default: document where it can run, else host)");
  cmd->add_option("-r,--repetitions", line->repetitions, "Repetitions: a number, or 'auto' (default: the preset's)");
  cmd->add_option("--target-ci", req.target_ci_pct, "-r auto: stop when every primary metric's repeated 95% CI (group-sequential over --max-runs: it "
                  "holds the mean whenever the run stops) is within this % of its mean")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-runs", req.max_runs, "-r auto: at most this many measured repetitions (the repeated CI spends its 5 % over them)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-time", req.max_time_s, "-r auto: stop after this many seconds")->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", line->warmup, "Warm-up repetitions, stored but not summarised (default 0; 1 with -r auto)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out", req.out_root, "Directory that receives the run directories");
  cmd->add_option("--set", line->sets, "Override a preset parameter: NAME=VALUE (see `kvmbench list --params`)");
  cmd->add_option("-v,--vcpus", line->vcpus, "Shorthand for --set vcpus=N");
  cmd->add_option("-b,--bytes", line->bytes, "Shorthand for --set bytes=SIZE");
  cmd->add_option("-s,--backing", line->backing, "Shorthand for --set backing=SRC");
  cmd->add_option("-c,--pin", line->pin, "Shorthand for --set pin=CPULIST");
  cmd->add_option("--replay", req.replay_dir,
                  "Feed the document preset's kernel log, meminfo series and guest consoles from the "
                  "captures in this directory (see tests/data/replay/); runs on any host");
  cmd->add_flag("--dry-run", req.dry_run,
                "Print the plan (each guest's QEMU argv, KVM ioctl sequences, knobs, captures, skips) without "
                "touching the host: no ioctl, knob, QEMU, run directory or lock");
  cmd->add_option("--host", req.host_file,
                  "With --dry-run: plan for the host whose `kvmbench probe --json` output this file holds");
  cmd->add_option("--kmsg", req.kmsg_file,
                  "With --dry-run: that host's kernel log as captured (dmesg or journalctl -k output), read "
                  "instead of /dev/kmsg for what the kernel said (RMPOPT)");
  cmd->add_flag("--wait-lock", line->wait_lock,
                "When another kvmbench run holds this host's run lock, wait for it to finish (at most SECONDS; "
                "bare: no limit) instead of exiting 75 (busy) at once")
      ->option_text("[=SECONDS]");
  cmd->add_option("--format", req.format,
                  "Report format printed after the run: text or md; with --dry-run text or json (each preset, "
                  "whether it would run, the boot it needs, why not)")
      ->check(CLI::IsMember({"text", "md", "json"}));
  cmd->add_option("--monitors", req.monitors,
                  "What the kernel counted in each measured repetition, stored as monitors beside the figures: off, "
                  "basic (/proc/vmstat's fault, THP, compaction, TLB and NUMA counters, KVM's statistics of the VMs "
                  "kvmbench opens; the default) or all (every counter)")
      ->check(CLI::IsMember({"off", "basic", "all"}));
  cmd->add_flag("--steady", req.steady,
                "Hold the host still for the run and put it back after: free page reporting held off, ASLR off, the "
                "performance CPU governor, THP defrag madvise where it is always (not for directmap, which measures "
                "THP); each change, and what was left and why, in meta.json (\"steady\")");
  cmd->add_flag("--verbose", req.verbose,
                "Report: a table for every metric (not only the primary ones) and each case's statistics in full");
  cmd->footer(
      "Exit status: 0 ran; 1 a run failed (its directory says why); 2 a bad option or parameter; 75 busy: another "
      "kvmbench run holds "
      "the run lock (named on stderr; try again, or --wait-lock); 77 nothing can run on this host (why on "
      "stderr); 130 interrupted.");
  cmd->callback([line] {
    const engine::RunRequest req = engine::checked_run_request(*line);
    if (req.format == "json" && !req.dry_run)
      usage_error("--format json is the dry run's (--dry-run): a run's report is text or md");
    if (req.format == "md" && req.dry_run) usage_error("--dry-run prints its plan as text or json, not md");
    // A dry run plans before anything that touches the host.
    const int code = req.dry_run ? engine::plan_suites(req) : engine::run_suites(req);
    if (code != kExitOk) throw ExitError(code, "");
  });
}

}  // namespace kvmbench::cli
