#include "suites/engine/ab_driver.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>

#include "analysis/model/text_wrap.h"
#include "analysis/verdicts/ab_boot.h"
#include "analysis/verdicts/ab_experiment.h"
#include "analysis/report/render/renderer.h"
#include "analysis/verdicts/gate.h"
#include "analysis/verdicts/sequential_gate.h"
#include "analysis/views/compare_view.h"
#include "analysis/views/gate_view.h"
#include "analysis/model/json_input.h"
#include "analysis/store/run_store.h"
#include "hostlib/state/boot_loader.h"
#include "hostlib/state/hang_watchdog.h"
#include "hostlib/state/kexec.h"
#include "hostlib/os/child_process.h"
#include "hostlib/os/scoped_temp_dir.h"
#include "hostlib/state/run_lock.h"
#include "hostlib/state/state_dir.h"
#include "suites/framework/errors.h"
#include "suites/framework/suite.h"
#include "suites/engine/ab_outputs.h"
#include "suites/engine/render_tables.h"

namespace kvmbench::engine {

namespace fs = std::filesystem;
using ab::Experiment;
using ab::Side;
using ab::Step;
using ab::StepStatus;

namespace {

constexpr int kExitInconclusiveAb = kExitInconclusive;

void say(const std::string& text) { fmt::print(stderr, "{}", wrap_text("kvmbench ab: " + text, 80, "    ")); }

// Absolute: the resume unit and each later boot's resume run from /.
fs::path state_dir_of(const AbRequest& req) {
  fs::path dir = host::state_dir() / "ab";
  if (!req.state_dir.empty())
    dir = req.state_dir;
  else if (const char* e = std::getenv("KVMBENCH_AB_STATE"); e && *e)
    dir = e;
  std::error_code ec;
  const fs::path whole = fs::absolute(dir, ec);
  return ec ? dir : whole;
}

fs::path self_exe() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this kvmbench binary (/proc/self/exe): " + ec.message());
  return self;
}

std::optional<Experiment> load_state(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  try {
    return ab::experiment_from_json(parse_json_input(read_file(file)));
  } catch (const JsonInputError& e) {
    usage_error(json_input_message(e, file.string()));
  } catch (const std::exception& e) {
    usage_error(fmt::format("{}: {}", file.string(), e.what()));
  }
}

void save_state(const fs::path& file, const Experiment& e) { write_file_atomic(file, to_json(e).dump(2) + "\n"); }

// Where `ab --abort` leaves its request while a step's command runs (the
// running process holds the state).
fs::path abort_request_file(const fs::path& state_dir) { return state_dir / "abort-requested"; }

// Whether such a request for `e` is there (one for an older experiment is
// not this one's).
bool abort_requested_beside(const Experiment& e, const fs::path& state_dir) {
  std::error_code ec;
  if (!fs::exists(abort_request_file(state_dir), ec)) return false;
  try {
    return read_file(abort_request_file(state_dir)).starts_with(e.id + "\n");
  } catch (const std::exception&) {
    return false;
  }
}

std::string new_id() {
  std::random_device rd;
  return fmt::format("ab-{}-{:04x}", utc_timestamp_compact(), rd() & 0xffff);
}

// The command line a kernel boots with for `step` (-1: the way back).
// Each kernel ab boots gets the words that turn a hang into a reset
// (ab_boot.h's hang_words) after its own.
std::string boot_cmdline(const Experiment& e, const ab::KernelChoice& k, int step) {
  return host::kexec_cmdline(k.cmdline, ab::hang_words(), e.marker(step));
}

// The command after --: a `run` of one suite that stores its run where ab
// says (--out is ab's), checked as a dry run plans it on this machine
// (`--format json`). Returns the words its suite needs on every kernel's
// command line; a command that could not run here for another reason than
// the boot is refused, exit 2, before anything is written.
// $KVMBENCH_AB_DRY_RUN_HOST: a `probe --json` file the dry run describes
// this machine from (the tests' SNP hosts).
std::vector<ab::SuiteBootWord> check_command(const std::vector<std::string>& cmd) {
  if (cmd.empty() || cmd[0] != "run")
    usage_error("the command after -- must be a `run SUITE ...` (it stores the run each boot is judged by)");
  if (cmd.size() < 2 || cmd[1] == "all")
    usage_error("the command after -- runs one suite (`run SUITE ...`), not `run all`: one verdict per experiment");
  for (const auto& w : cmd)
    if (w == "--out" || w.starts_with("--out=") || w == "--dry-run" || w == "--replay" || w.starts_with("--replay=") ||
        w == "--format" || w.starts_with("--format="))
      usage_error(fmt::format("the command after -- may not have {} (ab stores each boot's run itself)", w));
  std::vector<std::string> dry = {self_exe().string()};
  dry.insert(dry.end(), cmd.begin(), cmd.end());
  dry.insert(dry.end(), {"--dry-run", "--format", "json"});
  // A dry run makes no ioctl: it plans with what `probe --json` found on
  // this machine (KVM's answers included), taken first. A probe that
  // fails leaves the plan without them, and its refusals unheeded.
  std::optional<host::ScopedTempDir> probe_dir;
  bool probed = false;
  if (const char* host = std::getenv("KVMBENCH_AB_DRY_RUN_HOST"); host && *host) {
    dry.insert(dry.end(), {"--host", host});
    probed = true;
  } else {
    try {
      probe_dir.emplace("kvmbench-ab-probe");
      const std::string file = (probe_dir->path() / "host.json").string();
      const host::ProgramRun p = host::run_program(
          {"/bin/sh", "-c", "exec \"$0\" probe --json > \"$1\"", self_exe().string(), file}, 120);
      if (p.ok()) {
        dry.insert(dry.end(), {"--host", file});
        probed = true;
      } else {
        say(fmt::format("warning: `kvmbench probe --json` failed ({}): the command's plan is checked without it",
                        p.failure()));
      }
    } catch (const std::exception& e) {
      say(fmt::format("warning: no probe of this machine for the command's plan ({})", e.what()));
    }
  }
  const host::ProgramRun r = host::run_program(dry, 120);
  if (r.exit_code != 0 && r.exit_code != kExitCannotRun)
    usage_error(fmt::format("the command after -- is refused as a dry run: {}", r.failure()));
  // Its output is stdout and stderr together: the JSON document is the
  // lines from a "{" alone to the last "}" alone.
  const std::size_t open = r.output.starts_with("{\n") ? 0 : r.output.find("\n{\n");
  const std::size_t close = r.output.rfind("\n}");
  nlohmann::json plan;
  try {
    if (open == std::string::npos || close == std::string::npos || close < open)
      throw std::runtime_error("no JSON document in: " + r.failure());
    plan = parse_json_input(r.output.substr(open, close + 2 - open));
  } catch (const std::exception& e) {
    usage_error(fmt::format("the command's dry run did not say its plan ({})", e.what()));
  }
  std::vector<ab::SuiteBootWord> needs;
  for (const auto& p : plan.value("presets", nlohmann::json::array())) {
    const std::string who = p.value("suite", "?") + " / " + p.value("preset", "?");
    if (const std::string why = p.value("refusal_besides_boot", ""); probed && !why.empty())
      usage_error(fmt::format("the command after -- cannot run on this machine, whatever the boot ({}: {}): no "
                              "experiment is started",
                              who, why));
    if (const auto& b = p.value("boot", nlohmann::json()); b.is_object() && !b.value("setting", "").empty())
      needs.push_back({b.value("setting", ""), who, b.value("why", "")});
  }
  return needs;
}

// Before anything is written or arranged: whether kexec can take this
// machine into both kernels (analysis/verdicts/ab_boot.h decides, on what
// hostlib/state/kexec.h reads), the static facts first, then a trial load
// and unload of each kernel with the command line it will boot with.
void preflight(const Experiment& e) {
  if (e.boot_via == "reboot") {
    // Through the boot loader: it must offer a one-shot entry, and read
    // both kernels.
    const host::BootLoader b = host::probe_boot_loader();
    for (const ab::KernelChoice* k : {&e.base, &e.cand})
      if (const std::string why = host::reboot_refusal(b, *k); !why.empty())
        usage_error("the boot loader cannot boot this experiment (--boot-via reboot): " + why);
    return;
  }
  const ab::KexecHost h = host::probe_kexec_host();
  std::vector<ab::KexecKernel> kernels = {host::kexec_kernel(e.base, "base"), host::kexec_kernel(e.cand, "cand")};
  if (const auto why = ab::preflight_refusal(h, kernels)) usage_error("kexec cannot boot this experiment: " + *why);
  for (auto& k : kernels) {
    const ab::KernelChoice& choice = k.side == "base" ? e.base : e.cand;
    k.trial_load = host::trial_load(choice, boot_cmdline(e, choice, 0),
                                    ab::use_kexec_file_load(h.lockdown, k.image_signed));
    if (!k.trial_load->empty()) break;
  }
  if (const auto why = ab::preflight_refusal(h, kernels)) usage_error("kexec cannot boot this experiment: " + *why);
}

// `db_secret`: the database's whole location where it holds a password
// (state.json keeps it shown without).
Experiment new_experiment(const AbRequest& req, const fs::path& state_dir, std::string& db_secret) {
  if (req.cand.empty()) usage_error("--cand KERNEL is required (running, a release, a .deb or a bzImage)");
  Experiment e;
  e.id = new_id();
  e.command = req.command;
  e.order = req.order;
  e.seed = req.seed;
  e.n = req.n;
  e.max_regression_pct = req.max_regression_pct;
  e.alpha = req.alpha;
  e.boot_timeout_s = req.boot_timeout_s;
  e.step_timeout_s = req.step_timeout_s;
  e.boot_via = req.boot_via;
  e.sequential = req.sequential;
  e.max_time_s = req.max_time_s;
  if (!(req.max_regression_pct >= 0)) usage_error("--max-regression: a percentage >= 0");
  if (!(req.alpha > 0 && req.alpha < 1)) usage_error("--alpha: between 0 and 1");
  if (req.sequential && req.max_regression_pct == 0)
    say("warning: -n auto with --max-regression 0 passes only on an improvement shown (a regression of 0 % or more "
        "excluded): an A/A experiment spends its budget and ends INCONCLUSIVE; give the regression you would "
        "accept");
  std::vector<Side> order;
  try {
    order = ab::invocation_order(req.n, req.order, req.seed);
  } catch (const std::invalid_argument& ex) {
    usage_error(ex.what());
  }
  for (Side s : order) {
    Step step;
    step.side = s;
    e.steps.push_back(step);
  }
  // The suite's boot needs go onto both kernels' command lines, before
  // the user's words (which may not contradict them).
  const std::vector<ab::SuiteBootWord> needs = check_command(req.command);
  const ab::MergedAppend base_append = ab::merge_boot_words(needs, req.base_append, "--base-append");
  const ab::MergedAppend cand_append = ab::merge_boot_words(needs, req.cand_append, "--cand-append");
  for (const auto* m : {&base_append, &cand_append})
    if (!m->conflict.empty()) usage_error(m->conflict + ": no experiment is started");
  for (const auto& n : needs)
    say(fmt::format("both kernels boot with {}: {} needs it ({})", n.word, n.who, n.why));
  // A .deb is unpacked under the experiment's own folder, removed again
  // where the experiment is refused (a kernel package is some 100 MB).
  const fs::path unpacked = state_dir / "kernels" / e.id;
  try {
    try {
      e.base = host::resolve_kernel(req.base, base_append.append, unpacked);
      e.cand = host::resolve_kernel(req.cand, cand_append.append, unpacked);
    } catch (const std::invalid_argument& ex) {
      usage_error(ex.what());
    }
    preflight(e);
    const AbOutputs out = settle_ab_outputs(
        req.out_dir.empty() ? (fs::path("results/runs") / e.id).string() : req.out_dir, req.junit, req.markdown, req.db);
    e.out_dir = out.out_dir;
    e.junit = out.junit;
    e.markdown = out.markdown;
    e.db = out.db;
    db_secret = out.db_secret;
    // The experiment starts once it is checked (--max-time counts from
    // here: the probe and the command's dry run are no part of it).
    e.created_at = utc_timestamp_iso();
  } catch (...) {
    std::error_code ec;
    fs::remove_all(unpacked, ec);
    if (fs::is_empty(state_dir / "kernels", ec)) fs::remove(state_dir / "kernels", ec);
    throw;
  }
  return e;
}

// The kernel a step (or, for -1, the way back) boots.
const ab::KernelChoice& kernel_of(const Experiment& e, int step) {
  return step >= 0 && e.steps[static_cast<std::size_t>(step)].side == Side::cand ? e.cand : e.base;
}

std::string step_name(const Experiment& e, std::size_t i) {
  return fmt::format("step {} of {} ({})", i + 1, e.steps.size(), to_string(e.steps[i].side));
}

int give_verdict(Experiment& e, const fs::path& state_dir);
void print_verdict(const Experiment& e, const fs::path& state_dir);

// The experiment is over (or never started): nothing goes on at boot, and
// the boot loader has no kvmbench entry left.
void undo_boot_arrangements(const Experiment& e) {
  host::cancel_resume_at_boot();
  host::disarm_hang_watchdog();
  if (e.boot_via == "reboot") host::remove_reboot_entry(host::probe_boot_loader());
}

// Whether no step has run or ended yet: the experiment is only being
// started, and a failed first jump can take it all back.
bool nothing_ran(const Experiment& e) {
  return std::all_of(e.steps.begin(), e.steps.end(), [](const Step& s) {
    return s.status == StepStatus::pending || s.status == StepStatus::booting;
  });
}

// Leaves for the boot of `step` (-1: back to base). Returns when systemd
// does the jump; kexec -e does not return. Throws std::runtime_error when
// the jump is refused (the step left as it was).
void leave_for(Experiment& e, const fs::path& file, int step) {
  const ab::KernelChoice& k = kernel_of(e, step);
  e.kexec_step = step;
  e.kexec_from_boot_id = host::boot_id();
  e.kexec_at = utc_timestamp_iso();
  if (step >= 0) e.steps[static_cast<std::size_t>(step)].status = StepStatus::booting;
  save_state(file, e);
  const std::string cmdline = boot_cmdline(e, k, step);
  say(fmt::format("{}: {} into the {} kernel ({}{}); the experiment goes on after the boot (`kvmbench ab "
                  "--status`)",
                  step >= 0 ? step_name(e, static_cast<std::size_t>(step)) : std::string("the end"),
                  e.boot_via == "reboot" ? "reboot" : "kexec",
                  step >= 0 ? std::string(to_string(e.steps[static_cast<std::size_t>(step)].side)) : "base", k.spec,
                  k.append.empty() ? "" : ", + " + k.append));
  std::fflush(stdout);
  std::fflush(stderr);
  try {
    if (e.boot_via == "reboot")
      host::reboot_into(host::probe_boot_loader(), k, cmdline);
    else
      host::kexec_into(k, cmdline);
  } catch (const std::runtime_error&) {
    if (step >= 0) e.steps[static_cast<std::size_t>(step)].status = StepStatus::pending;
    e.kexec_step = -2;
    e.kexec_from_boot_id.clear();
    throw;
  }
}

// A jump that kexec refused after the experiment began: it cannot go on.
// The steps left are not run, the verdict is given on what ran, and the
// experiment ends here (the resume unit undone), so that --status answers
// the verdict's code, not "running" for ever.
int end_after_refused_jump(Experiment& e, const fs::path& state_dir, const std::string& why) {
  for (auto& s : e.steps)
    if (s.status == StepStatus::pending || s.status == StepStatus::booting) {
      s.status = StepStatus::skipped;
      s.note = "not run: kexec refused the jump (" + why + ")";
    }
  int code = e.result_code;
  if (e.phase != ab::Phase::returning) code = give_verdict(e, state_dir);
  e.phase = ab::Phase::done;
  save_state(state_dir / "state.json", e);
  undo_boot_arrangements(e);
  say(fmt::format("kexec refused a jump ({}), so the experiment ends here; the machine stays in {} until it is "
                  "rebooted",
                  why, host::running_release()));
  print_verdict(e, state_dir);
  return code;
}

// The directory a step's command wrote its run under.
fs::path step_out_dir(const Experiment& e, std::size_t i) {
  return fs::path(e.out_dir) / fmt::format("step{}-{}", i + 1, to_string(e.steps[i].side));
}

// The run an interrupted try left (moved aside, so that the next try's is
// the one stored), or "" where it left none.
std::string stored_partial_run(const Experiment& e, std::size_t i) {
  const fs::path out = step_out_dir(e, i);
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(out, ec)) {
    if (!fs::exists(d.path() / "meta.json", ec)) continue;
    const fs::path aside = out.parent_path() / (out.filename().string() + "-interrupted") / d.path().filename();
    fs::create_directories(aside.parent_path(), ec);
    fs::rename(d.path(), aside, ec);
    return ec ? d.path().string() : aside.string();
  }
  return "";
}

