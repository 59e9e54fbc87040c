// What `kvmbench run` was asked: the run itself (run_driver.h) and its dry
// run (dry_run.h) both take it. The command line binds its options into a
// RunCommandLine, and checked_run_request turns that into the request.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kvmbench::engine {

struct RunRequest {
  std::string target;     // suite name or "all"
  std::string preset;     // empty: document if supported, else host
  std::string out_root = "results/runs";
  std::string format = "text";
  bool verbose = false;  // every metric's table and the per-case dumps
  // `--monitors off|basic|all`: what the kernel counted in each measured
  // repetition, stored as monitors (hostlib/monitor/repetition_monitors.h).
  std::string monitors = "basic";
  int repetitions = 0;    // 0: the preset's default
  bool adaptive = false;  // -r auto
  int warmup = 0;
  double target_ci_pct = 2.0;
  int max_runs = 30;
  double max_time_s = 600;
  // `--steady`: the host settings that make repetitions differ set for
  // the run and put back (suites/engine/steady_host.h).
  bool steady = false;
  std::map<std::string, std::string> overrides;
  // `--replay DIR`: the document presets read captures from DIR (or
  // DIR/<suite>/) instead of the live host; no host requirement is checked.
  std::string replay_dir;
  // `--dry-run [--host FILE]`: print the plan (dry_run.h) instead of running.
  bool dry_run = false;
  std::string host_file;  // `kvmbench probe --json` of the host to plan for; "": this one
  std::string kmsg_file;  // that host's kernel log as captured (--kmsg); "": /dev/kmsg or the probe's
  // `--wait-lock[=SECONDS]`: how long a live run waits for another one
  // that holds the host's run lock before it exits 75 (busy); nullopt: no
  // limit.
  std::optional<std::chrono::seconds> wait_lock = std::chrono::seconds(0);
};

// `kvmbench run`'s options as the command line gives them: those that are
// the request's values already bind into `request`, the others are the
// words typed, which checked_run_request reads.
struct RunCommandLine {
  RunRequest request;
  std::string repetitions;  // -r: a positive number, "auto", or "" (the preset's)
  int warmup = -1;          // --warmup; -1: none given (0, or 1 with -r auto)
  std::vector<std::string> sets;           // --set NAME=VALUE, in order
  std::string vcpus, bytes, backing, pin;  // -v, -b, -s, -c: --set vcpus=, bytes=, backing=, pin=
  // --wait-lock, a flag (a bare `--wait-lock` never takes the suite name
  // after it as its value): "" not given, "true" bare (no limit), else
  // the SECONDS of `--wait-lock=SECONDS`.
  std::string wait_lock;
};

// The request the command line makes, every option checked, before
// anything runs: -r is a positive number or "auto", --wait-lock=SECONDS
// whole seconds, each --set NAME=VALUE (the shorthands win over a --set of
// their name), and --host and --kmsg come with --dry-run. Throws
// ExitError(2) naming the option. (Parameter values are checked against
// their presets later: suites/framework/param_check.h.)
RunRequest checked_run_request(const RunCommandLine& line);

}  // namespace kvmbench::engine
