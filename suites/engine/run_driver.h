// The engine behind `kvmbench run`: resolves suites and presets, probes the
// host once, runs each preset's repetitions into a run directory, and
// reports. Separate from the CLI so tests can call it.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kvmbench::suites {
struct Suite;
}

namespace kvmbench::cli {

struct RunRequest {
  std::string target;     // suite name or "all"
  std::string preset;     // empty: document if supported, else host
  std::string out_root = "results/runs";
  std::string format = "text";
  bool verbose = false;  // every metric's table and the per-case dumps
  int repetitions = 0;    // 0: the preset's default
  bool adaptive = false;  // -r auto
  int warmup = 0;
  double target_ci_pct = 2.0;
  int max_runs = 30;
  double max_time_s = 600;
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

// The suites `target` names (every one for "all"), once the names on the
// command line are known to be good: `preset` ("": any) is a preset of
// one of them and each override a parameter of such a preset. Otherwise a
// usage error that offers the closest valid name where one is close.
std::vector<const suites::Suite*> chosen_suites(const std::string& target, const std::string& preset,
                                                const std::map<std::string, std::string>& overrides);

// Returns the exit code: 0 when something ran, 77 when nothing could,
// 1 when a preset's run failed, 2 on bad parameters, 130 when interrupted; throws
// ExitError 75 when another run holds the run lock past `wait_lock`.
int run_suites(const RunRequest& req);

}  // namespace kvmbench::cli