// What this boot is, for an experiment that left for one: the boot it
// asked for, or another (the kernel did not come back: a hang ended by a
// power cycle, a crash, a power loss).
// Returns the step whose own boot this is (-1: none).
int arrive(Experiment& e) {
  if (e.kexec_from_boot_id.empty()) return -1;  // nothing in flight
  const std::string boot = host::boot_id();
  if (boot == e.kexec_from_boot_id) return -1;  // still the boot that asked: go on from it
  const std::optional<int> marked = ab::marked_step(host::proc_cmdline(), e.id);
  const int wanted = e.kexec_step;
  bool came = false;  // the step's own boot, in time
  if (wanted >= 0) {
    Step& s = e.steps[static_cast<std::size_t>(wanted)];
    const std::string now = utc_timestamp_iso();
    // --boot-timeout: the time from the jump to this resume, the boot
    // included (a kernel that came back late is no boot of the step's).
    if (const auto problem = ab::boot_problem(marked == wanted, ab::seconds_between(e.kexec_at, now),
                                              e.boot_timeout_s, host::running_release())) {
      s.status = StepStatus::no_boot;
      s.ended_at = now;
      s.note = *problem;
    } else {
      s.status = StepStatus::running;  // set again by the run below
      came = true;
    }
  }
  e.kexec_step = -2;
  e.kexec_from_boot_id.clear();
  return came ? wanted : -1;
}

