// An A/B experiment across boots (`kvmbench ab`): a measuring command run
// once per boot, alternately on a base and a candidate kernel, the boot the
// experimental unit. Pure: the order of the boots, the experiment's record
// (kept as JSON in its state directory, so that it survives every kexec and
// a power loss), and what it has come to.
//
// The order cancels drift (thermal, memory fragmentation, a neighbour's
// load that grows through the day): ABBA blocks by default, so that each
// side is as often first as last in a block (Kalibera and Jones, and the
// ABBA designs of crossover trials); or a random order from a seed, which
// is what a permutation argument needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/kernel_choice.h"
#include "analysis/verdicts/sequential_decision.h"

namespace kvmbench::ab {

enum class Side { base, cand };
std::string_view to_string(Side s);  // "base", "cand"

// The sides of 2n invocations: "abba" (A B B A repeated, cut at 2n: n = 3
// gives A B B A A B) or "random" (n of each, shuffled from `seed`). Throws
// std::invalid_argument for n < 2 or another order.
std::vector<Side> invocation_order(int n, std::string_view order, std::uint64_t seed);

enum class StepStatus {
  pending,    // not reached
  booting,    // kexec into its kernel issued, not yet back
  running,    // its command started on this boot
  done,       // the command stored its run (exit 0)
  failed,     // the command failed, or stored no run
  no_boot,    // its kernel did not come back (another kernel booted, or none in time)
  skipped,    // not run: the experiment was aborted first
};
std::string_view to_string(StepStatus s);
StepStatus step_status_from_name(std::string_view name);  // throws std::invalid_argument

struct Step {
  Side side = Side::base;
  StepStatus status = StepStatus::pending;
  std::string run_dir;      // the run the command stored
  int exit_code = -1;       // the command's
  std::string note;         // why it failed, what booted instead
  std::string boot_id;      // /proc/sys/kernel/random/boot_id of its boot
  std::string release;      // uname -r of its boot
  std::string started_at, ended_at;  // UTC, ISO 8601
  // The partial run of a try the machine went down in (a crash, a power
  // loss): the step is tried once more on a fresh boot of its side; ""
  // when it has not been.
  std::string interrupted_run;
};

enum class Phase {
  running,   // steps left
  returning, // every step ended; kexec back into the base kernel issued
  done,      // ended in the base kernel, the verdict given
};
std::string_view to_string(Phase p);

struct Experiment {
  std::string id;                     // "ab-<UTC time>-<random>"
  std::vector<std::string> command;   // the kvmbench command, as given after --
  KernelChoice base, cand;
  std::string order = "abba";
  std::uint64_t seed = 0;
  int n = 3;
  double max_regression_pct = 0;
  double alpha = 0.05;
  double boot_timeout_s = 600;        // a kexec'd kernel not back by then did not come back
  double step_timeout_s = 0;          // a step's command still running after this is stopped (0: no limit)
  std::string out_dir;                // where the runs go (a directory per step)
  std::string junit, markdown;        // result files ("" for none)
  std::string db;                     // results database for the runs ("" for none)
  std::vector<Step> steps;
  Phase phase = Phase::running;
  bool abort_requested = false;
  // The kexec in flight: the step it boots (-1: back to base), the boot it
  // left and when.
  int kexec_step = -1;
  std::string kexec_from_boot_id, kexec_at;
  // The verdict, once given.
  int result_code = -1;
  std::string verdict_line;
  std::string created_at;
  // -n auto (sequential_decision.h): n is the budget (--max-boots), the
  // order's pairs are run until a look decides, and the steps not needed
  // end as skipped. A look after each pair (one base and one candidate
  // boot), the looks kept so that each later one is judged against the
  // boundaries the earlier ones were.
  bool sequential = false;
  double max_time_s = 0;  // --max-time: no step begins later than this after created_at (0: no limit)
  // How each step's kernel is booted: "kexec" (the default), or "reboot"
  // through the boot loader's one-shot entry (hostlib/state/boot_loader.h).
  std::string boot_via = "kexec";
  std::vector<SequentialLook> looks;

  // The request's identity: what must match for a command to continue
  // this experiment rather than be refused as another one.
  std::string request_key() const;
  std::size_t count(Side s, StepStatus status) const;
  // The first step not yet ended (pending, booting or running); nullopt
  // when all have.
  std::optional<std::size_t> next_step() const;
  // The marker kvmbench puts on the kernel command line of each boot it
  // makes: "kvmbench.ab=<id>:<step>" (step "base" for the way back).
  std::string marker(int step) const;
};

// The most boots a side: 2n must fit an int, and 2,000 boots are weeks of a
// machine already.
inline constexpr int kMaxBootsASide = 1000;

// What a request sets that the state keeps, as the options give it.
struct Settings {
  int n = 3;
  std::string order = "abba";
  double max_regression_pct = 0;
  double alpha = 0.05;
  double boot_timeout_s = 600;
  // Every text the state will hold (the command, kernels, paths, --db):
  // JSON keeps UTF-8 only.
  std::vector<std::string> texts;
  bool sequential = false;  // -n auto: n is --max-boots
  double max_time_s = 0;    // --max-time (0: none)
  double step_timeout_s = 0;  // --step-timeout (0: none)
};

// Throws std::invalid_argument naming the option ("--boot-timeout nan: a
// finite number of seconds > 0") for a setting the state could not keep or
// an experiment could not be: what the command checks before it writes or
// changes anything.
void check_settings(const Settings& s);

// Throws std::invalid_argument naming the state's key for a record that is
// not consistent in itself: a setting check_settings refuses, a text that is
// not UTF-8, an id that is no file name or marker word, 2n steps with n of
// each side, a kexec in flight to a step that exists, a verdict's code once
// the verdict is given. What passes is what experiment_from_json reads back
// from to_json (a round trip to the byte); what it refuses would not be.
void check_experiment(const Experiment& e);

nlohmann::json to_json(const Experiment& e);
// Throws std::invalid_argument naming the key for a malformed record, or one
// check_experiment refuses.
Experiment experiment_from_json(const nlohmann::json& j);

// The step a command line's marker names for experiment `id`: its index,
// -1 for "base", nullopt without a marker of that experiment.
std::optional<int> marked_step(std::string_view proc_cmdline, std::string_view id);

}  // namespace kvmbench::ab
