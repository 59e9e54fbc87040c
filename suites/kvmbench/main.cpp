// kvmbench: run, reproduce, ingest, summarise, compare and gate KVM
// memory-management and confidential-computing measurements.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/exit.h"

int main(int argc, char** argv) {
  CLI::App app{"kvmbench: KVM memory-management and confidential-computing benchmarks", "kvmbench"};
  app.require_subcommand(1);
  app.fallthrough(false);

  kvmbench::cli::add_version_command(app);
  kvmbench::cli::add_reproduce_command(app);
  kvmbench::cli::add_ingest_command(app);
  kvmbench::cli::add_report_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors from CLI11 (unknown option, missing argument, ...).
    app.exit(e);
    return kvmbench::kExitUsage;
  } catch (const kvmbench::ExitError& e) {
    if (*e.what()) fmt::print(stderr, "kvmbench: {}\n", e.what());
    return e.code;
  } catch (const std::exception& e) {
    // Anything unexpected is reported as bad input, never as a crash.
    fmt::print(stderr, "kvmbench: error: {}\n", e.what());
    return kvmbench::kExitUsage;
  }
  return kvmbench::kExitOk;
}