// A step that was running when the machine went down (a crash, a power
// loss), other than `came` (the step whose own boot this is): its partial
// run moved aside and named, and the step tried once more on a fresh boot
// of its side; down a second time, it failed (a kernel that crashes under
// the command is no boot to judge).
void after_going_down(Experiment& e, int came) {
  for (std::size_t i = 0; i < e.steps.size(); ++i) {
    Step& s = e.steps[i];
    if (s.status != StepStatus::running || static_cast<int>(i) == came) continue;
    const std::string partial = stored_partial_run(e, i);
    s.ended_at = utc_timestamp_iso();
    if (s.interrupted_run.empty()) {
      s.status = StepStatus::pending;
      s.interrupted_run = partial.empty() ? "none stored" : partial;
      s.note = fmt::format("interrupted: the machine went down while its command ran (crash or power loss; partial "
                           "run: {}); tried again on a fresh boot",
                           s.interrupted_run);
    } else {
      s.status = StepStatus::failed;
      s.note = fmt::format("the machine went down twice while its command ran (partial runs: {}, {})",
                           s.interrupted_run, partial.empty() ? "none stored" : partial);
    }
    s.run_dir.clear();
  }
}

// The one run directory the command stored under `dir`, or "".
std::string stored_run(const fs::path& dir) {
  std::error_code ec;
  std::string found;
  for (const auto& d : fs::directory_iterator(dir, ec))
    if (fs::exists(d.path() / "meta.json", ec)) {
      if (!found.empty()) return "";
      found = d.path().string();
    }
  return found;
}

