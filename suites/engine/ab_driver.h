// `kvmbench ab`: one verdict across boots. The measuring command (`run
// SUITE ...`) runs once per boot, alternately on the base and the candidate
// kernel, each boot made with kexec and marked on its command line
// (analysis/verdicts/ab_experiment.h); the experiment lives in a state directory and
// goes on after each boot, from a systemd unit (kvmbench-ab.service) or,
// where systemd is absent, from whatever runs the same command at boot (the
// emulated lab's init does). Then the candidate's boots are compared with
// the base's, the boot the unit, through the gate (analysis/verdicts/gate.h), and
// the machine is booted back into the base kernel.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kvmbench::engine {

struct AbRequest {
  std::string base = "running", cand;
  std::string base_append, cand_append;
  int n = 3;                  // boots a side; with `sequential`, the most (--max-boots)
  bool sequential = false;    // -n auto: pairs of boots until decided
  double max_time_s = 0;      // -n auto --max-time (0: none)
  std::string order = "abba";
  std::uint64_t seed = 1;
  std::filesystem::path state_dir;  // "": $KVMBENCH_AB_STATE, else <state dir>/ab
  std::string out_dir;              // "": results/runs/<experiment id>
  std::string junit, markdown;
  double max_regression_pct = 0;
  double alpha = 0.05;
  double boot_timeout_s = 600;
  double step_timeout_s = 0;        // a boot's command stopped after this long (0: no limit)
  std::string db;                   // "": none (or $KVMBENCH_DB)
  std::vector<std::string> command;  // after --
  std::string boot_via = "kexec";    // or "reboot": through the boot loader (hostlib/state/boot_loader.h)
  bool status = false, abort = false, resume = false;
};

// The whole command: starts an experiment, or goes on with the one in the
// state directory, until this boot's part is done (a kexec, or the end).
// Returns the exit code: 0 pass, 1 regression, 3 inconclusive, 2 bad input
// (before the first kexec, nothing changed); 0 when it leaves for a boot.
int run_ab(const AbRequest& req);

}  // namespace kvmbench::engine
