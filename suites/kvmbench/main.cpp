// kvmbench: run, reproduce, ingest, summarise, compare and gate KVM
// memory-management and confidential-computing measurements.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string_view>

#include "kvmbench_version.h"

#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"
#include "suites/kvmbench/help_formatter.h"

// KVMBENCH_PARSE_ONLY=1: the command line goes through the real parser
// (options, their checks, required positionals) and nothing runs: exit 0,
// or the usage code with CLI11's message. The job-template test
// (tests/integration/job_templates_test.cpp) runs every kvmbench line of
// lab-jobs/ this way, so that a renamed option fails it without running a
// suite on the test machine. The app's parse-complete callback runs after
// every option is converted and every requirement checked, before any
// command's callback; it ends the parse there. (The commands' callbacks
// stay: they own the option values CLI11 writes into.)
struct ParseOnlyDone {};

int main(int argc, char** argv) {
  CLI::App app{"kvmbench: KVM memory-management and confidential-computing benchmarks", "kvmbench"};
  app.require_subcommand(1);
  app.fallthrough(false);
  // Before the commands: a subcommand copies its parent's formatter.
  app.formatter(std::make_shared<kvmbench::cli::HelpFormatter>());
  app.set_version_flag("--version", "kvmbench " KVMBENCH_VERSION, "Print the kvmbench version and exit");
  const char* parse_only_env = std::getenv("KVMBENCH_PARSE_ONLY");
  const bool parse_only = parse_only_env && std::string_view(parse_only_env) == "1";

  kvmbench::cli::add_help_command(app);
  kvmbench::cli::add_version_command(app);
  kvmbench::cli::add_probe_command(app);
  kvmbench::cli::add_restore_command(app);
  kvmbench::cli::add_test_hold_knob_command(app);
  kvmbench::cli::add_test_guest_command(app);
  kvmbench::cli::add_test_error_command(app);
  kvmbench::cli::add_summarize_command(app);
  kvmbench::cli::add_reproduce_command(app);
  kvmbench::cli::add_ingest_command(app);
  kvmbench::cli::add_report_command(app);
  kvmbench::cli::add_compare_command(app);
  kvmbench::cli::add_gate_command(app);
  kvmbench::cli::add_export_command(app);
  kvmbench::cli::add_merge_command(app);
  kvmbench::cli::add_model_command(app);
  kvmbench::cli::add_list_command(app);
  kvmbench::cli::add_run_command(app);
  kvmbench::cli::add_lab_command(app);
  kvmbench::cli::add_db_command(app);
  kvmbench::cli::add_history_command(app);
  kvmbench::cli::add_bisect_run_command(app);
  kvmbench::cli::add_ab_command(app);
  kvmbench::cli::add_plan_command(app);
  kvmbench::cli::add_fleet_command(app);
  kvmbench::cli::add_complete_command(app);
  if (parse_only) app.parse_complete_callback([] { throw ParseOnlyDone{}; });

  // Under git bisect run, exit 2 (or 70, a bug) would mark the commit bad;
  // 128 stops the bisection instead (cmd_bisect_run.cpp).
  const bool bisecting = argc > 1 && std::string_view(argv[1]) == "bisect-run";
  const int usage_code = bisecting ? 128 : kvmbench::kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const ParseOnlyDone&) {
    return kvmbench::kExitOk;
  } catch (const CLI::ParseError& e) {
    // A mistyped command: CLI11 would only say that a subcommand is
    // required, not which word it could not place, nor what was meant.
    if (const std::string unknown = kvmbench::cli::unknown_command_in(app, argc, argv); !unknown.empty()) {
      fmt::print(stderr, "kvmbench: {}\n", unknown);
      return usage_code;
    }
    // Usage errors from CLI11 (unknown option, missing argument, ...); a
    // mistyped option gets the one it was likely meant to be.
    app.exit(e);
    if (const std::string hint = kvmbench::cli::unknown_option_hint(app, argc, argv); !hint.empty())
      fmt::print(stderr, "kvmbench: {}\n", hint);
    return usage_code;
  } catch (...) {
    const kvmbench::ExitVerdict verdict = kvmbench::exit_verdict(std::current_exception(), usage_code);
    if (!verdict.message.empty()) fmt::print(stderr, "kvmbench: {}\n", verdict.message);
    return bisecting && verdict.code == kvmbench::kExitInternalError ? 128 : verdict.code;
  }
  return kvmbench::kExitOk;
}