// The run knows which experiment, side and boot it belongs to.
void tag_run(const fs::path& run, const Experiment& e, std::size_t i) {
  const fs::path meta = run / "meta.json";
  nlohmann::json m = parse_json_input(read_file(meta));
  const ab::KernelChoice& k = kernel_of(e, static_cast<int>(i));
  m["ab"] = {{"experiment", e.id},
             {"side", std::string(to_string(e.steps[i].side))},
             {"step", i},
             {"kernel", k.spec},
             {"append", k.append},
             {"boot_id", e.steps[i].boot_id},
             {"boot", e.boot_via}};
  write_file_atomic(meta, m.dump(2) + "\n");
}

void run_step(Experiment& e, const fs::path& file, std::size_t i) {
  Step& s = e.steps[i];
  s.status = StepStatus::running;
  s.boot_id = host::boot_id();
  s.release = host::running_release();
  s.started_at = utc_timestamp_iso();
  save_state(file, e);
  const fs::path out = step_out_dir(e, i);
  std::error_code ec;
  fs::create_directories(out, ec);
  say(fmt::format("{} on {} (boot {}): kvmbench {}", step_name(e, i), s.release, s.boot_id.substr(0, 8),
                  fmt::join(e.command, " ")));
  std::vector<std::string> argv = {self_exe().string()};
  argv.insert(argv.end(), e.command.begin(), e.command.end());
  argv.insert(argv.end(), {"--out", out.string()});
  // Another run on this machine (a cron job, a second experiment's boot)
  // delays a boot's command instead of failing it: it waits for the run
  // lock, up to an hour, unless the command says how long itself.
  if (std::none_of(e.command.begin(), e.command.end(), [](const std::string& w) { return w.starts_with("--wait-lock"); }))
    argv.push_back("--wait-lock=3600");
  // Ctrl-C reaches the command (same process group) and ends it; this
  // process waits for it and then stops the experiment.
  struct sigaction ignore {}, old_int {}, old_term {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGTERM, &ignore, &old_term);
  bool overran = false;
  s.exit_code = host::run_attached(argv, e.step_timeout_s, &overran);
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  s.ended_at = utc_timestamp_iso();
  s.run_dir = stored_run(out);
  if (overran) {
    // A hung command is this boot's failure, not the experiment's end.
    s.note = fmt::format("the command ran past --step-timeout {:g} s and was stopped (exit {})", e.step_timeout_s,
                         s.exit_code);
    say(fmt::format("{}: {}", step_name(e, i), s.note));
  } else if (s.exit_code == kExitInterrupted) {
    e.abort_requested = true;
    s.note = "interrupted (Ctrl-C): the experiment stops after it";
  }
  if (s.exit_code == 0 && !s.run_dir.empty() && !overran) {
    s.status = StepStatus::done;
  } else {
    s.status = StepStatus::failed;
    if (s.note.empty())
      s.note = s.run_dir.empty() ? fmt::format("the command stored no run (exit {})", s.exit_code)
                                 : fmt::format("the command failed (exit {})", s.exit_code);
  }
  if (!s.run_dir.empty()) {
    try {
      tag_run(s.run_dir, e, i);
    } catch (const std::exception& ex) {
      s.note += (s.note.empty() ? "" : "; ") + std::string("its meta.json could not be tagged: ") + ex.what();
    }
    if (!e.db.empty()) {
      // The location through the environment, not the command line (ps
      // shows that to everyone): it may hold a password.
      const std::string db = db_to_import_into(fs::path(file).parent_path(), e.db);
      const char* before = std::getenv("KVMBENCH_DB");
      const std::string kept = before ? before : "";
      ::setenv("KVMBENCH_DB", db.c_str(), 1);
      const host::ProgramRun imp = host::run_program({self_exe().string(), "db", "import", s.run_dir}, 600);
      if (before)
        ::setenv("KVMBENCH_DB", kept.c_str(), 1);
      else
        ::unsetenv("KVMBENCH_DB");
      if (!imp.ok()) s.note += (s.note.empty() ? "" : "; ") + ("db import failed: " + imp.failure());
    }
  }
  save_state(file, e);
}

// The boots that stored a run, each side merged (a boot one unit: the
// mean of its repetitions), through the gate.
// "; the runs of step 3 (cand): DIR are missing (deleted before the
// verdict: not counted)", or "".
std::string missing_text(const std::vector<std::string>& missing) {
  if (missing.empty()) return "";
  return fmt::format("; the run{} of {} {} missing (deleted before the verdict: not counted)",
                     missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), missing.size() == 1 ? "is" : "are");
}

struct BootsJudged {
  GateResult gate;
  std::size_t base_boots = 0, cand_boots = 0;
  bool usable = false;  // 2 or more boots a side loaded and compared
  bool emulated = false;
  std::vector<std::string> missing;  // "step 3 (cand): DIR": a run gone before the verdict
};

BootsJudged judge_boots(const Experiment& e, GateOptions go) {
  std::vector<ComparisonSide> sides[2];
  std::vector<std::string> problems, missing;
  for (std::size_t i = 0; i < e.steps.size(); ++i) {
    const Step& s = e.steps[i];
    if (s.status != StepStatus::done) continue;
    std::error_code ec;
    if (!fs::exists(fs::path(s.run_dir) / "meta.json", ec)) {
      missing.push_back(fmt::format("step {} ({}): {}", i + 1, to_string(s.side), s.run_dir));
      continue;
    }
    try {
      sides[s.side == Side::cand].push_back(side_from_run(load_run(s.run_dir), s.run_dir));
    } catch (const std::exception& ex) {
      problems.push_back(fmt::format("{}: {}", s.run_dir, ex.what()));
    }
  }
  BootsJudged j;
  j.missing = missing;
  const std::size_t nb = j.base_boots = sides[0].size(), nc = j.cand_boots = sides[1].size();
  if (nb < 2 || nc < 2) {
    j.gate = unusable_gate("base", "cand", go,
                           fmt::format("{} base and {} candidate boots stored a run{}; a verdict needs at least 2 of "
                                       "each",
                                       nb, nc, missing_text(missing)));
    return j;
  }
  try {
    ComparisonSide base = merge_invocations(sides[0]);
    ComparisonSide cand = merge_invocations(sides[1]);
    // Each boot's marker is no difference between the kernels.
    for (ComparisonSide* side : {&base, &cand}) {
      auto& k = side->meta["host"]["kernel"];
      if (k.is_object() && k.contains("cmdline") && k["cmdline"].is_string())
        k["cmdline"] = host::kexec_cmdline(k["cmdline"].get<std::string>(), "", "");
    }
    j.emulated = base.source == Source::emulated || cand.source == Source::emulated;
    go.pipeline_check = j.emulated;
    base.label = fmt::format("{}{} ({} boots)", e.base.spec, e.base.append.empty() ? "" : " + " + e.base.append, nb);
    cand.label = fmt::format("{}{} ({} boots)", e.cand.spec, e.cand.append.empty() ? "" : " + " + e.cand.append, nc);
    // Boots differ by a factor (a busy host slows all of a boot): the
    // gate's default, the test and its CI on the logs (family_verdicts.h).
    // With --max-regression M > 0 a PASS needs a regression of M or
    // more excluded (regression_decision.h); neither shown nor excluded
    // is INCONCLUSIVE, with the boots a side that would decide it.
    j.gate = evaluate_gate(base, cand, go);
    for (const auto& p : problems) j.gate.problems.push_back(p);
    j.usable = true;
  } catch (const std::exception& ex) {
    j.gate = unusable_gate("base", "cand", go, ex.what());
  }
  return j;
}

