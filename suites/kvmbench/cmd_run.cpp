// kvmbench run SUITE|all: run a suite preset (or everything this host
// supports), storing each as a run directory; unsupported parts are skipped
// with the reason.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

#include "analysis/store/run_store.h"
#include "hostlib/os/interrupt.h"
#include "kvmbench_version.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"
#include "suites/engine/dry_run.h"
#include "suites/engine/run_driver.h"
#include "suites/framework/suite.h"

namespace kvmbench::cli {

namespace {

struct RunOptions {
  std::string target;
  std::string preset;
  std::string repetitions = "";
  double target_ci_pct = 2.0;
  int max_runs = 30;
  double max_time_s = 600;
  int warmup = -1;
  std::string out = "results/runs";
  std::vector<std::string> sets;
  std::string vcpus, bytes, backing, pin;
  std::string format = "text";
  bool verbose = false;
  std::string replay;
  bool dry_run = false;
  std::string host;
  std::string kmsg;
  std::string wait_lock;  // "": do not wait; "true": bare --wait-lock; else SECONDS
};

// --wait-lock's value: a flag, so that a bare `--wait-lock` never takes the
// suite name after it as its value; SECONDS only as `--wait-lock=SECONDS`.
std::optional<std::chrono::seconds> wait_lock_of(const std::string& value) {
  if (value.empty()) return std::chrono::seconds(0);
  if (value == "true") return std::nullopt;  // CLI11's value for a bare flag
  try {
    std::size_t used = 0;
    const long long s = std::stoll(value, &used);
    if (used == value.size() && s >= 0) return std::chrono::seconds(s);
  } catch (const std::exception&) {
  }
  usage_error(fmt::format("--wait-lock={}: SECONDS is a whole number of seconds (bare --wait-lock: no limit)", value));
}

}  // namespace

void add_run_command(CLI::App& app) {
  static RunOptions o;
  auto* cmd = app.add_subcommand("run", "Run a suite (or all) on this host");
  cmd->add_option("suite", o.target,
                  fmt::format("Suite name ({}) or 'all'", suites::suite_names([](const suites::Suite&) { return true; })))
      ->required();
  cmd->add_option("--preset", o.preset,
                  "Preset: document, host or smoke (default: document where it can run, else host)");
  cmd->add_option("-r,--repetitions", o.repetitions, "Repetitions: a number, or 'auto' (default: the preset's)");
  cmd->add_option("--target-ci", o.target_ci_pct, "-r auto: stop when every primary metric's 95% CI half-width is within this % of its mean")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-runs", o.max_runs, "-r auto: at most this many measured repetitions")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-time", o.max_time_s, "-r auto: stop after this many seconds")->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", o.warmup, "Warm-up repetitions, stored but not summarised (default 0; 1 with -r auto)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out", o.out, "Directory that receives the run directories");
  cmd->add_option("--set", o.sets, "Override a preset parameter: NAME=VALUE (see `kvmbench list --params`)");
  cmd->add_option("-v,--vcpus", o.vcpus, "Shorthand for --set vcpus=N");
  cmd->add_option("-b,--bytes", o.bytes, "Shorthand for --set bytes=SIZE");
  cmd->add_option("-s,--backing", o.backing, "Shorthand for --set backing=SRC");
  cmd->add_option("-c,--pin", o.pin, "Shorthand for --set pin=CPULIST");
  cmd->add_option("--replay", o.replay,
                  "Feed the document preset's kernel log, meminfo series and guest consoles from the "
                  "captures in this directory (see tests/data/replay/); runs on any host");
  cmd->add_flag("--dry-run", o.dry_run,
                "Print the plan (each guest's QEMU argv, KVM ioctl sequences, knobs, captures, skips) without "
                "touching the host: no ioctl, knob, QEMU, run directory or lock");
  cmd->add_option("--host", o.host,
                  "With --dry-run: plan for the host whose `kvmbench probe --json` output this file holds");
  cmd->add_option("--kmsg", o.kmsg,
                  "With --dry-run: that host's kernel log as captured (dmesg or journalctl -k output), read "
                  "instead of /dev/kmsg for what the kernel said (RMPOPT)");
  cmd->add_flag("--wait-lock", o.wait_lock,
                "When another kvmbench run holds this host's run lock, wait for it to finish (at most SECONDS; "
                "bare: no limit) instead of exiting 75 (busy) at once")
      ->option_text("[=SECONDS]");
  cmd->add_option("--format", o.format, "Report format printed after the run: text or md")
      ->check(CLI::IsMember({"text", "md"}));
  cmd->add_flag("--verbose", o.verbose,
                "Report: a table for every metric (not only the primary ones) and each case's statistics in full");
  cmd->footer(
      "Exit status: 0 ran; 1 a run failed (its directory says why); 2 a bad option or parameter; 75 busy: another "
      "kvmbench run holds "
      "the run lock (named on stderr; try again, or --wait-lock); 77 nothing can run on this host (why on "
      "stderr); 130 interrupted.");
  cmd->callback([] {
    engine::RunRequest req;
    req.target = o.target;
    req.preset = o.preset;
    req.out_root = o.out;
    req.format = o.format;
    req.verbose = o.verbose;
    req.replay_dir = o.replay;
    req.dry_run = o.dry_run;
    req.host_file = o.host;
    req.kmsg_file = o.kmsg;
    req.wait_lock = wait_lock_of(o.wait_lock);
    if (!o.host.empty() && !o.dry_run) usage_error("--host FILE plans for another host: it needs --dry-run");
    if (!o.kmsg.empty() && !o.dry_run)
      usage_error("--kmsg FILE plans with a captured kernel log: it needs --dry-run (a run reads /dev/kmsg)");
    req.target_ci_pct = o.target_ci_pct;
    req.max_runs = o.max_runs;
    req.max_time_s = o.max_time_s;
    if (o.repetitions == "auto") {
      req.adaptive = true;
      req.warmup = o.warmup < 0 ? 1 : o.warmup;
    } else {
      req.warmup = o.warmup < 0 ? 0 : o.warmup;
      if (!o.repetitions.empty()) {
        try {
          std::size_t used = 0;
          int r = std::stoi(o.repetitions, &used);
          if (used != o.repetitions.size() || r < 1) throw std::invalid_argument("");
          req.repetitions = r;
        } catch (const std::exception&) {
          usage_error(fmt::format("-r: '{}' is neither a positive number nor 'auto'", o.repetitions));
        }
      }
    }
    for (const auto& s : o.sets) {
      auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0) usage_error(fmt::format("--set '{}': expected NAME=VALUE", s));
      req.overrides[s.substr(0, eq)] = s.substr(eq + 1);
    }
    if (!o.vcpus.empty()) req.overrides["vcpus"] = o.vcpus;
    if (!o.bytes.empty()) req.overrides["bytes"] = o.bytes;
    if (!o.backing.empty()) req.overrides["backing"] = o.backing;
    if (!o.pin.empty()) req.overrides["pin"] = o.pin;
    // A dry run plans before anything that touches the host.
    int code = req.dry_run ? engine::plan_suites(req) : engine::run_suites(req);
    if (code != kExitOk) throw ExitError(code, "");
  });
}

}  // namespace kvmbench::cli
