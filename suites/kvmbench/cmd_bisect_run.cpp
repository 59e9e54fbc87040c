// kvmbench bisect-run --good REF --bad REF [--alpha A] [--db DB] -- COMMAND [ARG...]
// For `git bisect run`: runs COMMAND (which builds and boots or measures
// the current commit and leaves its run directory under
// $KVMBENCH_BISECT_OUT), then answers good (exit 0), bad (1) or skip (125)
// from the evidence (analysis/verdicts/bisect_decision.h), never a guess. REF: run
// directories A,B,C of that level, or db[:kernel=R,last=N] (runs of the
// measured machine in the results database).
//
// Exit 128 (not 2) when bisect-run itself cannot work (bad options,
// unreadable references, no database): any code from 1 to 127 but 125
// would tell git the commit is bad, and 128 stops the bisection instead.
// COMMAND failing (it could not build or measure this commit) is a skip;
// COMMAND exiting 75 (busy: another kvmbench run held the run lock) stops
// the bisection with 128 (a skip would drop a commit that was never tried).
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "analysis/verdicts/bisect_decision.h"
#include "analysis/views/bisect_view.h"
#include "analysis/report/render/renderer.h"
#include "analysis/verdicts/compare_input.h"
#include "analysis/verdicts/history_baseline.h"
#include "hostlib/os/tarball.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/db_option.h"
#include "suites/framework/errors.h"
#include "hostlib/os/scoped_temp_dir.h"

namespace kvmbench::cli {

namespace fs = std::filesystem;

namespace {

constexpr int kExitAbortBisect = 128;

[[noreturn]] void abort_bisect(const std::string& why) {
  throw ExitError(kExitAbortBisect, "bisect-run: " + why + " (exit 128: git bisect run stops)");
}

// COMMAND's exit status (128 + signal when killed).
int run_measurement(const std::vector<std::string>& argv, const fs::path& out) {
  const pid_t pid = ::fork();
  if (pid < 0) abort_bisect("fork failed");
  if (pid == 0) {
    ::setenv("KVMBENCH_BISECT_OUT", out.c_str(), 1);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    fmt::print(stderr, "bisect-run: cannot run {}: {}\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A reference as far as it can be read before COMMAND runs: run
// directories loaded, a database opened (its runs are chosen to match the
// candidate, after the measurement). A bad --good or --bad stops the
// bisection before a commit is built and measured for nothing.
struct Reference {
  std::string spec;
  const char* which = "";
  std::optional<ComparisonSide> loaded;  // run directories
};

[[noreturn]] void abort_on_bad_reference(const Reference& r) {
  try {
    throw;
  } catch (const std::exception& e) {
    // Unreadable references stop the bisection; a bug goes on to main,
    // which stops it too, saying it is a bug.
    if (!is_bad_input(std::current_exception())) throw;
    abort_bisect(fmt::format("--{} {}: {}", r.which, r.spec, e.what()));
  }
}

Reference check_reference(const std::string& spec, const char* which, const std::optional<std::string>& db) {
  Reference r{spec, which, std::nullopt};
  try {
    if (parse_baseline_spec(spec))
      open_results_db(db, db::Access::read);
    else
      r.loaded = load_comparison_sides(spec);
  } catch (...) {
    abort_on_bad_reference(r);
  }
  return r;
}

ComparisonSide reference(const Reference& r, const ComparisonSide& cand, const std::vector<std::string>& cand_dirs,
                         const std::optional<std::string>& db) {
  if (r.loaded) return *r.loaded;
  try {
    db::ResultsDb rdb = open_results_db(db, db::Access::read);
    return baseline_from_history(rdb, cand, cand_dirs, *parse_baseline_spec(r.spec), 3).side;
  } catch (...) {
    abort_on_bad_reference(r);
  }
}

}  // namespace

void add_bisect_run_command(CLI::App& app) {
  struct Opts {
    std::string good, bad;
    double alpha = 0.01;
    std::optional<std::string> db;
    std::vector<std::string> command;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("bisect-run", "For git bisect run: measure this commit with COMMAND and answer good "
                                               "(0), bad (1) or skip (125) from the evidence, never a guess");
  cmd->footer("Exit status: 0 good; 1 bad; 125 skip (COMMAND failed, or left no run that reads); 128 "
              "bisect-run itself cannot work (a bad option, a --good or --bad that cannot be read, "
              "checked before COMMAND runs; the run lock held): git bisect run stops.");
  cmd->add_option("--good", o->good, "the good level: run directories A,B,C or db[:kernel=R,last=N]")->required();
  cmd->add_option("--bad", o->bad, "the bad level, as --good")->required();
  cmd->add_option("--alpha", o->alpha, "significance level of each decision (Holm over the metrics)")
      ->capture_default_str();
  add_db_option(cmd, o->db);
  cmd->add_option("COMMAND", o->command,
                  "after --: what measures this commit, leaving its run directory under $KVMBENCH_BISECT_OUT")
      ->required();
  cmd->callback([o] {
    if (!(o->alpha > 0 && o->alpha < 1)) abort_bisect(fmt::format("--alpha must be in (0, 1), not {}", o->alpha));
    std::optional<host::ScopedTempDir> tmp;
    try {
      tmp.emplace("kvmbench-bisect");
    } catch (const std::exception& e) {
      if (!is_bad_input(std::current_exception())) throw;
      abort_bisect(e.what());
    }
    const Reference good_ref = check_reference(o->good, "good", o->db);
    const Reference bad_ref = check_reference(o->bad, "bad", o->db);
    const fs::path& out = tmp->path();
    const int rc = run_measurement(o->command, out);
    // 75: another kvmbench run held the run lock. That says nothing about
    // this commit, and a skip would quietly drop it from the bisection:
    // stop instead, to be run again (or wait: `kvmbench run --wait-lock`).
    if (rc == kExitBusy)
      abort_bisect(fmt::format("{} exited 75: another kvmbench run held the run lock, so this commit was not "
                               "measured; pass --wait-lock to its kvmbench run to wait for the other",
                               o->command[0]));
    if (rc != 0) {
      fmt::print(stderr, "bisect-run: skip: {} exited {}: this commit could not be measured\n", o->command[0], rc);
      throw ExitError(125, "");
    }
    const auto dirs = find_run_directories(out);
    if (dirs.empty()) {
      fmt::print(stderr, "bisect-run: skip: {} left no run directory in $KVMBENCH_BISECT_OUT\n", o->command[0]);
      throw ExitError(125, "");
    }
    std::string joined;
    std::vector<std::string> names;
    for (const auto& d : dirs) {
      joined += (joined.empty() ? "" : ",") + d.string();
      names.push_back(d.filename().string());
    }
    ComparisonSide cand;
    try {
      cand = load_comparison_sides(joined);
    } catch (const std::exception& e) {
      if (!is_bad_input(std::current_exception())) throw;  // a bug is no skip
      fmt::print(stderr, "bisect-run: skip: the measurement cannot be read: {}\n", e.what());
      throw ExitError(125, "");
    }
    const ComparisonSide good = reference(good_ref, cand, names, o->db);
    const ComparisonSide bad = reference(bad_ref, cand, names, o->db);
    BisectDecision d;
    try {
      d = decide_bisect(good, bad, cand, o->alpha);
    } catch (const std::exception& e) {
      if (!is_bad_input(std::current_exception())) throw;
      abort_bisect(e.what());
    }
    fmt::print("{}", render(bisect_document(d), Format::text));
    std::fflush(stdout);
    if (d.answer != BisectAnswer::good) throw ExitError(exit_code(d.answer), "");
  });
}

}  // namespace kvmbench::cli