// -n auto: a look at the boots so far (sequential_decision.h), kept in
// the state. Nothing when the information has not grown since the last
// look (the pair's boots failed) or the gate decided no metric.
void take_look(Experiment& e, const GateResult& g, std::size_t nb, std::size_t nc, bool last) {
  const double information = look_information(nb, nc);
  if (!e.looks.empty() && information <= e.looks.back().information) return;
  const std::vector<MetricEvidence> evidence = sequential_evidence(g);
  if (evidence.empty()) return;
  e.looks.push_back(sequential_look({.most_units = static_cast<double>(e.n), .alpha = e.alpha,
                                     .margin_pct = e.max_regression_pct},
                                    e.looks, information, last, evidence));
}

// The looks, for the verdict's text: one line each.
std::string looks_text(const Experiment& e) {
  std::string out = fmt::format(
      "-n auto: a look after each pair of boots, at most {} a side; Lan-DeMets {} spending of alpha / (2k) for "
      "\"shown\" and alpha / k for \"excluded\" (k = {} metric{}):\n",
      e.n, stats::to_string(kSequentialSpending), e.looks.empty() ? 0 : e.looks.back().metrics.size(),
      !e.looks.empty() && e.looks.back().metrics.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < e.looks.size(); ++i) {
    const SequentialLook& l = e.looks[i];
    std::size_t shown = 0, excluded = 0;
    for (const auto& m : l.metrics) {
      shown += m.finding == MetricFinding::regression_shown;
      excluded += m.finding == MetricFinding::regression_excluded;
    }
    out += fmt::format("  look {}, {:g} boots a side{}: {} shown, {} excluded, {} open -> {}\n", i + 1,
                       l.information, l.last ? " (the last)" : "", shown, excluded,
                       l.metrics.size() - shown - excluded,
                       l.verdict != FamilyVerdict::inconclusive ? std::string(to_string(l.verdict))
                       : l.last                                 ? "INCONCLUSIVE"
                                                                : "go on");
  }
  out += "The tables below are one fixed look's figures at the last boots: after looks their CIs and bounds are "
         "nominal; the verdict is the looks'.\n\n";
  return out;
}

// What a sequential verdict says it excludes, or why it is undecided.
// The boots a side a new fixed experiment (-n N) would need to decide
// every metric the looks left open, if its change and spread stay as
// these boots measured them (the fixed gate's units_to_decide, taken
// before the looks' outcome replaces it); nullopt when one of them no
// number of boots would decide (an estimate at the margin) or none is open.
std::optional<std::size_t> boots_for_a_new_experiment(const GateResult& fixed, const SequentialLook& look) {
  std::optional<std::size_t> most;
  for (const auto& s : look.metrics) {
    if (s.finding != MetricFinding::inconclusive) continue;
    const GateMetric* m = nullptr;
    for (const auto& x : fixed.metrics)
      if (x.decision.key == s.key) m = &x;
    if (!m) return std::nullopt;
    // A metric one fixed look at these boots decides: as many boots again.
    const auto n = m->decision.finding != MetricFinding::inconclusive
                       ? std::optional<std::size_t>(static_cast<std::size_t>(std::ceil(look.information)))
                       : m->decision.units_to_decide;
    if (!n) return std::nullopt;
    most = std::max(most.value_or(0), *n);
  }
  return most;
}

std::string sequential_exclusion(const Experiment& e, const GateResult& g,
                                 std::optional<std::size_t> boots_to_decide) {
  if (e.looks.empty()) return "";
  const SequentialLook& l = e.looks.back();
  const double level = 1 - e.alpha;
  switch (g.status) {
    case GateStatus::pass:
      return fmt::format(": a regression of {:g} % or more is excluded for every metric ({:g} %, after {:g} boots a "
                         "side)",
                         e.max_regression_pct, 100 * level, l.information);
    case GateStatus::fail:
      return fmt::format(" (a regression beyond {:g} % shown after {:g} boots a side)", e.max_regression_pct,
                         l.information);
    default: {
      std::string names;
      std::size_t open = 0;
      for (const auto& m : l.metrics)
        if (m.finding == MetricFinding::inconclusive) names += (open++ ? ", " : "") + m.key;
      const bool one = open == 1;
      const bool spent = l.last && l.information >= e.n - 1e-9;
      return fmt::format(": {} neither shown nor excluded after {:g} boots a side ({}{})", names, l.information,
                         spent ? fmt::format("the budget, --max-boots {}, is spent", e.n)
                         : e.abort_requested ? std::string("stopped by hand")
                                             : std::string("no boot left within the budget"),
                         boots_to_decide
                             ? fmt::format("; a new experiment of {} boots a side (-n {}) would decide {} if the {} "
                                           "stay as measured",
                                           *boots_to_decide, *boots_to_decide, one ? "it" : "them",
                                           one ? "change and spread" : "changes and spreads")
                             : fmt::format("; at {} no number of boots would decide {}",
                                           one ? "this estimate" : "these estimates", one ? "it" : "them"));
    }
  }
}

GateOptions gate_options(const Experiment& e) {
  GateOptions go;
  go.max_regression_pct = e.max_regression_pct;
  go.alpha = e.alpha;
  go.min_n = 2;
  return go;
}

void skip_steps_left(Experiment& e, const std::string& why) {
  for (auto& s : e.steps)
    if (s.status == StepStatus::pending) {
      s.status = StepStatus::skipped;
      s.note = "not run: " + why;
    }
}

