// kvmbench: run, reproduce, ingest, summarise, compare and gate KVM
// memory-management and confidential-computing measurements.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/exit.h"

// KVMBENCH_PARSE_ONLY=1: the command line goes through the real parser
// (options, their checks, required positionals) and nothing runs: exit 0,
// or the usage code with CLI11's message. The job-template test
// (tests/integration/job_templates_test.cpp) runs every kvmbench line of
// deploy/ this way, so that a renamed option fails it without running a
// suite on the test machine.
static void drop_command_callbacks(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->callback(nullptr);
    drop_command_callbacks(*sub);
  }
}

int main(int argc, char** argv) {
  CLI::App app{"kvmbench: KVM memory-management and confidential-computing benchmarks", "kvmbench"};
  app.require_subcommand(1);
  app.fallthrough(false);
  const char* parse_only_env = std::getenv("KVMBENCH_PARSE_ONLY");
  const bool parse_only = parse_only_env && std::string_view(parse_only_env) == "1";
  // Knobs a killed run left changed go back before anything is measured.
  if (!parse_only) kvmbench::cli::restore_knobs_left_by_dead_runs(argc, argv);

  kvmbench::cli::add_version_command(app);
  kvmbench::cli::add_probe_command(app);
  kvmbench::cli::add_restore_command(app);
  kvmbench::cli::add_test_hold_knob_command(app);
  kvmbench::cli::add_test_guest_command(app);
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
  if (parse_only) drop_command_callbacks(app);

  // Under git bisect run, exit 2 would mark the commit bad; 128 stops the
  // bisection instead (cmd_bisect_run.cpp).
  const int usage_code = argc > 1 && std::string_view(argv[1]) == "bisect-run" ? 128 : kvmbench::kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors from CLI11 (unknown option, missing argument, ...).
    app.exit(e);
    return usage_code;
  } catch (const kvmbench::ExitError& e) {
    if (*e.what()) fmt::print(stderr, "kvmbench: {}\n", e.what());
    return e.code;
  } catch (const std::exception& e) {
    // Anything unexpected is reported as bad input, never as a crash.
    fmt::print(stderr, "kvmbench: error: {}\n", e.what());
    return usage_code;
  }
  return kvmbench::kExitOk;
}
