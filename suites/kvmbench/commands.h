// Each kvmbench subcommand lives in its own cmd_<name>.cpp and registers
// itself on the CLI11 app here. A callback ends normally for exit 0 and
// throws ExitError (exit.h) for anything else.
#pragma once

#include <CLI/CLI.hpp>

namespace kvmbench::cli {

void add_version_command(CLI::App& app);
void add_reproduce_command(CLI::App& app);
void add_ingest_command(CLI::App& app);
void add_report_command(CLI::App& app);

}  // namespace kvmbench::cli