// -n auto: a look after each pair of the order (one base and one
// candidate boot); one that decides leaves the steps after it unrun.
void look_after_pair(Experiment& e, const fs::path& file) {
  if (!e.sequential || e.phase != ab::Phase::running || (!e.looks.empty() && e.looks.back().ends())) return;
  const auto ended = std::count_if(e.steps.begin(), e.steps.end(), [](const Step& s) {
    return s.status != StepStatus::pending && s.status != StepStatus::booting && s.status != StepStatus::running;
  });
  if (ended == 0 || ended % 2 != 0) return;
  const BootsJudged j = judge_boots(e, gate_options(e));
  const std::size_t before = e.looks.size();
  if (j.usable) take_look(e, j.gate, j.base_boots, j.cand_boots, !e.next_step());
  if (e.looks.size() == before) return;
  const SequentialLook& l = e.looks.back();
  if (l.ends() && e.next_step())
    skip_steps_left(e, fmt::format("decided after {:g} boots a side ({}, look {})", l.information,
                                   to_string(l.verdict), e.looks.size()));
  say(fmt::format("look {} after {} boots: {:g} a side, {}", e.looks.size(), ended, l.information,
                  l.verdict != FamilyVerdict::inconclusive ? fmt::format("{}: decided", to_string(l.verdict))
                  : l.last                                 ? std::string("INCONCLUSIVE: the budget is spent")
                                                           : std::string("not decided: the next pair follows")));
  save_state(file, e);
}

// -n auto --max-time: whether the time is up for a new step.
bool time_is_up(const Experiment& e) {
  if (!e.sequential || e.max_time_s <= 0) return false;
  const auto took = ab::seconds_between(e.created_at, utc_timestamp_iso());
  return took && *took >= e.max_time_s;
}

// The verdict: the candidate's boots against the base's, each boot one
// unit (the mean of its repetitions), through the gate; printed and kept.
int give_verdict(Experiment& e, const fs::path& state_dir) {
  keep_db_secret(state_dir, "");  // every import is done
  std::error_code gone;
  fs::remove(abort_request_file(state_dir), gone);
  if (const auto why = ab::candidate_never_came_back(e)) {
    e.verdict_line = "kvmbench ab: FAIL: " + *why;
    e.result_code = kExitGateFailed;
    write_file_atomic(state_dir / "verdict.txt", e.verdict_line + "\n");
    GateOptions go;
    go.max_regression_pct = e.max_regression_pct;
    go.alpha = e.alpha;
    const GateResult g = unusable_gate("base", "cand", go, *why);
    try {
      if (!e.junit.empty()) write_file_atomic(e.junit, render(gate_document(g), Format::junit));
      if (!e.markdown.empty()) write_file_atomic(e.markdown, render(gate_document(g), Format::md));
    } catch (const std::exception& ex) {
      say(fmt::format("cannot write the result files: {}", ex.what()));
    }
    return e.result_code;
  }
  const GateOptions go = gate_options(e);
  BootsJudged j = judge_boots(e, go);
  GateResult& g = j.gate;
  const std::size_t nb = j.base_boots, nc = j.cand_boots;
  if (j.usable) {
    try {
      const Comparison& c = g.comparison;
      std::string sequential_lines;
      std::optional<std::size_t> boots_to_decide;
      if (e.sequential) {
        // The verdict is the looks', not one fixed look's at these boots.
        if (e.looks.empty() || !e.looks.back().ends()) take_look(e, g, nb, nc, !e.abort_requested);
        if (!e.looks.empty()) {
          boots_to_decide = boots_for_a_new_experiment(g, e.looks.back());
          apply_sequential_look(g, e.looks.back(), e.max_regression_pct);
        }
        sequential_lines = looks_text(e);
      }
      // Each regressed series as a person names it: its workload first
      // where the suite's case names leave it out (asid's mmap_churn).
      const suites::Suite* suite = suites::find_suite(c.base.suite);
      std::string failed;
      for (const auto& m : g.metrics) {
        if (!m.regressed()) continue;
        const MetricComparison& mc = c.metrics[m.index];
        const std::string_view workload =
            suite && suite->workload_of ? suite->workload_of(mc.key.metric) : std::string_view{};
        failed += fmt::format("{}{}{}", failed.empty() ? "" : ", ", workload.empty() ? "" : fmt::format("{} ", workload),
                              mc.key.name());
      }
      const char* word = g.status == GateStatus::fail ? "REGRESSION" : g.status == GateStatus::pass ? "PASS" : "INCONCLUSIVE";
      const std::size_t k = c.tested_count();
      e.verdict_line = fmt::format(
          "kvmbench ab: {}{}{} ({} base and {} candidate boots, the boot the unit; {} over {} primary metric{}; "
          "allowed regression {}%){}",
          word, failed.empty() ? "" : ": " + failed,
          e.sequential ? sequential_exclusion(e, g, boots_to_decide) : verdict_exclusion(g, "boots"), nb, nc,
          e.sequential ? fmt::format("-n auto, at most {} a side, group-sequential ({} spending)", e.n,
                                     stats::to_string(kSequentialSpending))
                       : std::string("Holm"),
          k, k == 1 ? "" : "s", e.max_regression_pct,
          j.emulated ? " [EMULATED: a functional check of the pipeline, not a performance verdict]" : "");
      e.verdict_line += missing_text(j.missing);
      // The one-line verdict first (one line, whatever its length: it is
      // what a log is searched for), then `compare`'s document in its mail
      // layout.
      write_file_atomic(state_dir / "verdict.txt",
                        e.verdict_line + "\n\n" + sequential_lines + render(comparison_document(c), Format::mail));
    } catch (const std::exception& ex) {
      g = unusable_gate("base", "cand", go, ex.what());
    }
  }
  if (g.status == GateStatus::unusable && e.verdict_line.empty())
    e.verdict_line = fmt::format("kvmbench ab: INCONCLUSIVE: {}", g.problems.empty() ? "" : g.problems.front());
  try {
    // -n auto: the files say that the looks decided, after the headline.
    Document d = gate_document(g);
    if (e.sequential && !e.looks.empty() && g.status != GateStatus::unusable) {
      std::vector<std::string> lines = {e.verdict_line};
      const std::string looks = looks_text(e);
      for (std::size_t at = 0, nl; (nl = looks.find('\n', at)) != std::string::npos; at = nl + 1)
        lines.push_back(looks.substr(at, nl - at));
      d.lead.insert(d.lead.begin() + (d.lead.empty() ? 0 : 1), lines.begin(), lines.end());
    }
    if (!e.junit.empty()) write_file_atomic(e.junit, render(d, Format::junit));
    if (!e.markdown.empty()) write_file_atomic(e.markdown, render(d, Format::md));
  } catch (const std::exception& ex) {
    say(fmt::format("cannot write the result files: {}", ex.what()));
  }
  e.result_code = g.status == GateStatus::pass ? kExitOk
                  : g.status == GateStatus::fail ? kExitGateFailed
                                                 : kExitInconclusiveAb;
  if (!fs::exists(state_dir / "verdict.txt")) write_file_atomic(state_dir / "verdict.txt", e.verdict_line + "\n");
  return e.result_code;
}

