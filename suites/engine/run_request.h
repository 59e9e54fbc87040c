// What `kvmbench run` was asked: the run itself (run_driver.h) and its dry
// run (dry_run.h) both take it.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace kvmbench::engine {

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

}  // namespace kvmbench::engine