void print_verdict(const Experiment& e, const fs::path& state_dir) {
  std::string text;
  try {
    text = read_file(state_dir / "verdict.txt");
  } catch (const std::exception&) {
    text = e.verdict_line + "\n";
  }
  fmt::print("{}", text);
  // Each note once, with the run of steps it is about (-n auto leaves the
  // rest of its budget unrun for one reason).
  for (std::size_t i = 0; i < e.steps.size(); ++i) {
    if (e.steps[i].note.empty()) continue;
    std::size_t last = i;
    while (last + 1 < e.steps.size() && e.steps[last + 1].note == e.steps[i].note) ++last;
    say(last == i ? fmt::format("{}: {}", step_name(e, i), e.steps[i].note)
                  : fmt::format("steps {} to {} of {}: {}", i + 1, last + 1, e.steps.size(), e.steps[i].note));
    i = last;
  }
  std::fflush(stdout);
}

void print_status(const Experiment& e) {
  fmt::print("experiment {} ({}), started {}\n", e.id, to_string(e.phase), e.created_at);
  fmt::print("command: kvmbench {}\n", fmt::join(e.command, " "));
  fmt::print("each boot: + {}; --boot-timeout {:g} s{}\n", ab::hang_words(), e.boot_timeout_s,
             e.step_timeout_s > 0 ? fmt::format("; --step-timeout {:g} s", e.step_timeout_s) : "");
  if (e.sequential)
    fmt::print("-n auto: at most {} boots a side{}, until decided against --max-regression {:g} %\n", e.n,
               e.max_time_s > 0 ? fmt::format(", no boot after {:g} s", e.max_time_s) : "", e.max_regression_pct);
  fmt::print("base: {}{}\ncand: {}{}\n", e.base.spec, e.base.append.empty() ? "" : " + " + e.base.append, e.cand.spec,
             e.cand.append.empty() ? "" : " + " + e.cand.append);
  for (std::size_t i = 0; i < e.steps.size(); ++i) {
    const Step& s = e.steps[i];
    fmt::print("  {:>2}. {:<4} {:<8} {}{}\n", i + 1, to_string(s.side), to_string(s.status), s.run_dir,
               s.note.empty() ? "" : "  (" + s.note + ")");
  }
  for (std::size_t i = 0; i < e.looks.size(); ++i) {
    const SequentialLook& l = e.looks[i];
    fmt::print("  look {}: {:g} boots a side, {}\n", i + 1, l.information,
               l.verdict != FamilyVerdict::inconclusive ? std::string(to_string(l.verdict))
               : l.last                                 ? "INCONCLUSIVE"
                                                        : "not decided");
  }
  if (!e.verdict_line.empty()) fmt::print("{}\n", e.verdict_line);
  if (e.abort_requested && e.phase != ab::Phase::done) fmt::print("abort requested: stops after the current step\n");
}

// The experiment from here to this boot's end of it.
int go_on(Experiment& e, const fs::path& state_dir) {
  const fs::path file = state_dir / "state.json";
  // A step left running by this process itself is never found here: the
  // resume runs at boot, after the command's boot has ended.
  after_going_down(e, arrive(e));
  // A candidate that has never booted is not booted again (each try is a
  // hang or a panic of the machine): the steps left are not run, and the
  // verdict fails with the reason.
  if (const auto why = ab::candidate_never_came_back(e); why && e.phase == ab::Phase::running)
    for (auto& s : e.steps)
      if (s.status == StepStatus::pending) {
        s.status = StepStatus::skipped;
        s.note = "not run: " + *why;
      }
  if (e.phase == ab::Phase::returning) {
    e.phase = ab::Phase::done;
    save_state(file, e);
    undo_boot_arrangements(e);
    print_verdict(e, state_dir);
    return e.result_code;
  }
  for (;;) {
    look_after_pair(e, file);
    const std::optional<std::size_t> next = e.next_step();
    if (abort_requested_beside(e, state_dir)) e.abort_requested = true;
    if (next && e.abort_requested) {
      for (auto& s : e.steps)
        if (s.status == StepStatus::pending || s.status == StepStatus::booting) {
          s.status = StepStatus::skipped;
          s.note = "not run: the experiment was stopped first";
        }
      continue;
    }
    if (!next) break;
    const std::size_t i = *next;
    // Each step on a boot of its own, made for it: the boot is the unit.
    // (A step tried again after the machine went down gets a fresh boot,
    // not the one its interrupted try had.)
    if (ab::marked_step(host::proc_cmdline(), e.id) == static_cast<int>(i) &&
        e.steps[i].status != StepStatus::booting && e.steps[i].boot_id != host::boot_id()) {
      run_step(e, file, i);
      continue;
    }
    if (time_is_up(e)) {
      skip_steps_left(e, fmt::format("--max-time {:g} s reached", e.max_time_s));
      say(fmt::format("--max-time {:g} s reached: no boot after step {}", e.max_time_s, i));
      continue;
    }
    try {
      leave_for(e, file, static_cast<int>(i));
    } catch (const std::runtime_error& ex) {
      if (!nothing_ran(e)) return end_after_refused_jump(e, state_dir, ex.what());
      // The first jump: nothing has happened yet, and nothing is left.
      std::error_code ec;
      fs::remove(file, ec);
      undo_boot_arrangements(e);
      usage_error(e.boot_via == "reboot"
                      ? fmt::format("the first reboot could not be arranged, so the experiment is not started (its "
                                    "state, resume unit and boot entry are removed): {}",
                                    ex.what())
                      : fmt::format("the first kexec failed, so the experiment is not started (its state and resume "
                                    "unit are removed): {}; let the boot loader boot each kernel (`--boot-via reboot`)",
                                    ex.what()));
    }
    return kExitOk;
  }
  const int code = give_verdict(e, state_dir);
  save_state(file, e);
  // Back into the base kernel, as it boots without kvmbench's marker, unless
  // this boot is it; the verdict is printed there, once.
  if (ab::marked_step(host::proc_cmdline(), e.id)) {
    say(e.verdict_line.substr(std::string("kvmbench ab: ").size()) + "; the full verdict follows the boot back");
    e.phase = ab::Phase::returning;
    try {
      leave_for(e, file, -1);
    } catch (const std::runtime_error& ex) {
      return end_after_refused_jump(e, state_dir, ex.what());
    }
    return code;
  }
  e.phase = ab::Phase::done;
  save_state(file, e);
  undo_boot_arrangements(e);
  print_verdict(e, state_dir);
  return code;
}

}  // namespace

int run_ab(const AbRequest& req) {
  const fs::path dir = state_dir_of(req);
  const fs::path file = dir / "state.json";
  if (req.status) {
    auto e = load_state(file);
    if (!e) usage_error(fmt::format("no experiment in {}", dir.string()));
    // An --abort left beside the state while a step runs is this
    // experiment's too.
    if (abort_requested_beside(*e, dir)) e->abort_requested = true;
    print_status(*e);
    // For a job engine that polls: the verdict's code once decided, 75
    // (try again later) until then.
    return e->phase == ab::Phase::done ? e->result_code : kExitBusy;
  }
  std::error_code ec;
  // A start refused by its checks leaves nothing behind: the state
  // directory and its lock file go again where this call made them.
  // (RunLock makes the directory, or says why it cannot.)
  const bool dir_was_there = fs::exists(dir, ec), lock_was_there = fs::exists(dir / "lock", ec);
  // One process acts on an experiment at a time (the unit at boot and a
  // command typed meanwhile).
  std::unique_ptr<host::RunLock> lock;
  struct LeaveNothingOnRefusal {
    const fs::path& dir;
    std::unique_ptr<host::RunLock>& lock;
    bool dir_was_there, lock_was_there;
    bool armed = true;
    const int exceptions = std::uncaught_exceptions();
    ~LeaveNothingOnRefusal() {
      if (!armed || std::uncaught_exceptions() <= exceptions) return;
      std::error_code ignored;
      if (!lock_was_there) fs::remove(dir / "lock", ignored);
      lock.reset();
      if (!dir_was_there) fs::remove(dir, ignored);  // only while empty
    }
  } leave_nothing{dir, lock, dir_was_there, lock_was_there};
  try {
    // --abort does not wait for a step's command to end: where a step is
    // running, it leaves its request beside the state, which the running
    // process reads before it goes on (abort_requested_beside).
    lock = std::make_unique<host::RunLock>(req.abort ? std::chrono::seconds(1) : std::chrono::seconds(30),
                                           "kvmbench ab", dir / "lock");
  } catch (const host::RunLockBusy& ex) {
    if (req.abort) {
      const auto running = load_state(file);
      if (!running || running->phase == ab::Phase::done)
        usage_error(fmt::format("no experiment to stop in {}", dir.string()));
      write_file_atomic(abort_request_file(dir), running->id + "\n");
      say(fmt::format("experiment {} stops after its current step (running now: {})", running->id, ex.what()));
      return kExitOk;
    }
    throw ExitError(kExitBusy, ex.what());
  } catch (const std::exception& ex) {
    usage_error(fmt::format("--state {}: {}", dir.string(), ex.what()));
  }
  std::optional<Experiment> held = load_state(file);
  if (held) leave_nothing.armed = false;  // the directory is an experiment's
  if (req.abort) {
    if (!held || held->phase == ab::Phase::done) usage_error(fmt::format("no experiment to stop in {}", dir.string()));
    held->abort_requested = true;
    save_state(file, *held);
    say(fmt::format("experiment {} stops after its current step", held->id));
    return kExitOk;
  }
  if (req.resume) {
    if (!held) usage_error(fmt::format("--resume: no experiment in {}", dir.string()));
    if (held->phase == ab::Phase::done) {
      print_verdict(*held, dir);
      return held->result_code;
    }
    return go_on(*held, dir);
  }
  if (req.command.empty()) usage_error("give the command to run on each boot after --: `kvmbench ab ... -- run SUITE ...`");
  if (held && held->phase != ab::Phase::done) {
    // The same request goes on with the experiment (the lab's init runs the
    // same command after each boot); another one is refused.
    Experiment asked;
    asked.command = req.command;
    asked.base.spec = req.base;
    asked.base.append = req.base_append;
    asked.cand.spec = req.cand;
    asked.cand.append = req.cand_append;
    asked.order = req.order;
    asked.seed = req.seed;
    asked.n = req.n;
    asked.sequential = req.sequential;
    asked.max_time_s = req.max_time_s;
    if (asked.request_key() != held->request_key())
      usage_error(fmt::format("{} holds another experiment ({}, `kvmbench {}`, started {}): stop it with `kvmbench ab "
                              "--abort`, or give another --state",
                              dir.string(), held->id, fmt::join(held->command, " "), held->created_at));
    return go_on(*held, dir);
  }
  if (held && held->phase == ab::Phase::done && ab::marked_step(host::proc_cmdline(), held->id)) {
    // The boot back into base after the end, with the command run once more.
    print_verdict(*held, dir);
    return held->result_code;
  }
  std::string db_secret;
  Experiment e = new_experiment(req, dir, db_secret);
  if (held) {
    // A finished experiment is kept beside, and a new one begins; never
    // over it.
    fs::rename(file, dir / (held->id + ".json"), ec);
    if (ec)
      usage_error(fmt::format("the finished experiment {} cannot be kept beside as {}: {}; nothing is started",
                              held->id, (dir / (held->id + ".json")).string(), ec.message()));
    fs::rename(dir / "verdict.txt", dir / (held->id + ".verdict.txt"), ec);
  }
  // What runs the next step after each boot: the lab's init runs this
  // command again (it says where the running kernel came from); systemd
  // runs the unit.
  if (!host::init_runs_ab_at_boot()) {
    if (const std::string why = host::arrange_resume_at_boot(self_exe(), dir); !why.empty())
      say(fmt::format("warning: nothing will go on with the experiment after each boot ({}): run `{} ab --resume "
                      "--state {}` at boot yourself (e.g. from /etc/rc.local), or it waits for you",
                      why, self_exe().string(), dir.string()));
  }
  say(host::arm_hang_watchdog());
  keep_db_secret(dir, db_secret);
  save_state(file, e);
  leave_nothing.armed = false;
  say(fmt::format("each kernel boots with `{}` after its own words (a hang or a panic resets the machine, which "
                  "comes back in its default boot entry), and has --boot-timeout {:g} s from the jump to come back",
                  ab::hang_words(), e.boot_timeout_s));
  say(fmt::format("experiment {}: {} boots ({}), `kvmbench {}` on each; state in {}", e.id, e.steps.size(),
                  [&] {
                    std::string o;
                    for (const auto& s : e.steps) o += s.side == Side::base ? 'A' : 'B';
                    return o;
                  }(),
                  fmt::join(e.command, " "), dir.string()));
  return go_on(e, dir);
}

}  // namespace kvmbench::engine
